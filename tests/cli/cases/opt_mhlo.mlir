// mhlo ops with a StableHLO twin are read with the twin's syntax, rules and
// verification and print back as mhlo, pretty and generic (`dense <1>`, with
// a space, is read as MLIR reads it). Propagation treats mhlo.add as
// stablehlo.add (elementwise), and `lower --verify` runs mhlo ops.
// RUN: shard opt %s -o %t/p1.mlir
// RUN: shard opt %t/p1.mlir -o %t/p2.mlir
// RUN: cmp %t/p1.mlir %t/p2.mlir
// RUN: shard opt %s --mlir-print-op-generic -o %t/g.mlir
// RUN: shard opt %t/g.mlir -o %t/p3.mlir
// RUN: cmp %t/p1.mlir %t/p3.mlir
// RUN: shard propagate %s -o %t/prop.mlir
// RUN: shard lower --verify %s -o %t/low.mlir > %t/verify.txt 2>&1
// RUN: cat %t/p1.mlir %t/g.mlir %t/prop.mlir %t/verify.txt
// CHECK: %c = mhlo.constant dense<1> : tensor<i32>
// CHECK: mhlo.while(%iterArg = %arg1, %iterArg_1 = %arg0) : tensor<i32>, tensor<8x4xf32> attributes {mhlo.sharding = "{replicated}"}
// CHECK: mhlo.compare  LT, %iterArg, %c_0
// CHECK: mhlo.return
// CHECK: mhlo.reduce(%{{.*}} init: %{{.*}}) applies mhlo.add across dimensions = [1]
// CHECK: mhlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0]
// generic
// CHECK: "mhlo.constant"() {value = dense<1> : tensor<i32>}
// CHECK: "mhlo.while"
// CHECK: "mhlo.compare"(%{{.*}}, %{{.*}}) {comparison_direction = #mhlo<comparison_direction LT>}
// CHECK: "mhlo.reduce"
// CHECK: "mhlo.add"
// CHECK: "mhlo.return"
// CHECK: "mhlo.dot_general"(%arg0, %arg2) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}
// propagated: the sharding of %arg0 flows through mhlo.add
// CHECK: mhlo.add %{{.*}}, %{{.*}} {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
// CHECK: same results on every device
sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<i32>, %arg2: tensor<4x2xf32>) -> (tensor<8xf32>, tensor<8x2xf32>) {
  %c1 = mhlo.constant dense <1> : tensor<i32>
  %c3 = mhlo.constant dense<3> : tensor<i32>
  %w:2 = mhlo.while(%i = %arg1, %x = %arg0) : tensor<i32>, tensor<8x4xf32>
    attributes {mhlo.sharding = "{replicated}"}
    cond {
    %lt = mhlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mhlo.return %lt : tensor<i1>
  } do {
    %n = mhlo.add %i, %c1 : tensor<i32>
    %y = "mhlo.add"(%x, %x) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    mhlo.return %n, %y : tensor<i32>, tensor<8x4xf32>
  }
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %r = mhlo.reduce(%w#1 init: %z) applies mhlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
  %d = mhlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %r, %d : tensor<8xf32>, tensor<8x2xf32>
}
