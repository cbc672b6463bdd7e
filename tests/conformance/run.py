#!/usr/bin/env python3
"""Run Shardy's own lit tests against `shard opt` and report a pass rate.

The tree (--root, else where tests/suites.py finds it: $SHARD_CONFORMANCE_DIR
or ../shared/conformance/shardy next to the repository) holds Shardy's lit
tests. For every *.mlir
file with `// RUN:` lines the runner executes those lines the way lit would,
with these substitutions:

  sdy_opt              -> a tiny wrapper that runs `<build>/shard opt "$@"`
                          (it also records a non-zero exit, see below)
  FileCheck            -> FileCheck-16 (FILECHECK_OPTS=--dump-input=never
                          unless -v)
  not, count, split-file -> found on PATH via /usr/lib/llvm-16/bin
  %s                   -> the test file, %S and %p -> its directory,
                          %t -> a fresh per-file temp path,
                          %T -> its directory, %% -> %

Each RUN line (continuation lines ending in `\\` joined) runs in
`bash -o pipefail -c`, from a per-file temp directory, with stdin closed and
a time limit per file (--timeout, 10 s by default, times the number of
chunks up to 6 for -split-input-file files).

What counts as one case
-----------------------
Every file runs once, whole, as lit runs it; only the counting is finer than
lit's one verdict per file.

* Files whose RUN line has -split-input-file: one case per `// -----` chunk
  (chunks holding only blank lines are no case). `shard opt` sees the whole
  file, so what Shardy does once per process (a warning given only for the
  first chunk that triggers it) happens once, as under lit. A failing RUN
  line is charged to chunks by line number:
  - a FileCheck error on a check line fails the chunk of that line and the
    chunks of the check lines it left unchecked: FileCheck stops checking a
    label block at its first error and goes on at the next CHECK-LABEL
    (with no label after it, it stops for good); a failed CHECK-LABEL stops
    FileCheck, so its chunk and all chunks after it fail;
  - when `shard opt` exited non-zero (it goes on with the other chunks, as
    sdy_opt does), its `FILE:LINE:COL: error:` diagnostics in that RUN
    line's output fail the chunks of those lines (with -verify-diagnostics
    these are the unexpected and the missing diagnostics);
  - everything that cannot be located honestly fails every chunk: a crash or
    a timeout, a located line before the first chunk, a tool failure whose
    diagnostics went into a pipe, or a failing RUN line that printed no
    located error at all.
  All RUN lines run even after one failed (lit stops at the first), so a
  chunk can be charged by any of them.
* Other FileCheck files: each CHECK-LABEL section counts as one case, charged
  by the same FileCheck rules. A failure is charged to every section when
  `shard opt` exited non-zero (it prints nothing then), crashed or timed
  out, the failing check precedes the first label, or no FileCheck error was
  printed at all. Files without labels are one case.
* Files that need the StableHLO interpreter (`stablehlo-translate`,
  run_sdy_interpreter_test.sh) fail without running unless a wrapper exists:
  $STABLEHLO_TRANSLATE, <build>/stablehlo-translate,
  scripts/stablehlo-translate or tests/conformance/stablehlo-translate (which
  runs `$SHARD interpret`; SHARD is set to the shard binary under test).

Categories (by path under shardy/dialect/sdy): verify = ir/test/*verification*
and *parsing_failure*; syntax = the rest of ir/test; propagate =
transforms/propagation/**; import = transforms/import/**; reshard =
export/test/insert_explicit_reshards*, reshard_to_collectives*,
export_pipeline*; local = convert_global_to_local and executable_* (anywhere);
export = the rest of transforms/export.

Output: passed/total per category, then a last line `N passed, M failed`.
--check-floor FILE exits 1 when a category passes fewer cases than FILE says
(lines `category passed`); --update-floor raises the floor, never lowers it.
--budget SECONDS stops starting new cases after that long (the rest count as
failed), so a hanging `shard opt` cannot stall CI for hours.
Exit 77 when the conformance tree is missing (ctest reports a skip), after one
line saying how to get it.

Suites
------
--suite shardy (the default) runs Shardy's tests as above. --suite
xla_shardy runs XLA's tests of its Shardy integration (openxla/xla,
xla/service/spmd/shardy/**/test*, found by tests/suites.py as
$SHARD_XLA_CONFORMANCE_DIR or ../shared/conformance/xla_shardy) the same way,
with `xla-sdy-opt` substituted like `sdy_opt`, its own categories
(round_trip = sdy_round_trip* and *round_trip_pipeline*; stablehlo =
stablehlo_* and import_shardings; passes = the other files of
xla/service/spmd/shardy; other = files of the rest of XLA, whose RUN lines
need XLA's other tools, mlir-hlo-opt and ifrt-opt, and fail without them)
and its own floor, tests/conformance/xla_shardy/floor.txt.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
import suites  # noqa: E402
DEFAULT_FLOOR = os.path.join(REPO, "tests", "conformance", "floor.txt")
LLVM_BIN = "/usr/lib/llvm-16/bin"
CATEGORIES = ["syntax", "verify", "propagate", "import", "reshard", "export", "local"]
XLA_CATEGORIES = ["round_trip", "stablehlo", "passes", "other"]
XLA_FLOOR = os.path.join(REPO, "tests", "conformance", "xla_shardy", "floor.txt")
# The names a suite's RUN lines give the tool `shard opt` stands in for.
TOOLS = {"shardy": ("sdy_opt",), "xla_shardy": ("sdy_opt", "xla-sdy-opt")}
SKIP_EXIT = 77
MEMORY_MARK = "MEMORY: valgrind or a sanitizer reported errors in shard opt"

RUN_RE = re.compile(r"^\s*//\s*RUN:\s?(.*?)\s*$")
SPLIT_RE = re.compile(r"(^|\s)--?split-input-file(\s|$)")
SPLIT_MARK_RE = re.compile(r"^\s*//\s*-----")
PREFIX_RE = re.compile(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")
INTERP_RE = re.compile(r"stablehlo-translate|run_sdy_interpreter_test\.sh")
# A FileCheck complaint about one of its check lines: "<file>:12:5: error: CHECK-NEXT: ..."
FC_ERROR_RE = re.compile(r"^(.*?):(\d+):\d+: error: ([A-Z0-9_-]+?)(-[A-Z]+)?(\{LITERAL\})?:")
# Any located error, FileCheck's or a diagnostic of `shard opt`: "<file>:12:5: error: ..."
LOCATED_ERROR_RE = re.compile(r"^(.*?):(\d+):\d+: error: ")


def category_of(rel):
    """Maps a path relative to the tree root to one of CATEGORIES."""
    p = rel.replace(os.sep, "/")
    parts = p.split("/")
    base = parts[-1]
    if "convert_global_to_local" in parts or any(d.startswith("executable_") for d in parts[:-1]):
        return "local"
    if "/ir/test/" in "/" + p:
        if "verification" in base or "parsing_failure" in base:
            return "verify"
        return "syntax"
    if "/transforms/propagation/" in "/" + p:
        return "propagate"
    if "/transforms/import/" in "/" + p:
        return "import"
    if "/transforms/export/" in "/" + p:
        after = p.split("/export/test/", 1)[-1]
        for head in ("insert_explicit_reshards", "reshard_to_collectives", "export_pipeline"):
            if after.startswith(head):
                return "reshard"
        return "export"
    return "export"


def xla_category_of(rel):
    """Maps a path relative to the xla_shardy root to one of XLA_CATEGORIES."""
    p = rel.replace(os.sep, "/")
    base = p.split("/")[-1]
    if "/service/spmd/shardy/" not in "/" + p:
        return "other"
    if base.startswith("sdy_round_trip") or "round_trip_pipeline" in base:
        return "round_trip"
    if base.startswith("stablehlo_") or base.startswith("import_shardings"):
        return "stablehlo"
    return "passes"


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


def check_prefixes(cmds):
    prefixes = set()
    for c in cmds:
        if not re.search(r"\bFileCheck\b", c):
            continue
        found = PREFIX_RE.findall(c)
        if not found:
            prefixes.add("CHECK")
        for f in found:
            prefixes.update(x for x in f.split(",") if x)
    return prefixes


def check_lines(lines, prefixes):
    """Line numbers (1-based) of the check lines for the prefixes."""
    if not prefixes:
        return []
    pat = re.compile(r"\b(?:%s)(?:-[A-Z]+)?(?:\{LITERAL\})?:" % "|".join(map(re.escape, prefixes)))
    return [i + 1 for i, l in enumerate(lines) if pat.search(l)]


class Case:
    def __init__(self, name, rel, category, path, cmds, sections=None, labels=(), checks=(),
                 split=False):
        self.name = name          # shown to people: rel:line
        self.rel = rel
        self.category = category
        self.path = path          # original test file
        self.cmds = cmds
        self.sections = sections  # [(first_line, last_line, name)]: chunks or label sections
        self.labels = labels      # line numbers of the CHECK-LABEL lines
        self.checks = checks      # line numbers of all check lines
        self.split = split        # sections are -split-input-file chunks


def mlir_files(root):
    """Every .mlir file under root as (path, path relative to root), in a
    stable order: directories and files sorted."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".mlir"):
                path = os.path.join(dirpath, fn)
                yield path, os.path.relpath(path, root)


