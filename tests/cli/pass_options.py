#!/usr/bin/env python3
"""Every pass of `shard opt` and every one of its options, as the registry
lists them in `shard opt --help`:

- an option the pass does not have is a usage error (exit 2) naming it;
- a malformed value of a true|false, N or choice option is a usage error
  naming the option and what it accepts;
- each option with its default value (and each choice) is accepted: the
  run is not a usage error.

Usage: pass_options.py SHARD MODULE"""
import re
import subprocess
import sys


def run(shard, module, flag):
    return subprocess.run([shard, "opt", flag, module], capture_output=True, text=True, timeout=120)


def main():
    shard, module = sys.argv[1], sys.argv[2]
    text = subprocess.run([shard, "opt", "--help"], capture_output=True, text=True, check=True).stdout
    passes = {}
    current = None
    text = text[text.index("\nPasses"):text.index("\nExit status")]
    for line in text.split("\n"):
        m = re.match(r"^  -([a-z][-a-z0-9]*)\s", line)
        if m:
            current = m.group(1)
            passes[current] = []
            continue
        m = re.match(r"^      ([a-z][-a-z0-9]*)=(\S+) \(default (.*?)\):", line)
        if m and current:
            passes[current].append((m.group(1), m.group(2), m.group(3)))
    failures = checks = 0

    def expect(ok, what):
        nonlocal failures, checks
        checks += 1
        if not ok:
            failures += 1
            print("FAIL: " + what)

    if len(passes) < 40:
        print("FAIL: only %d passes in shard opt --help; the listing changed" % len(passes))
        return 1
    for name, options in sorted(passes.items()):
        r = run(shard, module, "-%s=no-such-option=1" % name)
        expect(r.returncode == 2 and "'no-such-option'" in r.stderr and name in r.stderr,
               "-%s=no-such-option=1: exit %d, %s" % (name, r.returncode, r.stderr.strip()[:200]))
        for opt, kind, default in options:
            if kind != "TEXT":
                r = run(shard, module, "-%s=%s=not-a-value" % (name, opt))
                expect(r.returncode == 2 and "'%s'" % opt in r.stderr and "expected" in r.stderr,
                       "-%s=%s=not-a-value: exit %d, %s" % (name, opt, r.returncode, r.stderr.strip()[:200]))
            values = kind.split("|") if kind not in ("TEXT", "N", "true|false") else []
            if default != "none":
                values.append(default)
            for v in values:
                r = run(shard, module, "-%s=%s=%s" % (name, opt, v))
                expect(r.returncode != 2, "-%s=%s=%s: a usage error: %s" % (name, opt, v, r.stderr.strip()[:200]))
    print("%d passed, %d failed (%d passes)" % (checks - failures, failures, len(passes)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
