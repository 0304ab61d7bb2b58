#!/usr/bin/env python3
"""The sm_100a epilogue's instruction budget, measured from SASS.

    epilogue_budget.py --cuobjdump <cuobjdump> --binary <kernel_instances> [--kernel REGEX] [--max-gemm X]
                       [--max-dual Y] [--budget REGEX=Z ...]

For every sm_100a GEMM and NVFP4 dual GEMM kernel in the binary, the epilogue warps' instructions per output
element on the fast path: every barrier wait succeeds at once, the tile is interior (no column past N), the
output rows are 32-byte aligned, and the call reads no C (GEMM: alpha = 1, beta = 0). How:

- The SASS of the kernel is split into basic blocks (branch targets and the instructions after branches,
  EXIT and RET start blocks). A backward branch closes a (natural) loop; the loop measured is the innermost
  loop whose body holds the tensor-memory loads (LDTM) and a global store: the chunk loop where the epilogue
  has one, the tile loop where its chunks are unrolled; the tile loop is the innermost loop around a chunk
  loop. A kernel with neither (one tile per CTA, chunks unrolled) is measured on its straight-line code from
  the first block with a tensor-memory load to the kernel's end.
- The fast path is the path through that loop's body, from its head to its backward branch, through no
  block with an unpredicated global load (LDG: reading C; a predicated one, the grouped kernels' per-expert
  scale read where a scale array is given, is counted as an instruction), that stores the most bytes (an interior chunk stores every
  column; a path that leaves through a bounds check stores fewer) and, of those, has the fewest instructions
  (the per-tile fast path rather than the per-chunk one; the 256-bit stores of aligned rows rather than the
  128-bit ones). A store predicated on the register its block's final branch tests counts on one edge only
  (`@P0 STG; @P0 BRA X`: on the edge to X), so two alternatives are never counted together. Retry loops of
  barrier waits are backward branches, so the path is the one on which every wait succeeds the first time. A
  CALL on the path adds the shortest path of its subroutine to RET. Loops nested inside the loop measured
  would be counted once: the shipped epilogues have none (their vector loops are unrolled).
- Where the loop measured is a chunk loop inside a tile loop, the tile's own cost is the shortest path
  through the tile loop's body outside the chunk loop: from the tile loop's head to the chunk loop's head,
  and from the chunk loop's exit to the tile loop's backward branch.
- Per output: (tile cost + chunks per tile x path) / BlockN, with chunks per tile = BlockN / the outputs the
  path stores (its bytes over the output type's) and BlockN the outputs per thread and tile (each epilogue
  thread owns one row of the tile; the dual GEMM's output is one element of silu(gate) * up). A path that
  stores the whole tile (one tensor-memory load per tile, or the chunks unrolled) is the tile's whole cost
  (tile cost 0). A kernel without a tile loop (one tile per CTA) gets its chunks alone.

The table lists per kernel the path, the tile cost, the per-output figure, the widest global store and
whether the 16-bit conversions are packed (F2FP ... PACK_AB). With --max-gemm / --max-dual the exit status is
1 when a kernel is above its budget, has no 256-bit store or converts unpacked; --budget REGEX=Z (repeatable)
gives the kernels whose demangled name matches REGEX the budget Z instead (the first match decides).
"""
import argparse
import re
import subprocess
import sys

INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
TARGET = re.compile(r"(0x[0-9a-f]+)\s*$")


class Instr:
    def __init__(self, addr, text):
        self.addr = addr
        self.text = text
        body = text
        self.pred = None
        if body.startswith("@"):
            self.pred, body = body.split(None, 1)
        self.opcode = body.split()[0] if body.split() else ""
        self.body = body
        self.target = None
        if self.opcode.startswith(("BRA", "CALL")):
            m = TARGET.search(body)
            if m:
                self.target = int(m.group(1), 16)

    @property
    def conditional(self):
        if self.pred is not None:
            return True
        # BRA.U UP0, 0x... / BRA.U !UP0, 0x...: a uniform predicate operand
        return self.opcode.startswith("BRA") and "," in self.body

    @property
    def ends_block(self):
        return self.opcode.startswith(("BRA", "EXIT", "RET", "BRX", "JMP"))


