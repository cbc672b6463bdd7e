module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{m = #sdy.mesh<[\\\22x\\\22=2, \\\22y\\\22=2]>}"}} {
  func.func @main(%arg0: tensor<8x8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@m, [{\\\22x\\\22}, {}]>"}}) -> tensor<8x8xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>
    %1 = stablehlo.custom_call @xla.sdy.FuncResultSharding(%0) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@m, [{\\\22x\\\22}, {\\\22y\\\22}]>]>"}} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
