#!/usr/bin/env python3
"""ctest python.torch_ops: runs python/tests with pytest against the CMake build's operator library, or says
why it cannot and exits with 77 (ctest's SKIP_RETURN_CODE): torch or pytest not importable, or the library not
built (configure with -DBWGEMM_BUILD_PYTHON=ON).

    ctest_driver.py <library dir> <python package dir> <tests dir> [pytest args...]"""
import importlib.util
import os
import subprocess
import sys

SKIP = 77


def main():
    lib_dir, package_dir, tests_dir = sys.argv[1:4]
    for module, how in (("torch", "pip install torch --index-url https://download.pytorch.org/whl/cpu"),
                        ("pytest", "pip install pytest")):
        if importlib.util.find_spec(module) is None:
            print(f"SKIPPED: {module} is not importable by {sys.executable} ({how}); the PyTorch operators "
                  "are not tested")
            return SKIP
    if not os.path.isdir(lib_dir) or not any(f.startswith("_bwgemm_ops_cpu") for f in os.listdir(lib_dir)):
        print("SKIPPED: torch is importable but the operator library was not built: configure with "
              "-DBWGEMM_BUILD_PYTHON=ON and build the target bwgemm_torch_cpu")
        return SKIP
    env = dict(os.environ, BWGEMM_TORCH_LIBRARY_DIR=lib_dir,
               PYTHONPATH=os.pathsep.join(p for p in (package_dir, os.environ.get("PYTHONPATH")) if p))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests_dir] + sys.argv[4:]
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
