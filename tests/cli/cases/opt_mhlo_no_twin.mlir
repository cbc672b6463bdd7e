// An mhlo op without a StableHLO twin (mhlo.copy, mhlo.topk) is accepted in
// generic form, without -allow-unregistered-dialect, and prints back so; an
// mhlo op with a twin is checked as its twin and named as written.
// RUN: shard opt %s -split-input-file -o %t/p.mlir
// RUN: cat %t/p.mlir
// RUN: not shard opt %S/inputs/mhlo_bad_add.mlir 2> %t/err.txt
// RUN: cat %t/err.txt
// CHECK: "mhlo.copy"(%arg0) {is_cross_program_prefetch} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: mhlo.custom_call @MoveToHost(%0) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %0:2 = "mhlo.topk"(%arg0) <{k = 2 : i64}> : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)
// CHECK: error: 'mhlo.add' op requires the same shape for all operands and results
func.func @copy(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.copy"(%arg0) {is_cross_program_prefetch} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = mhlo.custom_call @MoveToHost(%0) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @topk(%arg0: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %values, %indices = "mhlo.topk"(%arg0) <{k = 2 : i64}> : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %values, %indices : tensor<2xf32>, tensor<2xi32>
}
