#!/usr/bin/env python3
"""Finds text that speaks of how the project was made instead of what it is.

Code, comments, tests, docs and commit messages describe the project: what it offers, how it works, what was
measured (named by its date, its command and its data file, e.g. "H200, 2026-12-02, docs/data/h200_....json").
They do not name the numbered work periods, the numbered runs of a measurement campaign or the project's own
tracker items that produced a change: a reader of the repository cannot look any of them up. PATTERNS below
lists what counts; ALLOW the few legitimate uses (a public tracker of another project, e.g. "vLLM #42209" or
"a CUTLASS issue", never trips a pattern in the first place: an issue number after a project's name is fine).

    check_history.py [--root DIR] [FILE ...]      the files git tracks under DIR (default: the repository
                                                  this script is in), or only FILE ...
    check_history.py [--root DIR] --commits REV   the subjects and bodies of the commits of `git log REV`
                                                  (e.g. origin/main..HEAD)

Prints each hit as `path:line: text` (commits: `commit <hash>:line: text`) and a summary on stderr; exits 1 on
any hit, 0 on none, 2 on a usage error (an unreadable file, a failed git command). Data files are not read:
*.json, *.bin, *.csv, images, and *.txt under docs/data/ and test/data/.
"""
import argparse
import os
import re
import subprocess
import sys

_ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
             "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|[0-9]+(?:st|nd|rd|th)")
_PROJECT_WORDS = "sessions?|increments?|sprints?|milestones?"

# (name, regex): a line matching any of them is a hit. Case-insensitive unless the regex says (?-i:...).
PATTERNS = [
    # A numbered or named work period: "the fifteenth session", "later sessions", "(second increment)".
    ("work period", rf"\b(?:sessions?|(?:{_ORDINALS})(?:[\s-]+(?:{_PROJECT_WORDS})))\b"),
    # A numbered run of a campaign: "run 7", "runs 1-4", "(run 3)", "run 2's"; not "run 5 times" nor a ratio
    # ("the projections run 0.92-0.99x").
    ("numbered run", r"\bruns? #?[0-9]+(?:\s*(?:-|\.\.|–|and|,)\s*[0-9]+)*\b(?!\.[0-9]| ?(?:times|x\b))"),
    # A lettered run: "run A2", "run B", "runs B-B3" (capital letters only; M, N, K are the GEMM's sizes).
    ("lettered run", r"\bruns? (?-i:[A-H][0-9]?)(?:-(?-i:[A-H]?[0-9]+))?\b(?![\w·*])"),
    # A tracker item of the project's own: "issue 13", "(issue 16)", "issues 13 and 16", "Issue 13's";
    # after a public project's name (PUBLIC_PROJECTS) it is that project's tracker and allowed. Not the verb
    # with a count of what is issued: "issues 8 MMAs per 64 K".
    ("tracker item", r"\bissues? #?[0-9]+\b(?!\s+(?:MMAs?|wgmmas?|instructions?|loads?|stores?|requests?|copies|"
                     r"copy|TMAs?|fences?|barriers?|arrivals?|waits?|bytes|warps?|threads?|CTAs?|per|more|fewer)\b)"),
    # A numbered stop of a work log: "stop 30".
    ("numbered stop", r"\bstops? #?[0-9]+\b"),
]
COMPILED = [(name, re.compile(regex, re.IGNORECASE)) for name, regex in PATTERNS]

# Public projects whose issue trackers a line may cite ("vLLM issue 1234", "CUTLASS issue #1234").
PUBLIC_PROJECTS = {"vllm", "cutlass", "flashinfer", "pytorch", "torch", "triton", "cublas", "cublaslt", "nccl",
                   "llvm", "cuda", "nvidia", "cccl", "thunderkittens", "deepgemm", "sglang", "tensorrt-llm",
                   "trt-llm", "github", "googletest", "cmake", "jax", "xla", "tilelang"}
_PRECEDING_WORD = re.compile(r"([\w.+-]+)\W{0,3}$")

