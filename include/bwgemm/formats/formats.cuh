// Umbrella header of the formats layer.
#pragma once

#include "bwgemm/formats/e2m1.cuh"
#include "bwgemm/formats/e4m3.cuh"
#include "bwgemm/formats/fp16.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/formats/ue8m0.cuh"
