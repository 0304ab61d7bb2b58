"""Fake (meta) implementations of torch.ops.bwgemm for torch.compile and FakeTensor: output shapes and dtypes
from the inputs' (symbolic) sizes, after the same checks as the kernels (python/csrc/ops.hpp), so that a traced
call fails where the real one would. No data is read."""
import torch

_BLOCK = 16  # NVFP4: one e4m3 scale per 16 K elements (formats/nvfp4.cuh)
_FLOAT32_MAX = 3.4028234663852886e38  # FLT_MAX: the largest global scale (formats/nvfp4.cuh)
_ATOM_ROWS, _ATOM_COLS = 128, 4  # the 128x4 blocked scale layout (formats/scale_layout.cuh, to_blocked)


def blocked_scale_elements(rows, k):
    """Scale elements of a rows x K NVFP4 matrix in the blocked layout, padding included."""
    cols = k // _BLOCK
    return -(-rows // _ATOM_ROWS) * _ATOM_ROWS * (-(-cols // _ATOM_COLS) * _ATOM_COLS)


def _matrix(op, name, t):
    torch._check_value(t.dim() == 2, lambda: f"{op}: {name} must be a 2-D tensor (got shape {tuple(t.shape)})")
    torch._check_value(t.is_contiguous(), lambda: f"{op}: {name} must be contiguous (row-major): call .contiguous()")


def _same_device(op, first, name, t):
    torch._check(t.device == first.device,
                 lambda: f"{op}: {name} is on {t.device} but the first operand is on {first.device}")


def _sixteen_bit(op, name, t):
    torch._check_type(t.dtype in (torch.float16, torch.bfloat16),
                      lambda: f"{op}: {name} must be float16 or bfloat16 (got {t.dtype})")


def _scale(op, name, s, first):
    if s is None:
        return
    torch._check_type(s.dtype == torch.float32, lambda: f"{op}: {name} must be a float32 tensor (got {s.dtype})")
    torch._check_value(s.numel() == 1, lambda: f"{op}: {name} must hold one element (got {s.numel()})")
    _same_device(op, first, name, s)


def _c_and_beta(op, a, n, out, c, beta):
    if c is not None:
        _matrix(op, "c", c)
        _same_device(op, a, "c", c)
        torch._check_type(c.dtype == out, lambda: f"{op}: c must have the output dtype {out} (got {c.dtype})")
        torch._check_value(c.shape[0] == a.shape[0] and c.shape[1] == n,
                           lambda: f"{op}: c must be [M, N] = [{a.shape[0]}, {n}]")
    else:
        torch._check_value(beta == 0.0, lambda: f"{op}: beta = {beta} needs c")


def _beta_scale(op, beta_scale, c, beta):
    torch._check_value(beta_scale is None or (c is not None and beta != 0.0),
                       lambda: f"{op}: beta_scale needs c and a nonzero beta (the effective beta is beta x beta_scale)")


def _same_dtype(op, name, t, first):
    torch._check_type(t.dtype == first.dtype, lambda: f"{op}: {name} must have A's dtype {first.dtype} (got {t.dtype})")


@torch.library.register_fake("bwgemm::gemm")
def _gemm(a, b, alpha=1.0, beta=0.0, c=None, out_dtype=None, alpha_scale=None, beta_scale=None):
    op = "bwgemm.gemm"
    _scale(op, "alpha_scale", alpha_scale, a)
    _scale(op, "beta_scale", beta_scale, a)
    _beta_scale(op, beta_scale, c, beta)
    _matrix(op, "a", a)
    _matrix(op, "b", b)
    _sixteen_bit(op, "a", a)
    _same_dtype(op, "b", b, a)
    _same_device(op, a, "b", b)
    torch._check_value(b.shape[1] == a.shape[1], lambda: f"{op}: b must be [N, K] with a's K = {a.shape[1]}")
    out = a.dtype if out_dtype is None else out_dtype
    torch._check_type(out in (a.dtype, torch.float32), lambda: f"{op}: out_dtype must be A's dtype or float32")
    _c_and_beta(op, a, b.shape[0], out, c, beta)
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out)


