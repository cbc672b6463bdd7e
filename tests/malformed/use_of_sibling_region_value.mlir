func.func @f(%a: tensor<2xf32>) {
  "a.r"() ({
    "a.use"(%x) : (tensor<2xf32>) -> ()
    "a.end"() : () -> ()
  }, {
    %x = "a.def"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    "a.end"() : () -> ()
  }) : () -> ()
  return
}
