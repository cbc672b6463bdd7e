// An mhlo op without a StableHLO twin (mhlo.topk) is accepted in generic
// form, without -allow-unregistered-dialect, and prints back so, except
// mhlo.copy, which prints in mhlo's pretty form (`mhlo.copy %x : T`); an
// mhlo op with a twin is checked as its twin and named as written. mhlo's
// attribute spellings (#mhlo<comparison_direction LT>, #mhlo.rng_algorithm<V>)
// are read and printed back; mhlo.rng_bit_generator, which has no custom
// syntax in mhlo, prints generic.
// RUN: shard opt %s -split-input-file -o %t/p.mlir
// RUN: shard opt %s -split-input-file -mlir-print-op-generic -o %t/g.mlir
// RUN: cat %t/p.mlir %t/g.mlir
// RUN: not shard opt %S/inputs/mhlo_bad_add.mlir 2> %t/err.txt
// RUN: cat %t/err.txt
// CHECK: mhlo.copy %arg0 {is_cross_program_prefetch} : tensor<4xf32>
// CHECK: mhlo.custom_call @MoveToHost(%0) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %0:2 = "mhlo.topk"(%arg0) <{k = 2 : i64}> : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)
// CHECK: %0 = mhlo.compare  LT, %cst, %cst : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %output_state, %output = "mhlo.rng_bit_generator"(%arg0) <{rng_algorithm = #mhlo.rng_algorithm<THREE_FRY>}>
// CHECK: "mhlo.copy"(%arg0) {is_cross_program_prefetch} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "mhlo.compare"(%{{.*}}, %{{.*}}) {comparison_direction = #mhlo<comparison_direction LT>}
// CHECK: "mhlo.rng_bit_generator"(%arg0) {rng_algorithm = #mhlo.rng_algorithm<THREE_FRY>}
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

// -----

func.func @attrs(%arg0: tensor<2xui64>) -> (tensor<i1>, tensor<4xui32>) {
  %c = mhlo.constant dense<1.0> : tensor<f32>
  %0 = "mhlo.compare"(%c, %c) {comparison_direction = #mhlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %1:2 = "mhlo.rng_bit_generator"(%arg0) <{rng_algorithm = #mhlo.rng_algorithm<THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %0, %1#1 : tensor<i1>, tensor<4xui32>
}
