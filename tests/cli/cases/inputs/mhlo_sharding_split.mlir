func.func @a(%arg0: tensor<8x2xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> tensor<8x2xi32> {
  return %arg0 : tensor<8x2xi32>
}

// -----

func.func @b(%arg0: tensor<8x2xi32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> tensor<8x2xi32> {
  return %arg0 : tensor<8x2xi32>
}
