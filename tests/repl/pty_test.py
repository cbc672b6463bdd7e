#!/usr/bin/env python3
"""`shard repl` on a pseudo-terminal: prompt, tab completion of commands,
mesh names and ':load' file names (libedit), Ctrl-C cancelling the line,
Ctrl-D ending on a fresh line, history kept in a file and recalled with the
up arrow in a new session; and `shard viz` colours on a terminal unless
NO_COLOR.

usage: pty_test.py SHARD_BINARY
"""
import fcntl
import os
import select
import subprocess
import sys
import tempfile
import termios
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def _controlling_terminal():
    """In the child: a session of its own whose controlling terminal is the
    pty, so that Ctrl-C typed there is a SIGINT, as in a real terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Term:
    def __init__(self, argv, env):
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True, preexec_fn=_controlling_terminal)
        os.close(slave)
        self.out = b""

    def read_until(self, needle, timeout=10.0, start=0):
        """Reads until `needle` appears in the output after offset `start`."""
        end = time.time() + timeout
        while needle not in self.out[start:] and time.time() < end:
            r, _, _ = select.select([self.master], [], [], 0.1)
            if r:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.out += chunk
        return needle in self.out[start:]

    def send(self, text):
        os.write(self.master, text.encode())

    def finish(self, timeout=10.0):
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        self.read_until(b"\0", 3.0)  # drains to end of output (EOF ends it early)
        os.close(self.master)
        return code


def main():
    shard = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        hist = os.path.join(tmp, "history")
        env = dict(os.environ, TERM="xterm", HOME=tmp)
        env.pop("NO_COLOR", None)
        env.pop("SHARD_HISTORY", None)

        t = Term([shard, "repl", "--history", hist], env)
        check(t.read_until(b"shard> "), "first prompt")
        t.send('@mesh_a = <["x"=2]>\r')
        check(t.read_until(b"mesh @mesh_a"), "mesh defined")
        # Command completion: ':lo' is ambiguous, TAB TAB lists ':load' and
        # ':local'; one more letter and TAB completes to ':local '.
        t.send(":lo\t\t")
        check(t.read_until(b":local") and t.read_until(b":load"), "':lo<TAB><TAB>' lists both")
        mark2 = len(t.out)
        t.send("c\t")
        check(t.read_until(b"al ", start=mark2), "':loc<TAB>' completes to ':local '")
        # Mesh name completion inside the sharding: '@mes' + TAB.
        mark3 = len(t.out)
        t.send("sharding<@mes\t")
        check(t.read_until(b"h_a", start=mark3), "'@mes<TAB>' completes to '@mesh_a'")
        # libedit appends a space after a completed word; the parser takes it.
        t.send(', [{"x"}]> : tensor<4xf32>\r')
        check(t.read_until(b"local shape: tensor<2xf32>"), "completed line runs")
        # Ctrl-C drops the line being typed and prompts again; the session
        # goes on (the dropped line never runs: it would be a parse error).
        # (typed only once the prompt is back: text typed while the REPL is
        # still busy is echoed by the terminal, and a Ctrl-C then is an
        # ordinary interrupt of the running command, which ends it)
        after = t.out.rfind(b"local shape: tensor<2xf32>")
        check(t.read_until(b"shard> ", start=max(after, 0)), "prompt after the completed line")
        time.sleep(0.5)  # as before Ctrl-D below: let libedit take the terminal
        mark4 = len(t.out)
        # libedit switches the terminal to its own mode after the prompt and
        # may drop what arrived just before: type again until it echoes
        for _ in range(5):
            t.send('@mesh_b = <["y"=')
            if t.read_until(b'"y"=', timeout=3.0, start=mark4):
                break
            t.send("\x15")  # Ctrl-U: drop a partial line before retyping
        t.send("\x03")
        check(t.read_until(b"^C\r\nshard> ", start=mark4), "Ctrl-C gives a fresh prompt")
        t.send('@mesh_c = <["z"=2]>\r')
        check(t.read_until(b"mesh @mesh_c", start=mark4), "the session goes on after Ctrl-C")
        check(b"expected" not in t.out[mark4:], "the cancelled line did not run")
        # ':load ' completes file names.
        with open(os.path.join(tmp, "model_for_load.mlir"), "w") as f:
            f.write('sdy.mesh @mesh = <["x"=2]>\n')
        mark5 = len(t.out)
        t.send(":load " + os.path.join(tmp, "model_fo") + "\t")
        check(t.read_until(b"r_load.mlir", start=mark5), "':load FILE<TAB>' completes the file name")
        t.send("\r")
        check(t.read_until(b"loaded ", start=mark5), "the completed file loads")
        # An error does not end the session.
        t.send(":bogus\r")
        check(t.read_until(b"unknown command ':bogus'"), "error shown")
        t.send(":quit\r")
        code = t.finish()
        check(code == 1, f"exit 1 after an error (got {code})")

        data = open(hist, "rb").read() if os.path.exists(hist) else b""
        check(data.startswith(b"_HiStOrY_V2_"), "history file in libedit format")
        check(b"@mesh_a" in data and b":quit" in data, "history holds the lines")

        # A new session recalls the last line with the up arrow.
        t = Term([shard, "repl", "--history", hist], env)
        check(t.read_until(b"shard> "), "second prompt")
        t.send("\x1b[A")
        check(t.read_until(b":quit"), "up arrow recalls ':quit'")
        t.send("\r")
        code = t.finish()
        check(code == 0, f"recalled ':quit' ends the session with 0 (got {code})")

        # Ctrl-D on an empty line ends the session on a fresh line.
        t = Term([shard, "repl", "--no-history"], env)
        check(t.read_until(b"shard> "), "prompt before Ctrl-D")
        # libedit prints the prompt, then takes the terminal: a key typed in
        # between is read by the terminal's own line discipline (an early
        # Ctrl-D is echoed as ^D and lost). People do not type that fast.
        time.sleep(0.5)
        mark6 = len(t.out)
        # (sent again if it arrived before libedit took the terminal and was
        # dropped; on an empty line a second Ctrl-D is still end of input)
        for _ in range(3):
            t.send("\x04")
            try:
                t.proc.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                pass
        code = t.finish(timeout=60)  # a loaded machine and a sanitizer's exit can be slow
        check(code == 0, f"Ctrl-D ends the session with 0 (got {code})")
        check(t.out[mark6:].endswith(b"\n"), "Ctrl-D leaves the terminal on a fresh line: %r" % t.out[mark6:][-60:])

        # Pictures on a terminal are coloured, unless NO_COLOR or --color=never.
        snippet = '@m = <["x"=2]>; sharding<@m, [{"x"}]> : tensor<4xf32>'
        for extra_env, args, want in (({}, [], True), ({"NO_COLOR": "1"}, [], False),
                                      ({}, ["--color=never"], False)):
            t = Term([shard, "viz", "placement", *args, "-e", snippet], dict(env, **extra_env))
            t.read_until(b"blocks:")
            t.read_until(b"\0", 0.5)
            code = t.finish()
            check(code == 0, f"viz on a terminal exits 0 ({extra_env} {args})")
            check((b"\x1b[" in t.out) == want,
                  f"viz colour on a terminal is {want} with {extra_env} {args}")
    if failures:
        return 1
    print("pty test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