# The short list of legitimate uses the patterns cannot tell apart: (path regex, line regex, why). A hit on a
# line matching both regexes is not reported. Keep it short; prefer rewording the line.
ALLOW = [
    (r"^tools/check_history\.py$", r"", "the checker names the phrases it looks for"),
    (r"^test/history/check_rejects_planted\.py$", r"", "its test plants them"),
    (r"^docs/performance\.md$", r"gau-nernst blog", "a public anchor: another author's published runs"),
]

DATA_SUFFIXES = (".json", ".bin", ".csv", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".ico", ".npy",
                 ".npz", ".pt", ".safetensors", ".gz", ".tar", ".zip")
DATA_DIRS = ("docs/data/", "test/data/")


def is_data(rel):
    rel = rel.replace(os.sep, "/")
    if rel.lower().endswith(DATA_SUFFIXES):
        return True
    return rel.startswith(DATA_DIRS) and rel.lower().endswith(".txt")


def hits_in_line(text):
    """The names of the patterns a line matches (empty: clean)."""
    found = []
    for name, regex in COMPILED:
        for m in regex.finditer(text):
            if name == "tracker item":
                before = _PRECEDING_WORD.search(text[:m.start()])
                if before and before.group(1).lower() in PUBLIC_PROJECTS:
                    continue
            found.append(name)
            break
    return found


def allowed(rel, text):
    return any(re.search(p, rel) and re.search(l, text) for p, l, _ in ALLOW)


def check_text(label, rel, lines, out):
    n = 0
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if hits_in_line(text) and not allowed(rel, text):
            out.append(f"{label}:{number}: {text.strip()}")
            n += 1
    return n


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def tracked_files(root):
    """Paths relative to root: git ls-files, or a walk of the tree where git tracks nothing there (not a git
    checkout, or an untracked directory; the walk skips hidden directories, build/ and __pycache__/)."""
    result = None
    try:
        result = git(root, "ls-files", "-z", "--cached", "--", ".")
    except OSError:
        pass
    if result is not None and result.returncode == 0:
        files = sorted(p for p in result.stdout.split("\0") if p)
        if files:  # none: root is an untracked directory inside some checkout; walk it
            return files
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("build", "__pycache__"))
        for name in sorted(filenames):
            files.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return files


def check_files(root, paths, explicit):
    out, scanned = [], 0
    for rel in paths:
        path = rel if os.path.isabs(rel) else os.path.join(root, rel)
        shown = os.path.relpath(path, root).replace(os.sep, "/") if explicit else rel
        if not explicit and is_data(rel):
            continue
        if not os.path.isfile(path):
            if explicit:
                print(f"check_history.py: no such file: {rel}", file=sys.stderr)
                return None, 0
            continue  # deleted in the work tree, still in the index
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            print(f"check_history.py: {e}", file=sys.stderr)
            return None, 0
        if b"\0" in raw[:8192]:
            continue  # binary
        scanned += 1
        check_text(shown, shown, raw.decode("utf-8", errors="replace").splitlines(), out)
    return out, scanned


def check_commits(root, rev):
    log = git(root, "log", "--format=%H%x00%B%x1e", rev)
    if log.returncode != 0:
        print(f"check_history.py: git log {rev}: {log.stderr.strip()}", file=sys.stderr)
        return None, 0
    out, n = [], 0
    for record in log.stdout.split("\x1e"):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, _, body = record.partition("\0")
        n += 1
        check_text(f"commit {sha[:12]}", "", body.splitlines(), out)
    return out, n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the tree to check (default: this script's repository)")
    parser.add_argument("--commits", metavar="REV", help="check the messages of `git log REV` instead")
    parser.add_argument("files", nargs="*", help="check only these files (relative to the current directory)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print(f"check_history.py: --root {args.root} is not a directory", file=sys.stderr)
        return 2
    if args.commits:
        hits, n = check_commits(root, args.commits)
        what = "commit messages"
    elif args.files:
        hits, n = check_files(root, [os.path.abspath(f) for f in args.files], explicit=True)
        what = "files"
    else:
        hits, n = check_files(root, tracked_files(root), explicit=False)
        what = "files"
        if hits is not None and n == 0:
            print(f"check_history.py: no file found under {root}", file=sys.stderr)
            return 2
    if hits is None:
        return 2
    for line in hits:
        print(line)
    print(f"check_history.py: {len(hits)} development-history phrase(s) in {n} {what}", file=sys.stderr)
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
