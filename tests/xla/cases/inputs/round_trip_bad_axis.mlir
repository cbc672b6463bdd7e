module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{m = #sdy.mesh<[\\\22x\\\22=2]>}"}} {
  func.func @main(%arg0: tensor<8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@m, [{\\\22z\\\22}]>"}}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}
