// 1024 x 1024 results of 1024 products each: 2^30 multiply-adds, four
// times the interpreter's cap for one op (about ten seconds of it).
sdy.mesh @mesh = <["x"=2]>

func.func @big(%arg0: tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
