#!/usr/bin/env python3
"""Runs the examples of the documentation, so that they cannot drift.

Examples are taken from
  README.md       every ```console block
  man/*.1         every EXAMPLES section (its .EX/.EE and .nf/.fi blocks,
                  groff escapes undone)
A line starting with `$ ` is a command (a trailing backslash continues it on
the next line); the lines after it, up to the next command or the end of the
block, are the output expected from it, standard error and standard output
together. In the expected output a line `...` matches any number of lines
(none too), and `...` inside a line matches any text on that line. Trailing
blanks are ignored.

Commands run in bash, in one temporary directory per document (so `-o
out.mlir` in one command can be read by the next), holding `samples` (a link
to the repository's) and `build/shard`; `shard` on PATH is the binary under
test, NO_COLOR is set. Exit status is not compared (the examples of errors
exit 1), but a command killed by a signal or exiting 3 fails.

Every man page with an EXAMPLES section and README.md must give at least one
command: prose examples that are not run would drift again. And the pages
must agree with the binary: shard(1) lists every command of `shard --help`
and names every other page in SEE ALSO, every command but help and version
has its page, and each page's .TH carries the version `shard version`
prints.

  doc_examples.py SHARD [SOURCE_DIR] [-v]
"""
import os
import re
import subprocess
import sys
import tempfile

TIMEOUT = 300

GROFF = [
    (r"\(aq", "'"), (r"\(dq", '"'), (r"\(em", "--"), (r"\(en", "-"), (r"\(ga", "`"),
    (r"\(ti", "~"), (r"\(ha", "^"), (r"\(rs", "\\"), (r"\-", "-"), (r"\e", "\\"), (r"\&", ""),
    (r"\~", " "), (r"\ ", " "), (r"\%", ""), (r"\fB", ""), (r"\fI", ""), (r"\fR", ""), (r"\fP", ""),
    (r"\(bu", "*"),
]


def unescape(line):
    out, i = [], 0
    while i < len(line):
        if line[i] == "\\":
            for esc, rep in GROFF:
                if line.startswith(esc, i):
                    out.append(rep)
                    i += len(esc)
                    break
            else:
                raise ValueError("groff escape not understood: %r" % line[i:i + 4])
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def readme_blocks(path):
    """(first line number, lines) of each ```console block."""
    blocks, cur, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if cur is None and line.strip() == "```console":
                cur, start = [], n + 1
            elif cur is not None and line.strip() == "```":
                blocks.append((start, cur))
                cur = None
            elif cur is not None:
                cur.append(line)
    return blocks


def man_blocks(path):
    """(first line number, lines) of each no-fill block of the EXAMPLES section;
    None when the page has no EXAMPLES section."""
    blocks, cur, start, in_examples, seen = [], None, 0, False, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(".SH"):
                in_examples = line.split(None, 1)[1:] == ["EXAMPLES"]
                seen = seen or in_examples
                continue
            if not in_examples:
                continue
            if line in (".EX", ".nf"):
                cur, start = [], n + 1
            elif line in (".EE", ".fi") and cur is not None:
                blocks.append((start, cur))
                cur = None
            elif cur is not None:
                if line.startswith(".") or line.startswith("'"):
                    raise ValueError("%s:%d: request inside an example block: %s" % (path, n, line))
                cur.append(unescape(line))
    return blocks if seen else None


def examples(blocks):
    """(line number, command, expected lines) of each `$ ` command."""
    out = []
    for start, lines in blocks:
        cmd = None
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("$ "):
                if cmd is not None:
                    out.append(cmd)
                text, n = line[2:], start + i
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1] + lines[i]
                cmd = (n, text, [])
            elif cmd is not None:
                cmd[2].append(line)
            i += 1
        if cmd is not None:
            out.append(cmd)
    return out


def line_matches(want, got):
    if "..." not in want:
        return want == got
    pattern = ".*".join(re.escape(p) for p in want.split("..."))
    return re.fullmatch(pattern, got) is not None


