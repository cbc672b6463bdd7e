#!/usr/bin/env bash
# Installs the Debian packages shard needs, but only those that are missing:
# a machine that has everything is left alone (no apt-get update, no sudo
# prompt). Uses sudo when not root.
#
#   scripts/deps.sh              building and running shard (scripts/setup.sh,
#                                make build)
#   scripts/deps.sh --test       also the test tools: Criterion, FileCheck
#                                and mlir-opt (LLVM 16), valgrind, zsh (make test,
#                                make asan, make valgrind)
#   scripts/deps.sh --fuzz       also clang and its libFuzzer runtime, which
#                                only `make fuzz` needs
#   scripts/deps.sh --have-test  installs nothing: exit 0 when the test
#                                packages are all there (the Makefile's
#                                TESTING default), 1 otherwise
#   scripts/deps.sh --list [--test] [--fuzz]   prints the package list
set -euo pipefail

BUILD_PACKAGES=(cmake gcc libc6-dev make pkg-config libcjson-dev libgraphviz-dev libedit-dev)
TEST_PACKAGES=(python3 libcriterion-dev llvm-16-tools mlir-16-tools valgrind zsh clang-format)
FUZZ_PACKAGES=(clang libclang-rt-dev)

PACKAGES=("${BUILD_PACKAGES[@]}")
mode=install
for arg in "$@"; do
  case $arg in
    --test) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
    --fuzz) PACKAGES+=("${FUZZ_PACKAGES[@]}") ;;
    --have-test) PACKAGES=("${TEST_PACKAGES[@]}"); mode=have ;;
    --list) mode=list ;;
    *) echo "deps: unknown option '$arg' (--test, --fuzz, --have-test, --list)" >&2; exit 2 ;;
  esac
done

if [ $mode = list ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  [ $mode = have ] && exit 1
  echo "deps: not a Debian system; install these yourself: ${PACKAGES[*]}" >&2
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ $mode = have ]; then
  [ ${#missing[@]} -eq 0 ] || { echo "deps: test packages missing: ${missing[*]}"; exit 1; }
  exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "deps: missing ${missing[*]} and not root (no sudo); install them as root:" >&2
    echo "  apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
