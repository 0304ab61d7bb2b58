#!/usr/bin/env python3
"""Proves that tools/check_history.py reports a planted development-history line and passes clean text.

Builds a small tree in a scratch directory (not a git checkout: the checker walks it) with
  - a .cpp file holding a planted comment (a numbered work period and a numbered run),
  - a .md file holding a planted tracker item in parentheses,
  - a clean .md file with the legitimate uses the checker must let through (public trackers of other
    projects such as "vLLM #42209", "run 5 times", the verb in "issues 8 MMAs", "runs M x N/2 x K"), and
  - a data file (docs/data/*.json) holding a planted phrase, which the checker must not read,
then asserts: the checker exits 1 and reports exactly the planted lines as `path:line: text`; given the clean
file alone it exits 0; with the planted lines removed the tree passes. Where git is found it also checks
--commits on a two-commit repository: the commit with a planted body line is reported, the clean one is not.
(The checker's ALLOW list exempts this file, which must spell the phrases out.)

    check_rejects_planted.py --checker tools/check_history.py --scratch DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

PLANTED_CPP = "// measured in the fifth session, run 3"
PLANTED_MD = "The split rule (issue 12) is fitted on the sweep."
PLANTED_RANGE = "Fitted on runs 1-4 of the sweep."

FILES = {
    "src/kernel.cpp": [
        "// A clean comment: the split of K measured on an H200, 2026-12-02 (docs/data/h200_x.json).",
        "int split_k() { return 2; }",
        PLANTED_CPP,
        "int stages() { return 4; }",
    ],
    "docs/notes.md": [
        "# Notes",
        "",
        PLANTED_MD,
        "The tile choice is fitted on the model sweep.",
        PLANTED_RANGE,
    ],
    "docs/clean.md": [
        "# Public references",
        "",
        "vLLM #42209 and FlashInfer #3920 track the same bug; see also vLLM issue 54794 and a CUTLASS issue.",
        "Every benchmark is run 5 times, interleaved; the MMA warp issues 8 MMAs per 64 K.",
        "The default runs M x N/2 x K for the NVFP4 part; the wide projections run 0.92-0.99x of cuBLASLt.",
    ],
    "docs/data/h200_x.json": ['{"note": "the fifth session, run 3, issue 12"}'],
}
# (file, 1-based line) of each planted line: what the checker must report, and nothing else.
PLANTED = {("src/kernel.cpp", 3), ("docs/notes.md", 3), ("docs/notes.md", 5)}


def write_tree(root, files):
    shutil.rmtree(root, ignore_errors=True)
    for rel, lines in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def run(cmd, cwd=None):
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    print(f"$ {' '.join(cmd)}  -> rc {out.returncode}")
    print(out.stdout + out.stderr, end="")
    return out.returncode, [line for line in out.stdout.splitlines() if line.strip()]


def reported(lines):
    """{(path, line)} of the checker's `path:line: text` output."""
    hits = set()
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[1].isdigit():
            hits.add((parts[0], int(parts[1])))
    return hits


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checker", required=True)
    parser.add_argument("--scratch", required=True, help="a directory to build the tree in (replaced)")
    args = parser.parse_args()
    checker = [sys.executable, os.path.abspath(args.checker)]
    tree = os.path.join(os.path.abspath(args.scratch), "tree")
    failures = []

    print("== the tree with the planted lines")
    write_tree(tree, FILES)
    rc, out = run(checker + ["--root", tree])
    if rc != 1:
        failures.append(f"the checker exited {rc} on the planted tree, expected 1")
    got = reported(out)
    for rel, line in sorted(PLANTED - got):
        failures.append(f"not reported: {rel}:{line}: {FILES[rel][line - 1]}")
    for rel, line in sorted(got - PLANTED):
        failures.append(f"reported, but not planted: {rel}:{line}")
    for line in out:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[1].isdigit() and (parts[0], int(parts[1])) in PLANTED:
            if parts[2].strip() != FILES[parts[0]][int(parts[1]) - 1].strip():
                failures.append(f"the report does not quote the line: {line}")

    print("== the clean file alone, given explicitly")
    rc, out = run(checker + ["--root", tree, os.path.join(tree, "docs/clean.md")])
    if rc != 0 or out:
        failures.append(f"the clean file: rc {rc}, {len(out)} hit(s); expected 0 and none")

    print("== the planted file alone, given explicitly")
    rc, out = run(checker + ["--root", tree, os.path.join(tree, "src/kernel.cpp")])
    if rc != 1 or reported(out) != {("src/kernel.cpp", 3)}:
        failures.append(f"the planted .cpp given explicitly: rc {rc}, hits {sorted(reported(out))}")

    print("== the tree with the planted lines removed")
    clean = {rel: [l for i, l in enumerate(lines, 1) if (rel, i) not in PLANTED] for rel, lines in FILES.items()}
    write_tree(tree, clean)
    rc, out = run(checker + ["--root", tree])
    if rc != 0 or out:
        failures.append(f"the cleaned tree: rc {rc}, {len(out)} hit(s); expected 0 and none")

    git = shutil.which("git")
    if git:
        print("== --commits on a two-commit repository")
        env_args = ["-c", "user.name=check", "-c", "user.email=check@example.invalid", "-c", "commit.gpgsign=false"]
        ok = True
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "sm90: the split rule fitted on the sweep"],
                    ["commit", "-q", "--allow-empty", "-m", "docs: the tile table",
                     "-m", "From run 7 of the session."]):
            r = subprocess.run([git, *env_args, *cmd], cwd=tree, capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"git {' '.join(cmd)} failed: {r.stderr.strip()}")
                ok = False
                break
        if ok:
            rc, out = run(checker + ["--root", tree, "--commits", "HEAD~1..HEAD"])
            if rc != 1 or len(out) != 1 or not out[0].startswith("commit ") or ":3: " not in out[0]:
                failures.append(f"--commits on the planted commit: rc {rc}, {out}; expected one hit on line 3")
            rc, out = run(checker + ["--root", tree, "--commits", "HEAD~1"])
            if rc != 0 or out:
                failures.append(f"--commits on the clean commit: rc {rc}, {out}; expected 0 and none")
            # A tracked tree: the checker lists it with git ls-files (the same verdict as the walk).
            rc, out = run(checker + ["--root", tree])
            if rc != 0 or out:
                failures.append(f"the cleaned tree as a git checkout: rc {rc}, {out}")
    else:
        print("git not found: --commits not checked")

    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print(f"ok: the checker reports the {len(PLANTED)} planted lines and nothing else, passes the clean text")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
