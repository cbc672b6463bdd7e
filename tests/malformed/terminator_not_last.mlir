func.func @f(%a: tensor<2xf32>) {
  "func.return"() : () -> ()
  "a.b"() : () -> ()
}
