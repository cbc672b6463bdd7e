#!/usr/bin/env python3
"""Lossless generic form over real modules.

Every .mlir file of ../shared/realworld and ../shared/conformance is cut into
its `// -----` chunks; for each chunk that `shard opt` accepts (its pretty
print P) three round trips must give back P exactly:

  shard:   shard --mlir-print-op-generic  ->  shard                 == P
  mlir16:  shard --mlir-print-op-generic  ->  mlir-opt-16 (generic) ->  shard  == P
  input16: mlir-opt-16 --mlir-print-op-generic of the input itself  ->  shard  == P
           (only for chunks mlir-opt-16 can read: sdy, stablehlo, ... in
           custom syntax are unregistered dialects to it)

Modules are compared as shard's pretty prints of both sides, which is what
"the same module" means here: attributes, argument and result attributes,
properties, regions, types.  mlir-opt-16 knows neither properties (MLIR 17)
nor the ops shard knows; what it cannot read of shard's generic print is a
failure unless it is the one MLIR 16 limitation also tolerated by
tests/roundtrip/roundtrip.py (a func.call inside an unregistered op "does not
reference a valid function", since MLIR 16 takes unregistered ops for symbol
tables).

Chunks `shard opt` refuses are counted and listed by reason, not failed; a
crash (signal, exit code 3) on any step is a failure.  Whole files run first
(-split-input-file); a file with any refusal or difference is rerun chunk by
chunk so that each chunk gets its own verdict.

Exit 0 when every accepted chunk round-trips exactly, 1 otherwise, 77 (skip)
when ../shared is absent.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dense_norm import normalize  # noqa: E402

SPLIT = re.compile(r"(?m)^// -----.*\n?")
MLIR16_SYMBOL_LIMITATION = "does not reference a valid function"
TIMEOUT = 120


def run(cmd, path):
    try:
        r = subprocess.run(cmd + [path], capture_output=True, text=True, timeout=TIMEOUT,
                           errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return -999, "", "timeout"


def crashed(rc):
    return rc < 0 or rc == 3 or rc == -999


def first_error(stderr):
    for line in stderr.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            msg = m.group(1)
            if not msg.startswith("custom op"):  # keep the op's name: what is missing
                msg = re.sub(r"'[^']*'", "'…'", msg)
            msg = re.sub(r"\d+", "N", msg)
            return msg[:110]
    return (stderr.strip().splitlines() or ["(no message)"])[0][:110]


def chunks_of(text):
    return [c.strip() for c in SPLIT.split(text)]


class Unit:
    """One run over a file (split) or over one chunk."""

    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as fh:
            fh.write(text)
        return p

    def check(self, path, split):
        a = self.args
        sp = ["-split-input-file"] if split else []
        shard = [a.shard, "opt", "-allow-unregistered-dialect", *sp]
        m16 = [a.mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic", *sp]
        out = {"crash": [], "fail": [], "tolerated": 0, "input16": 0, "props17": 0, "types17": 0, "respelled": 0}
        rc, pretty, err = run(shard, path)
        if crashed(rc):
            out["crash"].append(f"shard opt: exit {rc}: {err.strip()[:200]}")
            return out
        if rc != 0:
            out["refused"] = first_error(err)
            return out
        rc, generic, err = run(shard + ["--mlir-print-op-generic"], path)
        if rc != 0:
            (out["crash"] if crashed(rc) else out["fail"]).append(f"generic print: exit {rc}: {first_error(err)}")
            return out
        gpath = self.write("g.mlir", generic)
        rc, back, err = run(shard, gpath)
        if rc != 0:
            (out["crash"] if crashed(rc) else out["fail"]).append(f"shard rejects its generic print: {first_error(err)}")
        elif back != pretty:
            out["fail"].append("shard generic -> shard differs:\n" + diff(pretty, back))
        rc, m, err = run(m16, gpath)
        if rc != 0:
            errors = [l for l in err.splitlines() if "error:" in l]
            if errors and all(MLIR16_SYMBOL_LIMITATION in e for e in errors):
                out["tolerated"] += 1
            elif errors and at_properties(generic, errors[0]):
                out["props17"] += 1
            elif errors and at_new_float_type(generic, errors[0]):
                out["types17"] += 1
            else:
                out["fail"].append(f"mlir-opt-16 rejects shard's generic print: {(errors or [err.strip()])[0][:200]}")
        else:
            rc, back, err = run(shard, self.write("m.mlir", m))
            if rc != 0:
                (out["crash"] if crashed(rc) else out["fail"]).append(
                    f"shard rejects mlir-opt-16's print of shard's generic print: {first_error(err)}")
            elif back != pretty and not respelled(pretty, back, out):
                out["fail"].append("shard generic -> mlir-opt-16 -> shard differs:\n" + diff(pretty, back))
        rc, m, err = run(m16, path)
        if rc == 0:
            out["input16"] += 1
            rc, back, err = run(shard, self.write("i.mlir", m))
            if rc != 0:
                (out["crash"] if crashed(rc) else out["fail"]).append(
                    f"shard rejects mlir-opt-16's generic print of the input: {first_error(err)}")
            elif back != pretty and not respelled(pretty, back, out):
                out["fail"].append("mlir-opt-16 generic of the input -> shard differs:\n" + diff(pretty, back))
        return out


def at_properties(text, error):
    """Does mlir-opt-16's error point at a `<{` (properties, MLIR >= 17)?"""
    m = re.search(r":(\d+):(\d+): error:", error)
    if not m:
        return False
    lines = text.splitlines()
    line, col = int(m.group(1)), int(m.group(2))
    # MLIR 16 points at the end of the token before (the space), or at `<`
    return 0 < line <= len(lines) and lines[line - 1][col - 1:].lstrip().startswith("<{")


