#!/bin/sh
# opt, propagate and lower print a module straight to its destination, a
# window at a time (src/cli/output.c, shard_buf_drain): the text must be the
# same as when it is gathered first.
#
#   output_streaming.sh SHARD_BINARY
#
# On a generated module of some megabytes (many windows):
#   - opt's streamed output is the first module of what --split-input-file
#     gathers for the same module written twice;
#   - propagate and lower print the same text to -o FILE and to stdout;
#     lower --plan on stdout is the module, then the plan (the plan of a
#     -o run);
#   - a write error in the middle of the stream (a full device, when mknod
#     is allowed) is exit 3 with the reason, and a failed command leaves an
#     existing -o file as it was.
set -u

shard=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/shard-stream.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
checks=0

bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }

big=$work/big.mlir
python3 - "$big" <<'EOF'
import sys
out = ['module {', '  sdy.mesh @mesh = <["x"=2, "y"=4]>']
for i in range(3000):
    out.append('  func.func @f%d(%%a: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, '
               '%%b: tensor<8x16xf32>) -> tensor<8x16xf32> {' % i)
    out.append('    %0 = stablehlo.add %a, %b : tensor<8x16xf32>')
    out.append('    %1 = stablehlo.multiply %0, %b : tensor<8x16xf32>')
    out.append('    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {"y"}]> : tensor<8x16xf32>')
    out.append('    return %2 : tensor<8x16xf32>')
    out.append('  }')
out.append('}')
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
EOF

# opt: streamed vs gathered
twice=$work/twice.mlir
{ cat "$big"; echo "// -----"; cat "$big"; } > "$twice"
check
"$shard" opt "$big" -o "$work/opt.mlir" || bad "opt failed"
"$shard" opt --split-input-file "$twice" -o "$work/opt2.mlir" || bad "opt --split-input-file failed"
python3 - "$work/opt.mlir" "$work/opt2.mlir" <<'EOF' || bad "opt: streamed output differs from the gathered one"
import sys
one, two = open(sys.argv[1]).read(), open(sys.argv[2]).read()
first = two.split('// -----\n')[0]
sys.exit(0 if len(one) > 1 << 20 and one == first else 1)
EOF

# propagate and lower: -o FILE vs stdout
for cmd in propagate lower; do
  check
  "$shard" $cmd "$big" -o "$work/$cmd.file.mlir" || bad "$cmd -o failed"
  "$shard" $cmd "$big" > "$work/$cmd.stdout.mlir" || bad "$cmd to stdout failed"
  cmp -s "$work/$cmd.file.mlir" "$work/$cmd.stdout.mlir" || bad "$cmd: -o and stdout differ"
done
check
"$shard" lower --plan "$big" -o "$work/plan.module.mlir" > "$work/plan.txt" || bad "lower --plan -o failed"
"$shard" lower --plan "$big" > "$work/plan.all.txt" || bad "lower --plan to stdout failed"
cat "$work/plan.module.mlir" "$work/plan.txt" | cmp -s - "$work/plan.all.txt" ||
  bad "lower --plan on stdout is not the module followed by the plan"
grep -q '^// communication plan' "$work/plan.txt" || bad "lower --plan printed no plan"

# a write error in the middle
if [ "$(id -u)" = 0 ] && mknod "$work/full" c 1 7 2> /dev/null; then
  for cmd in opt propagate lower; do
    check
    "$shard" $cmd "$big" -o "$work/full" > /dev/null 2> "$work/err"
    status=$?
    [ "$status" -eq 3 ] || bad "$cmd -o full device: exit $status, expected 3"
    grep -q "No space left on device" "$work/err" || bad "$cmd -o full device: no reason given"
  done
else
  echo "SKIP: -o onto a full device mid-stream (mknod needs root)"
fi

# a failed command leaves an existing -o file as it was
check
echo "keep me" > "$work/keep.mlir"
printf 'module {\n  func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %%b : tensor<4xf32>\n  }\n}\n' > "$work/bad.mlir"
for cmd in opt propagate lower; do
  "$shard" $cmd "$work/bad.mlir" -o "$work/keep.mlir" 2> /dev/null && bad "$cmd of a bad module succeeded"
  [ "$(cat "$work/keep.mlir")" = "keep me" ] || bad "$cmd of a bad module changed the -o file"
done

echo "output streaming: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
