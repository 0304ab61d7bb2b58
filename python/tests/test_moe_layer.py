"""docs/moe.md's "A whole MoE layer in PyTorch", run as it is written there (the Python block after the marker
`<!-- snippet: moe_layer_torch -->`), against a MoE layer written with a loop over the experts and torch.matmul.
CPU tensors (the emulator) here; the block picks CUDA where there is a GPU."""
import os
import re

import pytest
import torch
import torch.nn.functional as F

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "moe.md")


def doc_block():
    if not os.path.exists(DOC):
        pytest.skip(f"docs/moe.md is not beside the tests ({DOC}): run them from the source tree")
    text = open(DOC, encoding="utf-8").read()
    match = re.search(r"<!-- snippet: moe_layer_torch -->\s*```python\n(.*?)```", text, re.S)
    assert match, "docs/moe.md lost its marked block <!-- snippet: moe_layer_torch --> ```python ... ```"
    return match.group(1)


def reference_moe(x, router, w13, w2, top_k):
    """The layer expert by expert: softmax routing, top_k renormalized, silu(gate) * up rounded to x's dtype (FC1's
    output), the down projection, the weighted sum per token; fp32 matmuls."""
    probs = (x.float() @ router.float().T).softmax(dim=-1)
    weights, chosen = torch.topk(probs, top_k, dim=-1)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    n = w13.shape[1] // 2
    y = torch.zeros(x.shape, dtype=torch.float32)
    for e in range(w13.shape[0]):
        token, slot = (chosen == e).nonzero(as_tuple=True)
        xe = x[token].float()
        h = (F.silu(xe @ w13[e, :n].float().T) * (xe @ w13[e, n:].float().T)).to(x.dtype).float()
        y.index_add_(0, token, weights[token, slot, None] * (h @ w2[e].float().T))
    return y


def test_the_documented_moe_layer_matches_a_per_expert_loop():
    ns = {}
    exec(compile(doc_block(), "docs/moe.md (moe_layer_torch)", "exec"), ns)
    x, router, w13, w2, top_k = (ns[k].cpu() if isinstance(ns[k], torch.Tensor) else ns[k]
                                 for k in ("x", "router", "w13", "w2", "top_k"))
    want = reference_moe(x, router, w13, w2, top_k)
    y, y_nvfp4 = ns["y"].cpu(), ns["y_nvfp4"].cpu()
    assert y.shape == x.shape and y.dtype == x.dtype and y_nvfp4.shape == x.shape and y_nvfp4.dtype == x.dtype
    # Every expert got tokens, or the check would not cover the grouped calls' split.
    offs = ns["permute"](ns["route"](x, router, top_k)[1], w13.shape[0])[2]
    assert int(torch.diff(offs, prepend=offs.new_zeros(1)).min()) > 0
    torch.testing.assert_close(y.float(), want, rtol=2 ** -6, atol=2e-2)
    # NVFP4: about 0.25 relative error on these random operands (0.13 per quantized GEMM); a wrong global
    # scale or a row given to the wrong expert is far off.
    assert float((y_nvfp4.float() - want).norm() / want.norm()) < 0.35
