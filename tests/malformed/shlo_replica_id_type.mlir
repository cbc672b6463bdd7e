func.func @rid() -> tensor<i32> {
  %0 = "stablehlo.replica_id"() : () -> tensor<i32>
  return %0 : tensor<i32>
}