def at_new_float_type(text, error):
    """Does mlir-opt-16's error point at a float type newer than MLIR 16
    (f4E2M1FN, f8E4M3, f8E8M0FNU, ...)? Neither the input nor any MLIR 16
    print can hold it."""
    m = re.search(r":(\d+):(\d+): error: expected non-function type", error)
    if not m:
        return False
    lines = text.splitlines()
    line, col = int(m.group(1)), int(m.group(2))
    return 0 < line <= len(lines) and re.match(r"f\d+E\d+M\d+|f8E8M0", lines[line - 1][col - 1:]) is not None


def respelled(pretty, back, out):
    """Equal once dense literals are read as values (mlir-opt-16 re-spells
    them; dense_norm.py): counted apart, not a difference of the module."""
    if normalize(pretty) != normalize(back):
        return False
    out["respelled"] += 1
    return True


def diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"    line {i + 1}:\n    - {x.strip()[:300]}\n    + {y.strip()[:300]}"
    return f"    lengths differ: {len(al)} vs {len(bl)} lines"


def check_file(args, path):
    """-> list of (chunk label, verdict dict)"""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    parts = chunks_of(text)
    parts = [(i, c) for i, c in enumerate(parts) if c and any(
        l.strip() and not l.strip().startswith("//") for l in c.splitlines())]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        u = Unit(args, tmp)
        if len(parts) > 1:
            whole = u.check(path, True)
            if not whole["crash"] and not whole["fail"] and "refused" not in whole:
                return [(f"{path}#*", dict(whole, ok=True, n=len(parts)))]
        for i, c in parts:
            cp = u.write(f"chunk{i}.mlir", c + "\n")
            v = u.check(cp, False)
            v["ok"] = not v["crash"] and not v["fail"] and "refused" not in v
            v["n"] = 1
            results.append((f"{path}#{i}" if len(parts) > 1 else path, v))
    return results


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", default=os.path.join(repo, "build", "shard"))
    ap.add_argument("--shared", default=os.path.join(repo, "..", "shared"))
    ap.add_argument("--mlir-opt", default="mlir-opt-16")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-v", action="store_true", help="list every refused chunk")
    ap.add_argument("paths", nargs="*", help="only these files or folders")
    args = ap.parse_args()
    roots = args.paths or [os.path.join(args.shared, "realworld"), os.path.join(args.shared, "conformance")]
    if not args.paths and not all(os.path.isdir(r) for r in roots):
        print(f"SKIP generic round trip: no corpus at {os.path.abspath(args.shared)}")
        return 77
    files = []
    for r in roots:
        if os.path.isfile(r):
            files.append(r)
        else:
            files += sorted(os.path.join(d, f) for d, _, fs in os.walk(r) for f in fs if f.endswith(".mlir"))
    chunks = exact = tolerated = input16 = props17 = types17 = respelled_n = 0
    refusals = collections.Counter()
    refused_list = []
    failures = []
    per_root = collections.OrderedDict()  # corpus folder -> [chunks, exact, not exact, refused]
    shared = os.path.abspath(args.shared)

    def root_of(path):
        rel = os.path.relpath(os.path.abspath(path), shared).split(os.sep)
        return "/".join(rel[:2] if rel[0] == "conformance" else rel[:1])

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as ex:
        for path, res in zip(files, ex.map(lambda p: check_file(args, p), files)):
            row = per_root.setdefault(root_of(path), [0, 0, 0, 0])
            for label, v in res:
                n = v.get("n", 1)
                row[0] += n
                row[1] += n if v["ok"] else 0
                row[2] += 1 if not v["ok"] and "refused" not in v else 0
                row[3] += 1 if "refused" in v else 0
                chunks += n
                tolerated += v["tolerated"]
                input16 += v["input16"]
                props17 += v.get("props17", 0)
                types17 += v.get("types17", 0)
                respelled_n += v.get("respelled", 0)
                if v["ok"]:
                    exact += n
                elif "refused" in v:
                    refusals[v["refused"]] += 1
                    refused_list.append((label, v["refused"]))
                else:
                    failures.append((label, v["crash"] + v["fail"]))
    rel = lambda p: os.path.relpath(p, args.shared) if p.startswith(os.path.abspath(args.shared)) or \
        p.startswith(args.shared) else p
    for label, msgs in failures:
        print(f"FAIL {rel(label)}")
        for m in msgs:
            print("  " + m)
    print(f"generic round trip: {chunks} chunks in {len(files)} files; {exact} exact "
          f"(shard and mlir-opt-16 ways; {input16} file runs also via mlir-opt-16's reading of the input; "
          f"{tolerated} hit mlir-opt-16's unregistered-op symbol lookup, {props17} carry unregistered-op "
          f"properties <{{...}}>, MLIR 17 syntax mlir-opt-16 cannot read, {types17} newer float types "
          f"MLIR 16 lacks: shard way only; {respelled_n} mlir-opt-16 results equal once dense literals "
          f"are read as values), "
          f"{len(failures)} not exact or crashed, {sum(refusals.values())} refused by shard opt")
    for root, (c, e, f, r) in per_root.items():
        print(f"  {root}: {c} chunks, {e} exact, {f} not exact, {r} refused")
    print("refusals by reason:")
    for reason, n in refusals.most_common():
        print(f"  {n:5d}  {reason}")
    if args.v:
        for label, reason in refused_list:
            print(f"  refused {rel(label)}: {reason}")
    print(f"{exact} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