@torch.library.register_fake("bwgemm::dual_gemm")
def _dual_gemm(a, b1, b2, alpha1=1.0, alpha2=1.0, alpha1_scale=None, alpha2_scale=None):
    op = "bwgemm.dual_gemm"
    _scale(op, "alpha1_scale", alpha1_scale, a)
    _scale(op, "alpha2_scale", alpha2_scale, a)
    for name, t in (("a", a), ("b1", b1), ("b2", b2)):
        _matrix(op, name, t)
    _sixteen_bit(op, "a", a)
    _same_dtype(op, "b1", b1, a)
    _same_dtype(op, "b2", b2, a)
    _same_device(op, a, "b1", b1)
    _same_device(op, a, "b2", b2)
    torch._check_value(b1.shape[1] == a.shape[1] and b2.shape == b1.shape,
                       lambda: f"{op}: b1 and b2 must both be [N, K] with a's K = {a.shape[1]}")
    return a.new_empty((a.shape[0], b1.shape[0]))


def _nvfp4(op, name, scales_name, data, scales, k):
    _matrix(op, name, data)
    torch._check_type(data.dtype in (torch.float4_e2m1fn_x2, torch.uint8),
                      lambda: f"{op}: {name} must be float4_e2m1fn_x2 or uint8 (got {data.dtype})")
    torch._check_type(scales.dtype in (torch.float8_e4m3fn, torch.uint8),
                      lambda: f"{op}: {scales_name} must be float8_e4m3fn or uint8 (got {scales.dtype})")
    torch._check_value(scales.is_contiguous(), lambda: f"{op}: {scales_name} must be contiguous")
    want = blocked_scale_elements(data.shape[0], k)
    torch._check_value(scales.numel() == want,
                       lambda: f"{op}: {scales_name} must hold the 128x4 blocked scales of {data.shape[0]} rows: "
                               f"{want} elements (got {scales.numel()})")


@torch.library.register_fake("bwgemm::dual_gemm_nvfp4")
def _dual_gemm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, alpha1=1.0, alpha2=1.0, out_dtype=None,
                     alpha1_scale=None, alpha2_scale=None):
    op = "bwgemm.dual_gemm_nvfp4"
    _scale(op, "alpha1_scale", alpha1_scale, a)
    _scale(op, "alpha2_scale", alpha2_scale, a)
    torch._check_value(a.dim() == 2, lambda: f"{op}: a must be a 2-D tensor [M, K/2]")
    k = 2 * a.shape[1]
    _nvfp4(op, "a", "a_scales", a, a_scales, k)
    _nvfp4(op, "b1", "b1_scales", b1, b1_scales, k)
    _nvfp4(op, "b2", "b2_scales", b2, b2_scales, k)
    for name, t in (("a_scales", a_scales), ("b1", b1), ("b1_scales", b1_scales), ("b2", b2),
                    ("b2_scales", b2_scales)):
        _same_device(op, a, name, t)
    torch._check_value(b1.shape[1] == a.shape[1] and b2.shape == b1.shape,
                       lambda: f"{op}: b1 and b2 must both be [N, K/2] with a's K/2 = {a.shape[1]}")
    torch._check_value(k % 64 == 0, lambda: f"{op}: K = {k} must be a multiple of 64")
    torch._check_value(b1.shape[0] % 16 == 0, lambda: f"{op}: N = {b1.shape[0]} must be a multiple of 16")
    out = torch.float16 if out_dtype is None else out_dtype
    torch._check_type(out in (torch.float16, torch.bfloat16),
                      lambda: f"{op}: out_dtype must be float16 or bfloat16 (got {out})")
    return a.new_empty((a.shape[0], b1.shape[0]), dtype=out)