def discover(root, filt, categorize=category_of, tools=("sdy_opt",)):
    """All cases under root, sorted by name."""
    cases = []
    for path, rel in mlir_files(root):
        if filt and filt not in rel:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        cmds = run_commands(lines)
        if not cmds:
            continue
        cat = categorize(rel)
        if any(SPLIT_RE.search(c) for c in cmds if any(t in c for t in tools)):
            cases.extend(split_cases(path, rel, cat, lines, cmds))
        else:
            cases.append(whole_file_case(path, rel, cat, lines, cmds))
    cases.sort(key=lambda c: (c.rel, c.name))
    return cases


def label_lines(lines, prefixes):
    """Line numbers (1-based) of the CHECK-LABEL lines for the prefixes."""
    if not prefixes:
        return []
    pat = re.compile(r"\b(?:%s)-LABEL(?:\{LITERAL\})?:" % "|".join(map(re.escape, prefixes)))
    return [i + 1 for i, l in enumerate(lines) if pat.search(l)]


def split_cases(path, rel, cat, lines, cmds):
    """One Case for the whole file whose sections are its `// -----` chunks,
    each named after its first non-blank line and spanning from the line
    after the previous separator to the line before the next."""
    bounds, start = [], 0
    for i, line in enumerate(lines):
        if SPLIT_MARK_RE.match(line):
            bounds.append((start, i))
            start = i + 1
    bounds.append((start, len(lines)))
    sections = []
    for a, b in bounds:
        if not any(l.strip() for l in lines[a:b]):
            continue
        first = next(i for i in range(a, b) if lines[i].strip())
        sections.append((a + 1, b, "%s:%d" % (rel, first + 1)))
    if not sections:
        return [whole_file_case(path, rel, cat, lines, cmds)]
    prefixes = check_prefixes(cmds)
    return [Case(sections[0][2], rel, cat, path, cmds, sections, label_lines(lines, prefixes),
                 check_lines(lines, prefixes), split=True)]