def kernels(sass_text):
    """(name, [Instr]) per function of cuobjdump -sass output."""
    out = []
    name, instrs = None, []
    for line in sass_text.splitlines():
        if "Function :" in line:
            if name:
                out.append((name, instrs))
            name, instrs = line.split("Function :", 1)[1].strip(), []
            continue
        m = INSTR.search(line)
        if m and name:
            instrs.append(Instr(int(m.group(1), 16), m.group(2).strip()))
    if name:
        out.append((name, instrs))
    return out


class Cfg:
    def __init__(self, instrs):
        self.instrs = instrs
        self.index = {ins.addr: i for i, ins in enumerate(instrs)}
        leaders = {0}
        for i, ins in enumerate(instrs):
            if ins.target is not None and ins.target in self.index:
                leaders.add(self.index[ins.target])
            if ins.ends_block and i + 1 < len(instrs):
                leaders.add(i + 1)
        self.starts = sorted(leaders)
        self.block_of = {}
        self.blocks = []  # (start index, end index exclusive)
        for b, s in enumerate(self.starts):
            e = self.starts[b + 1] if b + 1 < len(self.starts) else len(instrs)
            self.blocks.append((s, e))
            for i in range(s, e):
                self.block_of[i] = b

    def block_instrs(self, b):
        s, e = self.blocks[b]
        return self.instrs[s:e]

    def successors(self, b):
        s, e = self.blocks[b]
        last = self.instrs[e - 1]
        succ = []
        if last.opcode.startswith(("EXIT", "RET")) and last.pred is None:
            return succ
        if last.opcode.startswith("BRA") and last.target in self.index:
            succ.append(self.block_of[self.index[last.target]])
            if last.conditional and e < len(self.instrs):
                succ.append(self.block_of[e])
            return succ
        if e < len(self.instrs):
            succ.append(self.block_of[e])
        return succ

    def back_edges(self):
        """(latch block, head block) for every backward branch."""
        edges = []
        for b in range(len(self.blocks)):
            for t in self.successors(b):
                if t <= b:
                    edges.append((b, t))
        return edges


def has(instrs, pattern):
    return any(re.search(pattern, i.body) for i in instrs)


def shortest(cfg, src, dst, allowed, cost, avoid=lambda b: False):
    """Fewest instructions from the start of block src to the end of block dst over forward edges inside
    `allowed` (block ids), never entering a block for which avoid(b) holds. None if unreachable."""
    INF = float("inf")
    dist = {src: cost(src)}
    for b in sorted(allowed):
        if b not in dist or b < src:
            continue
        for t in cfg.successors(b):
            if t <= b or t not in allowed or avoid(t):
                continue
            d = dist[b] + cost(t)
            if d < dist.get(t, INF):
                dist[t] = d
    return dist.get(dst)


