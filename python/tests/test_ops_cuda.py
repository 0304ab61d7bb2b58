"""torch.ops.bwgemm on CUDA tensors against PyTorch references, and a CUDA-graph-captured call replayed on new
inputs. Needs the package's CUDA library and a GPU it runs on (H100/H200: the sm_90a kernels; B200: sm_100a);
skips with a message elsewhere. On an H200 (2026-12-01): 13 passed, the NVFP4 case skipped."""
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
