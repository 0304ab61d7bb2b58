"""Builds bwgemm's PyTorch operators (docs/pytorch.md):

    pip install --no-build-isolation ./python

  bwgemm_torch/_bwgemm_ops_cpu*.so   always: the schemas and the CPU kernels (bwgemm's sm_100a kernels in the
                                     CPU emulator, compiled from ../include and ../src/emu as host C++)
  bwgemm_torch/_bwgemm_ops_cuda*.so  where PyTorch is a CUDA build and nvcc is found: the CUDA kernels, for
                                     the architectures in BWGEMM_CUDA_ARCHS (default "90a;100a": H100/H200 and
                                     B200; "a" targets are not forward compatible, so list each GPU you run on)

--no-build-isolation: the extension must be built against the torch that will import it (an isolated build
would download another). Environment: BWGEMM_TORCH_CUDA=0 skips the CUDA library; CUDA_HOME locates the
toolkit, whose headers (cuda.h, cuda_fp16.h, cuda_fp4.h ...) the CPU build needs too; MAX_JOBS bounds ninja."""
import glob
import os

from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INCLUDE = os.path.join(ROOT, "include")
# The architectures bwgemm ships kernels for: sm_90a (Hopper fp16/bf16 kernels) and sm_100a (Blackwell).
SUPPORTED_ARCHS = ("90a", "100a")


def cuda_include():
    if CUDA_HOME is None or not os.path.exists(os.path.join(CUDA_HOME, "include", "cuda.h")):
        raise RuntimeError("bwgemm_torch needs the CUDA toolkit's headers (cuda.h, cuda_fp16.h) even for the CPU "
                           "build; set CUDA_HOME to the toolkit (12.8 or newer)")
    return os.path.join(CUDA_HOME, "include")


def arch_flags():
    archs = [a.strip() for a in os.environ.get("BWGEMM_CUDA_ARCHS", ";".join(SUPPORTED_ARCHS)).split(";") if a.strip()]
    unknown = [a for a in archs if a not in SUPPORTED_ARCHS]
    if unknown or not archs:
        raise RuntimeError(f"BWGEMM_CUDA_ARCHS: {unknown or archs} not among {SUPPORTED_ARCHS}")
    return [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]


# Host flags of both libraries: PyTorch's headers need C++20; kernels compiled as host C++ keep #pragma unroll
# (g++ warns); -Wno-psabi: 64-byte-aligned CUtensorMap parameters (cmake/BwgemmEmu.cmake).
CXX_FLAGS = ["-std=c++20", "-fvisibility=hidden", "-Wno-unknown-pragmas", "-Wno-psabi"]

# PyTorch's extension flags define these, which remove cuda_fp16.h's / cuda_bf16.h's operators and
# conversions that bwgemm's headers use; undefined again here (after PyTorch's flags on the command line).
TORCH_HALF_DEFINES_UNDONE = ["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                             "-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__"]

extensions = [
    CppExtension(
        "bwgemm_torch._bwgemm_ops_cpu",
        sources=["csrc/ops_cpu.cpp"] + sorted(glob.glob(os.path.join(ROOT, "src", "emu", "*.cpp"))),
        include_dirs=[INCLUDE, cuda_include()],
        define_macros=[("BWGEMM_EMULATION", "1")],
        # -O1: the emulated kernels run as fast as at -O3 and compile in half the time (cmake/BwgemmTesting.cmake).
        extra_compile_args={"cxx": CXX_FLAGS + ["-O1"]},
        libraries=["pthread"],
    )
]

if os.environ.get("BWGEMM_TORCH_CUDA", "1") != "0" and torch.version.cuda is not None and CUDA_HOME is not None:
    extensions.append(
        CUDAExtension(
            "bwgemm_torch._bwgemm_ops_cuda",
            sources=["csrc/ops_cuda.cu"],
            include_dirs=[INCLUDE],
            extra_compile_args={"cxx": CXX_FLAGS + ["-O2"],
                                "nvcc": ["-std=c++20", "-O2", "--threads=2", "-Xcompiler=-fvisibility=hidden"] +
                                        TORCH_HALF_DEFINES_UNDONE + arch_flags()},
        ))

setup(
    name="bwgemm_torch",
    version="0.1.0",
    description="bwgemm's NVFP4 / fp16 / bf16 GEMM and gated dual GEMM kernels as PyTorch operators",
    packages=["bwgemm_torch"],
    ext_modules=extensions,
    cmdclass={"build_ext": BuildExtension},
    python_requires=">=3.9",
    install_requires=["torch>=2.8"],
)
