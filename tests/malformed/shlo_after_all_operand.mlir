func.func @aa(%a: tensor<f32>) -> !stablehlo.token {
  %0 = "stablehlo.after_all"(%a) : (tensor<f32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}