def measure(name, instrs):
    cfg = Cfg(instrs)
    nblocks = len(cfg.blocks)

    def calls_cost(b, depth=0):
        total = 0
        for ins in cfg.block_instrs(b):
            if ins.opcode.startswith("CALL") and ins.target in cfg.index and depth < 3:
                entry = cfg.block_of[cfg.index[ins.target]]
                rets = [x for x in range(entry, nblocks) if has(cfg.block_instrs(x), r"^RET")]
                best = None
                for r in rets:
                    d = shortest(cfg, entry, r, set(range(entry, r + 1)), lambda x: len(cfg.block_instrs(x)))
                    if d is not None and (best is None or d < best):
                        best = d
                total += best or 0
        return total

    cost = lambda b: len(cfg.block_instrs(b)) + calls_cost(b)
    # Natural loops: the head and every block that reaches the latch without passing through the head. (A
    # barrier's retry block placed at the end of the function is a loop of two blocks, not of everything
    # between its wait and itself.)
    preds = {b: [] for b in range(nblocks)}
    for b in range(nblocks):
        for t in cfg.successors(b):
            preds[t].append(b)
    loops = []
    for latch, head in cfg.back_edges():
        body, stack = {head, latch}, [latch]
        while stack:
            x = stack.pop()
            if x == head:
                continue
            for q in preds[x]:
                if q not in body:
                    body.add(q)
                    stack.append(q)
        loops.append((head, latch, body))
    chunk_loops = [
        l for l in loops
        if any(has(cfg.block_instrs(b), r"^LDTM") for b in l[2]) and any(
            has(cfg.block_instrs(b), r"^STG") for b in l[2])
    ]
    straight = not chunk_loops
    if straight:
        # One tile per CTA and one tensor-memory load per tile: straight-line code from the load's block to
        # the end of the kernel (the end's barrier included).
        ld = [b for b in range(nblocks) if has(cfg.block_instrs(b), r"^LDTM")]
        if not ld:
            return None
        head = ld[0]
        ends = [b for b in range(head, nblocks) if has(cfg.block_instrs(b), r"^EXIT")]
        body = set(range(head, nblocks))
        latch = max(ends) if ends else None
        if latch is None:
            return None
        loops = []
    else:
        head, latch, body = min(chunk_loops, key=lambda l: len(l[2]))
    # The chunk's fast path: from the head to the backward branch, no C loads, the most bytes stored (an
    # interior chunk stores all its columns; a path that leaves early through a bounds check stores fewer),
    # and of those the fewest instructions (the 256-bit stores where the rows are aligned).
    # Bytes a block stores when it leaves through the edge to block t (None: any exit). A store predicated on
    # the register its block's conditional branch tests (not written in between) runs only on one of the two
    # edges: `@P0 STG ...; @P0 BRA X` stores on the edge to X, not on the fall-through (the aligned 256-bit
    # stores and, on the other edge, their 128-bit alternative are then never counted together).
    def store_bytes(ins):
        m = re.search(r"\.(64|128|256)\b", ins.opcode)
        if m:
            return int(m.group(1)) // 8
        m = re.search(r"\.[US](8|16)\b", ins.opcode)  # STG.E.U16: one 16-bit output (a tail column)
        return int(m.group(1)) // 8 if m else 4

    def stored_on_edge(b, t):
        instrs_b = cfg.block_instrs(b)
        last = instrs_b[-1]
        branch_pred = last.pred if last.opcode.startswith("BRA") and last.target in cfg.index else None
        taken = branch_pred is not None and t is not None and cfg.block_of[cfg.index[last.target]] == t
        total = 0
        for k, ins in enumerate(instrs_b):
            if not ins.opcode.startswith("STG"):
                continue
            if ins.pred is None or branch_pred is None or t is None:
                total += store_bytes(ins)
                continue
            reg = ins.pred.lstrip("@!")
            written = any(i.body.split(None, 1)[1:] and i.body.split(None, 1)[1].startswith(reg + ",")
                          for i in instrs_b[k + 1:-1])
            if written or reg != branch_pred.lstrip("@!"):
                total += store_bytes(ins)
            elif (ins.pred == branch_pred) == taken:  # same sense: runs on the taken edge; opposite: fall-through
                total += store_bytes(ins)
        return total

    best = {head: (0, -cost(head))}
    for blk in sorted(body):
        if blk not in best or blk < head:
            continue
        for t in cfg.successors(blk):
            if t <= blk or t not in body or any(i.opcode.startswith("LDG") and i.pred is None
                                                for i in cfg.block_instrs(t)):
                continue
            cand = (best[blk][0] + stored_on_edge(blk, t), best[blk][1] - cost(t))
            if t not in best or cand > best[t]:
                best[t] = cand
    if latch in best:  # the latch's own stores, on its way back to the head (or out of the kernel)
        best[latch] = (best[latch][0] + stored_on_edge(latch, None if straight else head), best[latch][1])
    chunk = -best[latch][1] if latch in best and best[latch][0] > 0 else None
    chunk_bytes = best[latch][0] if latch in best else 0
    widths = [int(m.group(1)) for b in body for i in cfg.block_instrs(b)
              for m in [re.match(r"LDTM\.x(\d+)", i.opcode)] if m]
    columns = widths[0] if widths else 1
    outer = [l for l in loops if l[2] > body]
    tile = None
    if not outer:  # one tile per CTA (OneTilePerCluster): no tile loop, the tile's cost is not separable
        tile = 0
    else:
        ohead, olatch, obody = min(outer, key=lambda l: len(l[2]))
        allowed = obody - body
        before = shortest(cfg, ohead, head, allowed | {head}, lambda b: 0 if b == head else cost(b))
        exits = sorted({t for b in body for t in cfg.successors(b) if t not in body and t in obody})
        after = None
        for x in exits:
            d = shortest(cfg, x, olatch, allowed, cost)
            if d is not None and (after is None or d < after):
                after = d
        if before is not None and after is not None:
            tile = before + after
    all_instrs = [i for b in range(nblocks) for i in cfg.block_instrs(b)]
    widest = 256 if any(re.search(r"^STG\S*\.256", i.body) for i in all_instrs) else (
        128 if any(re.search(r"^STG\S*\.128", i.body) for i in all_instrs) else 64)
    packed = any(i.opcode.startswith("F2FP") and "PACK_AB" in i.body for i in all_instrs)
    unpacked = any(i.opcode == "F2F.F16.F32" or i.opcode.startswith("F2F.BF16") for i in all_instrs)
    return {"chunk": chunk, "chunk_bytes": chunk_bytes, "tile": tile, "outer": bool(outer), "straight": straight,
            "columns": columns,
            "widest": widest,
            "packed": packed and not unpacked}