@torch.library.register_fake("bwgemm::gemm_nvfp4")
def _gemm_nvfp4(a, a_scales, b, b_scales, alpha=1.0, beta=0.0, c=None, out_dtype=None, alpha_scale=None,
                beta_scale=None):
    op = "bwgemm.gemm_nvfp4"
    _scale(op, "alpha_scale", alpha_scale, a)
    _scale(op, "beta_scale", beta_scale, a)
    _beta_scale(op, beta_scale, c, beta)
    torch._check_value(a.dim() == 2, lambda: f"{op}: a must be a 2-D tensor [M, K/2]")
    k = 2 * a.shape[1]
    _nvfp4(op, "a", "a_scales", a, a_scales, k)
    _nvfp4(op, "b", "b_scales", b, b_scales, k)
    for name, t in (("a_scales", a_scales), ("b", b), ("b_scales", b_scales)):
        _same_device(op, a, name, t)
    torch._check_value(b.shape[1] == a.shape[1], lambda: f"{op}: b must be [N, K/2] with a's K/2 = {a.shape[1]}")
    torch._check_value(k % 64 == 0, lambda: f"{op}: K = {k} must be a multiple of 64")
    torch._check_value(b.shape[0] % 16 == 0, lambda: f"{op}: N = {b.shape[0]} must be a multiple of 16")
    out = torch.float16 if out_dtype is None else out_dtype
    torch._check_type(out in (torch.float16, torch.bfloat16, torch.float32),
                      lambda: f"{op}: out_dtype must be float16, bfloat16 or float32 (got {out})")
    _c_and_beta(op, a, b.shape[0], out, c, beta)
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out)


def _quantizer_input(op, x, global_scale):
    """The quantizers' checks of x and the global scale (ops.hpp check_quantize)."""
    _matrix(op, "x", x)
    torch._check_type(x.dtype in (torch.float32, torch.float16, torch.bfloat16),
                      lambda: f"{op}: x must be float32, float16 or bfloat16 (got {x.dtype})")
    torch._check_value(x.shape[1] % _BLOCK == 0 and x.shape[1] > 0,
                       lambda: f"{op}: K = {x.shape[1]} must be a positive multiple of 16, the NVFP4 block")
    torch._check_value(x.shape[0] > 0, lambda: f"{op}: x must have at least one row")
    torch._check_value(0.0 < global_scale <= _FLOAT32_MAX,
                       lambda: f"{op}: global_scale must be positive and finite as a float32")


