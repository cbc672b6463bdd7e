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
# form, --split-input-file, --Werror and JSON output; and one long function
# with every check that reads across its ops.
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

# one long function (what a streamed function body would see) with each check
# that reads across its ops: use counts, defining ops and their shardings, a
# constant shape operand, dominance, nested regions, isolation, terminators,
# returns, calls and symbols; each placed far apart (with more ops after
# them, or not), at the start and at the end of the function. `shard check`
# verifies such a body a piece at a time and lets each piece go, keeping
# what later ops read of its values (shard_verify_stream_body_ops)
mkdir "$work/long"
python3 - "$work/long" <<'EOF'
import sys
work = sys.argv[1]
n = 3000
T = 'tensor<8x16xf32>'
S = '{sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}'
I = 'tensor<i32>'
WHILE = [
    '%w:2 = stablehlo.while(%it = %i0, %acc = %a) : ' + I + ', ' + T,
    '  cond {',
    '    %lim = stablehlo.constant dense<3> : ' + I,
    '    %p = stablehlo.compare LT, %it, %lim : (' + I + ', ' + I + ') -> tensor<i1>',
    '    stablehlo.return %p : tensor<i1>',
    '  } do {',
    '    %one = stablehlo.constant dense<1> : ' + I,
    '    %nx = stablehlo.add %it, %one : ' + I,
    '    %m = stablehlo.multiply %acc, %far : ' + T,
    '    stablehlo.return %nx, %m : ' + I + ', ' + T,
    '  }',
]
# name: (ops near the start, ops near the end, return line or None)
cases = {
    'dfe_ok': (['%d0 = stablehlo.add %a, %a : ' + T], ['%d1 = sdy.data_flow_edge %d0 sharding=<@mesh, [{"x"}, {}]> : ' + T], None),
    'dfe_two_users': (['%d0 = stablehlo.add %a, %a : ' + T, '%d1 = sdy.data_flow_edge %d0 : ' + T],
                      ['%d2 = stablehlo.add %d0, %d0 : ' + T], None),
    'dfe_sdy_def': (['%d0 = sdy.sharding_constraint %a <@mesh, [{}, {}]> : ' + T], ['%d1 = sdy.data_flow_edge %d0 : ' + T], None),
    'fdfe_arg': ([], ['%d1 = sdy.func_data_flow_edge %b : ' + T], None),
    'fdfe_not_call': (['%d0 = stablehlo.add %a, %a : ' + T], ['%d1 = sdy.func_data_flow_edge %d0 : ' + T], None),
    'constraint_far_def': (['%d0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced=max{"y"}>]>} : ' + T],
                           ['%d1 = sdy.sharding_constraint %d0 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'constraint_far_def_bad': (['%d0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : ' + T],
                               ['%d1 = sdy.sharding_constraint %d0 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'constraint_barrier': (['%d0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced=max{"y"}>]>} : ' + T,
                            '%d1 = sdy.propagation_barrier %d0 allowed_direction=NONE : ' + T],
                           ['%d2 = sdy.sharding_constraint %d1 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'constraint_barrier_bad': (['%d0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : ' + T,
                                '%d1 = sdy.propagation_barrier %d0 allowed_direction=NONE : ' + T],
                               ['%d2 = sdy.sharding_constraint %d1 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'collective_far_def': (['%d0 = sdy.sharding_constraint %a <@mesh, [{}, {"y"}]> : ' + T],
                           ['%d1 = sdy.all_gather [{}, {"y"}] %d0 out_sharding=<@mesh, [{}, {}]> : ' + T], None),
    'collective_bad': (['%d0 = sdy.sharding_constraint %a <@mesh, [{}, {}]> : ' + T],
                       ['%d1 = sdy.all_gather [{}, {"y"}] %d0 out_sharding=<@mesh, [{}, {}]> : ' + T], None),
    'use_before_def': (['%d1 = stablehlo.add %d0, %a : ' + T], ['%d0 = stablehlo.add %a, %a : ' + T], None),
    'own_result_in_region': ([], ['%w:2 = stablehlo.while(%it = %i0, %acc = %a) : ' + I + ', ' + T,
                                  '  cond {', '    %p = stablehlo.compare LT, %it, %it : (' + I + ', ' + I + ') -> tensor<i1>',
                                  '    stablehlo.return %p : tensor<i1>', '  } do {',
                                  '    stablehlo.return %it, %w#1 : ' + I + ', ' + T, '  }'], None),
    'while_outer_value': (['%i0 = stablehlo.constant dense<0> : ' + I, '%far = stablehlo.add %a, %a : ' + T], WHILE, None),
    'while_dfe': (['%i0 = stablehlo.constant dense<0> : ' + I, '%far = stablehlo.add %a, %a : ' + T],
                  WHILE + ['%d1 = sdy.data_flow_edge %w#1 sharding=<@mesh, [{"x"}, {}]> : ' + T], None),
    'while_dfe_then_constraint': (['%i0 = stablehlo.constant dense<0> : ' + I, '%far = stablehlo.add %a, %a : ' + T] + WHILE +
                                  ['%d2 = sdy.all_gather [{}, {"y"}] %w#1 out_sharding=<@mesh, [{}, {}]> : ' + T],
                                  ['%d1 = sdy.data_flow_edge %w#1 sharding=<@mesh, [{}, {"y"}], unreduced={"x"}> : ' + T], None),
    'manual_isolation': (['%far = stablehlo.slice %a [0:4, 0:16] : (' + T + ') -> tensor<4x16xf32>'],
                         ['%d1 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<4x16xf32>) {',
                          '  %q = stablehlo.add %l, %far : tensor<4x16xf32>', '  sdy.return %q : tensor<4x16xf32>', '} : (' + T + ') -> ' + T], None),
    'dynamic_shape_far': (['%s0 = stablehlo.constant dense<[16, 9]> : tensor<2xi64>'],
                          ['%d1 = stablehlo.dynamic_reshape %a, %s0 : (' + T + ', tensor<2xi64>) -> tensor<16x8xf32>'], None),
    'dynamic_shape_ok': (['%s0 = stablehlo.constant dense<[16, 8]> : tensor<2xi64>'],
                         ['%d1 = stablehlo.dynamic_reshape %a, %s0 : (' + T + ', tensor<2xi64>) -> tensor<16x8xf32>'], None),
    'redefined_ssa': (['%d0 = stablehlo.add %a, %a : ' + T], ['%d0 = stablehlo.add %a, %a : ' + T], None),
    'op_after_return': ([], [], 'return %a : ' + T + '\n    %z = stablehlo.add %a, %a : ' + T),
    'no_return': ([], [], '%z = stablehlo.add %a, %a : ' + T),
    'return_type': ([], [], 'return %i9 : tensor<i32>'),
    'return_count': ([], [], 'return %a, %a : ' + T + ', ' + T),
    'call_later_mismatch': ([], ['%d1 = func.call @later(%a) : (' + T + ') -> ' + T], None),
    'call_recursive': ([], ['%d1 = func.call @back(%a, %b) : (' + T + ', ' + T + ') -> ' + T], None),
    'unknown_mesh': ([], ['%d1 = sdy.sharding_constraint %a <@nomesh, [{}, {}]> : ' + T], None),
    'return_not_last_early': (['return %a : ' + T], [], None),
    # values of ops let go inside a streamed body: their per-result
    # shardings, the function's argument shardings, their types
    'multi_result_far': (['%d0:2 = "stablehlo.optimization_barrier"(%a, %b) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"x"}, {}], unreduced=max{"y"}>]>} : (' + T + ', ' + T + ') -> (' + T + ', ' + T + ')'],
                         ['%d1 = sdy.sharding_constraint %d0#1 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'multi_result_far_bad': (['%d0:2 = "stablehlo.optimization_barrier"(%a, %b) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}], unreduced=max{"y"}>, <@mesh, [{"x"}, {}]>]>} : (' + T + ', ' + T + ') -> (' + T + ', ' + T + ')'],
                             ['%d1 = sdy.sharding_constraint %d0#1 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'arg_constraint': ([], ['%d1 = sdy.sharding_constraint %a <@mesh, [{}, {"y"}]> : ' + T], None),
    'arg_constraint_bad': ([], ['%d1 = sdy.sharding_constraint %a <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'inline_mesh_far': (['%d0 = sdy.sharding_constraint %a <mesh<["x"=2, "y"=4]>, [{"x"}, {}]> : ' + T],
                        ['%d1 = sdy.sharding_constraint %d0 <@mesh, [{"x"}, {}]> : ' + T], None),
    'inline_mesh_far_bad': (['%d0 = sdy.sharding_constraint %a <mesh<["x"=2, "y"=4]>, [{"x"}, {}]> : ' + T],
                            ['%d1 = sdy.sharding_constraint %d0 <@mesh, [{}, {}], unreduced=max{"y"}> : ' + T], None),
    'use_type_far': (['%d0 = stablehlo.add %a, %a : ' + T],
                     ['%d1 = "stablehlo.abs"(%d0) : (tensor<4x16xf32>) -> tensor<4x16xf32>'], None),
    'dot_far': (['%d0 = stablehlo.transpose %a, dims = [1, 0] : (' + T + ') -> tensor<16x8xf32>'],
                ['%d1 = stablehlo.dot_general %a, %d0, contracting_dims = [1] x [0] : (' + T + ', tensor<16x8xf32>) -> tensor<8x8xf32>'], None),
    # calls and ops with regions let go in a piece
    'call_early': (['%d1 = func.call @back(%a, %b) : (' + T + ', ' + T + ') -> ' + T], [], None),
    'call_early_bad': (['%d1 = func.call @back(%a, %b) : (' + T + ', ' + T + ') -> tensor<8x8xf32>'], [], None),
    'call_recursive_early': (['%d1 = func.call @back(%a, %b) : (' + T + ', ' + T + ') -> ' + T], [], None),
    'reduce_far': (['%z = stablehlo.constant dense<0.0> : tensor<f32>'],
                   ['%d0 = stablehlo.reduce(%a init: %z) across dimensions = [1] : (' + T + ', tensor<f32>) -> tensor<8xf32>',
                    ' reducer(%x: tensor<f32>, %y: tensor<f32>) {',
                    '  %m = stablehlo.maximum %x, %z : tensor<f32>',
                    '  stablehlo.return %m : tensor<f32>', '}'], None),
    'reduce_far_bad': (['%z = stablehlo.constant dense<0.0> : tensor<f32>'],
                       ['%d0 = stablehlo.reduce(%a init: %z) across dimensions = [1] : (' + T + ', tensor<f32>) -> tensor<8xf32>',
                        ' reducer(%x: tensor<i32>, %y: tensor<i32>) {',
                        '  %m = stablehlo.maximum %x, %y : tensor<i32>',
                        '  stablehlo.return %m : tensor<i32>', '}'], None),
    'dot_far_bad': (['%d0 = stablehlo.transpose %a, dims = [1, 0] : (' + T + ') -> tensor<16x8xf32>'],
                    ['%d1 = stablehlo.dot_general %a, %d0, contracting_dims = [0] x [0] : (' + T + ', tensor<16x8xf32>) -> tensor<8x8xf32>'], None),
}
def func(head, tail, ret, where):
    out = ['  func.func @main(%a: ' + T + ' ' + S + ', %b: ' + T + ') -> ' + T + ' {',
           '    %i9 = stablehlo.constant dense<0> : ' + I]
    filler = ['    %%f%d = stablehlo.add %s, %%a : %s' % (i, '%a' if i == 0 else '%%f%d' % (i - 1), T) for i in range(n)]
    after = ['    %%g%d = stablehlo.multiply %s, %%b : %s' % (i, '%b' if i == 0 else '%%g%d' % (i - 1), T) for i in range(n)]
    h = ['    ' + l for l in head]
    t = ['    ' + l for l in tail]
    if where == 'far':
        body = h + filler + t
    elif where == 'mid':  # the later ops checked in a piece let go too
        body = h + filler + t + after
    elif where == 'start':
        body = h + t + filler
    else:
        body = filler + h + t
    out += body
    out.append('    ' + (ret or 'return %a : ' + T))
    out.append('  }')
    return out
for name, (head, tail, ret) in cases.items():
    for where in ('far', 'mid', 'start', 'end'):
        m = ['module {', '  sdy.mesh @mesh = <["x"=2, "y"=4]>',
             '  func.func private @back(%a: ' + T + ', %b: ' + T + ') -> ' + T + ' {',
             '    %0 = func.call @main(%a, %b) : (' + T + ', ' + T + ') -> ' + T if name.startswith('call_recursive') else '    %0 = stablehlo.add %a, %b : ' + T,
             '    return %0 : ' + T, '  }']
        m += func(head, tail, ret, where)
        m += ['  func.func private @later(%a: ' + T + ') -> tensor<8x8xf32> {',
              '    %0 = stablehlo.slice %a [0:8, 0:8] : (' + T + ') -> tensor<8x8xf32>',
              '    return %0 : tensor<8x8xf32>', '  }', '}']
        open('%s/long_%s_%s.mlir' % (work, name, where), 'w').write('\n'.join(m) + '\n')
EOF
for f in "$work"/long/*.mlir; do
  same "$f"
done

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
