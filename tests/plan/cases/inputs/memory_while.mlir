// A loop carrying a sharded state (16x256xf32 over x=4: 4096 bytes per
// device) and a counter. The argument is not donated, so the state is a
// buffer of its own, live for the whole loop and becoming the result.
sdy.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %s = %arg0) : tensor<i32>, tensor<16x256xf32>
  cond {
    %lim = stablehlo.constant dense<10> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %s2 = stablehlo.tanh %s : tensor<16x256xf32>
    stablehlo.return %i2, %s2 : tensor<i32>, tensor<16x256xf32>
  }
  return %r#1 : tensor<16x256xf32>
}
