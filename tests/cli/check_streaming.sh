#!/bin/sh
# `shard check` verifies a module one function at a time and lets each go
# (shard_verify_stream), falling back to the whole module whenever there is
# anything to say: its diagnostics, in content and order, and its exit code
# must be those of the whole-module check (SHARD_CHECK_WHOLE_MODULE=1).
#
#   check_streaming.sh SHARD_BINARY
#
# Modules valid and invalid: calls backwards and forwards, meshes defined
# after their use, recursion, redefined symbols, meshes of different device
# counts, errors in one function of many, parse errors after verified
# functions, module-level ops, inputs without a module or with two, generic
# form, --split-input-file, --Werror and JSON output.
set -u

shard=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/shard-check-stream.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
checks=0

bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# same FILE [OPTION...]: the streamed and the whole-module check agree
same() {
  file=$1
  shift
  checks=$((checks + 1))
  "$shard" check "$@" "$file" >"$work/s.out" 2>"$work/s.err"
  echo "exit $?" >>"$work/s.out"
  SHARD_CHECK_WHOLE_MODULE=1 "$shard" check "$@" "$file" >"$work/w.out" 2>"$work/w.err"
  echo "exit $?" >>"$work/w.out"
  cmp -s "$work/s.out" "$work/w.out" && cmp -s "$work/s.err" "$work/w.err" ||
    bad "$(basename "$file") $*: streamed and whole-module checks differ"
}

mesh='sdy.mesh @mesh = <["x"=2, "y"=4]>'
T='tensor<8x16xf32>'
sh='{sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}'

cat >"$work/valid.mlir" <<EOF
module @m attributes {mhlo.num_partitions = 8 : i32} {
  $mesh
  func.func private @g(%a: $T $sh) -> $T {
    %0 = stablehlo.add %a, %a : $T
    return %0 : $T
  }
  func.func @main(%a: $T $sh) -> $T {
    %0 = func.call @g(%a) : ($T) -> $T
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"y"}]> : $T
    return %1 : $T
  }
}
EOF

cat >"$work/forward_call.mlir" <<EOF
module {
  $mesh
  func.func @main(%a: $T $sh) -> $T {
    %0 = func.call @later(%a) : ($T) -> $T
    return %0 : $T
  }
  func.func private @later(%a: $T) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/mesh_after.mlir" <<EOF
module {
  func.func @main(%a: $T $sh) -> $T {
    return %a : $T
  }
  $mesh
}
EOF

cat >"$work/call_mismatch.mlir" <<EOF
module {
  func.func private @g(%a: $T) -> $T {
    return %a : $T
  }
  func.func @main(%a: tensor<4x16xf32>) -> $T {
    %0 = func.call @g(%a) : (tensor<4x16xf32>) -> $T
    return %0 : $T
  }
}
EOF

cat >"$work/recursion.mlir" <<EOF
module {
  func.func private @f(%a: $T) -> $T {
    %0 = func.call @g(%a) : ($T) -> $T
    return %0 : $T
  }
  func.func private @g(%a: $T) -> $T {
    %0 = func.call @f(%a) : ($T) -> $T
    return %0 : $T
  }
  func.func @main(%a: $T) -> $T {
    %0 = func.call @f(%a) : ($T) -> $T
    return %0 : $T
  }
}
EOF

cat >"$work/self_call.mlir" <<EOF
module {
  func.func @main(%a: $T) -> $T {
    %0 = func.call @main(%a) : ($T) -> $T
    return %0 : $T
  }
}
EOF

cat >"$work/redefined.mlir" <<EOF
module {
  $mesh
  func.func @main(%a: $T $sh) -> $T {
    return %a : $T
  }
  func.func @main(%a: $T) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/device_counts.mlir" <<EOF
module {
  $mesh
  sdy.mesh @small = <["x"=2]>
  func.func @main(%a: $T $sh) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/warnings.mlir" <<EOF
module {
  sdy.mesh @mesh = <["x"=3, "y"=4]>
  func.func @main(%a: $T $sh) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/undefined_mesh.mlir" <<EOF
module {
  func.func @main(%a: $T {sdy.sharding = #sdy.sharding<@nowhere, [{"x"}, {}]>}) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/module_level_op.mlir" <<EOF
module {
  $mesh
  %0 = "test.value"() : () -> $T
  func.func @main(%a: $T) -> $T {
    return %a : $T
  }
}
EOF

cat >"$work/no_module.mlir" <<EOF
$mesh
func.func @main(%a: $T $sh) -> $T {
  %0 = func.call @main(%a) : ($T) -> $T
  return %0 : $T
}
EOF

cat >"$work/two_modules.mlir" <<EOF
module {
  $mesh
  func.func @main(%a: $T $sh) -> $T {
    return %a : $T
  }
}
module {
  func.func @main(%a: $T) -> $T {
    return %a : $T
  }
}
EOF

# many functions, with one error near the end and, separately, a parse error
# after most of them were verified and let go
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
T = 'tensor<8x16xf32>'
def module(n, bad=None, broken=None):
    out = ['module {', '  sdy.mesh @mesh = <["x"=2, "y"=4]>']
    for i in range(n):
        out.append('  func.func @f%d(%%a: %s {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %%b: %s) -> %s {' % (i, T, T, T))
        out.append('    %0 = stablehlo.add %a, %b : ' + T)
        if i == bad:
            out.append('    %1 = sdy.sharding_constraint %0 <@mesh, [{"z"}, {}]> : ' + T)
        else:
            out.append('    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"y"}]> : ' + T)
        if i > 0:
            out.append('    %%2 = func.call @f%d(%%1, %%b) : (%s, %s) -> %s' % (i - 1, T, T, T))
        else:
            out.append('    %2 = stablehlo.multiply %1, %b : ' + T)
        out.append('    return %2 : ' + T if i != broken else '    return %2 : tensor<8x16')
        out.append('  }')
    out.append('}')
    return '\n'.join(out) + '\n'
open(work + '/many.mlir', 'w').write(module(2000))
open(work + '/many_bad.mlir', 'w').write(module(2000, bad=1990))
open(work + '/many_broken.mlir', 'w').write(module(2000, broken=1995))
EOF

for f in "$work"/*.mlir; do
  same "$f"
  same "$f" --format=json
done
same "$work/warnings.mlir" --Werror

"$shard" opt --mlir-print-op-generic "$work/valid.mlir" -o "$work/generic.mlir" || bad "opt --mlir-print-op-generic failed"
"$shard" opt --mlir-print-op-generic "$work/many.mlir" -o "$work/many_generic.mlir" || bad "opt --mlir-print-op-generic failed"
same "$work/generic.mlir"
same "$work/many_generic.mlir"

{
  cat "$work/valid.mlir"
  echo "// -----"
  cat "$work/recursion.mlir"
  echo "// -----"
  cat "$work/forward_call.mlir"
  echo "// -----"
  cat "$work/device_counts.mlir"
} >"$work/split.mlir"
same "$work/split.mlir" --split-input-file

# a clean module stays clean (the streamed answer is not just a fallback's)
checks=$((checks + 1))
"$shard" check "$work/many.mlir" >"$work/clean.out" 2>&1 && [ ! -s "$work/clean.out" ] ||
  bad "many.mlir: expected a clean check"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
