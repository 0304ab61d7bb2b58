"""bwgemm's kernels as PyTorch operators (torch.ops.bwgemm), docs/pytorch.md.

On CUDA tensors the operators run bwgemm's kernels (sm_100a on a B200, sm_90a on an H100/H200); on CPU tensors
they run the sm_100a kernels in bwgemm's CPU emulator (slow: shapes of a few hundred rows), so code and tests
run without a GPU. Every operator has a fake implementation for torch.compile.

    import torch, bwgemm_torch
    d = bwgemm_torch.gemm(a, w)                           # a [M, K], w [N, K] (nn.Linear weight): a @ w.T
    c = bwgemm_torch.dual_gemm(x, w_gate, w_up)           # silu(x @ w_gate.T) * (x @ w_up.T), fp16/bf16
    xq, xs = bwgemm_torch.quantize_nvfp4(x, global_scale) # float4_e2m1fn_x2 data, float8_e4m3fn blocked scales
    c = bwgemm_torch.dual_gemm_nvfp4(xq, xs, g, gs, u, us, alpha1=..., alpha2=...)
    d = bwgemm_torch.gemm_nvfp4(xq, xs, wq, ws, alpha=...)  # NVFP4 A @ W.T
    bwgemm_torch.load_tuning_file("h200.json")            # bwgemm-tune's table for the CUDA operators
"""
import glob
import os

import torch

__all__ = [
    "gemm",
    "dual_gemm",
    "dual_gemm_fused",
    "dual_gemm_nvfp4",
    "gemm_nvfp4",
    "quantize_nvfp4",
    "quantize_nvfp4_grouped",
    "grouped_mm",
    "grouped_dual_mm",
    "grouped_mm_nvfp4",
    "grouped_dual_mm_nvfp4",
    "quantize_nvfp4_experts",
    "blocked_scale_elements",
    "split_gate_up_nvfp4",
    "STATUS_OFFSET_DECREASING",
    "STATUS_OFFSET_PAST_TOTAL",
    "STATUS_COUNT_NEGATIVE",
    "STATUS_COUNT_ABOVE_MAX",
    "has_cuda_kernels",
    "load_tuning_file",
]


