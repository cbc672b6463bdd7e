#!/usr/bin/env python3
"""Outputs stay byte-identical: a fingerprint of every output, compared.

Speed work must not change what `shard` prints. This test runs the commands
users run over every input this repository owns and every file of the
external suites, and compares a fingerprint of each run (exit code, stdout
and stderr, hashed) with the one recorded in tests/outputs/<set>.txt.

Sets:
  repo        the bundled samples and every test input of this repository
              (tests/**/*.mlir) through check, opt (generic), propagate
              (pretty, and generic with --verify-each), propagate --explain,
              lower and lower --verify-each --plan (tests/malformed through
              check only), plus two
              modules bench/gen.py writes (narrow and wide)
  shardy, xla_shardy, stablehlo
              every RUN line of the suite's files, the part of each pipeline
              stage that runs the tool (sdy_opt, xla-sdy-opt, stablehlo-opt
              become `shard opt`, stablehlo-translate `shard interpret`), with
              a redirection of its stdout to a file dropped (the output is
              what is fingerprinted; nothing is written beside the suite)
  realworld   every module through `shard opt -split-input-file
              -allow-unregistered-dialect`, with and without
              -sdy-propagation-pipeline

A run whose fingerprint differs fails the test and is listed with the command
that reproduces it. A run without a recorded fingerprint (a file added to a
suite) is listed, not failed; a recorded one whose file is gone is counted.
When an output changes on purpose, record it with --update and commit the
manifest: its diff names every output the change touched.

  fingerprints.py --shard B/shard [--set NAME ...] [--update] [-j N]

Without --set: repo plus every external suite that is present. A missing
suite prints one line; with --set naming only missing suites the exit is 77
(ctest: skipped).
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests"))
import suites  # noqa: E402

_spec = importlib.util.spec_from_file_location("conformance_run", os.path.join(REPO, "tests", "conformance", "run.py"))
conformance = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conformance)

TIMEOUT = 120
# `> FILE`, `>> FILE` or `1> FILE` (not 2>, not >&): the stage's stdout sent to a file
STDOUT_TO_FILE_RE = re.compile(r"(?:(?<=\s)1|(?<![0-9&>]))>>?(?!&)\s*\S+")
# the name under which a suite is seen from the scratch directory the runs
# happen in, so that paths in messages are the same on every machine and
# whatever a RUN line writes lands in the scratch directory, not the suite
SUITE_LINK = "suite"
# tool name in a RUN line -> shard's arguments in its place
TOOLS = {"sdy_opt": ["opt"], "xla-sdy-opt": ["opt"], "stablehlo-opt": ["opt"],
         "stablehlo-translate": ["interpret"]}
# propagate and lower verify their input and then only after the steps that
# can make valid IR invalid; half of their runs here verify after every step
# (--verify-each, which prints the same), so a step that breaks an invariant
# fails this test even where the default run would not look.
REPO_COMMANDS = [
    ("check", ["check"]),
    ("generic", ["opt", "--mlir-print-op-generic"]),
    ("propagate", ["propagate"]),
    ("propagate-generic", ["propagate", "--verify-each", "--emit", "generic"]),
    ("explain", ["propagate", "--explain"]),
    ("lower", ["lower"]),
    ("plan", ["lower", "--verify-each", "--plan"]),
]
REPO_DIRS = ["samples", "tests"]
GENERATED = [("gen/narrow_2400.mlir", ["--ops", "2400"]), ("gen/wide_3000.mlir", ["--ops", "3000", "--wide"])]


class Job:
    def __init__(self, key, argv, cwd, shell=None, prelude=None):
        self.key, self.argv, self.cwd, self.shell = key, argv, cwd, shell
        self.prelude = prelude  # how the input is made, for a generated one

    def reproduce(self, shard):
        if self.prelude is not None:
            return "%s; %s" % (self.prelude, " ".join(shlex.quote(a) for a in [shard] + self.argv))
        if self.shell is not None:
            return "(cd %s && %s)" % (shlex.quote(self.cwd), self.shell.replace("@SHARD@", shlex.quote(shard)))
        return "(cd %s && %s)" % (shlex.quote(self.cwd), " ".join(shlex.quote(a) for a in [shard] + self.argv))


def run_commands(path):
    """The RUN commands of a file (the conformance runner's reading of them)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return conformance.run_commands(f.read().split("\n"))


def tool_stages(cmd):
    """The pipeline stages of a RUN command that run one of TOOLS, each as a
    shell text with the tool replaced by @SHARD@ and its arguments."""
    out = []
    for stage in cmd.split("|"):
        words = stage.strip().split(None, 1)
        if words and words[0] == "not":
            stage = words[1] if len(words) > 1 else ""
            words = stage.strip().split(None, 1)
        if not words or words[0] not in TOOLS:
            continue
        rest = STDOUT_TO_FILE_RE.sub(" ", words[1] if len(words) > 1 else "")
        out.append(" ".join(["@SHARD@"] + TOOLS[words[0]] + [rest]).strip())
    return out


def suite_jobs(name, root, work):
    """The runs over suite `name` (at `root`), made in the directory `work`
    where SUITE_LINK points at the suite."""
    jobs = []
    for path, rel in conformance.mlir_files(root):
        seen = os.path.join(SUITE_LINK, rel)
        if name == "realworld":
            base = ["opt", "-split-input-file", "-allow-unregistered-dialect"]
            jobs.append(Job("%s|opt" % rel, base + [seen], work))
            jobs.append(Job("%s|propagation" % rel, base + ["-sdy-propagation-pipeline", seen], work))
            continue
        for i, cmd in enumerate(run_commands(path)):
            for k, stage in enumerate(tool_stages(cmd)):
                text = re.sub(r"%([sSpt%])", lambda m: {"s": seen, "S": os.path.dirname(seen),
                                                        "p": os.path.dirname(seen), "t": "%t",
                                                        "%": "%"}[m.group(1)], stage)
                if "%t" in text:  # writes a temporary file: not a printed output
                    continue
                jobs.append(Job("%s|%d.%d" % (rel, i, k), None, work, shell=text))
    return jobs


def repo_jobs(gen_dir):
    jobs = []
    for top in REPO_DIRS:
        for path, _ in conformance.mlir_files(os.path.join(REPO, top)):
            rel = os.path.relpath(path, REPO)
            commands = REPO_COMMANDS[:1] if rel.startswith("tests/malformed/") else REPO_COMMANDS
            for label, args in commands:
                jobs.append(Job("%s|%s" % (rel, label), args + [rel], REPO))
    for rel, gen_args in GENERATED:
        path = os.path.join(gen_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(REPO, "bench", "gen.py")] + gen_args, stdout=f,
                           check=True)
        for label, args in REPO_COMMANDS:
            prelude = "python3 bench/gen.py %s > %s" % (" ".join(gen_args), os.path.basename(rel))
            jobs.append(Job("%s|%s" % (rel, label), args + [os.path.basename(rel)], os.path.dirname(path),
                            prelude=prelude))
    return jobs


