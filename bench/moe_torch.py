#!/usr/bin/env python3
"""Mixture-of-experts FC1 and FC2 in PyTorch on one CUDA GPU: bwgemm_torch's grouped operators against
torch._grouped_mm (FC1: one grouped GEMM on the stacked [E, 2N, K] gate/up weight, then silu(gate) * up).

    python3 bench/moe_torch.py [--models deepseek-v3,...] [--tokens 1,8,...] [--routing uniform,zipf]
                               [--rounds 16] [--min-sample-ms 0.5] [--graphs 1] [--out moe_torch.json]
    python3 bench/moe_torch.py --dry-run     # no GPU: the router, the operators on CPU tensors, the run's loop

bf16, contiguous tokens (`offs`, as torch._grouped_mm takes them), the shapes and the router of bwgemm_bench's moe
groups (bench/moe_shapes.cpp; the same routing, checked by a golden vector in both tests). Per shape, each side is
first checked against a per-expert fp32 loop on three experts (a coarse check: it catches a wrong expert, row or
layout, not a last-bit difference; bwgemm_bench's check is the precise one), then timed in alternating rounds
(order reversed every round, as bwgemm_bench --bwgemm_paired=1): a sample is back-to-back calls between two CUDA
events, replayed as one CUDA graph (--graphs 1, the default; eager launches where capture fails, said in the
record), the calls cycling through copies of the operands that together exceed 3x the L2. `ratio` is the median
over rounds of torch's sample over bwgemm_torch's (above 1: bwgemm_torch is faster). The JSON has the records
bench/paired_table.py reads (`<group>/paired_bwgemm_torch/<shape>`).

Without bwgemm_torch's grouped operators (grouped_mm, grouped_dual_mm) only the torch side is checked (and, on a
GPU, timed alone), and the output says so. NVFP4 (torch._scaled_grouped_mm) is not covered here.
"""

import argparse
import bisect
import datetime
import json
import math
import os
import statistics
import sys
import tempfile
import time

# ---- the router: bench/moe_shapes.cpp, bit for bit ---------------------------------------------------------------

MASK = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
ROUTING_SEED = 0x62776765_6D6D4D6F  # "bwgemmMo"
PERMUTATION_SALT = 0x5045524D_5045524D  # "PERMPERM"
UNIFORM, ZIPF = 0, 1
ROUTINGS = {"uniform": UNIFORM, "zipf": ZIPF}

# name: (hidden, intermediate, experts, top_k, local_experts); bench/moe_shapes.cpp moe_models()
MODELS = {
    "deepseek-v3": (7168, 2048, 256, 8, 256),
    "deepseek-v3-ep8": (7168, 2048, 256, 8, 32),
    "qwen3-30b-a3b": (2048, 768, 128, 8, 128),
    "gpt-oss-120b": (2880, 2880, 128, 4, 128),
    "llama4-maverick": (5120, 8192, 128, 1, 128),
}
SWEEP_TOKENS = (1, 8, 64, 256, 1024, 4096, 16384)

# route_tokens(64, 16, 4, r, routing_seed(64, 16, 4, r)): bench/test_moe_shapes.cpp has the same values.
GOLDEN = {
    UNIFORM: [15, 12, 16, 18, 11, 16, 14, 15, 14, 21, 17, 9, 16, 22, 22, 18],
    ZIPF: [50, 21, 4, 17, 7, 13, 30, 9, 21, 8, 3, 9, 13, 8, 4, 39],
}
GOLDEN_SEED = 13408748069177770034


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def random_bits(seed, index):
    return mix64((seed + (index + 1) * GOLDEN_GAMMA) & MASK)


def routing_seed(tokens, experts, top_k, routing):
    return random_bits(ROUTING_SEED, (((tokens * 65536 + experts) * 256 + top_k) * 4 + routing) & MASK)