def _load_libraries():
    """Loads the CPU library (schemas + CPU kernels), then the CUDA one if it was built.

    They are looked for in $BWGEMM_TORCH_LIBRARY_DIR (the CMake build's python/lib, used by the tests), then
    beside this file (pip install ./python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [d for d in (os.environ.get("BWGEMM_TORCH_LIBRARY_DIR"), here) if d]

    def find(stem):
        for d in dirs:
            hits = sorted(glob.glob(os.path.join(d, stem + "*.so")))
            if hits:
                return hits[0]
        return None

    cpu = find("_bwgemm_ops_cpu")
    if cpu is None:
        raise ImportError(
            "bwgemm_torch: the operator library _bwgemm_ops_cpu*.so is not in " + " or ".join(dirs) +
            "; install the package with `pip install ./python` (or build the CMake target bwgemm_torch_cpu and "
            "set BWGEMM_TORCH_LIBRARY_DIR to its directory)")
    torch.ops.load_library(cpu)
    cuda = find("_bwgemm_ops_cuda")
    if cuda is not None:
        torch.ops.load_library(cuda)
    return cuda is not None


_HAS_CUDA_KERNELS = _load_libraries()

from . import _fake  # noqa: E402  (registers the fake implementations; needs the schemas loaded above)


def _scale(value):
    """A per-tensor scale as (host float, device tensor or None): a Python number is the host value; a
    one-element float32 tensor on the operands' device is read by the kernel when it runs (host part 1), so a
    captured CUDA graph uses the value it holds at replay (bwgemm's device-pointer scales, docs/api.md)."""
    if isinstance(value, torch.Tensor):
        return 1.0, value
    return float(value), None


def has_cuda_kernels():
    """True if the package was built with its CUDA library (nvcc and a CUDA PyTorch at install time)."""
    return _HAS_CUDA_KERNELS


def load_tuning_file(path, device=None):
    """Installs a tuning file (docs/tuning.md; written by bwgemm-tune) for the CUDA operators on `device` (a CUDA
    device; default the current one): from then on gemm and dual_gemm there take their kernel from its table where
    it has the call's key, and the built-in choice elsewhere. The variable BWGEMM_TUNING_FILE does the same at the
    operators' first call.

    Raises ValueError with the reason where the file is refused (measured on another GPU or another CUDA or bwgemm
    version, malformed, naming an unknown Config); the table installed before stays. Raises RuntimeError where
    this install has no CUDA library: the CPU operators run the emulator with the built-in choice."""
    if not _HAS_CUDA_KERNELS:
        raise RuntimeError(
            "bwgemm_torch.load_tuning_file: this install has no CUDA library (built without nvcc or a CUDA "
            "PyTorch), and the CPU operators (the CPU emulator) take the built-in kernel choice")
    dev = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
    if dev.type != "cuda":
        raise ValueError(f"bwgemm_torch.load_tuning_file: device must be a CUDA device (got {dev})")
    why = torch.ops.bwgemm.install_tuning_file(torch.empty(0, device=dev), os.fspath(path))
    if why:
        raise ValueError(why)


def gemm(a, b, *, alpha=1.0, beta=0.0, c=None, out_dtype=None):
    """d = alpha * a @ b.T + beta * c. a [M, K] fp16/bf16; b [N, K] (an nn.Linear weight) of a's dtype;
    c [M, N] of the output dtype (a's dtype, or out_dtype=torch.float32). alpha and beta: numbers or
    one-element float32 tensors on the operands' device (read when the kernel runs)."""
    alpha, alpha_t = _scale(alpha)
    beta, beta_t = _scale(beta)
    return torch.ops.bwgemm.gemm(a, b, alpha, beta, c, out_dtype, alpha_t, beta_t)


def dual_gemm(a, b1, b2, *, alpha1=1.0, alpha2=1.0):
    """c = silu(alpha1 * a @ b1.T) * (alpha2 * a @ b2.T), all fp16 or all bf16; b1 (gate) and b2 (up) [N, K].

    CUDA: the fused kernels of bwgemm::dual_gemm (sm_90a on an H100/H200, sm_100a on a B200).
    CPU: the fused sm_100a kernel in the CPU emulator. alpha1, alpha2: numbers or one-element float32 tensors
    on the operands' device (read when the kernel runs)."""
    alpha1, alpha1_t = _scale(alpha1)
    alpha2, alpha2_t = _scale(alpha2)
    return torch.ops.bwgemm.dual_gemm(a, b1, b2, alpha1, alpha2, alpha1_t, alpha2_t)


def dual_gemm_fused(a, w_gate_up, *, alpha1=1.0, alpha2=1.0):
    """dual_gemm with the fused [gate; up] weight of shape [2N, K] (gate rows first, as vLLM's
    MergedColumnParallelLinear and Hugging Face's fused gate_up_proj store it): no copy, two row views."""
    n = w_gate_up.shape[0] // 2
    if w_gate_up.dim() != 2 or 2 * n != w_gate_up.shape[0]:
        raise ValueError(f"bwgemm.dual_gemm_fused: w_gate_up must be [2N, K] (got shape {tuple(w_gate_up.shape)})")
    return dual_gemm(a, w_gate_up[:n], w_gate_up[n:], alpha1=alpha1, alpha2=alpha2)


def dual_gemm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, *, alpha1=1.0, alpha2=1.0, out_dtype=None):
    """c = silu(alpha1 * A @ B1.T) * (alpha2 * A @ B2.T) on NVFP4 operands (sm_100a; CPU tensors: the emulator).

    Data [rows, K/2] float4_e2m1fn_x2 or uint8 (element 2i in the low nibble); scales float8_e4m3fn or uint8
    in the 128x4 blocked layout (to_blocked's), blocked_scale_elements(rows, K) of them. alpha1/alpha2 are the
    products of the operands' decode global scales (bwgemm's convention: value = e2m1 * e4m3 * global_scale).
    M >= 1, N % 16 == 0, K % 64 == 0. out_dtype float16 (default) or bfloat16. alpha1, alpha2: numbers or
    one-element float32 tensors on the operands' device (read when the kernel runs)."""
    alpha1, alpha1_t = _scale(alpha1)
    alpha2, alpha2_t = _scale(alpha2)
    return torch.ops.bwgemm.dual_gemm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, alpha1, alpha2, out_dtype,
                                            alpha1_t, alpha2_t)


