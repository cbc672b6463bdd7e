#!/bin/sh
# Where every command's output may go, and what it must never touch:
#
#   output_safety.sh SHARD_BINARY SAMPLES_DIR
#
# For each command that takes -o: a character device (made with mknod in a
# scratch directory, so the machine's /dev is never at stake) stays a device
# and a full one is a write error (exit 3); a symbolic link stays a link and
# its target gets the output; a FIFO is written, not replaced; a read-only
# directory is an error that leaves nothing behind; the command's own input
# (by name or through a link) is refused (exit 2) and left as it was.
# Every command that prints, with standard output on /dev/full, exits 3
# with a message. Prints one line per check; any failure fails the test.
set -u

shard=$1
samples=$2
model=$samples/mlp_dp_mp.mlir
work=$(mktemp -d "${TMPDIR:-/tmp}/shard-output.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
failures=0
passes=0

ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME EXPECTED_STATUS CMD...: runs CMD with stdout and stderr in files.
run() {
  name=$1 want=$2
  shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"
  got=$?
  if [ "$got" -ne "$want" ]; then
    bad "$name: exit $got, expected $want"
    sed 's/^/  | /' "$work/stderr" | head -n 5
    return 1
  fi
  ok
  return 0
}

is_root=false
[ "$(id -u)" -eq 0 ] && is_root=true
if $is_root; then
  echo "SKIP: -o into a read-only directory (root may write anywhere; runs as an ordinary user)"
else
  echo "SKIP: -o onto character devices (mknod needs root; runs as root)"
fi

# Each writer: a name and its command line without -o.
writers() {
  echo "opt|opt $model"
  echo "propagate|propagate $model"
  echo "lower|lower $model"
  echo "lower-verify|lower --verify $model"
  if "$shard" viz mesh -e '@m = <["x"=2]>' >/dev/null 2>&1; then
    echo "viz-mesh|viz mesh $model"
    echo "viz-graph|viz graph $model --format dot"
    echo "viz-placement|viz placement $model --arg 0"
    echo "viz-plan|viz plan $model --format json"
  else
    echo "SKIP: viz (built without Graphviz)" >&2
  fi
}

writers >"$work/writers"
while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  set -- $args
  d=$work/$name
  mkdir -p "$d"

  # A plain file first: what the command writes.
  run "$name -o file" 0 "$shard" "$@" -o "$d/plain" || continue
  [ -s "$d/plain" ] && ok || bad "$name -o file: empty output"

  if $is_root; then
    mknod "$d/null" c 1 3 && mknod "$d/full" c 1 7 || { bad "$name: mknod"; continue; }
    run "$name -o chardev" 0 "$shard" "$@" -o "$d/null"
    [ -c "$d/null" ] && ok || bad "$name -o chardev: no longer a character device"
    run "$name -o full device" 3 "$shard" "$@" -o "$d/full"
    grep -q "No space left on device" "$work/stderr" && ok || bad "$name -o full device: no message"
    [ -c "$d/full" ] && ok || bad "$name -o full device: no longer a character device"
    ls -A "$d" | grep -q '^\.' && bad "$name: temporary file left behind" || ok
  fi

  # A symbolic link: followed, and it stays a link.
  printf 'old\n' >"$d/target"
  ln -s target "$d/link"
  run "$name -o symlink" 0 "$shard" "$@" -o "$d/link"
  [ -L "$d/link" ] && ok || bad "$name -o symlink: the link was replaced"
  cmp -s "$d/target" "$d/plain" && ok || bad "$name -o symlink: the target does not hold the output"
  # A dangling link creates its target.
  ln -s created "$d/dangling"
  run "$name -o dangling symlink" 0 "$shard" "$@" -o "$d/dangling"
  [ -L "$d/dangling" ] && cmp -s "$d/created" "$d/plain" && ok || bad "$name -o dangling symlink"

  # A FIFO: written through, still a FIFO.
  mkfifo "$d/fifo"
  cat "$d/fifo" >"$d/from-fifo" &
  reader=$!
  run "$name -o fifo" 0 "$shard" "$@" -o "$d/fifo"
  wait "$reader"
  [ -p "$d/fifo" ] && ok || bad "$name -o fifo: no longer a FIFO"
  cmp -s "$d/from-fifo" "$d/plain" && ok || bad "$name -o fifo: the reader got something else"

  # A read-only directory: an error, and nothing left in it.
  if ! $is_root; then
    mkdir "$d/ro"
    chmod 555 "$d/ro"
    run "$name -o read-only dir" 3 "$shard" "$@" -o "$d/ro/out"
    [ -z "$(ls -A "$d/ro")" ] && ok || bad "$name -o read-only dir: left a file"
    chmod 755 "$d/ro"
  fi

  # -o /dev/stdout is standard output, and /dev/stdout stays a link.
  run "$name -o /dev/stdout" 0 "$shard" "$@" -o /dev/stdout
  cmp -s "$work/stdout" "$d/plain" && ok || bad "$name -o /dev/stdout: stdout differs from -o FILE"
  [ -L /dev/stdout ] || [ ! -e /dev/stdout ] && ok || bad "$name -o /dev/stdout: /dev/stdout was replaced"
done <"$work/writers"

# The command's own input, by name and through a link: refused, untouched.
cp "$model" "$work/in.mlir"
ln -s in.mlir "$work/in-link"
for args in "opt" "propagate" "lower" "lower --verify" "viz graph" "viz mesh" "viz placement --arg 0 --format txt"; do
  for dest in in.mlir in-link; do
    # shellcheck disable=SC2086
    run "$args -o its input ($dest)" 2 "$shard" $args "$work/in.mlir" -o "$work/$dest"
    grep -q "refusing to overwrite the input file" "$work/stderr" && ok ||
      bad "$args -o its input ($dest): no message"
    cmp -s "$work/in.mlir" "$model" && ok || bad "$args -o its input ($dest): the input changed"
    cp "$model" "$work/in.mlir"
  done
done
# lower --verify-local L -o L: L is an input too.
"$shard" lower --local "$model" -o "$work/local.mlir" 2>/dev/null
cp "$work/local.mlir" "$work/local.orig"
run "lower --verify-local L -o L" 2 "$shard" lower --verify-local "$work/local.mlir" "$model" -o "$work/local.mlir"
cmp -s "$work/local.mlir" "$work/local.orig" && ok || bad "lower --verify-local L -o L: L changed"

# Standard output that cannot be written: exit 3 with a message, every command.
if [ -c /dev/full ]; then
  for args in "opt $model" "propagate $model" "propagate --explain $model" "lower $model" \
      "lower --plan=json $model" "check --format=json $model" "convert --to pspec --mesh x=2 {devices=[2]0,1}" \
      "plan --shape 8x8 --mesh x=2 <@m,[{\"x\"},{}]> <@m,[{},{}]>" "help" "--version"; do
    # shellcheck disable=SC2086
    "$shard" $args >/dev/full 2>"$work/stderr"
    got=$?
    [ "$got" -eq 3 ] && ok || bad "shard $args >/dev/full: exit $got, expected 3"
    grep -q "cannot write to standard output: No space left on device" "$work/stderr" && ok ||
      bad "shard $args >/dev/full: no message"
  done
else
  echo "SKIP: /dev/full is missing"
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