def route_tokens(tokens, experts, top_k, routing, seed):
    """Rows per expert when each token picks top_k distinct experts (the comment of bench/moe_shapes.hpp)."""
    if not 1 <= top_k <= experts or tokens < 0:
        raise ValueError(f"route_tokens: needs 1 <= top_k <= experts, tokens >= 0 ({tokens}, {experts}, {top_k})")
    expert_of_rank = list(range(experts))
    permutation_seed = mix64(seed ^ PERMUTATION_SALT)
    for i in range(experts - 1, 0, -1):
        j = random_bits(permutation_seed, i) % (i + 1)
        expert_of_rank[i], expert_of_rank[j] = expert_of_rank[j], expert_of_rank[i]
    cumulative, total = [], 0
    for r in range(experts):
        total += (1 << 32) // (r + 1) if routing == ZIPF else 1
        cumulative.append(total)
    counts = [0] * experts
    for t in range(tokens):
        token_seed = random_bits(seed, t)
        chosen, draw = set(), 0
        while len(chosen) < top_k:
            x = random_bits(token_seed, draw) % total
            draw += 1
            expert = expert_of_rank[bisect.bisect_right(cumulative, x)]
            if expert not in chosen:
                chosen.add(expert)
                counts[expert] += 1
    return counts


class Shape:
    """One MoE layer at some tokens: FC1 N = intermediate, K = hidden; FC2 the other way round."""

    def __init__(self, model, tokens, routing):
        self.model, self.tokens, self.routing = model, tokens, routing
        self.hidden, self.intermediate, self.experts, self.top_k, self.local = MODELS[model]
        counts = route_tokens(tokens, self.experts, self.top_k, ROUTINGS[routing],
                              routing_seed(tokens, self.experts, self.top_k, ROUTINGS[routing]))
        self.counts = counts[:self.local]
        self.rows = sum(self.counts)

    def key(self, op):
        n, k = (self.intermediate, self.hidden) if op == "fc1" else (self.hidden, self.intermediate)
        experts = f"E{self.local}" + (f"of{self.experts}" if self.local != self.experts else "")
        return f"M{self.tokens}_N{n}_K{k}_{self.model}_{experts}_top{self.top_k}_{self.routing}_offs"


# ---- the operations ----------------------------------------------------------------------------------------------


def offsets(counts, torch, device):
    ends, total = [], 0
    for c in counts:
        total += c
        ends.append(total)
    return torch.tensor(ends, dtype=torch.int32, device=device)


def torch_fc1(torch, a, w13, offs):
    n = w13.shape[1] // 2
    h = torch._grouped_mm(a, w13.transpose(-2, -1), offs=offs)
    return torch.nn.functional.silu(h[:, :n]) * h[:, n:]


def torch_fc2(torch, a, w2, offs):
    return torch._grouped_mm(a, w2.transpose(-2, -1), offs=offs)


def bwgemm_fc1(bwgemm_torch, a, w13, offs):
    n = w13.shape[1] // 2
    return bwgemm_torch.grouped_dual_mm(a, w13[:, :n], w13[:, n:], offs=offs)


def bwgemm_fc2(bwgemm_torch, a, w2, offs):
    return bwgemm_torch.grouped_mm(a, w2, offs=offs)


def check(torch, got, a, w, counts, op, what):
    """got against an fp32 loop on the first, hottest and last expert with rows; raises AssertionError."""
    active = [e for e, c in enumerate(counts) if c > 0]
    if not active:
        return
    ends = [sum(counts[:e + 1]) for e in range(len(counts))]
    for e in sorted({active[0], max(active, key=lambda x: counts[x]), active[-1]}):
        lo, hi = ends[e] - counts[e], ends[e]
        x = a[lo:hi].float()
        if op == "fc1":
            n = w.shape[1] // 2
            gate, up = x @ w[e, :n].float().T, x @ w[e, n:].float().T
            want = torch.nn.functional.silu(gate) * up
        else:
            want = x @ w[e].float().T
        err = (got[lo:hi].float() - want).abs()
        bound = 2.0**-6 * want.abs() + 0.02 * want.pow(2).mean().sqrt() + 1e-6
        if not bool((err <= bound).all()):
            worst = float((err / bound).max())
            raise AssertionError(f"{what}: expert {e} differs from the fp32 loop ({worst:.1f}x the bound)")