def gemm_nvfp4(a, a_scales, b, b_scales, *, alpha=1.0, beta=0.0, c=None, out_dtype=None):
    """d = alpha * A @ B.T + beta * c on NVFP4 operands (sm_100a; CPU tensors: the emulator; Hopper raises
    not-supported): the qkv / o / down projections of an NVFP4 model.

    a [M, K/2] and b [N, K/2] (an nn.Linear weight) with their blocked scales, as for dual_gemm_nvfp4; alpha
    the product of A's and B's decode global scales. M >= 1, N % 16 == 0, K % 64 == 0. out_dtype float16
    (default), bfloat16 or float32; c [M, N] of that dtype. alpha, beta: numbers or one-element float32
    tensors on the operands' device (read when the kernel runs)."""
    alpha, alpha_t = _scale(alpha)
    beta, beta_t = _scale(beta)
    return torch.ops.bwgemm.gemm_nvfp4(a, a_scales, b, b_scales, alpha, beta, c, out_dtype, alpha_t, beta_t)


def quantize_nvfp4(x, global_scale=1.0):
    """x [rows, K] fp32/fp16/bf16 -> (data [rows, K/2] float4_e2m1fn_x2, scales 1-D float8_e4m3fn, blocked).

    global_scale is the decode scale (x ~ e2m1 * e4m3 * global_scale), e.g. amax / (448 * 6); engines that
    pass the encode scale 448 * 6 / amax pass its reciprocal here. A one-element float32 tensor on x's device
    is read when the kernel runs (a scale computed on the GPU, no synchronization)."""
    global_scale, global_scale_t = _scale(global_scale)
    return torch.ops.bwgemm.quantize_nvfp4(x, global_scale, global_scale_t)


def quantize_nvfp4_grouped(x, offs, global_scale=1.0):
    """A mixture-of-experts layer's routed tokens x [T, K] (sorted by expert; offs: E int32 cumulative row ends,
    as torch._grouped_mm takes them) -> (data [T, K/2] float4_e2m1fn_x2, scales 1-D float8_e4m3fn): each expert's
    rows quantized as quantize_nvfp4 quantizes them alone, its scales where bwgemm's grouped operations read them
    (expert e's first scale row is the sum of round_up(rows, 128) before it; the buffer has
    round_up(T + 127 E, 128) scale rows; docs/moe.md). global_scale: a number, or a float32 tensor of E per-expert
    scales on x's device (read when the kernel runs). offs is read on the device: no synchronization, and a
    CUDA graph replays the call with new offsets. Rows and scale rows no expert owns are zero."""
    if isinstance(global_scale, torch.Tensor):
        return torch.ops.bwgemm.quantize_nvfp4_grouped(x, offs, 1.0, global_scale)
    return torch.ops.bwgemm.quantize_nvfp4_grouped(x, offs, float(global_scale), None)


def blocked_scale_elements(rows, k):
    """Elements of the 128x4 blocked scales of a rows x K NVFP4 matrix (padding included)."""
    return _fake.blocked_scale_elements(rows, k)


