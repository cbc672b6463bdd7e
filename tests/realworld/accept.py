#!/usr/bin/env python3
"""What users paste must just work: `shard opt` over ../shared/realworld.

Every .mlir file of ../shared/realworld is cut into its `// -----` chunks
(generic_roundtrip.py's chunking). A chunk is *in scope* when its file's RUN
lines expect success (no `not`, no `-verify-diagnostics`, and the chunk has
no `expected-error`) and every dialect it names (ops `d.op`, attributes
`#d.`/`#d<`, types `!d.`/`!d<`) is one of builtin, func, stablehlo, chlo,
mhlo, sdy. Then:

  * `shard opt -allow-unregistered-dialect` must accept every chunk in scope,
    except the ones tests/realworld/KNOWN.md lists (a line `` - `PATH#N` ``
    with its reason); a listed chunk that is accepted is noted (not failed:
    work merged from elsewhere may fix it first) so that the list shrinks;
  * `shard propagate` and `shard lower --verify` must never crash (exit by a
    signal or with code 3) on any accepted chunk, in scope or not.

Refusals are counted by reason (first error, numbers as N). Exit 0 when all
of that holds, 1 otherwise, 77 (skip, one line) when ../shared is absent.

Run by hand: `python3 tests/realworld/accept.py [-v] [--no-run] [FILE|DIR...]`.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from generic_roundtrip import chunks_of, crashed, first_error  # noqa: E402
import suites  # noqa: E402

ALLOWED = {"builtin", "func", "stablehlo", "chlo", "mhlo", "sdy"}
# names that look like `word.word` or `#word<` but are not dialects
NOT_DIALECTS = {"loc", "dense", "array", "affine_map", "affine_set", "strided", "distinct",
                "dense_resource", "sparse", "opaque", "unit", "true", "false", "none"}
OP_NAME = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*)\.[a-z_][\w.$]*"?(?:[\s(<{:@%]|$)')
SYM_DIALECT = re.compile(r'(?<![\w.])[#!]([a-z_][a-z0-9_]*)[.<]')
TIMEOUT = 120


def dialects_of(chunk):
    out = set()
    for line in chunk.splitlines():
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)  # strings hold no dialect names
        code = code.split("//", 1)[0]
        m = OP_NAME.match(line)  # a generic op's name is a string
        if m:
            out.add(m.group(1))
        out.update(SYM_DIALECT.findall(code))
    return {d for d in out if d not in NOT_DIALECTS}


def run_lines(text):
    lines, cur = [], ""
    for l in text.splitlines():
        m = re.match(r"\s*//\s*RUN:(.*)", l)
        if not m:
            continue
        cur += m.group(1).rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        lines.append(cur.strip())
        cur = ""
    return lines


def expects_success(runs):
    return not any(re.search(r"(^|\|)\s*not\s|-verify-diagnostics", r) for r in runs)


def run(cmd, timeout=TIMEOUT):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return None, "timeout"


def known_list(path):
    """`PATH#N` (or `PATH` for a whole single-chunk file) -> reason."""
    known = {}
    if not os.path.exists(path):
        return known
    with open(path) as fh:
        for line in fh:
            m = re.match(r"\s*[-*]\s*`([^`]+)`\s*[:—-]*\s*(.*)", line)
            if m:
                known[m.group(1)] = m.group(2).strip()
    return known


def check_file(args, path, rel):
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    success = expects_success(run_lines(text))
    parts = [(i, c) for i, c in enumerate(chunks_of(text)) if c and any(
        l.strip() and not l.strip().startswith("//") for l in c.splitlines())]
    res = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, c in parts:
            label = f"{rel}#{i}" if len(parts) > 1 else rel
            d = dialects_of(c)
            v = {"label": label, "scope": success and "expected-error" not in c and d <= ALLOWED,
                 "dialects": sorted(d - ALLOWED), "crash": []}
            cp = os.path.join(tmp, f"c{i}.mlir")
            with open(cp, "w") as fh:
                fh.write(c + "\n")
            rc, err = run([args.shard, "opt", "-allow-unregistered-dialect", cp])
            if rc is None or crashed(rc):
                v["crash"].append(f"shard opt: exit {rc}: {err.strip()[:200]}")
            if rc != 0:
                v["refused"] = first_error(err)
                res.append(v)
                continue
            if not args.no_run:
                rc, err = run([args.shard, "propagate", cp])
                if rc is None:
                    v["timeout"] = "propagate"
                elif crashed(rc):
                    v["crash"].append(f"shard propagate: exit {rc}: {err.strip()[:200]}")
                rc, err = run([args.shard, "lower", "--verify", "--max-steps", str(args.max_steps), cp])
                if rc is None:
                    v["timeout"] = "lower --verify"
                elif crashed(rc):
                    v["crash"].append(f"shard lower --verify: exit {rc}: {err.strip()[:200]}")
            res.append(v)
    return res


def main():
    repo = os.path.dirname(os.path.dirname(HERE))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", default=os.path.join(repo, "build", "shard"))
    ap.add_argument("--known", default=os.path.join(HERE, "KNOWN.md"))
    ap.add_argument("--max-steps", type=int, default=2000000)
    ap.add_argument("--no-run", action="store_true", help="only shard opt (no propagate, no lower)")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-v", action="store_true", help="list every refused chunk")
    ap.add_argument("paths", nargs="*", help="only these files or folders")
    args = ap.parse_args()
    shared = suites.require("realworld", "accept.py")
    root = os.path.join(shared, "realworld")
    roots = args.paths or [root]
    files = []
    for r in roots:
        if os.path.isfile(r):
            files.append(r)
        else:
            files += sorted(os.path.join(d, f) for d, _, fs in os.walk(r) for f in fs if f.endswith(".mlir"))
    known = known_list(args.known)
    rel = lambda p: os.path.relpath(os.path.abspath(p), root)
    failures, unexpected_ok, timeouts = [], [], []
    by_reason = {True: collections.Counter(), False: collections.Counter()}
    counts = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as ex:
        for res in ex.map(lambda p: check_file(args, p, rel(p)), files):
            for v in res:
                counts["chunks"] += 1
                counts["in scope"] += v["scope"]
                if v["crash"]:
                    failures.append((v["label"], v["crash"]))
                if "timeout" in v:
                    timeouts.append((v["label"], v["timeout"]))
                if "refused" in v:
                    reason = v["refused"] if v["scope"] else (
                        "dialects " + ",".join(v["dialects"]) if v["dialects"] else "expects failure") + \
                        ": " + v["refused"]
                    by_reason[v["scope"]][v["refused"] if v["scope"] else reason.split(":")[0]] += 1
                    if v["scope"]:
                        if v["label"] in known:
                            counts["refused, known"] += 1
                        else:
                            failures.append((v["label"], ["refused (in scope, not in KNOWN.md): " + v["refused"]]))
                    if args.v:
                        print(f"  refused {v['label']}: {reason}")
                else:
                    counts["accepted"] += 1
                    if v["label"] in known:
                        unexpected_ok.append(v["label"])
    for label, msgs in failures:
        print(f"FAIL {label}")
        for m in msgs:
            print("  " + m)
    for label in unexpected_ok:
        print(f"NOTE {label} is accepted now: drop it from KNOWN.md")
    for label, what in timeouts:
        print(f"NOTE {label}: {what} ran over {TIMEOUT}s (not a crash)")
    print(f"realworld: {counts['chunks']} chunks in {len(files)} files, {counts['in scope']} in scope; "
          f"{counts['accepted']} accepted, {sum(by_reason[True].values())} in scope refused "
          f"({counts['refused, known']} listed in KNOWN.md), {sum(by_reason[False].values())} out of scope refused")
    for scope in (True, False):
        print("in scope, refused by reason:" if scope else "out of scope, refused by reason:")
        for reason, n in by_reason[scope].most_common():
            print(f"  {n:5d}  {reason}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