def grouped_ops(require_cuda):
    """(bwgemm_torch or None, why not)."""
    try:
        import bwgemm_torch
    except Exception as e:  # not built or not installed
        return None, f"bwgemm_torch is not importable ({type(e).__name__}: {e})"
    missing = [f for f in ("grouped_mm", "grouped_dual_mm") if not hasattr(bwgemm_torch, f)]
    if missing:
        return None, f"bwgemm_torch has no {' and no '.join(missing)} (the grouped operators)"
    if require_cuda and not bwgemm_torch.has_cuda_kernels():
        return None, "bwgemm_torch was built without its CUDA library"
    return bwgemm_torch, ""


# ---- timing ----------------------------------------------------------------------------------------------------


def round_order(r, sides):
    return list(range(sides)) if r % 2 == 0 else list(range(sides - 1, -1, -1))


def paired_stats(impl, baseline):
    """Per-call times (us) of alternating rounds -> the counters bwgemm_bench's paired benchmarks report."""
    ratios = [b / i for i, b in zip(impl, baseline)]
    us, base = statistics.median(impl), statistics.median(baseline)
    return {"us": us, "baseline_us": base, "ratio": statistics.median(ratios), "ratio_of_medians": base / us,
            "ratio_min": min(ratios), "ratio_max": max(ratios)}


class CudaClock:
    """CUDA events around the calls (the GPU run)."""

    def __init__(self, torch):
        self.torch = torch

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def synchronize(self):
        self.torch.cuda.synchronize()


class HostClock:
    """The host's clock with the CUDA event interface (--dry-run: the run's plumbing on CPU, times meaningless)."""

    class Event:
        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return (other.t - self.t) * 1e3

    def event(self):
        return HostClock.Event()

    def synchronize(self):
        pass


class Side:
    """A callable on operand set i, as a batch of calls that one CUDA graph replays (or eager launches)."""

    def __init__(self, torch, fn, sets, min_sample_ms, graphs, clock):
        self.fn, self.sets, self.clock = fn, sets, clock
        for i in range(2 * sets):  # warm-up: lazy loading, clocks
            fn(i % sets)
        clock.synchronize()
        start, stop = clock.event(), clock.event()
        start.record()
        for i in range(sets):
            fn(i)
        stop.record()
        stop.synchronize()
        per_call_ms = max(start.elapsed_time(stop) / sets, 1e-3)
        self.calls = sets * max(1, math.ceil(min_sample_ms / per_call_ms / sets))
        self.graph, self.note = None, "graph"
        if graphs:
            try:
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(stream):
                    fn(0)  # capture needs a call on the side stream first
                torch.cuda.current_stream().wait_stream(stream)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    for i in range(self.calls):
                        fn(i % sets)
                self.graph = graph
            except Exception as e:  # an operator that cannot be captured: time eager launches
                self.note = f"eager launches (graph capture failed: {type(e).__name__})"
        else:
            self.note = "eager launches"

    def sample_us(self):
        start, stop = self.clock.event(), self.clock.event()
        start.record()
        if self.graph is not None:
            self.graph.replay()
        else:
            for i in range(self.calls):
                self.fn(i % self.sets)
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e3 / self.calls


def time_interleaved(sides, rounds):
    samples = [[] for _ in sides]
    for r in range(rounds):
        for i in round_order(r, len(sides)):
            samples[i].append(sides[i].sample_us())
    return samples


# ---- the run ---------------------------------------------------------------------------------------------------


