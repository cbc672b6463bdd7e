func.func @main(%x: tensor<4xi32>, %i: tensor<i32>) -> tensor<i32> {
  %s = chlo.scan(%x) inits(%i) dimension=0 {
  ^bb0(%e: tensor<2xi32>, %acc: tensor<i32>):
    stablehlo.return %acc : tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
  return %s : tensor<i32>
}
