#!/usr/bin/env python3
"""`shard lower --verify` on every lit test of a directory of Shardy's tests.

Each -split-input-file chunk of the lit tests under the --tests directories
(default shardy/dialect/sdy/transforms/export/test) is a module of its own: its
shardings as written (--no-propagate, the default) or as propagated
(--propagate) are lowered to collectives, converted to the program each
device runs, and every device's results are compared with what the global
program computes (on random inputs).

Many chunks are not programs --verify can run (diagnostic tests, custom
calls, manual computations the interpreter lacks): shard lower exits 1 with
a located error or note, which is fine here. What must never happen:
  WRONG   a function whose per-device results differ from the global ones
  CRASH   a signal, an internal error (exit 3), or a timeout
and at least --min-verified functions must come out equal, so that the
test cannot pass by verifying nothing.

Exit 77 (a ctest skip) when the conformance tree is missing.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPORT = "shardy/dialect/sdy/transforms/export/test"
VERIFIED = re.compile(r"^@\S+: result #\d+: (bit-exact|within)", re.M)
WRONG = re.compile(r"--verify: result #\d+ of @\S+ differs", re.M)


def chunks(root, tests):
    """(name, text) of every -split-input-file chunk under root/tests."""
    out = []
    for dirpath, _, files in sorted(os.walk(os.path.join(root, tests))):
        for f in sorted(files):
            if not f.endswith(".mlir"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            rel = os.path.relpath(path, os.path.join(root, tests))
            for i, part in enumerate(re.split(r"\n// -----\n", text)):
                if part.strip():
                    out.append(("%s:%d" % (rel, i), part))
    return out


def run(shard, tmp, propagate, item):
    name, text = item
    src = os.path.join(tmp, re.sub(r"[^\w.-]", "_", name) + ".mlir")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        mode = [] if propagate else ["--no-propagate"]
        r = subprocess.run([shard, "lower", "--verify"] + mode + ["--max-steps", "100000", src, "-o", src + ".out"],
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return name, "CRASH", "timeout", 0
    err = r.stderr
    verified = len(VERIFIED.findall(err))
    if r.returncode < 0 or r.returncode >= 3:
        return name, "CRASH", "exit %d\n%s" % (r.returncode, err[-600:]), verified
    if WRONG.search(err):
        return name, "WRONG", "\n".join(l for l in err.splitlines() if WRONG.search(l)), verified
    return name, "ok", "", verified


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", required=True)
    ap.add_argument("--root", help="Shardy's lit tests (default: $SHARD_CONFORMANCE_DIR, else "
                    "../shared/conformance/shardy); exit 77 (skipped) when missing")
    ap.add_argument("--tests", action="append", help="a directory of lit tests under --root (repeatable; default "
                    + EXPORT + ")")
    ap.add_argument("--propagate", action="store_true", help="lower with propagation (default: --no-propagate)")
    ap.add_argument("--min-verified", type=int, default=570)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if args.root is None:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import suites
        args.root = suites.require("shardy", "lit_verify")
    items = []
    for tests in args.tests or [EXPORT]:
        if not os.path.isdir(os.path.join(args.root, tests)):
            print("%s: error: no directory %s" % (os.path.basename(__file__), os.path.join(args.root, tests)),
                  file=sys.stderr)
            return 1
        items += [(tests.split("/")[-2] + "/" + name, text) for name, text in chunks(args.root, tests)]
    bad, verified = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for name, outcome, detail, n in pool.map(lambda it: run(args.shard, tmp, args.propagate, it), items):
                verified += n
                if outcome != "ok":
                    bad.append((name, outcome, detail))
    for name, outcome, detail in bad:
        print("%s: %s\n%s" % (outcome, name, detail))
    print("%d chunks: %d functions verified, %d wrong or crashed" % (len(items), verified, len(bad)))
    return 1 if bad or verified < args.min_verified else 0


if __name__ == "__main__":
    sys.exit(main())