def operand_sets(torch, shape, op, device, l2_bytes):
    """Copies of the operands for one group: (list of (a, w, offs) per set, sets)."""
    n, k = (shape.intermediate, shape.hidden) if op == "fc1" else (shape.hidden, shape.intermediate)
    w_rows = 2 * n if op == "fc1" else n
    active = sum(1 for c in shape.counts if c > 0)
    weight_touched = active * w_rows * k * 2
    touched = weight_touched + shape.rows * (k + n) * 2
    reuse = 3 * l2_bytes
    sets = max(2, math.ceil(reuse / max(touched, 1)))
    weight_copies = 1 if weight_touched >= reuse else sets
    gen = torch.Generator(device=device).manual_seed(shape.tokens * 1000003 + shape.local)

    def uniform(*size):  # in place, in bf16: no fp32 copy of the weights
        return torch.empty(size, dtype=torch.bfloat16, device=device).uniform_(-1.0, 1.0, generator=gen)

    offs = offsets(shape.counts, torch, device)
    weights = [uniform(shape.local, w_rows, k) for _ in range(weight_copies)]
    return [(uniform(max(shape.rows, 1), k), weights[s % weight_copies], offs) for s in range(sets)], sets


def sweep(args, torch, device, l2_bytes, candidate, clock, empty_cache=lambda: None):
    """Checks and times every shape of args; candidate: (fc1, fc2) of the implementation, or None for torch
    alone. The records of bench/paired_table.py's JSON."""
    records = []
    for model in args.models:
        for routing in args.routing:
            for tokens in args.tokens:
                shape = Shape(model, tokens, routing)
                if shape.rows == 0:
                    continue
                for op in ("fc1", "fc2"):
                    key = f"moe_{op}_bf16/%s/{shape.key(op)}"
                    sets, nsets = operand_sets(torch, shape, op, device, l2_bytes)
                    tf = torch_fc1 if op == "fc1" else torch_fc2
                    torch_call = lambda i, sets=sets, tf=tf: tf(torch, *sets[i])  # noqa: E731
                    check(torch, torch_call(0), sets[0][0], sets[0][1], shape.counts, op, key % "torch")
                    sides = [Side(torch, torch_call, nsets, args.min_sample_ms, args.graphs, clock)]
                    if candidate is not None:
                        cf = candidate[0] if op == "fc1" else candidate[1]
                        bw_call = lambda i, sets=sets, cf=cf: cf(*sets[i])  # noqa: E731
                        check(torch, bw_call(0), sets[0][0], sets[0][1], shape.counts, op, key % "bwgemm_torch")
                        sides.insert(0, Side(torch, bw_call, nsets, args.min_sample_ms, args.graphs, clock))
                    samples = time_interleaved(sides, args.rounds)
                    label = f"{args.rounds} alternating rounds, {nsets} operand sets, " + \
                        ", ".join(side.note for side in sides)
                    if candidate is not None:
                        stats = paired_stats(samples[0], samples[1])
                        records.append(dict(name=key % "paired_bwgemm_torch", run_type="iteration", label=label,
                                            vs_torch_grouped_mm=stats["ratio_of_medians"], **stats))
                        print(f"{key % 'paired_bwgemm_torch'}: {stats['us']:.1f} us, torch "
                              f"{stats['baseline_us']:.1f} us, ratio {stats['ratio']:.3f}")
                    records.append(dict(name=key % "torch_grouped_mm", run_type="iteration",
                                        us=statistics.median(samples[-1]), baseline=1, label=label))
                    del sets, sides
                    empty_cache()
    return records


