// Umbrella header of the sm_100a PTX primitive layer (see docs/ptx.md).
#pragma once

#include <bwgemm/isa/descriptors.hpp>
#include <bwgemm/isa/types.hpp>
#include <bwgemm/ptx/clc.cuh>
#include <bwgemm/ptx/cluster.cuh>
#include <bwgemm/ptx/global.cuh>
#include <bwgemm/ptx/griddepcontrol.cuh>
#include <bwgemm/ptx/math.cuh>
#include <bwgemm/ptx/mbarrier.cuh>
#include <bwgemm/ptx/misc.cuh>
#include <bwgemm/ptx/tcgen05.cuh>
#include <bwgemm/ptx/tma.cuh>