def whole_file_case(path, rel, cat, lines, cmds):
    prefixes = check_prefixes(cmds)
    labels = label_lines(lines, prefixes)
    name = "%s:%d" % (rel, labels[0] if labels else 1)
    if len(labels) < 2:
        return Case(name, rel, cat, path, cmds)
    sections = []
    for k, ln in enumerate(labels):
        end = labels[k + 1] - 1 if k + 1 < len(labels) else len(lines)
        sections.append((ln, end, "%s:%d" % (rel, ln)))
    return Case(name, rel, cat, path, cmds, sections, labels, check_lines(lines, prefixes))


class Runner:
    def __init__(self, shard, timeout, translate, verbose, valgrind, budget, tools=("sdy_opt",)):
        self.shard = shard
        self.tools = tools
        self.deadline = time.monotonic() + budget if budget > 0 else None
        self.timeout = timeout
        self.translate = translate
        self.verbose = verbose
        self.valgrind = valgrind
        self.bindir = tempfile.mkdtemp(prefix="shard-conf-bin-")
        wrapper = os.path.join(self.bindir, "sdy_opt")
        prefix = ""
        if valgrind:
            prefix = ("valgrind -q --error-exitcode=99 --leak-check=full "
                      "--errors-for-leak-kinds=definite ")
        # The wrapper notes failures of `shard opt` itself in the case's
        # working directory, which lets the runner tell a tool failure from a
        # FileCheck mismatch when attributing results to label sections.
        # Sanitizer reports go to files there too: on stderr they would vanish
        # into `2>&1 | FileCheck` pipelines.
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n"
                    "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$PWD/.sanitizer\"\n"
                    "UBSAN_OPTIONS=\"${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$PWD/.sanitizer\"\n"
                    "export ASAN_OPTIONS UBSAN_OPTIONS\n"
                    "%s'%s' opt \"$@\"\nrc=$?\n"
                    "if [ $rc -ne 0 ]; then echo $rc >> .sdy_opt_failed; fi\n"
                    "if [ $rc -eq 99 ]; then : > .valgrind_error; fi\n"
                    "exit $rc\n" % (prefix, shard))
        os.chmod(wrapper, 0o755)
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join([self.bindir, LLVM_BIN, self.env.get("PATH", "")])
        self.env["SDY_OPT"] = wrapper
        self.env["SPLIT_FILE"] = os.path.join(LLVM_BIN, "split-file")
        if not verbose:
            self.env["FILECHECK_OPTS"] = "--dump-input=never"
        if translate:
            self.env["STABLEHLO_TRANSLATE"] = translate
            self.env["SHARD"] = shard
        self.wrapper = wrapper

    def close(self):
        shutil.rmtree(self.bindir, ignore_errors=True)

    def substitute(self, cmd, case_file, src_dir, tmp):
        for tool in self.tools:
            cmd = re.sub(r"(?<![\w./-])%s(?![\w.-])" % re.escape(tool), self.wrapper, cmd)
        cmd = re.sub(r"(?<![\w./-])FileCheck(?![\w.-])", "FileCheck-16", cmd)
        if self.translate:
            cmd = re.sub(r"(?<![\w./-])stablehlo-translate(?![\w.-])", self.translate, cmd)
        subst = {"s": case_file, "S": src_dir, "p": src_dir, "t": tmp,
                 "T": os.path.dirname(tmp), "%": "%"}
        return re.sub(r"%([sSptT%])", lambda m: subst[m.group(1)], cmd)

    def run(self, case):
        """Returns [(name, passed, output)] for the case (one per section)."""
        names = [s[2] for s in case.sections] if case.sections else [case.name]
        if not self.translate and any(INTERP_RE.search(c) for c in case.cmds):
            msg = "needs the StableHLO interpreter (stablehlo-translate); no STABLEHLO_TRANSLATE wrapper"
            return [(n, False, msg) for n in names]
        if self.deadline is not None and time.monotonic() > self.deadline:
            return [(n, False, "not run: the --budget for the whole run was used up") for n in names]
        work = tempfile.mkdtemp(prefix="shard-conf-")
        try:
            return self._run_in(case, names, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _run_in(self, case, names, work):
        case_file = case.path
        tmp = os.path.join(work, "Output", os.path.basename(case.path) + ".tmp")
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        # The whole file runs in one go: a chunked file gets the time its
        # chunks had when each ran on its own (up to 6 of them), so a file of
        # many small chunks does not time out while a hang still ends soon.
        chunks = len(case.sections) if case.split else 1
        allowed = self.timeout * max(1, min(chunks, 6))
        deadline = time.monotonic() + allowed
        failed_file = os.path.join(work, ".sdy_opt_failed")
        outputs, ok, unlocated = [], True, False
        failed, notes = set(), {}
        for raw in case.cmds:
            cmd = self.substitute(raw, case_file, os.path.dirname(case.path), tmp)
            left = deadline - time.monotonic()
            tool_fails_before = self._count_lines(failed_file)
            rc, out = self._shell(cmd, work, left)
            outputs.append("$ %s\n%s" % (cmd, out))
            if rc is None:
                outputs.append("TIMEOUT after %gs" % allowed)
                ok, unlocated = False, True
                break
            if rc == 0:
                continue
            ok = False
            if rc < 0 or rc > 128:
                unlocated = True  # a crash: nothing can be attributed
            if not case.sections:
                break  # lit stops at the first failing RUN line
            tool_failed = self._count_lines(failed_file) > tool_fails_before
            if tool_failed and not case.split:
                unlocated = True  # shard printed nothing for the whole file
            if not self._attribute(case, case_file, out, tool_failed, failed, notes):
                unlocated = True
        reports = sorted(f for f in os.listdir(work) if f.startswith(".sanitizer"))
        if reports or os.path.exists(os.path.join(work, ".valgrind_error")):
            outputs.append(MEMORY_MARK)
            for r in reports:
                with open(os.path.join(work, r), errors="replace") as f:
                    outputs.append("".join(f.readlines()[:30]))
        output = "\n".join(outputs)
        if ok:
            return [(n, True, output) for n in names]
        if not case.sections:
            return [(n, False, output) for n in names]
        if unlocated or not failed:
            failed = set(range(len(case.sections)))
        # Show each section its own complaints first.
        return [(s[2], k not in failed, "\n".join(notes.get(k, [])) + "\n" + output)
                for k, s in enumerate(case.sections)]

    @staticmethod
    def _count_lines(path):
        try:
            with open(path) as f:
                return sum(1 for _ in f)
        except OSError:
            return 0

    @staticmethod
    def _section_of(case, ln):
        """Index of the section holding line ln, or None before the first."""
        idx = None
        for k, s in enumerate(case.sections):
            if s[0] <= ln:
                idx = k
        return idx

    def _attribute(self, case, case_file, out, tool_failed, failed, notes):
        """Charges the located errors of one failing RUN line's output to
        sections (adding to failed and notes). False when some error cannot
        be located, or the RUN line failed without any located error."""
        located = False
        out_lines = out.split("\n")
        for i, line in enumerate(out_lines):
            m = LOCATED_ERROR_RE.match(line)
            if not m or os.path.abspath(m.group(1)) != os.path.abspath(case_file):
                continue
            ln = int(m.group(2))
            fc = FC_ERROR_RE.match(line)
            if not fc and not (case.split and tool_failed):
                continue  # a diagnostic that did not fail anything by itself
            first = self._section_of(case, ln)
            if first is None:
                return False
            if not fc:
                hit = [first]  # a diagnostic of shard opt about that chunk
            elif fc.group(4) == "-LABEL":
                hit = range(first, len(case.sections))
            else:
                # FileCheck skips the rest of the label block, up to the
                # next CHECK-LABEL or to the end when there is none: the
                # chunks of the skipped check lines are unverified.
                nxt = next((l for l in case.labels if l > ln), None)
                skipped = [l for l in case.checks if l > ln and (nxt is None or l < nxt)]
                hit = sorted({first} | {self._section_of(case, l) for l in skipped})
            for k in hit:
                failed.add(k)
                notes.setdefault(k, []).extend(out_lines[i:i + 3])
            located = True
        return located

    def _shell(self, cmd, cwd, timeout):
        if timeout <= 0:
            return None, ""
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


def read_floor(path, categories=CATEGORIES):
    floor = {c: 0 for c in categories}
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


def write_floor(path, floor, categories=CATEGORIES):
    with open(path, "w") as f:
        f.write("# Conformance floor: `category passed`. It only rises (run.py --update-floor).\n")
        for c in categories:
            f.write("%s %d\n" % (c, floor[c]))


def find_translate(build):
    env = os.environ.get("STABLEHLO_TRANSLATE")
    if env and shutil.which(env):
        return shutil.which(env)
    for cand in (os.path.join(build, "stablehlo-translate"),
                 os.path.join(REPO, "scripts", "stablehlo-translate"),
                 os.path.join(REPO, "tests", "conformance", "stablehlo-translate")):
        if os.access(cand, os.X_OK):
            return cand
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=sorted(TOOLS), default="shardy",
                    help="which suite: Shardy's tests (default) or XLA's Shardy tests")
    ap.add_argument("--root", help="conformance tree (default: where tests/suites.py finds "
                    "the suite: $SHARD_CONFORMANCE_DIR or ../shared/conformance/shardy; "
                    "$SHARD_XLA_CONFORMANCE_DIR or ../shared/conformance/xla_shardy)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"),
                    help="build directory holding the shard binary (default: build)")
    ap.add_argument("--check-floor", metavar="FILE", help="exit 1 if a category drops below FILE")
    ap.add_argument("--update-floor", metavar="FILE", nargs="?", const="",
                    help="raise FILE (default tests/conformance/floor.txt, with --suite "
                    "xla_shardy tests/conformance/xla_shardy/floor.txt) to the current counts")
    ap.add_argument("--list-failures", action="store_true", help="print failing cases and their output")
    ap.add_argument("--lines", type=int, default=8, help="output lines shown per failure")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--filter", metavar="SUBSTR", help="only test files whose path contains SUBSTR")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    ap.add_argument("--budget", type=float, default=0, metavar="SECONDS",
                    help="stop starting cases after SECONDS; the rest count as failed")
    ap.add_argument("--valgrind", action="store_true",
                    help="run shard under valgrind; memory errors fail the run")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's result")
    args = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `run.py --list-failures | head`

    if args.root:
        root = args.root
        if not os.path.isdir(root):
            print("run.py: error: --root %s: no such directory" % root, file=sys.stderr)
            return 2
    else:
        root = suites.require(args.suite, "conformance")
    xla = args.suite == "xla_shardy"
    categories = XLA_CATEGORIES if xla else CATEGORIES
    if args.update_floor == "":
        args.update_floor = XLA_FLOOR if xla else DEFAULT_FLOOR
    shard = os.path.abspath(os.path.join(args.build, "shard"))
    if not os.access(shard, os.X_OK):
        print("no shard binary at %s (build first, or pass --build)" % shard, file=sys.stderr)
        return 2
    if shutil.which("FileCheck-16") is None:
        print("FileCheck-16 not found (apt-get install llvm-16-tools)", file=sys.stderr)
        return 2
    timeout = args.timeout * (20 if args.valgrind else 1)

    tools = TOOLS[args.suite]
    cases = discover(root, args.filter, xla_category_of if xla else category_of, tools)
    runner = Runner(shard, timeout, find_translate(args.build), args.verbose, args.valgrind,
                    args.budget, tools)
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for case, res in zip(cases, pool.map(runner.run, cases)):
                for name, passed, out in res:
                    results.append((case.category, name, passed, out))
                    if args.verbose:
                        print("%s: %s" % ("PASS" if passed else "FAIL", name), flush=True)
    finally:
        runner.close()

    if args.list_failures:
        for cat, name, passed, out in results:
            if passed:
                continue
            print("FAIL [%s] %s" % (cat, name))
            shown = [l for l in out.split("\n") if l.strip()][:args.lines]
            for l in shown:
                print("    " + l[:200])
        print()

    counts = {c: [0, 0] for c in categories}
    for cat, _, passed, _ in results:
        counts[cat][1] += 1
        counts[cat][0] += 1 if passed else 0
    for c in categories:
        print("%-10s %5d/%d" % (c, counts[c][0], counts[c][1]))
    npass = sum(v[0] for v in counts.values())
    print("%d passed, %d failed" % (npass, len(results) - npass))

    status = 0
    bad = sorted({name.rsplit(":", 1)[0] for _, name, _, out in results if MEMORY_MARK in out})
    if bad:
        print("valgrind or a sanitizer reported errors in shard opt on %d files "
              "(see --list-failures):" % len(bad), file=sys.stderr)
        for name in bad[:20]:
            print("  " + name, file=sys.stderr)
        status = 1
    if args.filter and (args.check_floor or args.update_floor):
        print("note: --filter given, floor not checked or updated", file=sys.stderr)
        return status
    if args.check_floor:
        floor = read_floor(args.check_floor, categories)
        low = [c for c in categories if counts[c][0] < floor[c]]
        for c in low:
            print("below floor: %s passes %d, floor is %d" % (c, counts[c][0], floor[c]),
                  file=sys.stderr)
        if low:
            status = 1
    if args.update_floor:
        floor = read_floor(args.update_floor, categories)
        raised = {c: max(floor[c], counts[c][0]) for c in categories}
        if raised != floor or not os.path.exists(args.update_floor):
            write_floor(args.update_floor, raised, categories)
            print("floor raised in %s" % args.update_floor)
    return status


if __name__ == "__main__":
    sys.exit(main())
