// Ops of dialects shard opt does not register print in generic form as
// sdy_opt prints them, properties in <{...}> apart from the attribute
// dictionary, also through a generic print (mlir-opt >= 17 syntax; an
// unknown op's properties cannot be told from its attributes otherwise).
// StableHLO's test dialects check.* and interpreter.* are registered by
// stablehlo-opt, not by sdy_opt, so they print in generic form too.
// RUN: shard opt -allow-unregistered-dialect %s > %t/pretty.mlir
// RUN: shard opt -allow-unregistered-dialect --mlir-print-op-generic %s > %t/generic.mlir
// RUN: shard opt -allow-unregistered-dialect %t/generic.mlir > %t/back.mlir
// RUN: diff %t/pretty.mlir %t/back.mlir
// RUN: cat %t/pretty.mlir %t/generic.mlir
// CHECK-LABEL: module {
// CHECK: %0 = "foo.bar"(%arg0) <{p = 1 : i32}> {q = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "interpreter.print"(%0) : (tensor<4xf32>) -> ()
// CHECK-NEXT: "check.expect_eq"(%0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: "check.expect_eq"(%0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-LABEL: "builtin.module"() ({
// CHECK: %0 = "foo.bar"(%arg0) <{p = 1 : i32}> {q = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "interpreter.print"(%0) : (tensor<4xf32>) -> ()
func.func @main(%arg0: tensor<4xf32>) {
  %0 = "foo.bar"(%arg0) <{p = 1 : i32}> {q = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  "interpreter.print"(%0) : (tensor<4xf32>) -> ()
  "check.expect_eq"(%0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()
  check.expect_eq %0, %arg0 : tensor<4xf32>
  return
}