def split_gate_up_nvfp4(data, scales):
    """Splits a quantized fused [gate; up] weight into (gate_data, gate_scales, up_data, up_scales) views without a
    copy: a dense one ([2N, K/2] data, blocked scales of 2N rows) or a mixture-of-experts layer's stacked one
    ([E, 2N, K/2] data, each expert's blocked scales of 2N rows: quantize_nvfp4_experts' output). N must be a
    multiple of 128, so that the gate's scales are whole 128-row blocks (otherwise quantize gate and up
    separately)."""
    stacked = data.dim() == 3
    rows = data.shape[-2] if data.dim() >= 2 else 0
    n = rows // 2
    if data.dim() not in (2, 3) or 2 * n != rows or n % 128 != 0:
        raise ValueError(f"bwgemm.split_gate_up_nvfp4: data must be [2N, K/2] or [E, 2N, K/2] with N a multiple of "
                         f"128 (got shape {tuple(data.shape)})")
    k = 2 * data.shape[-1]
    half = blocked_scale_elements(n, k)
    experts = data.shape[0] if stacked else 1
    if scales.numel() != experts * 2 * half:
        raise ValueError(f"bwgemm.split_gate_up_nvfp4: scales must hold {experts * 2 * half} elements (got "
                         f"{scales.numel()})")
    if not stacked:
        flat = scales.reshape(-1)
        return data[:n], flat[:half], data[n:], flat[half:]
    per_expert = scales.reshape(experts, 2 * half)
    return data[:, :n], per_expert[:, :half], data[:, n:], per_expert[:, half:]


def quantize_nvfp4_experts(w, global_scale=1.0):
    """A mixture-of-experts layer's stacked weights w [E, N, K] (each expert's nn.Linear weight) quantized expert
    by expert: (data [E, N, K/2] float4_e2m1fn_x2, scales [E, blocked_scale_elements(N, K)] float8_e4m3fn), what
    grouped_mm_nvfp4 and grouped_dual_mm_nvfp4 take as b (split a fused [E, 2N, K] gate/up weight with
    split_gate_up_nvfp4). global_scale: a number, or E per-expert decode scales (a float32 tensor on w's device, read
    by the kernels; or a sequence of numbers). Offline weight preparation: one quantize_nvfp4 call per expert."""
    if w.dim() != 3:
        raise ValueError(f"bwgemm.quantize_nvfp4_experts: w must be [E, N, K] (got shape {tuple(w.shape)})")
    experts = w.shape[0]
    if isinstance(global_scale, torch.Tensor):
        scales_e = [global_scale.reshape(-1)[e:e + 1] for e in range(experts)]
    elif isinstance(global_scale, (int, float)):
        scales_e = [float(global_scale)] * experts
    else:
        scales_e = [float(g) for g in global_scale]
    if len(scales_e) != experts:
        raise ValueError(f"bwgemm.quantize_nvfp4_experts: global_scale must be a number or hold E = {experts} scales")
    parts = [quantize_nvfp4(w[e], scales_e[e]) for e in range(experts)]
    return torch.stack([d for d, _ in parts]), torch.stack([s for _, s in parts])


# ---- grouped (mixture-of-experts) operations ----------------------------------------------------------------------

# The bits the grouped operators OR into their optional `status` tensor (one int32 on the operands' device; zero it
# once, read it after one call or many): out-of-range device offsets or counts, which the kernels clamp to the
# buffers (docs/moe.md, "Device data is not trusted").
STATUS_OFFSET_DECREASING = 1  # an offs[e] below an earlier expert's end (a negative offs[0] included)
STATUS_OFFSET_PAST_TOTAL = 2  # an offs[e] above T, a's rows
STATUS_COUNT_NEGATIVE = 4  # a counts[e] below 0
STATUS_COUNT_ABOVE_MAX = 8  # a counts[e] above max_tokens


def grouped_mm(a, b, offs=None, counts=None, *, alpha=1.0, alphas=None, out_dtype=None, status=None):
    """A mixture-of-experts layer's FC2, every expert in one call: d_e = alpha * alphas[e] * a_e @ b[e].T.

    The tokens, one of two layouts:
      offs (contiguous, torch._grouped_mm's): a [T, K] with the rows sorted by expert, offs E int32 cumulative
        row ends (no leading 0) on a's device; expert e owns rows offs[e-1]..offs[e] (offs[-1] = 0); d [T, N].
      counts (masked): a [E, max_tokens, K], counts E int32 on a's device; expert e owns the first counts[e]
        rows of its slab; d [E, max_tokens, N].
    b [E, N, K] (each expert's nn.Linear weight; torch._grouped_mm takes b[e].T, i.e. b.transpose(1, 2)) of a's
    dtype, fp16 or bf16, rows of K contiguous elements, any row and expert strides (views of a larger tensor). N and
    K multiples of 8. alphas: E float32 on a's device, read by the kernel (None: alpha alone). out_dtype a's dtype
    (default) or float32.

    The offsets and counts are read on the device (no synchronization; a CUDA graph replays the call with new
    ones), and values out of range are clamped to the buffers and reported in `status` (one int32 on a's device,
    into which the kernel ORs the STATUS_* bits; None: no report). The output is allocated uninitialized, as
    torch._grouped_mm's: rows no expert owns (past offs[-1]; past counts[e] in slab e) are not written."""
    return torch.ops.bwgemm.grouped_mm(a, b, offs, counts, float(alpha), alphas, out_dtype, status)


