#!/usr/bin/env python3
"""Every op with a custom syntax, written in generic form with odd signatures.

For each op that src/core/ir/ops_*.c gives a custom parser, builds small modules
where the op has zero to three operands of equal or different types, zero to
two results and no attributes, and runs `shard opt` on each. Each must either
be rejected with a located error and exit 1, or verify, print, and have its
print verify again: a custom form that does not parse back means the verifier
accepted what the custom syntax cannot say (fuzz_mlir findings 15, 16, 19, 20
were of this kind). A crash or any other exit code fails at once.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Ops whose region/terminator structure the func body cannot host this way.
SKIP = {"builtin.module", "func.func", "func.return", "sdy.return", "stablehlo.return"}

SIGNATURES = [
    ("", "()", "()"),
    ("%a", "(tensor<2xf32>)", "()"),
    ("%a", "(tensor<2xf32>)", "tensor<2xf32>"),
    ("%a, %a", "(tensor<2xf32>, tensor<2xf32>)", "tensor<2xf32>"),
    ("%a, %a", "(tensor<2xf32>, tensor<2xf32>)", "()"),
    ("%a, %a, %a", "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)", "(tensor<2xf32>, tensor<2xi32>)"),
    ("%a, %b", "(tensor<2xf32>, tensor<3xi32>)", "tensor<2xf32>"),
    ("%b, %a", "(tensor<3xi32>, tensor<2xf32>)", "tensor<3xi32>"),
    ("", "()", "tensor<2xf32>"),
    ("%a", "(tensor<2xf32>)", "(tensor<2xf32>, tensor<2xf32>)"),
]


def custom_ops():
    names = []
    core = os.path.join(ROOT, "src", "core", "ir")
    for f in sorted(os.listdir(core)):
        if f.startswith("ops_") and f.endswith(".c"):
            with open(os.path.join(core, f), encoding="utf-8") as fh:
                names += re.findall(r'\{\s*\.name\s*=\s*"([a-z_.]+)",\s*\.parse\s*=', fh.read())
    return [n for n in names if n not in SKIP]


def module(op, operands, in_types, out_types):
    results = 0 if out_types == "()" else out_types.count("tensor<")
    lhs = "%%r:%d = " % results if results else ""
    return ("func.func @f(%%a: tensor<2xf32>, %%b: tensor<3xi32>) {\n"
            "  %s\"%s\"(%s) : %s -> %s\n"
            "  \"func.return\"() : () -> ()\n}\n" % (lhs, op, operands, in_types, out_types))


def run(shard, path):
    return subprocess.run([shard, "opt", path], capture_output=True, text=True, timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shard", required=True)
    args = ap.parse_args()
    ops = custom_ops()
    if len(ops) < 80:
        print("found only %d custom ops in src/core/ir/ops_*.c; the pattern is stale" % len(ops))
        return 1
    failures = cases = rejected = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, again = os.path.join(tmp, "in.mlir"), os.path.join(tmp, "again.mlir")
        for op in ops:
            for operands, ins, outs in SIGNATURES:
                cases += 1
                text = module(op, operands, ins, outs)
                with open(src, "w", encoding="utf-8") as f:
                    f.write(text)
                r = run(args.shard, src)
                what = "%s %s : %s -> %s" % (op, operands or "-", ins, outs)
                if r.returncode == 1:
                    if not re.match(r".*in\.mlir:\d+:\d+: error: ", r.stderr.splitlines()[0] if r.stderr else ""):
                        failures += 1
                        print("UNLOCATED %s\n  %s" % (what, r.stderr.strip()[:200]))
                    rejected += 1
                    continue
                if r.returncode != 0:
                    failures += 1
                    print("EXIT %d %s\n  %s" % (r.returncode, what, r.stderr.strip()[:300]))
                    continue
                with open(again, "w", encoding="utf-8") as f:
                    f.write(r.stdout)
                r2 = run(args.shard, again)
                if r2.returncode != 0:
                    failures += 1
                    print("REPARSE %s\n  printed: %s\n  %s" % (what, r.stdout.strip().splitlines()[2:3], r2.stderr.strip()[:300]))
    print("%d ops, %d cases: %d rejected by the verifier, %d printed and parsed again, %d failures"
          % (len(ops), cases, rejected, cases - rejected - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