def config_of(name):
    m = re.search(r"(Nvfp4DualGemmConfig|DualGemmConfig|GemmConfig)<(\d+),[^>]*?, (float|__half|__nv_bfloat16)\b",
                  name)
    if not m:
        return None
    return ("dual" if "Dual" in m.group(1) else "gemm"), int(m.group(2)), m.group(3)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuobjdump", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--kernel", default=r"gemm_kernel")
    ap.add_argument("--max-gemm", type=float)
    ap.add_argument("--max-dual", type=float)
    ap.add_argument("--budget", action="append", default=[], metavar="REGEX=MAX",
                    help="the budget of the kernels whose name matches REGEX (repeatable; the first match wins)")
    args = ap.parse_args(argv)
    overrides = []
    for b in args.budget:
        pattern, _, value = b.rpartition("=")
        overrides.append((re.compile(pattern), float(value)))
    sass = subprocess.run([args.cuobjdump, "-sass", args.binary], capture_output=True, text=True, check=True).stdout
    demangled = subprocess.run(["c++filt"], input="\n".join(n for n, _ in kernels(sass)), capture_output=True,
                               text=True).stdout.splitlines()
    rows, failures = [], []
    for (mangled, instrs), name in zip(kernels(sass), demangled):
        if not re.search(args.kernel, name):
            continue
        cfgk = config_of(name)
        if cfgk is None:
            continue
        kind, block_n, out_type = cfgk
        r = measure(name, instrs)
        # Chunks per tile: the tile's outputs over those the path found stores (its bytes over the output
        # type's). A path that stores the whole tile (one load per tile, or the chunks unrolled) belongs to the
        # tile loop itself (or, with one tile per CTA, is the straight-line code): its cost is the tile's whole.
        out_bytes = 4 if out_type == "float" else 2
        path_outputs = r["chunk_bytes"] // out_bytes if r is not None else 0
        chunks = max(1, block_n // path_outputs) if path_outputs else 0
        if r is not None and chunks == 1:
            r["tile"] = 0
        if r is None or r["chunk"] is None or r["tile"] is None:
            failures.append(f"{name}: no epilogue fast path found")
            continue
        per_output = (r["tile"] + chunks * r["chunk"]) / block_n
        r["packed"] = "n/a" if out_type == "float" else ("yes" if r["packed"] else "no")
        r["chunks"], r["block_n"], r["path_outputs"] = chunks, block_n, path_outputs
        rows.append((kind, name, r, per_output))
        budget = args.max_gemm if kind == "gemm" else args.max_dual
        for pattern, value in overrides:
            if budget is not None and pattern.search(name):
                budget = value
                break
        if budget is not None:
            if per_output > budget:
                failures.append(f"{name}: {per_output:.2f} instructions per output > {budget}")
            if r["widest"] < 256:
                failures.append(f"{name}: widest global store {r['widest']} bits < 256")
            if r["packed"] == "no":
                failures.append(f"{name}: 16-bit conversions not packed")
    print("| kernel | chunk path (outputs) | tile cost | per output | widest store | packed cvt |")
    print("|---|---|---|---|---|---|")
    for kind, name, r, per_output in rows:
        short = re.sub(r"bwgemm::(sm100::|sched::|epi::)?", "", name[: name.index(">(") + 1] if ">(" in name else name)
        tile_loop = r["outer"] or (not r["straight"] and r["chunks"] == 1)
        tile = r["tile"] if tile_loop else "— (one tile per CTA)"
        chunk = (f"{r['chunk']} ({r['path_outputs']})" if r["chunks"] > 1 else
                 f"{r['chunk']} (the tile's {r['block_n']})")
        print(f"| {short} | {chunk} | {tile} | {per_output:.2f} | {r['widest']} | {r['packed']} |")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures and (args.max_gemm is not None or args.max_dual is not None) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
