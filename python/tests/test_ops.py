"""torch.ops.bwgemm against PyTorch references, on CPU tensors (the sm_100a kernels in bwgemm's CPU emulator),
plus the argument errors, opcheck (schema, fake tensors, AOT dispatch) and torch.compile.

The references are written here in PyTorch from the format definitions (docs/formats.md), not with bwgemm:
NVFP4 decoding through the e2m1 table and the to_blocked swizzle, quantization as the OCP/NVIDIA recipe
states it, matmuls in fp32.

Run: BWGEMM_TORCH_LIBRARY_DIR=<build>/python/lib PYTHONPATH=python python -m pytest python/tests
(ctest python.torch_ops does this), or after `pip install ./python`, python -m pytest python/tests."""
import pytest
import torch
import torch.nn.functional as F

import bwgemm_torch as bt

E2M1_VALUES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


# ---- references ----------------------------------------------------------------------------------------------

def to_blocked(scales):
    """[rows, cols] scales -> the 128x4 blocked layout, flattened (PyTorch's and cuBLAS's layout for NVFP4 /
    MX scales): zero-padded to whole 128 x 4 tiles, tiles in row-major tile order, each tile's 512 bytes as
    32 rows of 16 where row r holds rows r, r+32, r+64, r+96 of the tile, 4 scales each."""
    rows, cols = scales.shape
    pr, pc = -(-rows // 128) * 128, -(-cols // 4) * 4
    padded = torch.zeros((pr, pc), dtype=scales.dtype)
    padded[:rows, :cols] = scales
    tiles = padded.view(pr // 128, 128, pc // 4, 4).permute(0, 2, 1, 3)  # [row tile, col tile, 128, 4]
    tiles = tiles.reshape(-1, 4, 32, 4).transpose(1, 2)  # row g*32 + r -> [r, g]
    return tiles.reshape(-1)


def from_blocked(blocked, rows, cols):
    """Inverse of to_blocked (padding dropped)."""
    pr, pc = -(-rows // 128) * 128, -(-cols // 4) * 4
    tiles = blocked.reshape(pr // 128, pc // 4, 32, 4, 4).permute(0, 1, 3, 2, 4)  # [rt, ct, g, r, c]
    full = tiles.reshape(pr // 128, pc // 4, 128, 4).permute(0, 2, 1, 3).reshape(pr, pc)
    return full[:rows, :cols]


def e2m1_encode(q):
    """Round to the nearest e2m1 value, ties to the even code, saturating at 6; sign in bit 3."""
    mag = q.abs()
    # Between codes c and c+1 the midpoint goes to the even code: down from even c, up from odd c.
    code = ((mag > 0.25).int() + (mag >= 0.75).int() + (mag > 1.25).int() + (mag >= 1.75).int() +
            (mag > 2.5).int() + (mag >= 3.5).int() + (mag > 5.0).int())
    return (code | (torch.signbit(q).int() << 3)).to(torch.uint8)


def quantize_reference(x, global_scale):
    """NVFP4 quantization of [rows, K] x: per 16 elements amax; scale = e4m3(amax / (6 g)); codes =
    e2m1(x / (e4m3 scale * g)); returns (packed uint8 [rows, K/2], element 2i low; plain uint8 scales)."""
    rows, k = x.shape
    xf = x.float().reshape(rows, k // 16, 16)
    g = torch.tensor(global_scale, dtype=torch.float32)
    amax = xf.abs().amax(dim=-1)
    scale = (amax / (torch.tensor(6.0) * g)).to(torch.float8_e4m3fn)
    s = scale.float() * g
    q = torch.where(s[..., None] == 0, torch.zeros_like(xf), xf / s[..., None])
    codes = torch.where(s[..., None] == 0, torch.zeros_like(q, dtype=torch.uint8), e2m1_encode(q)).reshape(rows, k)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4)
    return packed, scale.view(torch.uint8)


def dequantize_reference(data, scales, rows, k, global_scale=1.0):
    """[rows, K/2] packed NVFP4 + blocked scales -> fp32 [rows, K]."""
    b = data.view(torch.uint8)
    codes = torch.stack([b & 0xF, b >> 4], dim=-1).reshape(rows, k).long()
    values = E2M1_VALUES[codes & 7] * torch.where(codes >= 8, -1.0, 1.0)
    plain = from_blocked(scales.view(torch.uint8).reshape(-1), rows, k // 16).view(torch.float8_e4m3fn).float()
    return values * plain.repeat_interleave(16, dim=1) * global_scale


def nvfp4_operand(rows, k, global_scale, gen):
    x = torch.randn(rows, k, generator=gen, dtype=torch.float32).to(torch.float16)
    data, scales = bt.quantize_nvfp4(x, global_scale)
    return x, data, scales


# ---- quantizer -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("rows,k,global_scale", [(128, 64, 1.0), (200, 96, 0.01), (7, 16, 3.0)])
def test_quantize_matches_the_reference_bit_for_bit(dtype, rows, k, global_scale):
    gen = torch.Generator().manual_seed(rows * k)
    x = (torch.randn(rows, k, generator=gen) * 4).to(dtype)
    x[0, :16] = 0  # an all-zero block: scale 0, codes 0
    data, scales = bt.quantize_nvfp4(x, global_scale)
    assert data.dtype == torch.float4_e2m1fn_x2 and data.shape == (rows, k // 2)
    assert scales.dtype == torch.float8_e4m3fn and scales.shape == (bt.blocked_scale_elements(rows, k),)
    want_data, want_plain_scales = quantize_reference(x, global_scale)
    assert torch.equal(data.view(torch.uint8), want_data)
    assert torch.equal(scales.view(torch.uint8), to_blocked(want_plain_scales))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_quantize_grouped_places_each_experts_scales(dtype):
    """Each expert's rows quantized as the reference quantizes them alone; its blocked scales at row
    sum(round_up(rows_j, 128)) of the scale buffer (docs/moe.md); experts without rows first, middle, last."""
    gen = torch.Generator().manual_seed(9)
    offs = torch.tensor([0, 70, 70, 200, 203, 203], dtype=torch.int32)
    total, k = 210, 48
    x = (torch.randn(total, k, generator=gen) * 3).to(dtype)
    g = torch.tensor([1.0, 0.5, 2.0, 0.25, 1.0, 4.0])
    data, scales = bt.quantize_nvfp4_grouped(x, offs, g)
    rows_total = -(-(total + 127 * 6) // 128) * 128
    assert data.shape == (total, k // 2) and scales.shape == (bt.blocked_scale_elements(rows_total, k),)
    d8, s8 = data.view(torch.uint8), scales.view(torch.uint8)
    begin, scale_row = 0, 0
    for e, end in enumerate(offs.tolist()):
        rows = end - begin
        if rows > 0:
            want_data, want_plain = quantize_reference(x[begin:end], float(g[e]))
            assert torch.equal(d8[begin:end], want_data), f"expert {e}"
            blocked = to_blocked(want_plain)
            start = scale_row // 128 * (-(-k // 64)) * 512
            assert torch.equal(s8[start:start + blocked.numel()], blocked), f"expert {e}"
        begin, scale_row = end, scale_row + -(-rows // 128) * 128


def test_quantize_grouped_argument_errors():
    x = torch.randn(64, 32)
    with pytest.raises(TypeError, match="offs must be int32"):
        bt.quantize_nvfp4_grouped(x, torch.tensor([32, 64]))
    with pytest.raises(ValueError, match="global_scales must be a contiguous 1-D tensor of one scale per expert"):
        bt.quantize_nvfp4_grouped(x, torch.tensor([32, 64], dtype=torch.int32), torch.ones(3))


def test_quantize_round_trip_error_is_within_the_format():
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(128, 256, generator=gen)
    data, scales = bt.quantize_nvfp4(x)
    back = dequantize_reference(data, scales, 128, 256)
    # The widest e2m1 gap is 4 -> 6, so |err| <= 1 * s for the block's decoded scale s, and s is amax / 6
    # rounded to e4m3 (3 mantissa bits: at most 2^-4 relative above).
    amax = x.reshape(128, 16, 16).abs().amax(-1).repeat_interleave(16, 1)
    assert ((back - x).abs() <= amax / 6 * (1 + 2 ** -4) + 1e-6).all()


def test_blocked_layout_matches_the_reference_swizzle():
    plain = torch.arange(300 * 9, dtype=torch.int32).reshape(300, 9)
    assert torch.equal(from_blocked(to_blocked(plain), 300, 9), plain)
    assert bt.blocked_scale_elements(300, 9 * 16) == to_blocked(plain).numel()


# ---- GEMM ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (200, 72, 136)])
def test_gemm_matches_torch(dtype, m, n, k):
    gen = torch.Generator().manual_seed(m + n + k)
    a = torch.randn(m, k, generator=gen).to(dtype)
    b = torch.randn(n, k, generator=gen).to(dtype)
    want = a.float() @ b.float().T
    got = bt.gemm(a, b)
    assert got.dtype == dtype and got.shape == (m, n)
    tol = 2 ** -10 if dtype == torch.float16 else 2 ** -7  # fp32 sums rounded once to the output type
    torch.testing.assert_close(got.float(), want, rtol=2 * tol, atol=1e-3 * k ** 0.5)


def test_gemm_alpha_beta_and_fp32_output():
    gen = torch.Generator().manual_seed(5)
    a = torch.randn(128, 64, generator=gen).to(torch.bfloat16)
    b = torch.randn(64, 64, generator=gen).to(torch.bfloat16)
    c = torch.randn(128, 64, generator=gen)
    got = bt.gemm(a, b, alpha=0.5, beta=2.0, c=c, out_dtype=torch.float32)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, 0.5 * (a.float() @ b.float().T) + 2.0 * c, rtol=1e-5, atol=1e-4)


# ---- dual GEMMs ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dual_gemm_matches_torch(dtype):
    gen = torch.Generator().manual_seed(11)
    a = torch.randn(130, 128, generator=gen).to(dtype)
    w = (torch.randn(2 * 96, 128, generator=gen) / 8).to(dtype)  # fused [gate; up]
    want = F.silu(0.5 * (a.float() @ w[:96].float().T)) * (2.0 * (a.float() @ w[96:].float().T))
    got = bt.dual_gemm_fused(a, w, alpha1=0.5, alpha2=2.0)
    assert got.dtype == dtype and got.shape == (130, 96)
    torch.testing.assert_close(got.float(), want, rtol=2 ** -6, atol=2e-2)
    assert torch.equal(got, bt.dual_gemm(a, w[:96], w[96:], alpha1=0.5, alpha2=2.0))


@pytest.mark.parametrize("out_dtype", [None, torch.bfloat16])
def test_dual_gemm_nvfp4_matches_torch_on_the_decoded_operands(out_dtype):
    gen = torch.Generator().manual_seed(21)
    m, n, k = 150, 64, 128
    ga, gw = 0.25, 0.05
    _, a, a_s = nvfp4_operand(m, k, ga, gen)
    _, b1, b1_s = nvfp4_operand(n, k, gw, gen)
    _, b2, b2_s = nvfp4_operand(n, k, gw, gen)
    got = bt.dual_gemm_nvfp4(a, a_s, b1, b1_s, b2, b2_s, alpha1=ga * gw, alpha2=ga * gw, out_dtype=out_dtype)
    assert got.dtype == (out_dtype or torch.float16) and got.shape == (m, n)
    fa, f1, f2 = (dequantize_reference(d, s, r, k) for d, s, r in ((a, a_s, m), (b1, b1_s, n), (b2, b2_s, n)))
    want = F.silu(ga * gw * (fa @ f1.T)) * (ga * gw * (fa @ f2.T))
    torch.testing.assert_close(got.float(), want, rtol=2 ** -7, atol=1e-3)


def test_dual_gemm_nvfp4_takes_torch_made_operands_as_they_are():
    """uint8 data and uint8 scales from the PyTorch-side quantizer and to_blocked, a fused [gate; up] weight
    split without copies: the same result as the float4/float8 tensors bwgemm's quantizer returns."""
    gen = torch.Generator().manual_seed(8)
    m, n, k = 64, 128, 64
    x = torch.randn(m, k, generator=gen)
    w = torch.randn(2 * n, k, generator=gen)
    xd, xs = quantize_reference(x, 1.0)
    wd, ws = quantize_reference(w, 1.0)
    gd, gs, ud, us = bt.split_gate_up_nvfp4(wd, to_blocked(ws))
    got = bt.dual_gemm_nvfp4(xd, to_blocked(xs), gd, gs, ud, us)
    a, a_s = bt.quantize_nvfp4(x)
    b, b_s = bt.quantize_nvfp4(w)
    g2, g2s, u2, u2s = bt.split_gate_up_nvfp4(b, b_s)
    assert torch.equal(got, bt.dual_gemm_nvfp4(a, a_s, g2, g2s, u2, u2s))
    fx, fw = dequantize_reference(xd, to_blocked(xs), m, k), dequantize_reference(wd, to_blocked(ws), 2 * n, k)
    torch.testing.assert_close(got.float(), F.silu(fx @ fw[:n].T) * (fx @ fw[n:].T), rtol=2 ** -9, atol=1e-3)


@pytest.mark.parametrize("out_dtype", [None, torch.bfloat16, torch.float32])
def test_gemm_nvfp4_matches_torch_on_the_decoded_operands(out_dtype):
    gen = torch.Generator().manual_seed(31)
    m, n, k = 150, 48, 128  # M not a multiple of the tile, N = 3 x 16
    ga, gw = 0.25, 0.05
    _, a, a_s = nvfp4_operand(m, k, ga, gen)
    _, b, b_s = nvfp4_operand(n, k, gw, gen)
    got = bt.gemm_nvfp4(a, a_s, b, b_s, alpha=ga * gw, out_dtype=out_dtype)
    assert got.dtype == (out_dtype or torch.float16) and got.shape == (m, n)
    fa, fb = dequantize_reference(a, a_s, m, k), dequantize_reference(b, b_s, n, k)
    want = ga * gw * (fa @ fb.T)
    torch.testing.assert_close(got.float(), want, rtol=2 ** -7 if out_dtype is None else 2 ** -6, atol=1e-3)
    # beta: d = alpha A B^T + beta c, c of the output dtype.
    c = torch.randn(m, n, generator=gen).to(got.dtype)
    got_c = bt.gemm_nvfp4(a, a_s, b, b_s, alpha=ga * gw, beta=0.5, c=c, out_dtype=out_dtype)
    torch.testing.assert_close(got_c.float(), want + 0.5 * c.float(), rtol=2 ** -6, atol=2e-3)


# ---- device scales (one-element float32 tensors read when the kernel runs) -------------------------------------

def test_device_scales_are_read_when_the_kernel_runs():
    """Each operator with its scales as tensors gives, bit for bit, what it gives with the same values as
    Python floats; after the tensors change in place, a new call follows the new values."""
    gen = torch.Generator().manual_seed(41)
    a = (torch.randn(128, 64, generator=gen) / 4).to(torch.bfloat16)
    b = (torch.randn(64, 64, generator=gen) / 4).to(torch.bfloat16)
    c = torch.randn(128, 64, generator=gen).to(torch.bfloat16)
    _, xq, xs = nvfp4_operand(128, 64, 0.5, gen)
    _, wq, ws = nvfp4_operand(64, 64, 0.25, gen)
    s1, s2 = torch.tensor([0.75]), torch.tensor([1.5])
    calls = [
        (lambda p, q: bt.gemm(a, b, alpha=p, beta=q, c=c)),
        (lambda p, q: bt.dual_gemm(a, b, b, alpha1=p, alpha2=q)),
        (lambda p, q: bt.dual_gemm_nvfp4(xq, xs, wq, ws, wq, ws, alpha1=p, alpha2=q)),
        (lambda p, q: bt.gemm_nvfp4(xq, xs, wq, ws, alpha=p, beta=q, c=c.half())),
    ]
    for i, call in enumerate(calls):
        s1.fill_(0.75), s2.fill_(1.5)
        assert torch.equal(call(s1, s2), call(0.75, 1.5)), f"call {i}: tensor scales differ from floats"
        s1.fill_(-2.0), s2.fill_(0.125)
        assert torch.equal(call(s1, s2), call(-2.0, 0.125)), f"call {i}: the changed tensor values were not used"
    g = torch.tensor([0.05])
    x = torch.randn(64, 64, generator=gen)
    for value in (0.05, 0.2):
        g.fill_(value)
        got, want = bt.quantize_nvfp4(x, g), bt.quantize_nvfp4(x, value)
        assert torch.equal(got[0].view(torch.uint8), want[0].view(torch.uint8))
        assert torch.equal(got[1].view(torch.uint8), want[1].view(torch.uint8))


def test_device_scale_errors_name_the_argument():
    a = torch.randn(128, 64, dtype=torch.float16)
    b = torch.randn(64, 64, dtype=torch.float16)
    with pytest.raises(TypeError, match="alpha_scale must be a float32 tensor"):
        bt.gemm(a, b, alpha=torch.tensor([1.0], dtype=torch.float64))
    with pytest.raises(ValueError, match="alpha1_scale must hold one element"):
        bt.dual_gemm(a, b, b, alpha1=torch.ones(2))
    with pytest.raises(ValueError, match="beta = 1 needs c"):  # a beta tensor: host part 1
        bt.gemm(a, b, beta=torch.ones(1))
    with pytest.raises(ValueError, match="beta_scale needs c and a nonzero beta"):
        torch.ops.bwgemm.gemm(a, b, 1.0, 0.0, a, None, None, torch.ones(1))
    with pytest.raises(RuntimeError, match="global_scale_tensor is on meta"):
        bt.quantize_nvfp4(torch.randn(4, 16), torch.ones(1, device="meta"))


# ---- errors ----------------------------------------------------------------------------------------------------

def test_errors_name_the_argument():
    a = torch.randn(128, 64, dtype=torch.float16)
    b = torch.randn(64, 64, dtype=torch.float16)
    with pytest.raises(TypeError, match="b must have A's dtype"):
        bt.gemm(a, b.to(torch.bfloat16))
    with pytest.raises(TypeError, match="a must be float16 or bfloat16"):
        bt.gemm(a.float(), b)
    with pytest.raises(ValueError, match="b must be \\[N, K\\] with a's K = 64"):
        bt.gemm(a, b[:, :32].contiguous())
    with pytest.raises(ValueError, match="a must be contiguous"):
        bt.gemm(a.T, b)
    with pytest.raises(ValueError, match="beta = 1 needs c"):
        bt.gemm(a, b, beta=1.0)
    with pytest.raises(ValueError, match="16-byte aligned"):
        bt.gemm(a.reshape(-1)[1:1 + 127 * 64].reshape(127, 64), b)
    with pytest.raises(ValueError, match="b1 and b2 must both be \\[N, K\\]"):
        bt.dual_gemm(a, b, b[:32])
    x, xs = bt.quantize_nvfp4(torch.randn(128, 64))
    w, ws = bt.quantize_nvfp4(torch.randn(16, 64))
    with pytest.raises(ValueError, match="b1_scales must hold the 128x4 blocked scales of 16 rows"):
        bt.dual_gemm_nvfp4(x, xs, w, ws[:256], w, ws)
    with pytest.raises(TypeError, match="a_scales must be float8_e4m3fn or uint8"):
        bt.dual_gemm_nvfp4(x, xs.float(), w, ws, w, ws)
    with pytest.raises(TypeError, match="a must be float4_e2m1fn_x2 or uint8"):
        bt.dual_gemm_nvfp4(x.view(torch.uint8).to(torch.int16), xs, w, ws, w, ws)
    with pytest.raises(ValueError, match="K = 32 must be a multiple of 64"):
        x32, xs32 = bt.quantize_nvfp4(torch.randn(128, 32))
        w32, ws32 = bt.quantize_nvfp4(torch.randn(16, 32))
        bt.dual_gemm_nvfp4(x32, xs32, w32, ws32, w32, ws32)
    with pytest.raises(ValueError, match="b_scales must hold the 128x4 blocked scales of 16 rows"):
        bt.gemm_nvfp4(x, xs, w, ws[:256])
    with pytest.raises(ValueError, match="beta = 1 needs c"):
        bt.gemm_nvfp4(x, xs, w, ws, beta=1.0)
    with pytest.raises(TypeError, match="out_dtype must be float16, bfloat16 or float32"):
        bt.gemm_nvfp4(x, xs, w, ws, out_dtype=torch.int32)
    with pytest.raises(TypeError, match="c must have the output dtype"):
        bt.gemm_nvfp4(x, xs, w, ws, beta=1.0, c=torch.zeros(128, 16, dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="must be a positive multiple of 16"):
        bt.quantize_nvfp4(torch.randn(4, 24))
    with pytest.raises(ValueError, match="global_scale must be positive"):
        bt.quantize_nvfp4(torch.randn(4, 16), 0.0)
    with pytest.raises(RuntimeError, match="b is on meta but the first operand is on cpu"):
        bt.gemm(a, b.to("meta"))


# ---- grouped (mixture-of-experts) operations ----------------------------------------------------------------

def expert_rows(offs=None, counts=None):
    """(expert, row index) pairs of a grouped call with valid metadata: the rows of a [T, ...] (offs, cumulative
    row ends) or of slab e of a [E, max_tokens, ...] (counts) that expert e owns."""
    if offs is not None:
        ends = offs.tolist()
        return [(e, slice(ends[e - 1] if e else 0, ends[e])) for e in range(len(ends))]
    return [(e, (e, slice(0, c))) for e, c in enumerate(counts.tolist())]


def grouped_reference(a, expert_fn, offs=None, counts=None, n=None):
    """fp32 output of a grouped call, computed expert by expert with torch.matmul: expert_fn(e, a_rows) -> [rows, N];
    and the mask of the rows some expert owns (the only ones compared: the operators leave the others unwritten)."""
    shape = (a.shape[0], n) if offs is not None else (a.shape[0], a.shape[1], n)
    out = torch.zeros(shape)
    owned = torch.zeros(shape[:-1], dtype=torch.bool)
    for e, rows in expert_rows(offs, counts):
        out[rows] = expert_fn(e, a[rows].float())
        owned[rows] = True
    return out, owned


def swiglu_oai(gate, up, limit=7.0, alpha=1.702):
    """gpt-oss's clamped SwiGLU, as bwgemm's epi::SiluMulClamped."""
    g = gate.clamp(max=limit)
    u = up.clamp(-limit, limit)
    return g * torch.sigmoid(alpha * g) * (u + 1)


def tokens(layout, experts, gen, k, dtype, sizes):
    """(a, offs, counts) for the layout: contiguous a [sum(sizes) + 5, K] (5 rows past offs[-1], which no expert
    owns), masked a [E, max(sizes) + 3, K]."""
    if layout == "offs":
        offs = torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32)
        a = torch.randn(int(offs[-1]) + 5, k, generator=gen).to(dtype)
        return a, offs, None
    counts = torch.tensor(sizes, dtype=torch.int32)
    a = torch.randn(experts, max(sizes) + 3, k, generator=gen).to(dtype)
    return a, None, counts


# Zero-token experts first, in the middle and last; one expert past a 128-row tile.
SIZES = [0, 70, 1, 0, 140, 0]


@pytest.mark.parametrize("layout", ["offs", "counts"])
@pytest.mark.parametrize("dtype,out_dtype", [(torch.float16, None), (torch.bfloat16, None),
                                             (torch.bfloat16, torch.float32)])
def test_grouped_mm_matches_a_per_expert_loop(layout, dtype, out_dtype):
    gen = torch.Generator().manual_seed(51)
    e, n, k = len(SIZES), 64, 128
    a, offs, counts = tokens(layout, e, gen, k, dtype, SIZES)
    b = (torch.randn(e, n, k, generator=gen) / 8).to(dtype)
    alphas = torch.tensor([1.0, 0.5, 2.0, 1.0, 0.25, 4.0])
    got = bt.grouped_mm(a, b, offs, counts, alpha=0.5, alphas=alphas, out_dtype=out_dtype)
    out = out_dtype or dtype
    assert got.dtype == out and got.shape == a.shape[:-1] + (n,)
    want, owned = grouped_reference(a, lambda i, x: 0.5 * float(alphas[i]) * (x @ b[i].float().T), offs, counts, n)
    tol = 2 ** -10 if out == torch.float16 else 2 ** -7 if out == torch.bfloat16 else 1e-5
    torch.testing.assert_close(got.float()[owned], want[owned], rtol=2 * tol, atol=1e-3)


@pytest.mark.parametrize("layout", ["offs", "counts"])
@pytest.mark.parametrize("activation", ["silu", "swiglu_oai"])
def test_grouped_dual_mm_matches_a_per_expert_loop(layout, activation):
    """Gate and up as the two views of one stacked [E, 2N, K] weight; the same bits as two separate tensors."""
    gen = torch.Generator().manual_seed(52)
    dtype, e, n, k = torch.bfloat16, 5, 64, 64
    sizes = [30, 0, 129, 0, 3]
    a, offs, counts = tokens(layout, e, gen, k, dtype, sizes)
    w = (torch.randn(e, 2 * n, k, generator=gen) / 4).to(dtype)
    a1s, a2s = torch.tensor([1.0, 2.0, 0.5, 1.0, 0.25]), torch.tensor([0.5, 1.0, 1.0, 4.0, 2.0])
    act = F.silu if activation == "silu" else None
    limit, s_alpha = 2.0, 1.5  # a low limit: the clamp is hit

    def expert(i, x):
        gate = 0.5 * float(a1s[i]) * (x @ w[i, :n].float().T)
        up = 2.0 * float(a2s[i]) * (x @ w[i, n:].float().T)
        return act(gate) * up if act else swiglu_oai(gate, up, limit, s_alpha)

    kw = dict(alpha1=0.5, alpha2=2.0, alpha1s=a1s, alpha2s=a2s, activation=activation, swiglu_limit=limit,
              swiglu_alpha=s_alpha)
    got = bt.grouped_dual_mm(a, w[:, :n], w[:, n:], offs, counts, **kw)
    assert got.dtype == dtype and got.shape == a.shape[:-1] + (n,)
    want, owned = grouped_reference(a, expert, offs, counts, n)
    torch.testing.assert_close(got.float()[owned], want[owned], rtol=2 ** -6, atol=2e-2)
    apart = bt.grouped_dual_mm(a, w[:, :n].contiguous(), w[:, n:].contiguous(), offs, counts, **kw)
    assert torch.equal(got[owned], apart[owned])


def nvfp4_tokens(layout, x, offs, counts, g):
    """The NVFP4 A of a grouped call and its fp32 decoding, per expert: contiguous, quantize_nvfp4_grouped with
    per-expert global scales g; masked, each expert's slab quantized alone, data stacked and scales concatenated."""
    k = x.shape[-1]
    deq = torch.zeros(x.shape)
    if layout == "offs":
        data, scales = bt.quantize_nvfp4_grouped(x, offs, g)
        d8, s8 = data.view(torch.uint8), scales.view(torch.uint8)
        scale_row = 0
        for e, rows in expert_rows(offs, None):
            r = rows.stop - rows.start
            if r > 0:
                start = scale_row // 128 * (-(-k // 64)) * 512
                blocked = s8[start:start + bt.blocked_scale_elements(r, k)]
                deq[rows] = dequantize_reference(d8[rows], blocked, r, k, float(g[e]))
            scale_row += -(-r // 128) * 128
        return data, scales, deq
    parts = [bt.quantize_nvfp4(x[e], float(g[e])) for e in range(x.shape[0])]
    for e, (d, s) in enumerate(parts):
        deq[e] = dequantize_reference(d, s, x.shape[1], k, float(g[e]))
    return torch.stack([d for d, _ in parts]), torch.cat([s for _, s in parts]), deq


@pytest.mark.parametrize("layout", ["offs", "counts"])
@pytest.mark.parametrize("out_dtype", [None, torch.bfloat16])
def test_grouped_mm_nvfp4_matches_the_decoded_operands(layout, out_dtype):
    gen = torch.Generator().manual_seed(53)
    e, n, k = 4, 48, 128
    sizes = [0, 60, 131, 7]
    x, offs, counts = tokens(layout, e, gen, k, torch.float32, sizes)
    g_a = torch.tensor([0.5, 0.25, 0.125, 1.0]) / 8
    g_w = torch.tensor([0.05, 0.1, 0.02, 0.04])
    a, a_s, fa = nvfp4_tokens(layout, x, offs, counts, g_a)
    w = torch.randn(e, n, k, generator=gen)
    b, b_s = bt.quantize_nvfp4_experts(w, g_w)
    assert b.shape == (e, n, k // 2) and b_s.shape == (e, bt.blocked_scale_elements(n, k))
    fb = [dequantize_reference(b[i], b_s[i], n, k, float(g_w[i])) for i in range(e)]
    got = bt.grouped_mm_nvfp4(a, a_s, b, b_s, offs, counts, alpha=2.0, alphas=g_a * g_w, out_dtype=out_dtype)
    assert got.dtype == (out_dtype or torch.float16) and got.shape == x.shape[:-1] + (n,)
    want, owned = grouped_reference(fa, lambda i, xa: 2.0 * (xa @ fb[i].T), offs, counts, n)
    torch.testing.assert_close(got.float()[owned], want[owned], rtol=2 ** -7, atol=1e-3)


@pytest.mark.parametrize("layout,activation", [("offs", "silu"), ("counts", "swiglu_oai")])
def test_grouped_dual_mm_nvfp4_matches_the_decoded_operands(layout, activation):
    """A stacked [E, 2N, K] gate/up weight quantized per expert and split into views (N = 128)."""
    gen = torch.Generator().manual_seed(54)
    e, n, k = 3, 128, 64
    sizes = [40, 0, 90]
    x, offs, counts = tokens(layout, e, gen, k, torch.float32, sizes)
    g_a = torch.tensor([0.01, 0.02, 0.005])
    g_w = torch.tensor([0.002, 0.001, 0.004])
    a, a_s, fa = nvfp4_tokens(layout, x, offs, counts, g_a)
    w = torch.randn(e, 2 * n, k, generator=gen)
    wq, ws = bt.quantize_nvfp4_experts(w, g_w)
    b1, b1_s, b2, b2_s = bt.split_gate_up_nvfp4(wq, ws)
    fw = [dequantize_reference(wq[i], ws[i], 2 * n, k, float(g_w[i])) for i in range(e)]
    act = (lambda g, u: F.silu(g) * u) if activation == "silu" else swiglu_oai
    got = bt.grouped_dual_mm_nvfp4(a, a_s, b1, b1_s, b2, b2_s, offs, counts, alpha1s=g_a * g_w, alpha2s=g_a * g_w,
                                   activation=activation, out_dtype=torch.bfloat16)
    assert got.dtype == torch.bfloat16 and got.shape == x.shape[:-1] + (n,)
    want, owned = grouped_reference(fa, lambda i, xa: act(xa @ fw[i][:n].T, xa @ fw[i][n:].T), offs, counts, n)
    torch.testing.assert_close(got.float()[owned], want[owned], rtol=2 ** -6, atol=1e-2)


def test_grouped_status_word_reports_bad_offsets_and_counts():
    """Out-of-range device offsets and counts are clamped to the buffers and OR their bits into status; valid ones
    set none. The bits accumulate over calls."""
    gen = torch.Generator().manual_seed(55)
    a = torch.randn(64, 32, generator=gen).to(torch.float16)
    b = torch.randn(3, 16, 32, generator=gen).to(torch.float16)
    status = torch.zeros(1, dtype=torch.int32)
    bt.grouped_mm(a, b, torch.tensor([10, 30, 64], dtype=torch.int32), status=status)
    assert int(status) == 0
    got = bt.grouped_mm(a, b, torch.tensor([40, 20, 90], dtype=torch.int32), status=status)
    assert int(status) == bt.STATUS_OFFSET_DECREASING | bt.STATUS_OFFSET_PAST_TOTAL
    # Expert 0 owns [0, 40), expert 1 nothing, expert 2 [40, 64): the rows clamped to a's.
    torch.testing.assert_close(got[:40].float(), a[:40].float() @ b[0].float().T, rtol=2 ** -9, atol=1e-2)
    torch.testing.assert_close(got[40:].float(), a[40:].float() @ b[2].float().T, rtol=2 ** -9, atol=1e-2)
    status.zero_()
    am = torch.randn(3, 20, 32, generator=gen).to(torch.float16)
    bt.grouped_dual_mm(am, b, b, counts=torch.tensor([-1, 25, 5], dtype=torch.int32), status=status)
    assert int(status) == bt.STATUS_COUNT_NEGATIVE | bt.STATUS_COUNT_ABOVE_MAX


def test_grouped_operators_with_no_rows_return_empty_outputs():
    b = torch.randn(2, 16, 32, dtype=torch.bfloat16)
    got = bt.grouped_mm(torch.empty(0, 32, dtype=torch.bfloat16), b, torch.zeros(2, dtype=torch.int32))
    assert got.shape == (0, 16)
    got = bt.grouped_dual_mm(torch.empty(2, 0, 32, dtype=torch.bfloat16), b, b,
                             counts=torch.zeros(2, dtype=torch.int32))
    assert got.shape == (2, 0, 16)


def grouped_error_cases():
    """(call, exception, message) of the grouped operators' argument errors."""
    a = torch.randn(64, 32, dtype=torch.float16)
    b = torch.randn(3, 16, 32, dtype=torch.float16)
    w = torch.randn(3, 32, 32, dtype=torch.float16)
    offs = torch.tensor([10, 30, 64], dtype=torch.int32)
    x, xs = bt.quantize_nvfp4_grouped(torch.randn(64, 64), offs)
    q, qs = bt.quantize_nvfp4_experts(torch.randn(3, 16, 64))
    dense_xs = bt.quantize_nvfp4(torch.randn(64, 64))[1]
    mm, dual, mm4, dual4 = bt.grouped_mm, bt.grouped_dual_mm, bt.grouped_mm_nvfp4, bt.grouped_dual_mm_nvfp4
    return [
        (lambda: mm(a, b), ValueError, "pass exactly one of offs .* and counts"),
        (lambda: mm(a, b, offs, offs), ValueError, "pass exactly one of offs"),
        (lambda: mm(a, b, offs.long()), TypeError, "offs must be int32"),
        (lambda: mm(a.reshape(2, 32, 32), b, counts=offs), ValueError, "with counts, a must be \\[E, max_tokens, K\\] "
                                                                       "with E = 3"),
        (lambda: mm(a, b[:2], offs), ValueError, "b must be \\[E, N, K\\] = \\[3, N, 32\\]"),
        (lambda: mm(a, b.to(torch.bfloat16), offs), TypeError, "b must have A's dtype"),
        (lambda: mm(a, b.transpose(1, 2).contiguous().transpose(1, 2), offs), ValueError,
         "b must have rows of K contiguous elements"),
        (lambda: mm(a, b[:, :12], offs), ValueError, "N = 12 must be a positive multiple of 8"),
        (lambda: mm(a, b, offs, alphas=torch.ones(2)), ValueError, "alphas must be a contiguous 1-D tensor of one "
                                                                    "scale per expert \\(3"),
        (lambda: mm(a, b, offs, status=torch.zeros(1)), TypeError, "status must be int32"),
        (lambda: mm(a, b, offs, out_dtype=torch.int8), TypeError, "out_dtype must be A's dtype .* or float32"),
        (lambda: dual(a, w[:, :16], w[:, 16:].contiguous(), offs), ValueError, "b1 and b2 must have the same strides"),
        (lambda: dual(a, b, b, offs, activation="gelu"), ValueError, "activation must be \"silu\" or \"swiglu_oai\""),
        (lambda: mm4(x, dense_xs, q, qs, offs), ValueError,
         "with offs, a_scales must hold the 128x4 blocked scales of 512 rows \\(round_up\\(T \\+ 127 E, 128\\), "
         "T = 64, E = 3\\)"),
        (lambda: mm4(x, xs, q, qs[:2], offs), ValueError, "b_scales must hold E = 3 experts' 128x4 blocked scales"),
        (lambda: mm4(x, xs, q.reshape(48, 32), qs, offs), ValueError, "b must be \\[E, N, K/2\\]"),
        (lambda: mm4(x, xs, q, qs, offs, out_dtype=torch.float32), TypeError, "out_dtype must be float16 or bfloat16"),
        (lambda: dual4(x, xs, q, qs, q[:, :8], qs, offs), ValueError, "b1 and b2 must have one shape"),
    ]


def test_grouped_errors_name_the_argument_on_cpu_and_in_the_fake():
    """Every error of the CPU operator, and the same from the fake implementation (FakeTensorMode: what
    torch.compile traces with)."""
    for call, exc, message in grouped_error_cases():
        with pytest.raises(exc, match=message):
            call()
    cases = grouped_error_cases()  # made outside the mode, converted by it
    with torch._subclasses.fake_tensor.FakeTensorMode(allow_non_fake_inputs=True):
        for call, exc, message in cases:
            with pytest.raises(exc, match=message):
                call()


def test_opcheck_grouped_operators():
    gen = torch.Generator().manual_seed(56)
    tests = ("test_schema", "test_faketensor", "test_aot_dispatch_static")
    # Every row owned by an expert: opcheck compares whole outputs, and the rows no expert owns are left unwritten.
    offs = torch.tensor([20, 20, 50], dtype=torch.int32)
    counts = torch.tensor([24, 24, 24], dtype=torch.int32)
    a = torch.randn(50, 64, generator=gen).to(torch.bfloat16)
    am = torch.randn(3, 24, 64, generator=gen).to(torch.bfloat16)
    w = (torch.randn(3, 32, 64, generator=gen) / 8).to(torch.bfloat16)
    alphas = torch.tensor([1.0, 0.5, 2.0])
    x, xs = (t.view(torch.uint8) for t in bt.quantize_nvfp4_grouped(torch.randn(50, 64, generator=gen), offs))
    slabs = [bt.quantize_nvfp4(torch.randn(24, 64, generator=gen)) for _ in range(3)]  # masked: slab by slab
    xm = torch.stack([d.view(torch.uint8) for d, _ in slabs])
    xms = torch.cat([s.view(torch.uint8) for _, s in slabs])
    q, qs = (t.view(torch.uint8) for t in bt.quantize_nvfp4_experts(torch.randn(3, 32, 64, generator=gen)))
    cases = [
        (torch.ops.bwgemm.grouped_mm.default, (a, w, offs, None, 1.0, alphas, None, torch.zeros(1, dtype=torch.int32))),
        (torch.ops.bwgemm.grouped_mm.default, (am, w, None, counts, 0.5, None, torch.float32)),
        (torch.ops.bwgemm.grouped_dual_mm.default, (a, w, w, offs, None, 1.0, 1.0, alphas, alphas, "swiglu_oai")),
        (torch.ops.bwgemm.grouped_dual_mm.default, (am, w, w, None, counts)),
        (torch.ops.bwgemm.grouped_mm_nvfp4.default, (x, xs, q, qs, offs, None, 1.0, alphas, torch.bfloat16)),
        (torch.ops.bwgemm.grouped_mm_nvfp4.default, (xm, xms, q, qs, None, counts)),
        (torch.ops.bwgemm.grouped_dual_mm_nvfp4.default, (x, xs, q, qs, q, qs, offs)),
        (torch.ops.bwgemm.grouped_dual_mm_nvfp4.default,
         (xm, xms, q, qs, q, qs, None, counts, 1.0, 1.0, None, None, "silu", 7.0, 1.702, None,
          torch.zeros(1, dtype=torch.int32))),
    ]
    for op, args in cases:
        torch.library.opcheck(op, args, test_utils=tests)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_traces_a_grouped_mlp(backend):
    """FC1 and FC2 of a MoE layer (offs on the device, a status word) compiled with fullgraph=True through the fake
    implementations: the eager results for two token counts."""
    gen = torch.Generator().manual_seed(57)
    e, n, k = 3, 32, 64
    w13 = (torch.randn(e, 2 * n, k, generator=gen) / 8).to(torch.bfloat16)
    w2 = (torch.randn(e, k, n, generator=gen) / 8).to(torch.bfloat16)

    def experts(x, offs, status):
        h = bt.grouped_dual_mm(x, w13[:, :n], w13[:, n:], offs, status=status)
        return bt.grouped_mm(h, w2, offs, status=status)

    compiled = torch.compile(experts, backend=backend, fullgraph=True, dynamic=True)
    for t in (48, 40):
        x = torch.randn(t, k, generator=gen).to(torch.bfloat16)
        offs = torch.tensor([t // 4, t // 4, t], dtype=torch.int32)
        status = torch.zeros(1, dtype=torch.int32)
        assert torch.equal(compiled(x, offs, status), experts(x, offs, status))
    bad = torch.tensor([t, 1, t], dtype=torch.int32)
    compiled(x, bad, status)
    assert int(status) == bt.STATUS_OFFSET_DECREASING  # the mutation of status survives functionalization


# ---- torch.compile and the fake implementations ----------------------------------------------------------------

def test_opcheck_schemas_and_fake_implementations():
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(128, 64, generator=gen).to(torch.float16)
    b = torch.randn(64, 64, generator=gen).to(torch.float16)
    x, xs = bt.quantize_nvfp4(torch.randn(128, 64, generator=gen))
    w, ws = bt.quantize_nvfp4(torch.randn(16, 64, generator=gen))
    tests = ("test_schema", "test_faketensor", "test_aot_dispatch_static")
    cases = [
        (torch.ops.bwgemm.gemm.default, (a, b, 1.0, 0.0, None, None)),
        (torch.ops.bwgemm.dual_gemm.default, (a, b, b, 1.0, 1.0)),
        # uint8 views: opcheck clones and compares its inputs, which PyTorch's CPU float4/float8 kernels cannot.
        (torch.ops.bwgemm.dual_gemm_nvfp4.default,
         tuple(t.view(torch.uint8) for t in (x, xs, w, ws, w, ws)) + (1.0, 1.0, None)),
        (torch.ops.bwgemm.gemm_nvfp4.default, tuple(t.view(torch.uint8) for t in (x, xs, w, ws)) + (1.0, 0.0, None, None)),
        (torch.ops.bwgemm.quantize_nvfp4.default, (torch.randn(128, 64, generator=gen), 1.0)),
        (torch.ops.bwgemm.quantize_nvfp4_grouped.default,
         (torch.randn(100, 64, generator=gen), torch.tensor([40, 40, 100], dtype=torch.int32), 1.0, None)),
        (torch.ops.bwgemm.gemm.default, (a, b, 1.0, 0.0, None, None, torch.tensor([0.5]), None)),
        (torch.ops.bwgemm.quantize_nvfp4.default, (torch.randn(128, 64, generator=gen), 1.0, torch.tensor([0.1]))),
    ]
    for op, args in cases:
        torch.library.opcheck(op, args, test_utils=tests)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_traces_a_gated_mlp_with_fake_tensors(backend):
    gen = torch.Generator().manual_seed(2)
    w_gate_up = (torch.randn(128, 64, generator=gen) / 8).to(torch.bfloat16)
    w_down = (torch.randn(64, 64, generator=gen) / 8).to(torch.bfloat16)

    def mlp(x):
        h = bt.dual_gemm_fused(x, w_gate_up)
        return bt.gemm(h, w_down)

    compiled = torch.compile(mlp, backend=backend, fullgraph=True, dynamic=True)
    for m in (128, 96):  # a second batch size reuses the dynamic-shape graph
        x = torch.randn(m, 64, generator=gen).to(torch.bfloat16)
        assert torch.equal(compiled(x), mlp(x))

    with torch._subclasses.fake_tensor.FakeTensorMode():
        fx = torch.empty(256, 64, dtype=torch.bfloat16)
        out = bt.gemm(bt.dual_gemm_fused(fx, torch.empty(128, 64, dtype=torch.bfloat16)),
                      torch.empty(64, 64, dtype=torch.bfloat16))
        assert out.shape == (256, 64) and out.dtype == torch.bfloat16
        q, s = bt.quantize_nvfp4(torch.empty(300, 128))
        assert q.shape == (300, 64) and s.shape == (bt.blocked_scale_elements(300, 128),)
        with pytest.raises(TypeError, match="b must have A's dtype"):
            bt.gemm(fx, torch.empty(64, 64, dtype=torch.float16))


# ---- against PyTorch's own NVFP4 helpers ------------------------------------------------------------------------

def test_layouts_match_pytorchs_own_helpers():
    """PyTorch's test helpers (torch.testing._internal.common_quantized, used by its scaled-mm tests): the
    to_blocked swizzle, pack_uint4's nibble order and its fp32 -> e2m1 rounding give bwgemm's quantizer's bytes."""
    try:
        from torch.testing._internal.common_quantized import _f32_to_floatx_unpacked, pack_uint4
        from torch.testing._internal.common_quantized import to_blocked as torch_to_blocked
    except ImportError as e:  # an internal module: absent or renamed in some PyTorch versions
        pytest.skip(f"PyTorch's NVFP4 test helpers are not importable here: {e}")
    gen = torch.Generator().manual_seed(4)
    rows, k, g = 200, 128, 0.5
    x = torch.randn(rows, k, generator=gen) * 3
    data, scales = bt.quantize_nvfp4(x, g)
    _, plain = quantize_reference(x, g)
    assert torch.equal(scales.view(torch.uint8), torch_to_blocked(plain))  # PyTorch's swizzle
    assert torch.equal(torch_to_blocked(plain), to_blocked(plain))         # and this file's
    # PyTorch's e2m1 rounding of x / s, packed by pack_uint4 (element 2i in the low nibble).
    s = (plain.view(torch.float8_e4m3fn).float() * g).repeat_interleave(16, dim=1)
    codes = _f32_to_floatx_unpacked((x / s).contiguous(), 2, 1)
    assert torch.equal(data.view(torch.uint8), pack_uint4(codes))


# ---- tuning files --------------------------------------------------------------------------------------------

def test_tuning_files_apply_to_the_cuda_operators_only(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{}")
    # The operator itself refuses a CPU tensor: the CPU operators (the emulator) take the built-in choice.
    with pytest.raises(ValueError, match="the CPU operators .* take the built-in rules"):
        torch.ops.bwgemm.install_tuning_file(torch.empty(0), str(path))
    if bt.has_cuda_kernels():
        with pytest.raises(ValueError, match="must be a CUDA device"):
            bt.load_tuning_file(path, device="cpu")
    else:
        with pytest.raises(RuntimeError, match="no CUDA library"):
            bt.load_tuning_file(path)