def matches(want, got):
    """Expected lines against actual ones, `...` lines matching any run."""
    memo = {}

    def m(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(want):
            r = j == len(got)
        elif want[i] == "...":
            r = any(m(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and line_matches(want[i], got[j]) and m(i + 1, j + 1)
        memo[key] = r
        return r
    return m(0, 0)


def strip_blank_ends(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def run_doc(name, cmds, shard, src, verbose):
    failures = 0
    with tempfile.TemporaryDirectory(prefix="shard-doc.") as tmp:
        os.symlink(os.path.join(src, "samples"), os.path.join(tmp, "samples"))
        os.mkdir(os.path.join(tmp, "build"))
        os.symlink(shard, os.path.join(tmp, "build", "shard"))
        bindir = os.path.join(tmp, ".bin")
        os.mkdir(bindir)
        os.symlink(shard, os.path.join(bindir, "shard"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1",
                   HOME=tmp)
        for n, cmd, want in cmds:
            try:
                r = subprocess.run(["bash", "-c", cmd], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
                got, status = r.stdout.decode("utf-8", "replace"), r.returncode
            except subprocess.TimeoutExpired:
                got, status = "", "timeout"
            want_l, got_l = strip_blank_ends(want), strip_blank_ends(got.split("\n"))
            ok = matches(want_l, got_l) and status not in ("timeout", 3) and not (
                isinstance(status, int) and status < 0)
            if verbose or not ok:
                print("%s %s:%d: $ %s" % ("ok  " if ok else "FAIL", name, n, cmd))
            if not ok:
                failures += 1
                print("  exit status: %s" % status)
                print("  expected:")
                for l in want_l:
                    print("    | " + l)
                print("  got:")
                for l in got_l:
                    print("    | " + l)
    return failures


def section(text, name):
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH |\Z)" % re.escape(name), text, re.S | re.M)
    return m.group(1) if m else ""


def check_pages(shard, mandir):
    """Problems of the man pages as a set, compared with the binary."""
    problems = []
    helptext = subprocess.run([shard, "--help"], capture_output=True, text=True).stdout
    block = helptext.split("Commands:", 1)[-1].split("\n\n", 1)[0]
    commands = [l.split()[0] for l in block.splitlines() if l.strip()]
    if len(commands) < 5:
        problems.append("cannot read the commands of `shard --help`: %r" % block[:200])
    version = subprocess.run([shard, "version"], capture_output=True, text=True).stdout.strip()
    pages = sorted(p for p in os.listdir(mandir) if p.endswith(".1"))
    with open(os.path.join(mandir, "shard.1"), encoding="utf-8") as f:
        top = f.read()
    listed = set(re.findall(r"^\.BI? (\w+)", section(top, "COMMANDS"), re.M))
    see_also = set(re.findall(r"shard\\-(\w+) \(1\)", section(top, "SEE ALSO")))
    for c in commands:
        if c not in listed:
            problems.append("shard(1) COMMANDS does not list '%s'" % c)
        if c not in ("help", "version") and "shard-%s.1" % c not in pages:
            problems.append("command '%s' has no page man/shard-%s.1" % (c, c))
    for p in pages:
        name = p[:-2]
        if name != "shard" and name[len("shard-"):] not in see_also:
            problems.append("shard(1) SEE ALSO does not name %s(1)" % name)
        with open(os.path.join(mandir, p), encoding="utf-8") as f:
            th = f.readline()
        if '"%s"' % version not in th:
            problems.append("%s: .TH does not carry '%s': %s" % (p, version, th.strip()))
    return problems


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv[1:] if a != "-v"]
    if not args:
        print(__doc__.strip().split("\n")[-1].strip(), file=sys.stderr)
        return 2
    shard = os.path.abspath(args[0])
    src = os.path.abspath(args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    docs = [("README.md", readme_blocks(os.path.join(src, "README.md")))]
    mandir = os.path.join(src, "man")
    for page in sorted(os.listdir(mandir)):
        if page.endswith(".1"):
            blocks = man_blocks(os.path.join(mandir, page))
            if blocks is not None:
                docs.append((os.path.join("man", page), blocks))
    failures = total = 0
    for problem in check_pages(shard, mandir):
        print("FAIL man: " + problem)
        failures += 1
    for name, blocks in docs:
        cmds = examples(blocks)
        if not cmds:
            print("FAIL %s: examples without a `$ ` command: they are not run, so they can drift" % name)
            failures += 1
            continue
        total += len(cmds)
        failures += run_doc(name, cmds, shard, src, verbose)
    print("%d documents, %d commands, %d failed" % (len(docs), total, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
