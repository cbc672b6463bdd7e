// --args feeds @main as stablehlo-translate does, with its errors for text
// that is not an array of dense attributes; @main with arguments but no
// --args says so; --interpreter-print-dense prints results as attributes.
// RUN: shard interpret %s --interpret --args="[dense<1> : tensor<2xi32>, dense<[2, 5]> : tensor<2xi32>]"
// RUN: shard interpret -q --interpreter-print-dense --args="[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]" %s
// RUN: not shard interpret %s --args="not_array"
// RUN: not shard interpret %s --args="[4.0 : f32]"
// RUN: not shard interpret %s --args="[dense<1> : tensor<3xi32>, dense<2> : tensor<2xi32>]"
// RUN: not shard interpret %s
// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [3, 6]
// CHECK-NEXT: }
// CHECK-NEXT: dense<3> : tensor<2xi32>
// ERR: shard interpret: 0 checks passed
// ERR: error: expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// ERR: error: expected dense elements attribute for args elements, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// ERR: interpret_args.mlir:[[@LINE+3]]:1: error: invalid input argument type at index 0, input type was tensor<3xi32> but entry function expected tensor<2xi32>
// ERR: interpret_args.mlir:[[@LINE+2]]:1: error: incorrect number of arguments specified, provided 0 inputs but function expected 2 (give them with --args=
// ERR-NOT: checks passed
func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}
