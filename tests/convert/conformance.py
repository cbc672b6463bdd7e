#!/usr/bin/env python3
"""Runs `shard convert` over the notation conversion pairs of ../shared/conversion.

Each *.tsv row (README.md there: source, input, shape, expected, direction,
options, note) is one conversion, checked two ways:

  same sharding  every row: the output denotes the same placement as the
                 expected value (`shard convert --placement` of both), or
                 for the special targets: place (per-device blocks), local
                 (padded local shape), equiv/nequiv, refuse (the conversion
                 fails), meshsizes (axis sizes of the mesh built); mode=substr
                 rows: every substring is in the output
  exact text     mode=text rows: the output is the expected text (the last
                 lines of the output when the expected value has fewer, so
                 a mesh line printed before a PartitionSpec is not compared)

It prints one line per file (rows, same sharding, exact text) and the total,
then every miss with the row's file:line unless --quiet. --check-floor FILE
fails (exit 1) when a file's counts fall below the floor recorded there;
--update-floor FILE raises the floor to today's counts (never lowers it).
Without the suite (no ../shared, $SHARD_CONVERSION_DIR unset) it prints the
one line of tests/suites.py and exits 77.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import suites  # noqa: E402

SPECIAL = {"place", "local", "equiv", "nequiv", "refuse", "meshsizes"}


class Shard:
    def __init__(self, exe):
        self.exe = exe

    def run(self, args):
        p = subprocess.run([self.exe, "convert"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        return p.returncode, p.stdout.rstrip("\n"), p.stderr

    def convert(self, text, frm, to, mesh, shape):
        args = ["--from", frm, "--to", to]
        if mesh:
            args += ["--mesh", mesh]
        if shape:
            args += ["--shape", shape]
        return self.run(args + ["--", text] if text.startswith("-") else args + [text])

    def placement(self, text, frm, mesh, shape):
        args = ["--from", frm, "--placement"]
        if mesh:
            args += ["--mesh", mesh]
        if shape:
            args += ["--shape", shape]
        code, out, err = self.run(args + [text])
        return out if code == 0 else None


def split_output(out):
    """(mesh for the next step or None, the text) of a conversion's stdout."""
    lines = out.split("\n")
    if lines and lines[0].startswith("mesh: "):
        return lines[0][len("mesh: "):], "\n".join(lines[1:])
    return None, out


def options(cell):
    opts = {}
    for part in cell.split("|") if cell else []:
        if "=" in part:
            k, v = part.split("=", 1)
            opts[k.strip()] = v.strip()
    return opts


def blocks(placement):
    """The per-device blocks of a placement's first line, as a set."""
    first = placement.split("\n")[0]
    return set(b for b in first.split(";") if b)


def local_shape(placement):
    dims = None
    for b in blocks(placement):
        dev, rng = b.split(":", 1)
        lo, hi = rng.split("-")
        ext = [int(h) - int(l) for l, h in zip(lo.split(","), hi.split(","))]
        dims = ext if dims is None else [max(a, e) for a, e in zip(dims, ext)]
    return "x".join(str(d) for d in dims or [])


class Row:
    def __init__(self, path, lineno, cells):
        self.path, self.lineno = path, lineno
        cells = cells + [""] * (7 - len(cells))
        self.source, self.input, self.shape, self.expected, self.direction = cells[:5]
        self.input = self.input.replace("\\n", "\n")
        self.expected = self.expected.replace("\\n", "\n")
        self.opts = options(cells[5])
        self.note = cells[6]
        self.steps = self.direction.split(">")
        self.mode = self.opts.get("mode")

    def where(self):
        return "%s:%d" % (os.path.basename(self.path), self.lineno)


