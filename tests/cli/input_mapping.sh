#!/bin/sh
# Large inputs are mapped, small ones and those whose size is a whole number
# of pages are read (src/cli/input.c): every way must give the same answer.
#
#   input_mapping.sh SHARD_BINARY SAMPLES_DIR
#
# The same module padded with a trailing comment to sizes on each side of
# the mapping threshold and of a page boundary: check passes, propagate
# prints the same module for all of them, and the inputs are left as they
# were. An error at the very end of a mapped file is reported with its line
# and source text (the diagnostic reads the mapping), so is one on the first
# line of a module whose text the parser gave back as it went, and a NUL
# byte in a mapped file is reported, not taken as its end.
set -u

shard=$1
samples=$2
model=$samples/mlp_dp_mp.mlir
work=$(mktemp -d "${TMPDIR:-/tmp}/shard-input.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
checks=0

bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# pad SIZE OUT: the model followed by one comment line, SIZE bytes in all.
pad() {
  python3 - "$model" "$1" "$2" <<'EOF'
import sys
src, size, out = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), sys.argv[3]
if not src.endswith(b'\n'):
    src += b'\n'
fill = size - len(src) - 3  # "//" and the final newline
assert fill >= 0
open(out, 'wb').write(src + b'//' + b'x' * fill + b'\n')
EOF
}

page=$(getconf PAGESIZE)
for size in 65535 65536 65537 $((page * 20)) $((page * 20 + 1)) 300001; do
  f=$work/in_$size.mlir
  pad "$size" "$f"
  cp "$f" "$f.orig"
  checks=$((checks + 1))
  if [ "$(wc -c < "$f")" -ne "$size" ]; then bad "size $size: padding made $(wc -c < "$f") bytes"; continue; fi
  "$shard" check "$f" > "$work/check.out" 2>&1 || { bad "size $size: check failed"; sed 's/^/  | /' "$work/check.out" | head -n 5; }
  "$shard" propagate "$f" -o "$work/out_$size.mlir" 2> "$work/err" || { bad "size $size: propagate failed"; cat "$work/err"; }
  cmp -s "$f" "$f.orig" || bad "size $size: the input changed"
done
ref=$work/out_65535.mlir
for out in "$work"/out_*.mlir; do
  checks=$((checks + 1))
  cmp -s "$ref" "$out" || bad "$(basename "$out") differs from $(basename "$ref")"
done

# An error on the last line of a mapped file.
big=$work/in_300001.mlir
tail_err=$work/tail_err.mlir
cp "$big" "$tail_err"
printf 'sdy.mesh @broken = <["x"=0]>\n' >> "$tail_err"
line=$(wc -l < "$tail_err")
checks=$((checks + 1))
"$shard" check "$tail_err" > "$work/tail.out" 2>&1
status=$?
if [ "$status" -ne 1 ]; then
  bad "error at the end of a mapped file: exit $status, expected 1"
elif ! grep -q "^$tail_err:$line:[0-9]*: error: " "$work/tail.out" || ! grep -q '@broken' "$work/tail.out"; then
  bad "error at the end of a mapped file: no located diagnostic with its source line"
  sed 's/^/  | /' "$work/tail.out" | head -n 5
fi

# The parser gives back the pages of text it is past (every MiB): a
# diagnostic on the first lines of a 4.5 MB module, made after the whole
# module is parsed, still shows its source line.
early=$work/early.mlir
python3 - "$early" <<'EOF'
import sys
lines = ['module {',
         '  func.func @g(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@nomesh, [{}]>}) -> tensor<4xf32> {',
         '    return %a : tensor<4xf32>', '  }']
for i in range(50000):
    lines.append('  func.func @f%d(%%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %%a : tensor<4xf32>\n  }' % i)
open(sys.argv[1], 'w').write('\n'.join(lines + ['}']) + '\n')
EOF
checks=$((checks + 1))
"$shard" check "$early" > "$work/early.out" 2>&1
status=$?
if [ "$status" -ne 1 ] || ! grep -q "^$early:2:3: error: 'func.func' op arg 0 - unknown mesh: @nomesh" "$work/early.out" ||
  ! grep -q '^  func.func @g(%a: tensor<4xf32> {sdy.sharding' "$work/early.out"; then
  bad "diagnostic on the first line of a large module: exit $status"
  sed 's/^/  | /' "$work/early.out" | head -n 5
fi

# A NUL byte inside a mapped file is data the lexer reports.
nul=$work/nul.mlir
python3 - "$big" "$nul" <<'EOF'
import sys
src = open(sys.argv[1], 'rb').read()
at = src.rindex(b'\n//') + 1  # outside every comment: the line of the padding
open(sys.argv[2], 'wb').write(src[:at] + b'\0' + src[at:])
EOF
checks=$((checks + 1))
"$shard" check "$nul" > "$work/nul.out" 2>&1
status=$?
[ "$status" -eq 1 ] || bad "NUL byte in a mapped file: exit $status, expected 1"

echo "input mapping: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
