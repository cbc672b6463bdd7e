#!/usr/bin/env python3
"""Run StableHLO's own interpreter tests against `shard interpret` and
report a pass rate.

The tree (--root, else where tests/suites.py finds suite "stablehlo":
$SHARD_STABLEHLO_DIR or ../shared/conformance/stablehlo) holds
stablehlo/tests/interpret/**.mlir (lit tests of the interpreter) and
stablehlo/testdata/*.mlir (self-checking programs exported from JAX). Every
file's `// RUN:` lines run the way lit runs them, with only these
substitutions (wrappers on PATH, so that `xargs stablehlo-translate` works
too):

  stablehlo-translate ARGS -> shard interpret ARGS, --interpret dropped
  stablehlo-opt ARGS       -> shard opt ARGS
  FileCheck                -> FileCheck-16 (not: from /usr/lib/llvm-16/bin)
  %s the file, %S/%p its directory, %t a fresh temp path, %T its directory

Only RUN lines that interpret count: a file's case runs the RUN lines that
call `stablehlo-translate --interpret` and those that prepare their input;
lines that test VHLO bytecode (--serialize, --deserialize, diff) are out of
scope and skipped, and RUN-DISABLED lines are not RUN lines. A file with no
interpreting RUN line is no case.

What counts as one case
-----------------------
* tests/interpret (and its chlo/): one case per `// -----` chunk of a file
  whose interpreting RUN line has -split-input-file (chunks cut as MLIR cuts
  them: at the marker's text anywhere, so `// // -----` splits too), else one
  per file. A failing RUN line fails the chunks its located errors name
  (`FILE:LINE:COL: error:`, of the test file or of a %t file cut the same
  way); a FileCheck error fails the chunk of its check line and every later
  one; a failure nothing locates fails every chunk.
* testdata: one case per file.

A crash (shard exiting by a signal) is counted separately as well as
failing its cases; so is a timeout (--timeout seconds per RUN line).

Output: passed/total per category, the crash and timeout counts, then a
last line `N passed, M failed`. --list-failures prints each failing case
with its first lines of output; --reasons groups the failures by the first
error message (numbers and names elided), the source of KNOWN.md.
--check-floor FILE exits 1 when a category passes fewer cases than FILE says
(lines `category passed`); --update-floor raises the floor, never lowers it.
Exit 77 when the suite is missing (ctest: skipped), after one line saying
how to get it.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "tests"))
import suites  # noqa: E402

DEFAULT_FLOOR = os.path.join(HERE, "floor.txt")
LLVM_BIN = "/usr/lib/llvm-16/bin"
CATEGORIES = ["interpret", "testdata"]

RUN_RE = re.compile(r"^\s*//\s*RUN:\s?(.*?)\s*$")
SPLIT_RE = re.compile(r"(^|\s)--?split-input-file(\s|$)")
MARKER = "// -----"
INTERPRET_RE = re.compile(r"\bstablehlo-translate\b.*(\s)--?interpret(\s|$)")
BYTECODE_RE = re.compile(r"--?serialize\b|--?deserialize\b|(^|\s)diff\s")
LOCATED_RE = re.compile(r"^(.*?):(\d+):\d+: error: (.*)$")
FILECHECK_RE = re.compile(r"^(.*?):(\d+):\d+: error: [A-Z0-9_-]+(-[A-Z]+)?(\{LITERAL\})?: ")
CRASH_MARK = ".shard_crashed"


def run_commands(lines):
    """The RUN commands of a file, continuation lines joined."""
    cmds, cur = [], None
    for line in lines:
        m = RUN_RE.match(line)
        if not m:
            continue
        text = m.group(1)
        cont = text.endswith("\\")
        if cont:
            text = text[:-1]
        cur = text if cur is None else cur + " " + text.strip()
        if not cont:
            cmds.append(cur.strip())
            cur = None
    if cur is not None:
        cmds.append(cur.strip())
    return cmds


def chunk_starts(text):
    """1-based first line of every chunk of text, cut as MLIR's
    splitAndProcessBuffer cuts it (at the marker's text anywhere)."""
    starts, line = [1], 1
    pos = 0
    while True:
        i = text.find(MARKER, pos)
        if i < 0:
            break
        line += text.count("\n", pos, i)
        starts.append(line)  # the chunk starts right after the marker
        pos = i + len(MARKER)
    return starts


def chunk_of(starts, ln):
    k = 0
    for i, s in enumerate(starts):
        if s <= ln:
            k = i
    return k


class Case:
    def __init__(self, rel, category, path, cmds, chunks):
        self.rel, self.category, self.path, self.cmds = rel, category, path, cmds
        self.chunks = chunks  # [(first_line, name)], one per counted case


def discover(root, filt):
    cases, disabled = [], 0
    base = os.path.join(root, "stablehlo")
    for sub, cat in (("tests/interpret", "interpret"), ("testdata", "testdata")):
        top = os.path.join(base, sub)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, base)
                if filt and filt not in rel:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                cmds = [c for c in run_commands(text.split("\n")) if not BYTECODE_RE.search(c)]
                interp = [c for c in cmds if INTERPRET_RE.search(c)]
                if not interp:
                    disabled += 1
                    continue
                if cat == "testdata":
                    cmds = interp  # the other lines only feed the bytecode diff
                split = any(SPLIT_RE.search(c) for c in interp)
                if cat == "interpret" and split:
                    starts = chunk_starts(text)
                    lines = text.split("\n")
                    chunks = []
                    for k, s in enumerate(starts):
                        end = starts[k + 1] if k + 1 < len(starts) else len(lines) + 1
                        body = [l for l in lines[s - 1:end - 1] if l.strip() and not RUN_RE.match(l)]
                        # a chunk of comments and blank lines only is no case
                        if any(not l.strip().startswith("//") for l in body):
                            chunks.append((s, "%s:%d" % (rel, s)))
                    if not chunks:
                        chunks = [(1, rel)]
                else:
                    chunks = [(1, rel)]
                cases.append(Case(rel, cat, path, cmds, chunks))
    return cases, disabled


