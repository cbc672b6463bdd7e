// A manual computation over "x": its body sees 4x256 pieces of the
// argument (4096 bytes per device), in the argument's own buffer.
sdy.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<4x256xf32>) {
    %t = stablehlo.tanh %b : tensor<4x256xf32>
    %u = stablehlo.exponential %t : tensor<4x256xf32>
    sdy.return %u : tensor<4x256xf32>
  } : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}
