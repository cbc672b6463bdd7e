#!/usr/bin/env python3
"""`shard lower --verify` on every function of Shardy's reshard_to_collectives.mlir.

Each top-level func.func of the lit test (with the file's meshes) becomes a
module of its own and goes through `shard lower --verify --no-propagate`:
its reshards are lowered to collectives, and the per-device program run on
every simulated device must reassemble to what the global program computes.

Outcomes per function:
  verified     exit 0, every result equal (or within the documented bound)
  not covered  exit 1 with a located error that Shardy gives too (a
               function argument or result on a single-device mesh), a
               note that the interpreter cannot run the program, or a loop
               that does not end on the random inputs (a while whose
               condition is an input that came out true)
  FAILED       anything else: a mismatch, a crash, an unexpected error

Fails when a function FAILED or fewer than --min-verified verified.
Exit 77 (a ctest skip) when the conformance tree is missing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIT = "shardy/dialect/sdy/transforms/export/test/reshard_to_collectives.mlir"

# Errors Shardy gives as well: the lowering refuses these functions.
NOT_COVERED = [
    re.compile(r"cannot have a single-device \(maximal\) sharding attribute"),
    re.compile(r"not verified \("),
    re.compile(r"this loop may never end on these inputs"),
]


def functions(text):
    """(meshes, [(name, text)]) of the top-level funcs of a lit file."""
    meshes = [l for l in text.splitlines() if l.startswith("sdy.mesh ")]
    funcs, cur, name = [], None, None
    for line in text.splitlines():
        if cur is None:
            m = re.match(r"func\.func (?:private |public )?@([\w.$-]+)", line)
            if m:
                cur, name = [line], m.group(1)
                if line.rstrip().endswith("}"):
                    funcs.append((name, "\n".join(cur)))
                    cur = None
            continue
        if line.lstrip().startswith("//"):
            continue
        cur.append(line)
        if line.startswith("}"):
            funcs.append((name, "\n".join(cur)))
            cur = None
    return meshes, funcs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", required=True)
    ap.add_argument("--root", help="Shardy's lit tests (default: $SHARD_CONFORMANCE_DIR, else "
                    "../shared/conformance/shardy); exit 77 (skipped) when missing")
    ap.add_argument("--min-verified", type=int, default=75)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.root is None:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import suites
        args.root = suites.require("shardy", "reshard_verify")
    path = os.path.join(args.root, LIT)
    if not os.path.exists(path):
        print("reshard_verify.py: error: no file %s" % path, file=sys.stderr)
        return 1
    with open(path, encoding="utf-8") as f:
        meshes, funcs = functions(f.read())
    verified, not_covered, failed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in funcs:
            src = os.path.join(tmp, name + ".mlir")
            with open(src, "w", encoding="utf-8") as f:
                f.write("\n".join(meshes) + "\n\n" + body + "\n")
            r = subprocess.run([args.shard, "lower", "--verify", "--no-propagate", "--max-steps", "100000", src, "-o", src + ".out"],
                               capture_output=True, text=True, timeout=300)
            out = r.stdout + r.stderr
            if r.returncode == 0 and "gave the same results" in out:
                verified.append(name)
            elif r.returncode == 1 and any(p.search(out) for p in NOT_COVERED):
                not_covered.append((name, out.strip().splitlines()[0]))
            else:
                failed.append((name, r.returncode, out.strip()[-600:]))
            if args.verbose:
                print("%-50s exit %d" % (name, r.returncode))
    for name, why in not_covered:
        print("not covered: %s: %s" % (name, why))
    for name, rc, out in failed:
        print("FAILED: %s (exit %d)\n%s" % (name, rc, out))
    print("%d functions: %d verified, %d not covered, %d failed"
          % (len(funcs), len(verified), len(not_covered), len(failed)))
    if failed or len(verified) < args.min_verified:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