class Runner:
    def __init__(self, shard, timeout, verbose):
        self.shard, self.timeout, self.verbose = shard, timeout, verbose
        self.bindir = tempfile.mkdtemp(prefix="shard-shlo-bin-")
        crash = ('rc=$?\nif [ $rc -gt 128 ]; then echo "$rc $0" >> %s; fi\nexit $rc\n' % CRASH_MARK)
        with open(os.path.join(self.bindir, "stablehlo-translate"), "w") as f:
            f.write('#!/bin/bash\nargs=()\nfor a in "$@"; do\n'
                    '  case "$a" in --interpret|-interpret) ;; *) args+=("$a") ;; esac\ndone\n'
                    "'%s' interpret \"${args[@]}\"\n%s" % (shard, crash))
        with open(os.path.join(self.bindir, "stablehlo-opt"), "w") as f:
            f.write("#!/bin/bash\n'%s' opt \"$@\"\n%s" % (shard, crash))
        for n in ("stablehlo-translate", "stablehlo-opt"):
            os.chmod(os.path.join(self.bindir, n), 0o755)
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join([self.bindir, LLVM_BIN, self.env.get("PATH", "")])
        if not verbose:
            self.env["FILECHECK_OPTS"] = "--dump-input=never"

    def close(self):
        shutil.rmtree(self.bindir, ignore_errors=True)

    @staticmethod
    def substitute(cmd, path, tmp):
        cmd = re.sub(r"(?<![\w./-])FileCheck(?![\w.-])", "FileCheck-16", cmd)
        subst = {"s": path, "S": os.path.dirname(path), "p": os.path.dirname(path), "t": tmp,
                 "T": os.path.dirname(tmp), "%": "%"}
        return re.sub(r"%([sSptT%])", lambda m: subst[m.group(1)], cmd)

    def run(self, case):
        """[(name, passed, crashed, timed_out, output)] for the case's chunks."""
        work = tempfile.mkdtemp(prefix="shard-shlo-")
        try:
            return self._run_in(case, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _run_in(self, case, work):
        tmp = os.path.join(work, "Output", os.path.basename(case.path) + ".tmp")
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        n = len(case.chunks)
        starts = [c[0] for c in case.chunks]
        failed, notes, outputs = set(), {}, []
        everything = timed_out = False
        for raw in case.cmds:
            cmd = self.substitute(raw, case.path, tmp)
            rc, out = self._shell(cmd, work, self.timeout)
            outputs.append("$ %s\n%s" % (raw, out))
            if rc is None:
                outputs.append("TIMEOUT after %gs" % self.timeout)
                timed_out = everything = True
                break
            if rc == 0:
                continue
            if not self._attribute(case, starts, out, failed, notes):
                everything = True
        crashed = os.path.exists(os.path.join(work, CRASH_MARK))
        if crashed:
            everything = True
            with open(os.path.join(work, CRASH_MARK)) as f:
                outputs.append("CRASH: " + f.read().strip())
        output = "\n".join(outputs)
        if everything:
            failed = set(range(n))
        return [(name, k not in failed, crashed, timed_out, "\n".join(notes.get(k, [])) + "\n" + output)
                for k, (_, name) in enumerate(case.chunks)]

    def _attribute(self, case, starts, out, failed, notes):
        """Charges the located errors of a failing RUN line to chunks. False
        when nothing in the output locates the failure."""
        located = False
        cache = {}
        lines = out.split("\n")
        for i, line in enumerate(lines):
            m = LOCATED_RE.match(line)
            if not m:
                continue
            f, ln = m.group(1), int(m.group(2))
            if not os.path.isabs(f) or not os.path.exists(f):
                continue
            if os.path.abspath(f) == os.path.abspath(case.path):
                k = chunk_of(starts, ln)
            else:
                # a %t file written by a RUN line: its chunks are the case's
                if f not in cache:
                    with open(f, errors="replace") as fh:
                        cache[f] = chunk_starts(fh.read())
                k = chunk_of(cache[f], ln)
                k = min(k, len(starts) - 1)
            hit = range(k, len(starts)) if FILECHECK_RE.match(line) else [k]
            for j in hit:
                failed.add(j)
                notes.setdefault(j, []).extend(lines[i:i + 3])
            located = True
        return located

    def _shell(self, cmd, cwd, timeout):
        p = subprocess.Popen(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.communicate()
            return None, ""
        return p.returncode, out.decode("utf-8", errors="replace")


def read_floor(path):
    floor = {c: 0 for c in CATEGORIES}
    if not os.path.exists(path):
        return floor
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or parts[0] not in floor or not parts[1].isdigit():
                sys.exit("%s:%d: expected `category passed`, got %r" % (path, n, line))
            floor[parts[0]] = int(parts[1])
    return floor


def write_floor(path, floor):
    with open(path, "w") as f:
        f.write("# StableHLO conformance floor: `category passed`. It only rises "
                "(run.py --update-floor).\n")
        for c in CATEGORIES:
            f.write("%s %d\n" % (c, floor[c]))


def reason_of(out):
    """The first error message of a failure, with the specifics elided."""
    for line in out.split("\n"):
        m = LOCATED_RE.match(line) or re.match(r"^()()error: (.*)$", line)
        if m:
            msg = m.group(3)
            msg = re.sub(r"'[^']*'", "'…'", msg) if "does not support" not in msg else msg
            msg = re.sub(r"\[[^\]]*\]", "[…]", msg)
            msg = re.sub(r"-?\d[\d.e+-]*", "N", msg)
            return msg[:140]
        if line.startswith("TIMEOUT") or line.startswith("CRASH"):
            return line.split(":")[0].split(" after")[0]
    return "failed without a located error"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", help="suite root (default: $SHARD_STABLEHLO_DIR, else ../shared/conformance/stablehlo)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="build directory with the shard binary")
    ap.add_argument("--check-floor", metavar="FILE", help="exit 1 if a category drops below FILE")
    ap.add_argument("--update-floor", metavar="FILE", nargs="?", const=DEFAULT_FLOOR,
                    help="raise FILE (default tests/conformance/stablehlo/floor.txt) to the current counts")
    ap.add_argument("--list-failures", action="store_true", help="print failing cases and their output")
    ap.add_argument("--reasons", action="store_true", help="group the failures by their first error")
    ap.add_argument("--lines", type=int, default=6, help="output lines shown per failure")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--filter", metavar="SUBSTR", help="only files whose path contains SUBSTR")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per RUN line (default 60)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's result")
    args = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    if args.root:
        root = args.root
        if not os.path.isdir(os.path.join(root, "stablehlo", "tests", "interpret")):
            print("run.py: error: --root %s holds no stablehlo/tests/interpret" % root, file=sys.stderr)
            return 2
    else:
        root = suites.require("stablehlo", "conformance_stablehlo")
    shard = os.path.abspath(os.path.join(args.build, "shard"))
    if not os.access(shard, os.X_OK):
        print("no shard binary at %s (build first, or pass --build)" % shard, file=sys.stderr)
        return 2
    if shutil.which("FileCheck-16") is None:
        print("FileCheck-16 not found (apt-get install llvm-16-tools)", file=sys.stderr)
        return 2

    start = time.monotonic()
    cases, disabled = discover(root, args.filter)
    runner = Runner(shard, args.timeout, args.verbose)
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for case, res in zip(cases, pool.map(runner.run, cases)):
                for name, passed, crashed, timed_out, out in res:
                    results.append((case.category, name, passed, crashed, timed_out, out))
                    if args.verbose:
                        print("%s: %s" % ("PASS" if passed else "FAIL", name), flush=True)
    finally:
        runner.close()

    failures = [r for r in results if not r[2]]
    if args.list_failures:
        for cat, name, _, _, _, out in failures:
            print("FAIL [%s] %s" % (cat, name))
            for l in [l for l in out.split("\n") if l.strip()][:args.lines]:
                print("    " + l[:200])
        print()
    if args.reasons:
        groups = collections.defaultdict(list)
        for cat, name, _, _, _, out in failures:
            groups[(cat, reason_of(out))].append(name)
        for (cat, why), names in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            print("%s %4d  %s" % (cat, len(names), why))
            for n in names[:4]:
                print("            %s" % n)
        print()

    counts = {c: [0, 0] for c in CATEGORIES}
    for cat, _, passed, _, _, _ in results:
        counts[cat][1] += 1
        counts[cat][0] += 1 if passed else 0
    for c in CATEGORIES:
        total = counts[c][1]
        pct = 100.0 * counts[c][0] / total if total else 0
        print("%-10s %5d/%d (%.1f%%)" % (c, counts[c][0], total, pct))
    crashes = sorted({r[1].rsplit(":", 1)[0] for r in results if r[3]})
    timeouts = sorted({r[1].rsplit(":", 1)[0] for r in results if r[4]})
    print("files without an interpreting RUN line (not counted): %d" % disabled)
    print("crashes: %d%s" % (len(crashes), (" (" + ", ".join(crashes[:10]) + ")") if crashes else ""))
    print("timeouts: %d%s" % (len(timeouts), (" (" + ", ".join(timeouts[:10]) + ")") if timeouts else ""))
    print("time: %.0fs" % (time.monotonic() - start))
    npass = sum(v[0] for v in counts.values())
    print("%d passed, %d failed" % (npass, len(results) - npass))

    status = 0
    if args.filter and (args.check_floor or args.update_floor):
        print("note: --filter given, floor not checked or updated", file=sys.stderr)
        return status
    if args.check_floor:
        floor = read_floor(args.check_floor)
        low = [c for c in CATEGORIES if counts[c][0] < floor[c]]
        for c in low:
            print("below floor: %s passes %d, floor is %d" % (c, counts[c][0], floor[c]), file=sys.stderr)
        if low:
            status = 1
    if args.update_floor:
        floor = read_floor(args.update_floor)
        raised = {c: max(floor[c], counts[c][0]) for c in CATEGORIES}
        if raised != floor:
            write_floor(args.update_floor, raised)
            print("floor raised in %s" % args.update_floor)
    return status


if __name__ == "__main__":
    sys.exit(main())