@torch.library.register_fake("bwgemm::quantize_nvfp4")
def _quantize_nvfp4(x, global_scale=1.0, global_scale_tensor=None):
    op = "bwgemm.quantize_nvfp4"
    _scale(op, "global_scale_tensor", global_scale_tensor, x)
    _quantizer_input(op, x, global_scale)
    rows, k = x.shape
    return (x.new_empty((rows, k // 2), dtype=torch.float4_e2m1fn_x2),
            x.new_empty((blocked_scale_elements(rows, k),), dtype=torch.float8_e4m3fn))


@torch.library.register_fake("bwgemm::quantize_nvfp4_grouped")
def _quantize_nvfp4_grouped(x, offs, global_scale=1.0, global_scales=None):
    op = "bwgemm.quantize_nvfp4_grouped"
    _quantizer_input(op, x, global_scale)
    torch._check_value(offs.dim() == 1 and offs.shape[0] >= 1,
                       lambda: f"{op}: offs must be a contiguous 1-D tensor of one cumulative row end per expert")
    torch._check_type(offs.dtype == torch.int32, lambda: f"{op}: offs must be int32 (got {offs.dtype})")
    _same_device(op, x, "offs", offs)
    experts = offs.shape[0]
    if global_scales is not None:
        torch._check_type(global_scales.dtype == torch.float32,
                          lambda: f"{op}: global_scales must be float32 (got {global_scales.dtype})")
        torch._check_value(global_scales.dim() == 1 and global_scales.shape[0] == experts,
                           lambda: f"{op}: global_scales must be a contiguous 1-D tensor of one scale per expert")
        _same_device(op, x, "global_scales", global_scales)
    rows, k = x.shape
    scale_rows = -(-(rows + 127 * experts) // 128) * 128  # grouped::grouped_scale_rows
    return (x.new_empty((rows, k // 2), dtype=torch.float4_e2m1fn_x2),
            x.new_empty((blocked_scale_elements(scale_rows, k),), dtype=torch.float8_e4m3fn))




# ---- grouped (mixture-of-experts) operations: ops.hpp's grouped checks ----------------------------------------

def _grouped_tokens(op, a, offs, counts, shape2, shape3):
    """Exactly one of offs / counts (int32, 1-D, on a's device); a 2-D with offs, [E, ...] with counts. Returns
    (masked, E, rows): rows T (offs) or max_tokens (counts)."""
    torch._check_value((offs is None) != (counts is None),
                       lambda: f"{op}: pass exactly one of offs (contiguous tokens: torch._grouped_mm's cumulative "
                               "row ends) and counts (masked tokens: each expert's rows of its slab)")
    masked = counts is not None
    name, m = ("counts", counts) if masked else ("offs", offs)
    torch._check_type(m.dtype == torch.int32, lambda: f"{op}: {name} must be int32 (got {m.dtype})")
    torch._check_value(m.dim() == 1 and m.shape[0] >= 1,
                       lambda: f"{op}: {name} must be a contiguous 1-D tensor of one value per expert")
    _same_device(op, a, name, m)
    experts = m.shape[0]
    if masked:
        torch._check_value(a.dim() == 3 and a.shape[0] == experts,
                           lambda: f"{op}: with counts, a must be {shape3} with E = {experts} (counts' length; "
                                   f"got shape {tuple(a.shape)})")
    else:
        torch._check_value(a.dim() == 2, lambda: f"{op}: with offs, a must be {shape2} (got shape {tuple(a.shape)})")
    torch._check_value(a.is_contiguous(), lambda: f"{op}: a must be contiguous: call .contiguous()")
    return masked, experts, a.shape[1 if masked else 0]


def _expert_scales(op, name, s, first, experts):
    if s is None:
        return
    torch._check_type(s.dtype == torch.float32, lambda: f"{op}: {name} must be float32 (got {s.dtype})")
    torch._check_value(s.dim() == 1 and s.shape[0] == experts,
                       lambda: f"{op}: {name} must be a contiguous 1-D tensor of one scale per expert ({experts})")
    _same_device(op, first, name, s)


def _status_word(op, status, first):
    if status is None:
        return
    torch._check_type(status.dtype == torch.int32, lambda: f"{op}: status must be int32 (got {status.dtype})")
    torch._check_value(status.numel() == 1, lambda: f"{op}: status must hold one element (got {status.numel()})")
    _same_device(op, first, "status", status)


def _grouped_weights(op, name, b, a, experts, k):
    torch._check_value(b.dim() == 3 and b.shape[0] == experts and b.shape[2] == k,
                       lambda: f"{op}: {name} must be [E, N, K] = [{experts}, N, {k}] (each expert's nn.Linear "
                               f"weight; got shape {tuple(b.shape)})")
    _same_dtype(op, name, b, a)
    _same_device(op, a, name, b)
    torch._check_value(b.stride(2) == 1, lambda: f"{op}: {name} must have rows of K contiguous elements")


def _grouped_16bit_shape(op, n, k):
    torch._check_value(n > 0 and n % 8 == 0, lambda: f"{op}: N = {n} must be a positive multiple of 8")
    torch._check_value(k > 0 and k % 8 == 0, lambda: f"{op}: K = {k} must be a positive multiple of 8 (16-byte rows)")


def _activation(op, activation, limit, alpha):
    torch._check_value(activation in ("silu", "swiglu_oai"),
                       lambda: f'{op}: activation must be "silu" or "swiglu_oai" (got "{activation}")')
    torch._check_value(abs(limit) < float("inf") and abs(alpha) < float("inf"),
                       lambda: f"{op}: swiglu_limit and swiglu_alpha must be finite")


def _grouped_output(a, masked, experts, rows, n, dtype):
    if masked:
        return a.new_empty((experts, rows, n), dtype=dtype)
    return a.new_empty((rows, n), dtype=dtype)


@torch.library.register_fake("bwgemm::grouped_mm")
def _grouped_mm(a, b, offs=None, counts=None, alpha=1.0, alphas=None, out_dtype=None, status=None):
    op = "bwgemm.grouped_mm"
    masked, experts, rows = _grouped_tokens(op, a, offs, counts, "[T, K]", "[E, max_tokens, K]")
    _sixteen_bit(op, "a", a)
    k = a.shape[-1]
    _grouped_weights(op, "b", b, a, experts, k)
    _grouped_16bit_shape(op, b.shape[1], k)
    _expert_scales(op, "alphas", alphas, a, experts)
    _status_word(op, status, a)
    out = a.dtype if out_dtype is None else out_dtype
    torch._check_type(out in (a.dtype, torch.float32),
                      lambda: f"{op}: out_dtype must be A's dtype ({a.dtype}) or float32 (got {out})")
    return _grouped_output(a, masked, experts, rows, b.shape[1], out)


@torch.library.register_fake("bwgemm::grouped_dual_mm")
def _grouped_dual_mm(a, b1, b2, offs=None, counts=None, alpha1=1.0, alpha2=1.0, alpha1s=None, alpha2s=None,
                     activation="silu", swiglu_limit=7.0, swiglu_alpha=1.702, status=None):
    op = "bwgemm.grouped_dual_mm"
    masked, experts, rows = _grouped_tokens(op, a, offs, counts, "[T, K]", "[E, max_tokens, K]")
    _sixteen_bit(op, "a", a)
    k = a.shape[-1]
    _grouped_weights(op, "b1", b1, a, experts, k)
    _grouped_weights(op, "b2", b2, a, experts, k)
    torch._check_value(b1.shape == b2.shape, lambda: f"{op}: b1 and b2 must have one shape [E, N, K]")
    torch._check_value(b1.stride(1) == b2.stride(1) and (experts == 1 or b1.stride(0) == b2.stride(0)),
                       lambda: f"{op}: b1 and b2 must have the same strides (one row stride and one expert stride)")
    _grouped_16bit_shape(op, b1.shape[1], k)
    _expert_scales(op, "alpha1s", alpha1s, a, experts)
    _expert_scales(op, "alpha2s", alpha2s, a, experts)
    _status_word(op, status, a)
    _activation(op, activation, swiglu_limit, swiglu_alpha)
    return _grouped_output(a, masked, experts, rows, b1.shape[1], a.dtype)


def _grouped_nvfp4_tokens(op, a, a_scales, offs, counts):
    masked, experts, rows = _grouped_tokens(op, a, offs, counts, "[T, K/2]", "[E, max_tokens, K/2]")
    torch._check_type(a.dtype in (torch.float4_e2m1fn_x2, torch.uint8),
                      lambda: f"{op}: a must be float4_e2m1fn_x2 or uint8 (got {a.dtype})")
    torch._check_type(a_scales.dtype in (torch.float8_e4m3fn, torch.uint8),
                      lambda: f"{op}: a_scales must be float8_e4m3fn or uint8 (got {a_scales.dtype})")
    _same_device(op, a, "a_scales", a_scales)
    torch._check_value(a_scales.is_contiguous(), lambda: f"{op}: a_scales must be contiguous")
    k = 2 * a.shape[-1]
    torch._check_value(k > 0 and k % 64 == 0, lambda: f"{op}: K = {k} must be a positive multiple of 64")
    if masked:
        want = experts * blocked_scale_elements(rows, k)
        torch._check_value(a_scales.numel() == want,
                           lambda: f"{op}: with counts, a_scales must hold E = {experts} slabs of the 128x4 blocked "
                                   f"scales of max_tokens = {rows} rows x {k // _BLOCK} blocks: {want} elements (each "
                                   f"expert's quantize_nvfp4 scales, concatenated; got {a_scales.numel()})")
    else:
        scale_rows = -(-(rows + 127 * experts) // 128) * 128  # grouped::grouped_scale_rows
        want = blocked_scale_elements(scale_rows, k)
        torch._check_value(a_scales.numel() == want,
                           lambda: f"{op}: with offs, a_scales must hold the 128x4 blocked scales of {scale_rows} rows "
                                   f"(round_up(T + 127 E, 128), T = {rows}, E = {experts}) x {k // _BLOCK} blocks: "
                                   f"{want} elements (quantize_nvfp4_grouped's scales; got {a_scales.numel()})")
    return masked, experts, rows, k


def _grouped_nvfp4_weights(op, name, scales_name, b, b_scales, a, experts, k):
    torch._check_value(b.dim() == 3 and b.shape[0] == experts and b.shape[2] == k // 2,
                       lambda: f"{op}: {name} must be [E, N, K/2] = [{experts}, N, {k // 2}] (got shape "
                               f"{tuple(b.shape)})")
    torch._check_type(b.dtype in (torch.float4_e2m1fn_x2, torch.uint8),
                      lambda: f"{op}: {name} must be float4_e2m1fn_x2 or uint8 (got {b.dtype})")
    torch._check_type(b_scales.dtype in (torch.float8_e4m3fn, torch.uint8),
                      lambda: f"{op}: {scales_name} must be float8_e4m3fn or uint8 (got {b_scales.dtype})")
    _same_device(op, a, name, b)
    _same_device(op, a, scales_name, b_scales)
    torch._check_value(b.stride(2) == 1 and b.stride(1) == k // 2,
                       lambda: f"{op}: {name} must have packed rows of K/2 = {k // 2} bytes")
    per_expert = blocked_scale_elements(b.shape[1], k)
    if b_scales.is_contiguous():
        torch._check_value(b_scales.numel() == experts * per_expert,
                           lambda: f"{op}: {scales_name} must hold E = {experts} experts' 128x4 blocked scales of "
                                   f"{b.shape[1]} rows x {k // _BLOCK} blocks: {experts * per_expert} elements (got "
                                   f"{b_scales.numel()})")
        return (b.stride(0) if experts > 1 else 0, per_expert if experts > 1 else 0)
    torch._check_value(b_scales.dim() == 2 and b_scales.shape[0] == experts and b_scales.shape[1] == per_expert
                       and b_scales.stride(1) == 1,
                       lambda: f"{op}: {scales_name} must be contiguous, or an [E, {per_expert}] view with unit "
                               "inner stride")
    return (b.stride(0) if experts > 1 else 0, b_scales.stride(0) if experts > 1 else 0)


def _grouped_nvfp4_out(op, out_dtype):
    out = torch.float16 if out_dtype is None else out_dtype
    torch._check_type(out in (torch.float16, torch.bfloat16),
                      lambda: f"{op}: out_dtype must be float16 or bfloat16 (got {out})")
    return out


@torch.library.register_fake("bwgemm::grouped_mm_nvfp4")
def _grouped_mm_nvfp4(a, a_scales, b, b_scales, offs=None, counts=None, alpha=1.0, alphas=None, out_dtype=None,
                      status=None):
    op = "bwgemm.grouped_mm_nvfp4"
    masked, experts, rows, k = _grouped_nvfp4_tokens(op, a, a_scales, offs, counts)
    _grouped_nvfp4_weights(op, "b", "b_scales", b, b_scales, a, experts, k)
    torch._check_value(b.shape[1] > 0 and b.shape[1] % 16 == 0,
                       lambda: f"{op}: N = {b.shape[1]} must be a positive multiple of 16")
    _expert_scales(op, "alphas", alphas, a, experts)
    _status_word(op, status, a)
    out = _grouped_nvfp4_out(op, out_dtype)
    return _grouped_output(a, masked, experts, rows, b.shape[1], out)


@torch.library.register_fake("bwgemm::grouped_dual_mm_nvfp4")
def _grouped_dual_mm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, offs=None, counts=None, alpha1=1.0,
                           alpha2=1.0, alpha1s=None, alpha2s=None, activation="silu", swiglu_limit=7.0,
                           swiglu_alpha=1.702, out_dtype=None, status=None):
    op = "bwgemm.grouped_dual_mm_nvfp4"
    masked, experts, rows, k = _grouped_nvfp4_tokens(op, a, a_scales, offs, counts)
    s1 = _grouped_nvfp4_weights(op, "b1", "b1_scales", b1, b1_scales, a, experts, k)
    s2 = _grouped_nvfp4_weights(op, "b2", "b2_scales", b2, b2_scales, a, experts, k)
    torch._check_value(b1.shape == b2.shape, lambda: f"{op}: b1 and b2 must have one shape [E, N, K/2]")
    torch._check_value(s1 == s2, lambda: f"{op}: b1 and b2 must have the same expert strides, data and scales")
    torch._check_value(b1.shape[1] > 0 and b1.shape[1] % 16 == 0,
                       lambda: f"{op}: N = {b1.shape[1]} must be a positive multiple of 16")
    _expert_scales(op, "alpha1s", alpha1s, a, experts)
    _expert_scales(op, "alpha2s", alpha2s, a, experts)
    _activation(op, activation, swiglu_limit, swiglu_alpha)
    _status_word(op, status, a)
    out = _grouped_nvfp4_out(op, out_dtype)
    return _grouped_output(a, masked, experts, rows, b1.shape[1], out)