def run_gpu(args):
    import torch

    if not torch.cuda.is_available():
        print("moe_torch.py: no CUDA device: nothing to time (--dry-run checks the script without one)")
        return 0
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    l2_bytes = getattr(props, "L2_cache_size", 50 << 20)
    bwgemm_torch, why = grouped_ops(require_cuda=True)
    print(f"moe_torch.py: {props.name}, torch {torch.__version__}; "
          + ("bwgemm_torch's grouped operators against torch._grouped_mm" if bwgemm_torch else
             f"torch._grouped_mm alone: {why}"))
    candidate = None
    if bwgemm_torch is not None:
        candidate = (lambda a, w, offs: bwgemm_fc1(bwgemm_torch, a, w, offs),
                     lambda a, w, offs: bwgemm_fc2(bwgemm_torch, a, w, offs))
    records = sweep(args, torch, device, l2_bytes, candidate, CudaClock(torch), torch.cuda.empty_cache)
    context = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "device": props.name,
               "torch": torch.__version__, "script": "bench/moe_torch.py",
               "bwgemm_torch": "grouped operators" if bwgemm_torch else why}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"context": context, "benchmarks": records}, f, indent=1)
    print(f"moe_torch.py: wrote {len(records)} records to {args.out}")
    return 0


# ---- --dry-run: CPU, no GPU timing ---------------------------------------------------------------------------------


