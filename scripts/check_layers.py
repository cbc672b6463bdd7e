#!/usr/bin/env python3
"""Checks the layering of src/core against docs/ARCHITECTURE.md.

The layer table between `<!-- layers` and `<!-- /layers -->` lists the
folders of src/core lowest first. A file may include headers of its own
folder and of lower ones; src/core/*.c (the public API) may include any.
Nothing in src/core may include src/cli or src/viz, every folder of
src/core must be in the table, and every listed folder must exist. src/cli
and src/viz include only the core headers the `<!-- cli-headers` list
names.
Exit 0 when all holds, 1 with one line per violation otherwise."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def layers():
    text = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers.*?-->(.*?)<!-- /layers -->", text, re.S)
    if not m:
        sys.exit("check_layers: no layer table in docs/ARCHITECTURE.md")
    return re.findall(r"^\|\s*`([a-z_]+)`\s*\|", m.group(1), re.M)


def cli_headers():
    text = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    m = re.search(r"<!-- cli-headers.*?-->(.*?)<!-- /cli-headers -->", text, re.S)
    if not m:
        sys.exit("check_layers: no cli-headers list in docs/ARCHITECTURE.md")
    return set(re.findall(r"`([a-z_]+/[a-z_]+\.h)`", m.group(1)))


def main():
    order = layers()
    allowed = cli_headers()
    rank = {name: i for i, name in enumerate(order)}
    core = os.path.join(ROOT, "src", "core")
    problems = []
    present = sorted(d for d in os.listdir(core) if os.path.isdir(os.path.join(core, d)))
    for d in present:
        if d not in rank:
            problems.append("src/core/%s/ is not in the layer table of docs/ARCHITECTURE.md" % d)
    for d in order:
        if d not in present:
            problems.append("layer '%s' of docs/ARCHITECTURE.md has no folder src/core/%s/" % (d, d))
    nfiles = 0
    for dirpath, _, files in os.walk(core):
        rel = os.path.relpath(dirpath, core)
        me = None if rel == "." else rel.split(os.sep)[0]
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            nfiles += 1
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                where = "src/core/%s:%d" % (os.path.relpath(path, core), n)
                head = inc.split("/")[0] if "/" in inc else None
                if head is None:
                    if inc.startswith("shard/"):
                        continue
                    problems.append('%s: #include "%s" names no layer (write "LAYER/%s")' % (where, inc, inc))
                elif head == "shard":
                    continue
                elif head not in rank:
                    problems.append('%s: #include "%s": no layer %s' % (where, inc, head))
                elif me is not None and rank[head] > rank[me]:
                    problems.append('%s: #include "%s": layer %s may not include the higher layer %s'
                                    % (where, inc, me, head))
    for client in ("cli", "viz"):
        base = os.path.join(ROOT, "src", client)
        for f in sorted(os.listdir(base)):
            if not f.endswith((".c", ".h")):
                continue
            for n, line in enumerate(open(os.path.join(base, f), encoding="utf-8"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or "/" not in m.group(1):
                    continue
                inc = m.group(1)
                if inc.split("/")[0] in rank and inc not in allowed:
                    problems.append('src/%s/%s:%d: #include "%s" is not one of the headers src/cli and src/viz '
                                    'may use (docs/ARCHITECTURE.md)' % (client, f, n, inc))
    for p in problems:
        print(p)
    print("check_layers: %d files in %d layers, %d violations" % (nfiles, len(order), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
