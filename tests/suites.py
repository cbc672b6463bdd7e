#!/usr/bin/env python3
"""Where the external test suites are: the one owner of that question.

Some tests run suites that are not part of this repository: Shardy's own
lit tests (openxla/shardy, shardy/dialect/sdy), XLA's tests of its Shardy
integration (openxla/xla, xla/service/spmd/shardy; the same rules with
$SHARD_XLA_CONFORMANCE_DIR and conformance/xla_shardy), StableHLO's
interpreter tests, the notation conversion pairs, and real-world modules
(`realworld`: ../shared/realworld, or $SHARD_REALWORLD_DIR holding a
realworld/ folder). Shardy's are looked up, in this order:

  $SHARD_CONFORMANCE_DIR   any of: a checkout of openxla/shardy, its
                           shardy/dialect/sdy directory, or a directory laid
                           out like ../shared (conformance/shardy/shardy/...)
  ../shared                next to the repository (conformance/shardy)

A test that needs a missing suite exits 77 (ctest: skipped) after printing
the one line of missing_line(). A $SHARD_CONFORMANCE_DIR that holds none of
these layouts is an error, not a skip: it was set to be used.

As a program: `suites.py` prints one line per missing suite (nothing when
all are there), `suites.py shardy` prints the root of that suite or the
missing line and exits 77.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_EXIT = 77

SHARDY = {
    "name": "shardy",
    "what": "Shardy's lit tests",
    "env": "SHARD_CONFORMANCE_DIR",
    "marker": os.path.join("shardy", "dialect", "sdy"),
    "shared": os.path.join("conformance", "shardy"),
    "tests": "conformance, roundtrip, plan/*_verify, unit/test_convert_roundtrip's conformance_shardings",
    "get": "git clone --depth 1 https://github.com/openxla/shardy and set SHARD_CONFORMANCE_DIR "
           "to it (or to its shardy/dialect/sdy, or to a directory laid out like ../shared)",
}
XLA_SHARDY = {
    "name": "xla_shardy",
    "what": "XLA's Shardy tests",
    "env": "SHARD_XLA_CONFORMANCE_DIR",
    "marker": os.path.join("xla", "service", "spmd", "shardy"),
    "shared": os.path.join("conformance", "xla_shardy"),
    "tests": "conformance_xla_shardy",
    "get": "git clone --depth 1 https://github.com/openxla/xla and set SHARD_XLA_CONFORMANCE_DIR "
           "to it (or to a directory laid out like ../shared/conformance/xla_shardy)",
}
STABLEHLO = {
    "name": "stablehlo",
    "what": "StableHLO's interpreter tests and testdata",
    "env": "SHARD_STABLEHLO_DIR",
    "marker": os.path.join("stablehlo", "tests", "interpret"),
    "shared": os.path.join("conformance", "stablehlo"),
    "tests": "conformance_stablehlo",
    "get": "git clone --depth 1 https://github.com/openxla/stablehlo and set SHARD_STABLEHLO_DIR "
           "to it (or to a directory laid out like ../shared/conformance/stablehlo)",
}
CONVERSION = {
    "name": "conversion",
    "what": "the notation conversion pairs of other projects' tests",
    "env": "SHARD_CONVERSION_DIR",
    "marker": "conversion",
    "shared": ".",
    "tests": "convert/conformance",
    "get": "set SHARD_CONVERSION_DIR to a directory holding conversion/*.tsv laid out like ../shared",
}
REALWORLD = {
    "name": "realworld",
    "what": "real-world modules (JAX, XLA, StableHLO, tt-mlir)",
    "env": "SHARD_REALWORLD_DIR",
    "marker": "realworld",
    "shared": ".",
    "tests": "realworld/accept",
    "get": "set SHARD_REALWORLD_DIR to a directory holding realworld/ laid out like ../shared",
}
SUITES = {"shardy": SHARDY, "xla_shardy": XLA_SHARDY, "stablehlo": STABLEHLO, "conversion": CONVERSION,
          "realworld": REALWORLD}


class BadSetting(Exception):
    """The suite's environment variable names a directory without the suite."""


def _root_of(cand, suite):
    """The directory holding suite['marker'] for a candidate path, or None."""
    cand = os.path.abspath(cand)
    marker = suite["marker"]
    if os.path.isdir(os.path.join(cand, marker)):
        return cand
    if os.path.isdir(os.path.join(cand, suite["shared"], marker)):
        return os.path.join(cand, suite["shared"])
    # pointed at the marker directory itself (or a checkout's subdirectory
    # of it): walk up as many levels as the marker has
    up = cand
    for _ in marker.split(os.sep):
        up = os.path.dirname(up)
    if os.path.isdir(os.path.join(up, marker)) and \
            os.path.samefile(os.path.join(up, marker), cand):
        return up
    return None


def find(name):
    """The root of suite NAME (a directory holding shardy/dialect/sdy for
    Shardy's), None when it is missing. Raises BadSetting when the
    environment variable points at something else."""
    suite = SUITES[name]
    env = os.environ.get(suite["env"])
    if env:
        root = _root_of(env, suite)
        if root is None:
            raise BadSetting("%s=%s holds no %s (%s); %s" % (
                suite["env"], env, suite["what"], suite["marker"], suite["get"]))
        return root
    return _root_of(os.path.join(os.path.dirname(REPO), "shared"), suite)


def missing_line(name):
    """The one line a skipped test prints."""
    suite = SUITES[name]
    return "skipped: %s not found (%s unset, no ../shared beside the repository); to run them, %s" % (
        suite["what"], suite["env"], suite["get"])


def require(name, prog):
    """The root of suite NAME; when it is missing, prints the one line and
    exits 77; when the setting is wrong, prints the error and exits 1."""
    try:
        root = find(name)
    except BadSetting as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        sys.exit(1)
    if root is None:
        print("%s: %s" % (prog, missing_line(name)))
        sys.exit(SKIP_EXIT)
    return root


def main(argv):
    names = argv[1:] or sorted(SUITES)
    status = 0
    for name in names:
        if name not in SUITES:
            print("suites.py: unknown suite '%s' (known: %s)" % (name, ", ".join(sorted(SUITES))),
                  file=sys.stderr)
            return 2
        try:
            root = find(name)
        except BadSetting as e:
            print("suites.py: error: %s" % e, file=sys.stderr)
            return 1
        if root is None:
            print("%s (%s): %s" % (SUITES[name]["tests"], name, missing_line(name)))
            status = SKIP_EXIT
        elif argv[1:]:
            print(root)
    return status if argv[1:] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