def fingerprint(shard, job):
    """(key, hex digest or None when it timed out)."""
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    try:
        if job.shell is not None:
            p = subprocess.run(["bash", "-c", job.shell.replace("@SHARD@", shlex.quote(shard))], cwd=job.cwd,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT, env=env)
        else:
            p = subprocess.run([shard] + job.argv, cwd=job.cwd, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return job.key, None
    h = hashlib.sha256()
    h.update(b"%d\0" % p.returncode)
    h.update(p.stdout)
    h.update(b"\0")
    h.update(p.stderr)
    return job.key, h.hexdigest()[:20]


def read_manifest(path):
    got = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line and not line.startswith("#"):
                    key, _, digest = line.rpartition("\t")
                    got[key] = digest
    return got


def write_manifest(path, name, prints):
    with open(path, "w") as f:
        f.write("# tests/outputs/fingerprints.py --set %s --update: a hash of each run's exit code, stdout\n"
                "# and stderr (key: input|command). Rewritten only when an output changes on purpose.\n" % name)
        for key in sorted(prints):
            f.write("%s\t%s\n" % (key, prints[key]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shard", required=True, help="the shard binary")
    ap.add_argument("--set", action="append", choices=["repo", "shardy", "xla_shardy", "stablehlo", "realworld"])
    ap.add_argument("--update", action="store_true", help="record the current fingerprints")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    shard = os.path.abspath(args.shard)
    if not os.access(shard, os.X_OK):
        print("fingerprints: no shard binary at %s" % shard, file=sys.stderr)
        return 2
    sets = args.set or ["repo", "shardy", "xla_shardy", "stablehlo", "realworld"]
    failed = ran = 0
    with tempfile.TemporaryDirectory(prefix="shard-fp-") as gen_dir:
        for name in sets:
            if name == "repo":
                jobs = repo_jobs(gen_dir)
            else:
                root = suites.find(name)
                if root is None:
                    print("fingerprints: %s" % suites.missing_line(name))
                    continue
                root = os.path.join(root, "realworld") if name == "realworld" else root
                work = os.path.join(gen_dir, name)
                os.makedirs(work)
                os.symlink(root, os.path.join(work, SUITE_LINK))
                jobs = suite_jobs(name, root, work)
            ran += 1
            path = os.path.join(HERE, "%s.txt" % name)
            want = read_manifest(path)
            with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
                got = dict(pool.map(lambda j: fingerprint(shard, j), jobs))
            by_key = {j.key: j for j in jobs}
            timed_out = sorted(k for k, v in got.items() if v is None)
            for k in timed_out:
                print("%s: TIMEOUT after %ds: %s" % (name, TIMEOUT, by_key[k].reproduce(shard)))
            if args.update:
                if timed_out:
                    failed += 1
                    continue
                write_manifest(path, name, got)
                print("%s: %d fingerprints recorded in %s" % (name, len(got), os.path.relpath(path, REPO)))
                continue
            changed = sorted(k for k in got if k in want and got[k] is not None and got[k] != want[k])
            new = sorted(k for k in got if k not in want)
            gone = [k for k in want if k not in got]
            for k in changed:
                print("%s: output changed: %s" % (name, by_key[k].reproduce(shard)))
            for k in new:
                print("%s: no recorded fingerprint: %s" % (name, k))
            print("%s: %d runs, %d identical, %d changed, %d timed out, %d new, %d recorded runs not found" %
                  (name, len(got), len(got) - len(changed) - len(new) - len(timed_out), len(changed),
                   len(timed_out), len(new), len(gone)))
            if changed or timed_out:
                failed += 1
    if ran == 0:
        return suites.SKIP_EXIT
    if failed and not args.update:
        print("fingerprints: outputs changed; if on purpose, record them with --update and commit the manifest")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
