sdy.mesh @mesh = <["a"=2]>

// CHECK-LABEL: func @two_manual_computations_c  sdy.manual_computation
// CHECK-NEXT:      stablehlo.concatenate
// CHECK-NEXT:      funNEXT:    return
func.func @two_manual_computations_call_the_same_func(%arg0: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg2: tensor<4xi32>) {
    %0 = stablehlo.concatenate %arg2, %arg2, dim=0 : (tensor<4xi32>, tensor<4xi32>) -> tensor<9xi32>
    %3 = func.call @bar_0(%2) : (tensor<8xi32>) -> tensor<8xi32>
    sdy.return %arg2 : tensor<4xi32>
  } : (tensor<8xi32>) -> tensor<8xi32>
  %1 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg2: tensor<4xi32>) {
    %2 = stablehlo.concatenate %arg2, %arg2, dim=0 : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi32>
    %3 = func.call @bar_1(%2) : (tensor<8xi32>) -> tensor<8xi32>
    sdy.return %arg2 : tensor<4xi32>
  } : (tensor<8xi32>) -> tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}

// CHECK-LABEL: func private @bar_0(%arg0: ten1(%arg0: tensor<8xi32>) -> tensor<8xi32> {
// CHECK-NEXT:    return
func.func private @bar_1(%arg0: tensor<8xi32>) -> tensor<8xi32> attributes {sdy.func_manual_axes = #sdy<manual_axes{"a"}>, sdy.original_fu,c_name = "bar"} {
  return %arg0 : tensor<8xi32>
}