def check(shard, row):
    """(same sharding, exact text or None when not a text row, why)."""
    mesh = row.opts.get("mesh")
    shape = row.shape
    target = row.steps[-1]
    src = row.steps[0]
    if target in SPECIAL:
        if target == "refuse":
            code, out, err = shard.convert(row.input, src, "hlo", mesh, shape)
            return code == 1, None, "converted to %s" % out if code == 0 else err.strip()
        if target == "meshsizes":
            code, out, err = shard.convert(row.input, src, "shardy", mesh, shape)
            m = re.search(r"<\[(.*?)\]", out) if code == 0 else None
            got = ",".join(re.findall(r'=(\d+)', m.group(1))) if m else None
            return got == row.expected, None, "got %s" % (got if got else err.strip())
        got = shard.placement(row.input, src, mesh, shape)
        if got is None:
            return False, None, "no placement of the input"
        if target == "place":
            return blocks(got) == blocks(row.expected), None, "got %s" % got
        if target == "local":
            ls = local_shape(got)
            return ls == row.expected, None, "got %s" % ls
        want = shard.placement(row.expected, src, mesh, shape)
        if want is None:
            return False, None, "no placement of the expected value"
        same = got == want
        return same if target == "equiv" else not same, None, "placements %s / %s" % (got, want)
    # a conversion chain
    text, cur_mesh = row.input, mesh
    for frm, to in zip(row.steps, row.steps[1:]):
        code, out, err = shard.convert(text, frm, to, cur_mesh, shape)
        if code != 0:
            return False, (False if row.mode == "text" else None), "%s>%s failed: %s" % (
                frm, to, err.strip().split("\n")[0])
        new_mesh, text = split_output(out)
        if new_mesh:
            cur_mesh = new_mesh
    out_text = text
    if row.mode == "substr":
        ok = all(s in out_text for s in row.expected.split("&&"))
        return ok, None, "got %s" % out_text
    exact = None
    if row.mode == "text":
        n = len(row.expected.split("\n"))
        exact = "\n".join(out_text.split("\n")[-n:]) == row.expected
    got = shard.placement(out_text, target, cur_mesh, shape)
    want = shard.placement(row.expected, target, mesh, shape)
    same = got is not None and want is not None and got == want
    if row.opts.get("expect") == "neq":
        same = got is not None and want is not None and got != want
    why = "got %s" % out_text.replace("\n", "\\n")
    if got is None or want is None:
        why += " (no placement of the %s)" % ("output" if got is None else "expected value")
    elif not same:
        why += " (placements %s / %s)" % (got, want)
    return same, exact, why


def read_floor(path):
    floor = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].split()
                if len(line) == 3:
                    floor[line[0]] = (int(line[1]), int(line[2]))
    return floor


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shard", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "shard"))
    ap.add_argument("--dir", help="the directory of *.tsv files (default: the conversion suite)")
    ap.add_argument("--check-floor", metavar="FILE")
    ap.add_argument("--update-floor", metavar="FILE")
    ap.add_argument("--quiet", action="store_true", help="no list of misses")
    ap.add_argument("files", nargs="*", help="only these *.tsv files (names)")
    args = ap.parse_args(argv)
    if not args.dir:
        args.dir = os.path.join(suites.require("conversion", "conformance.py"), "conversion")
    shard = Shard(args.shard)
    paths = sorted(glob.glob(os.path.join(args.dir, "*.tsv")))
    if args.files:
        paths = [p for p in paths if os.path.basename(p) in args.files]
    counts, misses = {}, []
    for path in paths:
        name = os.path.basename(path)
        n = same_n = text_n = text_ok = 0
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                row = Row(path, lineno, line.split("\t"))
                same, exact, why = check(shard, row)
                n += 1
                same_n += same
                if row.mode == "text":
                    text_n += 1
                    text_ok += bool(exact)
                if not same or (row.mode == "text" and not exact):
                    misses.append("%s: %s%s %s %s: %s" % (
                        row.where(), "" if same else "[sharding] ", "" if exact or row.mode != "text" else "[text]",
                        row.direction, row.input.replace("\n", "\\n"), why))
        counts[name] = (n, same_n, text_n, text_ok)
    tot = [sum(c[i] for c in counts.values()) for i in range(4)]

    def pct(a, b):
        return "%5.1f%%" % (100.0 * a / b) if b else "   - "
    print("%-28s %5s %16s %16s" % ("file", "rows", "same sharding", "exact text"))
    for name, (n, s, tn, t) in sorted(counts.items()):
        print("%-28s %5d %6d %s %7s %s" % (name, n, s, pct(s, n), "%d/%d" % (t, tn), pct(t, tn)))
    print("%-28s %5d %6d %s %7s %s" % ("total", tot[0], tot[1], pct(tot[1], tot[0]),
                                       "%d/%d" % (tot[3], tot[2]), pct(tot[3], tot[2])))
    if misses and not args.quiet:
        print("\nmisses:")
        for m in misses:
            print("  " + m)
    status = 0
    if args.check_floor:
        floor = read_floor(args.check_floor)
        for name, (s_floor, t_floor) in sorted(floor.items()):
            if name not in counts:
                continue
            n, s, tn, t = counts[name]
            if s < s_floor or t < t_floor:
                print("conformance.py: %s fell below its floor: same sharding %d < %d or exact text %d < %d"
                      % (name, s, s_floor, t, t_floor), file=sys.stderr)
                status = 1
    if args.update_floor:
        floor = read_floor(args.update_floor)
        for name, (n, s, tn, t) in counts.items():
            old = floor.get(name, (0, 0))
            floor[name] = (max(old[0], s), max(old[1], t))
        with open(args.update_floor, "w") as f:
            f.write("# file  same-sharding  exact-text: the least tests/convert/conformance.py may\n"
                    "# count on ../shared/conversion; only ever raised (--update-floor)\n")
            for name in sorted(floor):
                f.write("%s %d %d\n" % (name, floor[name][0], floor[name][1]))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
