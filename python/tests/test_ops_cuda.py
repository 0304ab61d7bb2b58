"""torch.ops.bwgemm on CUDA tensors against PyTorch references, and a CUDA-graph-captured call replayed on new
inputs. Needs the package's CUDA library and a GPU it runs on (H100/H200: the sm_90a kernels; B200: sm_100a);
skips with a message elsewhere. On an H200 (2026-12-01): 13 passed, the NVFP4 case skipped. The grouped (MoE)
operators' tests (the last section) have not run on a GPU."""
import pytest
import torch
import torch.nn.functional as F

import bwgemm_torch as bt


def _capability():
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_capability()


CAP = _capability()
pytestmark = pytest.mark.skipif(
    CAP not in ((9, 0), (10, 0)) or not bt.has_cuda_kernels(),
    reason=f"needs bwgemm_torch's CUDA library (built: {bt.has_cuda_kernels()}) and a GPU of compute capability "
           f"9.0 or 10.0 (found: {CAP})")
HOPPER = CAP == (9, 0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k", [(1, 4096, 4096), (200, 72, 136), (4096, 4096, 4096)])
def test_gemm_matches_torch(dtype, m, n, k):
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(n, k, device="cuda").to(dtype)
    want = a.float() @ b.float().T
    tol = 2 ** -10 if dtype == torch.float16 else 2 ** -7
    torch.testing.assert_close(bt.gemm(a, b).float(), want, rtol=2 * tol, atol=1e-3 * k ** 0.5)


@pytest.mark.skipif(not HOPPER, reason="the 16-bit dual GEMM kernels are sm_90a's (H100/H200)")
@pytest.mark.parametrize("m", [1, 16, 512])
def test_dual_gemm_matches_torch(m):
    a = torch.randn(m, 4096, device="cuda").to(torch.bfloat16)
    w = (torch.randn(2 * 1024, 4096, device="cuda") / 64).to(torch.bfloat16)
    want = F.silu(a.float() @ w[:1024].float().T) * (a.float() @ w[1024:].float().T)
    torch.testing.assert_close(bt.dual_gemm_fused(a, w).float(), want, rtol=2 ** -6, atol=2e-2)


def test_quantizer_matches_the_cpu_emulator_bit_for_bit():
    x = torch.randn(300, 512) * 5
    data, scales = bt.quantize_nvfp4(x.cuda(), 0.05)
    cpu_data, cpu_scales = bt.quantize_nvfp4(x, 0.05)
    assert torch.equal(data.cpu().view(torch.uint8), cpu_data.view(torch.uint8))
    assert torch.equal(scales.cpu().view(torch.uint8), cpu_scales.view(torch.uint8))


def test_grouped_quantizer_replays_in_a_cuda_graph_with_new_offsets():
    """quantize_nvfp4_grouped captured once in a CUDA graph, replayed after the device offsets changed (what a
    MoE layer does every step): each replay's outputs equal the CPU emulator's for the new offsets, bit for bit."""
    x = torch.randn(300, 128) * 5
    xg = x.cuda()
    offs = torch.tensor([100, 100, 300], dtype=torch.int32, device="cuda")
    scales_e = torch.tensor([0.5, 1.0, 2.0], device="cuda")
    bt.quantize_nvfp4_grouped(xg, offs, scales_e)  # warm up outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        data, scales = bt.quantize_nvfp4_grouped(xg, offs, scales_e)
    for new in ([100, 100, 300], [0, 150, 300], [300, 300, 300], [10, 5, 400]):  # the last: bad offsets
        offs.copy_(torch.tensor(new, dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        cpu_data, cpu_scales = bt.quantize_nvfp4_grouped(x, torch.tensor(new, dtype=torch.int32), scales_e.cpu())
        assert torch.equal(data.cpu().view(torch.uint8), cpu_data.view(torch.uint8)), new
        assert torch.equal(scales.cpu().view(torch.uint8), cpu_scales.view(torch.uint8)), new


@pytest.mark.skipif(HOPPER, reason="NVFP4 needs a B200")
def test_dual_gemm_nvfp4_matches_the_cpu_emulator():
    a, a_s = bt.quantize_nvfp4(torch.randn(256, 256))
    b1, b1_s = bt.quantize_nvfp4(torch.randn(128, 256))
    b2, b2_s = bt.quantize_nvfp4(torch.randn(128, 256))
    cpu = bt.dual_gemm_nvfp4(a, a_s, b1, b1_s, b2, b2_s, alpha1=0.5, alpha2=0.25)
    gpu = bt.dual_gemm_nvfp4(*(t.cuda() for t in (a, a_s, b1, b1_s, b2, b2_s)), alpha1=0.5, alpha2=0.25)
    torch.testing.assert_close(gpu.cpu().float(), cpu.float(), rtol=2 ** -9, atol=1e-3)


def test_gemm_nvfp4_on_cuda():
    """B200: the sm_100a NVFP4 GEMM against the CPU emulator; Hopper: a clear not-supported error."""
    a, a_s = bt.quantize_nvfp4(torch.randn(256, 256))
    b, b_s = bt.quantize_nvfp4(torch.randn(128, 256))
    cuda = tuple(t.cuda() for t in (a, a_s, b, b_s))
    if HOPPER:
        with pytest.raises(RuntimeError, match="NVFP4"):
            bt.gemm_nvfp4(*cuda, alpha=0.5)
        return
    cpu = bt.gemm_nvfp4(a, a_s, b, b_s, alpha=0.5)
    torch.testing.assert_close(bt.gemm_nvfp4(*cuda, alpha=0.5).cpu().float(), cpu.float(), rtol=2 ** -9, atol=1e-3)


def test_cuda_graph_replays_with_new_device_scales():
    """Scales as one-element device tensors, captured once: changing their values between replays changes the
    outputs as PyTorch's reference says (no re-capture, no host synchronization inside the graph)."""
    dtype = torch.bfloat16
    a = torch.randn(64, 1024, device="cuda").to(dtype)
    w = (torch.randn(2 * 512, 1024, device="cuda") / 32).to(dtype)
    s1 = torch.ones(1, device="cuda")
    s2 = torch.ones(1, device="cuda")
    if HOPPER:
        op = lambda: bt.dual_gemm(a, w[:512], w[512:], alpha1=s1, alpha2=s2)
        ref = lambda: F.silu(s1 * (a.float() @ w[:512].float().T)) * (s2 * (a.float() @ w[512:].float().T))
    else:
        op = lambda: bt.gemm(a, w[:512], alpha=s1)
        ref = lambda: s1 * (a.float() @ w[:512].float().T)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = op()
    for v1, v2 in ((1.0, 1.0), (0.5, 2.0), (-3.0, 0.25)):
        s1.fill_(v1)
        s2.fill_(v2)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out.float(), ref(), rtol=2 ** -6, atol=2e-2)


def test_cuda_graph_replays_on_new_inputs():
    """Captured once, replayed after the input buffers change: the outputs follow the inputs."""
    dtype = torch.bfloat16
    a = torch.randn(64, 1024, device="cuda").to(dtype)
    w = (torch.randn(2 * 512, 1024, device="cuda") / 32).to(dtype)
    op = bt.dual_gemm_fused if HOPPER else (lambda x, w: bt.gemm(x, w[:512]))
    ref = ((lambda x, w: F.silu(x.float() @ w[:512].float().T) * (x.float() @ w[512:].float().T)) if HOPPER
           else (lambda x, w: x.float() @ w[:512].float().T))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op(a, w)  # warm-up outside the capture (first-call host work: occupancy queries)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = op(a, w)
    for _ in range(3):
        a.copy_(torch.randn_like(a, dtype=torch.float32).to(dtype))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out.float(), ref(a, w), rtol=2 ** -6, atol=2e-2)


def _tuning_file(path, gpu, entries):
    """A tuning file (docs/tuning.md) for this process's CUDA device, or another GPU's name."""
    import json
    props = torch.cuda.get_device_properties(0)
    major, minor = (int(x) for x in torch.version.cuda.split(".")[:2])
    doc = {"format": "bwgemm-tuning", "version": 1,
           "metadata": {"gpu": gpu or props.name, "sm_count": props.multi_processor_count,
                        "compute_capability": f"{props.major}.{props.minor}",
                        "cuda_runtime": f"{major}.{minor}", "cuda_driver": f"{major}.{minor}",
                        "bwgemm_version": "0.1.0", "launch": "graph", "l2": "cold-l2", "date": "2026-12-05"},
           "entries": entries}
    path.write_text(json.dumps(doc))
    return path


def test_load_tuning_file_installs_a_table_and_refuses_another_gpus(tmp_path):
    """A table forcing another Config for one shape: installed, the call still correct; a file of another GPU
    refused with the reason, the installed table kept."""
    config = "GemmTile128x128" if HOPPER else "GemmSmallM"
    entry = {"op": "gemm", "in": "bf16", "out": "bf16", "b_layout": "nk", "n": 4096, "k": 4096, "m": 16,
             "config": config}
    bt.load_tuning_file(_tuning_file(tmp_path / "this.json", None, [entry]))
    a = torch.randn(16, 4096, device="cuda").to(torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda").to(torch.bfloat16)
    torch.testing.assert_close(bt.gemm(a, b).float(), a.float() @ b.float().T, rtol=2 ** -6, atol=0.2)
    with pytest.raises(ValueError, match="metadata.gpu"):
        bt.load_tuning_file(_tuning_file(tmp_path / "other.json", "Some Other GPU", [entry]))


# ---- grouped (mixture-of-experts) operations ----------------------------------------------------------------

def _grouped_16bit_runs():
    """Whether this GPU runs the 16-bit grouped operators: a B200 does (sm_100a); on Hopper the message says why
    not where the sm_90a backend of bwgemm::grouped_gemm is not built in."""
    if CAP is None or not bt.has_cuda_kernels():
        return False, "no CUDA library or GPU"
    try:
        a = torch.zeros(8, 16, device="cuda", dtype=torch.bfloat16)
        bt.grouped_mm(a, torch.zeros(1, 16, 16, device="cuda", dtype=torch.bfloat16),
                      torch.tensor([8], dtype=torch.int32, device="cuda"))
        return True, ""
    except RuntimeError as e:
        return False, str(e)


def _owned_reference(a, offs, counts, expert_fn, n):
    """fp32 per-expert loop (valid offs or counts) and the mask of owned rows."""
    shape = a.shape[:-1] + (n,)
    out = torch.zeros(shape, device=a.device)
    owned = torch.zeros(shape[:-1], dtype=torch.bool, device=a.device)
    if offs is not None:
        begin = 0
        for e, end in enumerate(offs.tolist()):
            out[begin:end] = expert_fn(e, a[begin:end].float())
            owned[begin:end] = True
            begin = end
    else:
        for e, c in enumerate(counts.tolist()):
            out[e, :c] = expert_fn(e, a[e, :c].float())
            owned[e, :c] = True
    return out, owned


@pytest.mark.parametrize("layout", ["offs", "counts"])
def test_grouped_mm_and_grouped_dual_mm_match_torch(layout):
    runs, why = _grouped_16bit_runs()
    if not runs:
        pytest.skip(f"the 16-bit grouped operators do not run on this GPU: {why}")
    e, n, k, hidden = 8, 512, 1024, 1024
    sizes = [0, 300, 1, 77, 0, 512, 129, 0]
    if layout == "offs":
        offs = torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32).cuda()
        counts = None
        a = torch.randn(sum(sizes) + 16, k, device="cuda").to(torch.bfloat16)
    else:
        offs, counts = None, torch.tensor(sizes, dtype=torch.int32).cuda()
        a = torch.randn(e, max(sizes), k, device="cuda").to(torch.bfloat16)
    w13 = (torch.randn(e, 2 * n, k, device="cuda") / 32).to(torch.bfloat16)
    w2 = (torch.randn(e, hidden, n, device="cuda") / 16).to(torch.bfloat16)
    alphas = torch.rand(e, device="cuda") + 0.5
    h = bt.grouped_dual_mm(a, w13[:, :n], w13[:, n:], offs, counts, alpha1s=alphas)
    want_h, owned = _owned_reference(
        a, offs, counts, lambda i, x: F.silu(alphas[i] * (x @ w13[i, :n].float().T)) * (x @ w13[i, n:].float().T), n)
    torch.testing.assert_close(h.float()[owned], want_h[owned], rtol=2 ** -6, atol=2e-2)
    y = bt.grouped_mm(h, w2, offs, counts, alphas=alphas, out_dtype=torch.float32)
    want_y, _ = _owned_reference(h, offs, counts, lambda i, x: alphas[i] * (x @ w2[i].float().T), hidden)
    torch.testing.assert_close(y[owned], want_y[owned], rtol=1e-4, atol=1e-3)


def test_grouped_nvfp4_matches_the_cpu_emulator():
    """B200: the NVFP4 grouped GEMM and dual GEMM against the CPU emulator; Hopper: a clear not-supported error."""
    e, n, k = 4, 256, 512
    offs = torch.tensor([0, 200, 200, 333], dtype=torch.int32)
    x = torch.randn(340, k)
    g = torch.full((e,), 0.01)
    a, a_s = bt.quantize_nvfp4_grouped(x, offs, g)
    wq, ws = bt.quantize_nvfp4_experts(torch.randn(e, 2 * n, k), 0.002)
    b1, b1_s, b2, b2_s = bt.split_gate_up_nvfp4(wq, ws)
    cuda = lambda *ts: tuple(t.cuda() for t in ts)
    alphas = g * 0.002
    if HOPPER:
        with pytest.raises(RuntimeError, match="NVFP4"):
            bt.grouped_mm_nvfp4(*cuda(a, a_s, wq, ws, offs), alphas=alphas.cuda())
        return
    cpu = bt.grouped_dual_mm_nvfp4(a, a_s, b1, b1_s, b2, b2_s, offs, alpha1s=alphas, alpha2s=alphas)
    gpu = bt.grouped_dual_mm_nvfp4(*cuda(a, a_s, b1, b1_s, b2, b2_s, offs), alpha1s=alphas.cuda(),
                                   alpha2s=alphas.cuda())
    rows = int(offs[-1])
    torch.testing.assert_close(gpu[:rows].cpu().float(), cpu[:rows].float(), rtol=2 ** -9, atol=1e-3)
    cpu = bt.grouped_mm_nvfp4(a, a_s, wq, ws, offs, alphas=alphas, out_dtype=torch.bfloat16)
    gpu = bt.grouped_mm_nvfp4(*cuda(a, a_s, wq, ws, offs), alphas=alphas.cuda(), out_dtype=torch.bfloat16)
    torch.testing.assert_close(gpu[:rows].cpu().float(), cpu[:rows].float(), rtol=2 ** -7, atol=1e-3)


def _capture(op):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op()  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = op()
    return graph, out


def test_grouped_mlp_replays_in_a_cuda_graph_with_new_offsets():
    """FC1 and FC2 captured once, replayed after the device offsets changed (a MoE layer's every step): each
    replay follows the new split; bad offsets set the status bits, read after the replay."""
    runs, why = _grouped_16bit_runs()
    if not runs:
        pytest.skip(f"the 16-bit grouped operators do not run on this GPU: {why}")
    e, n, k, t = 4, 256, 512, 600
    a = torch.randn(t, k, device="cuda").to(torch.bfloat16)
    w13 = (torch.randn(e, 2 * n, k, device="cuda") / 32).to(torch.bfloat16)
    w2 = (torch.randn(e, k, n, device="cuda") / 16).to(torch.bfloat16)
    offs = torch.tensor([150, 300, 450, 600], dtype=torch.int32, device="cuda")
    status = torch.zeros(1, dtype=torch.int32, device="cuda")

    def mlp():
        h = bt.grouped_dual_mm(a, w13[:, :n], w13[:, n:], offs, status=status)
        return bt.grouped_mm(h, w2, offs, status=status)

    graph, out = _capture(mlp)
    for new in ([150, 300, 450, 600], [0, 599, 599, 600], [600, 600, 600, 600], [10, 20, 30, 500]):
        offs.copy_(torch.tensor(new, dtype=torch.int32))
        status.zero_()
        graph.replay()
        torch.cuda.synchronize()
        assert int(status) == 0, new
        ref = lambda i, x: (F.silu(x @ w13[i, :n].float().T) * (x @ w13[i, n:].float().T)).to(torch.bfloat16).float() \
            @ w2[i].float().T
        want, owned = _owned_reference(a, offs.cpu(), None, ref, k)
        torch.testing.assert_close(out.float()[owned], want[owned], rtol=2 ** -5, atol=5e-2)
    offs.copy_(torch.tensor([300, 200, 700, 600], dtype=torch.int32))  # decreasing, then past T
    status.zero_()
    graph.replay()
    torch.cuda.synchronize()
    assert int(status) == bt.STATUS_OFFSET_DECREASING | bt.STATUS_OFFSET_PAST_TOTAL


@pytest.mark.skipif(HOPPER, reason="NVFP4 needs a B200")
def test_grouped_nvfp4_pipeline_replays_in_a_cuda_graph_with_new_offsets():
    """quantize_nvfp4_grouped -> grouped_dual_mm_nvfp4 captured once and replayed with new offsets: each replay
    equals the CPU emulator's run of the same calls."""
    e, n, k, t = 4, 128, 256, 300
    x = torch.randn(t, k)
    xg = x.cuda()
    g = torch.full((e,), 0.01, device="cuda")
    wq, ws = bt.quantize_nvfp4_experts(torch.randn(e, 2 * n, k), 0.002)
    b1, b1_s, b2, b2_s = (v.cuda() for v in bt.split_gate_up_nvfp4(wq, ws))
    offs = torch.tensor([100, 100, 250, 300], dtype=torch.int32, device="cuda")
    alphas = g * 0.002

    def fc1(xx, oo, gg, aa, w):
        xq, xs = bt.quantize_nvfp4_grouped(xx, oo, gg)
        return bt.grouped_dual_mm_nvfp4(xq, xs, *w, oo, alpha1s=aa, alpha2s=aa)

    graph, out = _capture(lambda: fc1(xg, offs, g, alphas, (b1, b1_s, b2, b2_s)))
    cpu_w = tuple(v.cpu() for v in (b1, b1_s, b2, b2_s))
    for new in ([100, 100, 250, 300], [0, 0, 0, 300], [1, 129, 260, 290]):
        offs.copy_(torch.tensor(new, dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        cpu = fc1(x, torch.tensor(new, dtype=torch.int32), g.cpu(), alphas.cpu(), cpu_w)
        rows = new[-1]
        torch.testing.assert_close(out[:rows].cpu().float(), cpu[:rows].float(), rtol=2 ** -9, atol=1e-3)
