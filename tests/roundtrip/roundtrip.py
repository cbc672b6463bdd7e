#!/usr/bin/env python3
"""Round-trip check over every Shardy test input.

For each .mlir file of the conformance tree that `shard opt` accepts:
  1. print it (pretty), parse that print and print again: the two prints
     must be identical (printing is a fixed point);
  2. print it in generic form: `mlir-opt-16 --allow-unregistered-dialect`
     must parse it. One mlir-opt-16 limitation is tolerated and counted: it
     treats unregistered ops (sdy.manual_computation, ...) as symbol tables,
     so a func.call inside one "does not reference a valid function".
Files `shard opt` rejects (the verification tests) are counted, not failed.
Prints a summary and `N passed, M failed`; exits 1 on any failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

MLIR16_SYMBOL_LIMITATION = "does not reference a valid function"


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", default=os.path.join(repo, "build", "shard"))
    ap.add_argument("--root", help="Shardy's lit tests (default: $SHARD_CONFORMANCE_DIR, else "
                    "../shared/conformance/shardy); exit 77 (skipped) when missing")
    ap.add_argument("--mlir-opt", default="mlir-opt-16")
    args = ap.parse_args()
    if args.root is None:
        sys.path.insert(0, os.path.dirname(here))
        import suites
        args.root = suites.require("shardy", "roundtrip")
    elif not os.path.isdir(args.root):
        print(f"roundtrip: error: --root {args.root}: no such directory", file=sys.stderr)
        return 2
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.root) for f in fs if f.endswith(".mlir"))
    passed = failed = rejected = tolerated = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            split = ["-split-input-file"] if "split-input-file" in text else []
            first = run([args.shard, "opt", "-allow-unregistered-dialect", *split, path])
            if first.returncode != 0:
                rejected += 1
                continue
            printed = os.path.join(tmp, "p.mlir")
            with open(printed, "w") as fh:
                fh.write(first.stdout)
            second = run([args.shard, "opt", "-allow-unregistered-dialect", *split, printed])
            ok = True
            if second.returncode != 0 or second.stdout != first.stdout:
                ok = False
                print(f"FAIL print is not a fixed point: {path}")
            generic = run([args.shard, "opt", "-allow-unregistered-dialect", "--mlir-print-op-generic", *split, path])
            gpath = os.path.join(tmp, "g.mlir")
            with open(gpath, "w") as fh:
                fh.write(generic.stdout)
            mo = run([args.mlir_opt, "--allow-unregistered-dialect", *split, gpath])
            if generic.returncode != 0:
                ok = False
                print(f"FAIL generic print failed: {path}: {generic.stderr.strip()[:200]}")
            elif mo.returncode != 0:
                errors = [l for l in mo.stderr.splitlines() if "error:" in l]
                if errors and all(MLIR16_SYMBOL_LIMITATION in e for e in errors):
                    tolerated += 1
                else:
                    ok = False
                    print(f"FAIL mlir-opt-16 rejects the generic print of {path}: {errors[:1]}")
            if ok:
                passed += 1
            else:
                failed += 1
    print(f"roundtrip: {passed} files round-trip ({tolerated} of them hit mlir-opt-16's unregistered-op "
          f"symbol lookup), {rejected} rejected by the verifier (not round-tripped)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
