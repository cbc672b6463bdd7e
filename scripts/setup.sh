#!/usr/bin/env bash
# One-step set-up on Debian 12: install the packages that building and
# running shard need (only those missing), build it, and run it on the
# bundled samples. Needs nothing beyond bash and apt: make, cmake and gcc
# come from scripts/deps.sh. The test tools (Criterion, LLVM's FileCheck,
# mlir-opt, valgrind) are left to `make test`, which builds with the same
# flags, so it compiles only the test programs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/deps.sh
make build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if scripts/demo.sh build/shard samples >"$log" 2>&1; then
  demo="samples checked ($(grep -c '^== ' "$log") files, mistakes.mlir rejected as intended)"
else
  cat "$log"
  echo "setup: scripts/demo.sh found unexpected results (above)" >&2
  exit 1
fi
cat <<SUMMARY

setup: done in $((SECONDS - start)) s: packages present, build/shard $(build/shard version 2>/dev/null | head -n 1 | sed 's/^shard //') built, $demo.
Next:
  make test                                  install the test tools and run every test
  build/shard check samples/mistakes.mlir    see the diagnostics (README.md has a tour)
SUMMARY
