#!/usr/bin/env python3
"""The status line of long work on a pseudo-terminal: `shard lower --verify`
and `shard propagate` draw "shard CMD: ..." on stderr when it is a TTY and
erase it when done (so the notes that follow start on a clean line); with
--no-progress or TERM=dumb nothing of it appears. stdout goes to a file
(-o), so only stderr is on the pty.

usage: progress_pty.py SHARD_BINARY SAMPLE.mlir
"""
import fcntl
import os
import select
import subprocess
import sys
import tempfile
import termios

failures = []
ERASE = b"\r\x1b[K"


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def _controlling_terminal():
    """In the child: a session of its own whose controlling terminal is the
    pty, as in a real terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def run_on_pty(argv, env):
    """Runs argv with stdin and stderr on a pty; returns (exit code, bytes)."""
    master, slave = os.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, env=env,
                            close_fds=True, preexec_fn=_controlling_terminal)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    code = proc.wait(timeout=120)
    os.close(master)
    return code, out.replace(b"\r\n", b"\n")


def main():
    shard, sample = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TERM="xterm")
        low = os.path.join(tmp, "low.mlir")
        prop = os.path.join(tmp, "prop.mlir")

        code, out = run_on_pty([shard, "lower", "--verify", sample, "-o", low], env)
        check(code == 0, "lower --verify exits 0 on a pty (got %r)" % code)
        for stage in (b"\rshard lower: parsing ", b"\rshard lower: propagating and lowering",
                      b"\rshard lower: building the per-device program",
                      b"\rshard lower: --verify @main: running the global program",
                      b"\rshard lower: --verify @main: running the per-device program on "):
            check(stage in out, "lower --verify shows %r on a TTY: %r" % (stage, out[:400]))
        # erased before the notes: the result line starts right after an erase
        check(ERASE + b"@main: result #0: bit-exact" in out,
              "the status line is erased before the notes: %r" % out[-300:])
        check(out.endswith(b"gave the same results on every device\n"),
              "lower --verify ends with its summary line: %r" % out[-200:])

        code, out = run_on_pty([shard, "propagate", sample, "-o", prop], env)
        check(code == 0, "propagate exits 0 on a pty (got %r)" % code)
        check(b"\rshard propagate: propagating" in out, "propagate shows its stage: %r" % out)
        check(out.endswith(ERASE), "propagate erases its line when done: %r" % out)

        # an error erases the line before it is printed
        bad = os.path.join(tmp, "bad.mlir")
        with open(bad, "w") as f:
            f.write("func.func @main() {\n")
        code, out = run_on_pty([shard, "propagate", "--color=never", bad, "-o", prop], env)
        check(code == 1, "propagate of a broken file exits 1 (got %r)" % code)
        check(ERASE + bad.encode() + b":" in out, "the error starts on a clean line: %r" % out)

        for argv, e, what in (([shard, "lower", "--verify", "--no-progress", sample, "-o", low], env, "--no-progress"),
                              ([shard, "lower", "--verify", sample, "-o", low], dict(env, TERM="dumb"), "TERM=dumb"),
                              ([shard, "propagate", "--no-progress", sample, "-o", prop], env, "propagate --no-progress")):
            code, out = run_on_pty(argv, e)
            check(code == 0, "%s exits 0 (got %r)" % (what, code))
            check(b"\r" not in out and b"\x1b" not in out, "no status line with %s: %r" % (what, out))

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("progress on a pty: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