def dry_run():
    failures = []

    def expect(condition, message):
        if not condition:
            failures.append(message)
            print(f"FAIL: {message}")

    # The router: the golden vectors and seed shared with bench/test_moe_shapes.cpp; sums; the EP slice.
    expect(routing_seed(64, 16, 4, UNIFORM) == GOLDEN_SEED, "routing_seed differs from bench/moe_shapes.cpp")
    for routing, want in GOLDEN.items():
        got = route_tokens(64, 16, 4, routing, routing_seed(64, 16, 4, routing))
        expect(got == want, f"golden routing {routing}: {got} != {want}")
    for model in MODELS:
        for tokens in (1, 64, 1024):
            s = Shape(model, tokens, "zipf")
            whole = route_tokens(tokens, s.experts, s.top_k, ZIPF, routing_seed(tokens, s.experts, s.top_k, ZIPF))
            expect(sum(whole) == tokens * s.top_k, f"{model} {tokens}: counts sum to {sum(whole)}")
            expect(s.counts == whole[:s.local], f"{model}: the local experts are not a prefix")
    expect(Shape("deepseek-v3-ep8", 4096, "zipf").key("fc1") ==
           "M4096_N2048_K7168_deepseek-v3-ep8_E32of256_top8_zipf_offs", "keys differ from bwgemm_bench's")
    expect(round_order(0, 3) == [0, 1, 2] and round_order(1, 3) == [2, 1, 0], "round order")
    stats = paired_stats([10.0, 10.0, 12.0], [20.0, 21.0, 24.0])
    expect(abs(stats["ratio"] - 2.0) < 1e-12 and abs(stats["ratio_of_medians"] - 2.1) < 1e-12, f"stats {stats}")

    # The operations on CPU tensors: torch._grouped_mm (+ silu * mul) against the fp32 loop, on a layer with
    # idle experts; and a wrong expert must fail the check.
    try:
        import torch
    except ImportError as e:
        print(f"moe_torch.py --dry-run: torch not importable ({e}): the operations are not checked")
        return 77 if not failures else 1
    MODELS["tiny"] = (128, 128, 16, 2, 16)
    shape = Shape("tiny", 40, "zipf")
    expect(0 in shape.counts, "the tiny layer should have idle experts")
    cpu = torch.device("cpu")
    for op in ("fc1", "fc2"):
        sets, nsets = operand_sets(torch, shape, op, cpu, l2_bytes=1024)
        a, w, offs = sets[0]
        expect(nsets >= 2 and offs.dtype == torch.int32 and int(offs[-1]) == shape.rows, f"{op}: operand sets")
        got = (torch_fc1 if op == "fc1" else torch_fc2)(torch, a, w, offs)
        n = shape.intermediate if op == "fc1" else shape.hidden
        expect(tuple(got.shape) == (shape.rows, n), f"{op}: torch output shape {tuple(got.shape)}")
        try:
            check(torch, got, a, w, shape.counts, op, f"torch {op}")
        except AssertionError as e:
            expect(False, str(e))
        hot = max(range(len(shape.counts)), key=lambda e: shape.counts[e])
        wrong = w.clone()
        wrong[hot] = w[(hot + 1) % shape.local]
        try:
            check(torch, (torch_fc1 if op == "fc1" else torch_fc2)(torch, a, wrong, offs), a, w, shape.counts, op,
                  "wrong expert")
            expect(False, f"{op}: the check passed a wrong expert's weights")
        except AssertionError:
            pass
    bwgemm_torch, why = grouped_ops(require_cuda=False)
    if bwgemm_torch is None:
        print(f"moe_torch.py --dry-run: bwgemm_torch side not checked: {why}")
    else:  # the CPU emulator: small shapes only
        for op in ("fc1", "fc2"):
            sets, _ = operand_sets(torch, shape, op, cpu, l2_bytes=1024)
            a, w, offs = sets[0]
            try:
                got = (bwgemm_fc1 if op == "fc1" else bwgemm_fc2)(bwgemm_torch, a, w, offs)
                check(torch, got, a, w, shape.counts, op, f"bwgemm_torch {op}")
            except Exception as e:  # noqa: BLE001  (a signature this script does not know, too)
                expect(False, f"bwgemm_torch {op}: {type(e).__name__}: {e}")
        print("moe_torch.py --dry-run: bwgemm_torch's grouped operators checked on CPU tensors (emulator)")

    # The GPU run's sweep on CPU: the host's clock for CUDA events, eager calls, torch's own FC1 and FC2 standing
    # in for bwgemm_torch's; its records read back through bench/paired_table.py.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import paired_table  # noqa: E402

    args = argparse.Namespace(models=["tiny"], tokens=[8, 40], routing=["zipf"], rounds=2, min_sample_ms=0.1,
                              graphs=0)
    stand_in = (lambda a, w, offs: torch_fc1(torch, a, w, offs), lambda a, w, offs: torch_fc2(torch, a, w, offs))
    print("moe_torch.py --dry-run: the GPU run's loop on CPU, torch standing in for bwgemm_torch, the host's clock "
          "(the times below mean nothing):")
    records = sweep(args, torch, cpu, 1024, stand_in, HostClock())
    expect(len(records) == 2 * 2 * 2, f"sweep: {len(records)} records")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "moe_torch.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"context": {}, "benchmarks": records}, f)
        rows = paired_table.summarize([path])
        expect([r[:3] for r in rows] == [("moe_fc1_bf16", "bwgemm_torch", 8), ("moe_fc1_bf16", "bwgemm_torch", 40),
                                         ("moe_fc2_bf16", "bwgemm_torch", 8), ("moe_fc2_bf16", "bwgemm_torch", 40)],
               f"paired_table: {[r[:3] for r in rows]}")
    print("moe_torch.py --dry-run: " + ("passed" if not failures else f"{len(failures)} failures"))
    return 0 if not failures else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dry-run", action="store_true", help="check the script on CPU, no GPU (times meaningless)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--tokens", default=",".join(map(str, SWEEP_TOKENS)))
    p.add_argument("--routing", default="uniform,zipf")
    p.add_argument("--rounds", type=int, default=16)
    p.add_argument("--min-sample-ms", type=float, default=0.5)
    p.add_argument("--graphs", type=int, choices=(0, 1), default=1)
    p.add_argument("--out", default="moe_torch.json")
    args = p.parse_args()
    if args.dry_run:
        return dry_run()
    args.models = args.models.split(",")
    args.tokens = [int(t) for t in args.tokens.split(",")]
    args.routing = args.routing.split(",")
    for m in args.models:
        if m not in MODELS:
            p.error(f"unknown model {m}: {', '.join(MODELS)}")
    for r in args.routing:
        if r not in ROUTINGS:
            p.error(f"unknown routing {r}: uniform, zipf")
    args.rounds += args.rounds % 2  # each order equally often
    return run_gpu(args)


if __name__ == "__main__":
    sys.exit(main())
