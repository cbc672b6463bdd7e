#!/usr/bin/env bash
# The newcomer's path, as README.md's Set-up gives it: clone the repository
# (its HEAD commit, nothing uncommitted) into a temporary directory with no
# ../shared beside it, run scripts/setup.sh as a fresh machine would (no test
# tools configured yet) and then `make test`. Checks that
#   - both pass: the tests that need a suite from outside the repository are
#     skipped, each saying how to get it (tests/suites.py);
#   - `make test` compiles no object of the library or the executable again
#     (setup and test build with the same flags; only test programs are new);
#   - setup ends with its summary and the next command.
# When run as root, the same runs again as USER (default nobody) in a clone
# that user owns, so nothing may need root once the packages are installed.
# Not a ctest test (it runs ctest itself); `make fresh-clone` and .ci/run run
# it.
#
#   tests/install/fresh_clone.sh [REPO] [USER] [JOBS]
set -euo pipefail
repo=$(cd "${1:-.}" && pwd)
user=${2:-nobody}
jobs=${3:-2}

work=$(mktemp -d /tmp/shard-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
failures=0
fail() {
  echo "fresh-clone: FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_as WHO DIR: clone into DIR, set up, test; logs in DIR.*.log
run_as() {
  local who=$1 dir=$2 as=()
  git clone --quiet --no-local "$repo" "$dir"
  if [ "$who" != "$(id -un)" ]; then
    chown -R "$who" "$dir"
    # HOME: the user's may not exist (nobody's is /nonexistent)
    as=(runuser -u "$who" -- env HOME="$dir" USER="$who")
  fi
  [ -e "$dir/../shared" ] && fail "$dir/../shared exists; the clone must have nothing beside it"
  echo "=== fresh-clone: scripts/setup.sh as $who in $dir"
  # A fresh machine has no test packages yet: configure as setup would there.
  if ! (cd "$dir" && "${as[@]}" env -u SHARD_CONFORMANCE_DIR TESTING=OFF JOBS="$jobs" \
        scripts/setup.sh) >"$dir.setup.log" 2>&1; then
    tail -n 30 "$dir.setup.log"
    fail "scripts/setup.sh as $who"
    return
  fi
  grep -q '^setup: done in' "$dir.setup.log" || fail "setup printed no summary"
  grep -q '^  make test' "$dir.setup.log" || fail "setup did not name the next command"
  echo "=== fresh-clone: make test as $who"
  if ! (cd "$dir" && "${as[@]}" env -u SHARD_CONFORMANCE_DIR make test JOBS="$jobs") \
        >"$dir.test.log" 2>&1; then
    tail -n 60 "$dir.test.log"
    fail "make test as $who"
    return
  fi
  local rebuilt
  rebuilt=$(grep -E 'Building C object (CMakeFiles|src)/' "$dir.test.log" | grep -v '/tests/' || true)
  if [ -n "$rebuilt" ]; then
    fail "make test recompiled $(wc -l <<<"$rebuilt") objects that setup had built, e.g. $(head -n 1 <<<"$rebuilt")"
  fi
  grep -E 'tests passed|Skipped|skipped:' "$dir.test.log" | sed 's/^/  /'
  grep -q 'skipped: Shardy' "$dir.test.log" ||
    fail "no line said how to get Shardy's lit tests"
}

run_as "$(id -un)" "$work/root/shard"
if [ "$(id -u)" -eq 0 ]; then
  if id "$user" >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    mkdir -p "$work/user" && chown "$user" "$work/user"
    run_as "$user" "$work/user/shard"
  else
    fail "cannot run as $user (no such user or no runuser)"
  fi
fi
if [ $failures -ne 0 ]; then
  echo "fresh-clone: $failures failures" >&2
  exit 1
fi
echo "fresh-clone: setup and make test pass in a clone without ../shared"