def grouped_dual_mm(a, b1, b2, offs=None, counts=None, *, alpha1=1.0, alpha2=1.0, alpha1s=None, alpha2s=None,
                    activation="silu", swiglu_limit=7.0, swiglu_alpha=1.702, status=None):
    """A mixture-of-experts layer's gated FC1, every expert in one call:
    c_e = act(alpha1 * alpha1s[e] * a_e @ b1[e].T, alpha2 * alpha2s[e] * a_e @ b2[e].T), of a's dtype.

    The tokens and the output's layout as grouped_mm's (offs or counts). b1 (gate) and b2 (up) [E, N, K] of a's
    dtype with the same strides: two tensors alike, or the views w[:, :N] and w[:, N:] of one stacked [E, 2N, K]
    weight (gate rows first). activation: "silu" (silu(gate) * up) or "swiglu_oai" (gpt-oss: gate clamped above at
    swiglu_limit, up to [-swiglu_limit, swiglu_limit], gate * sigmoid(swiglu_alpha * gate) * (up + 1)). alpha1s,
    alpha2s: E float32 on a's device, or None. status and the unwritten rows: as grouped_mm."""
    return torch.ops.bwgemm.grouped_dual_mm(a, b1, b2, offs, counts, float(alpha1), float(alpha2), alpha1s, alpha2s,
                                            activation, float(swiglu_limit), float(swiglu_alpha), status)


def grouped_mm_nvfp4(a, a_scales, b, b_scales, offs=None, counts=None, *, alpha=1.0, alphas=None, out_dtype=None,
                     status=None):
    """grouped_mm on NVFP4 operands (sm_100a; CPU tensors: the emulator; Hopper raises not-supported).

    a: with offs, quantize_nvfp4_grouped's output for the sorted tokens (data [T, K/2], scales placed per expert);
    with counts, data [E, max_tokens, K/2] and E slabs of blocked scales of max_tokens rows (each expert's
    quantize_nvfp4 output, data stacked and scales concatenated). b: [E, N, K/2] data with packed rows and each
    expert's blocked scales of N rows (quantize_nvfp4_experts' output). alpha * alphas[e]: A's decode global scale
    times expert e's weight global scale. N % 16 == 0, K % 64 == 0; out_dtype float16 (default) or bfloat16."""
    return torch.ops.bwgemm.grouped_mm_nvfp4(a, a_scales, b, b_scales, offs, counts, float(alpha), alphas, out_dtype,
                                             status)


def grouped_dual_mm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, offs=None, counts=None, *, alpha1=1.0,
                          alpha2=1.0, alpha1s=None, alpha2s=None, activation="silu", swiglu_limit=7.0,
                          swiglu_alpha=1.702, out_dtype=None, status=None):
    """grouped_dual_mm on NVFP4 operands (sm_100a; CPU tensors: the emulator; Hopper raises not-supported): a as
    grouped_mm_nvfp4's, b1 and b2 as its b with the same expert strides (split_gate_up_nvfp4's views of a stacked
    [E, 2N, K] weight quantized by quantize_nvfp4_experts, N a multiple of 128, or two tensors). Output float16
    (default) or bfloat16."""
    return torch.ops.bwgemm.grouped_dual_mm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, offs, counts,
                                                  float(alpha1), float(alpha2), alpha1s, alpha2s, activation,
                                                  float(swiglu_limit), float(swiglu_alpha), out_dtype, status)
