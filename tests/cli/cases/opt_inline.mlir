// -inline replaces calls by the callee's body and erases the private
// functions nothing calls any more, as stablehlo-opt -inline does.
// RUN: shard opt -inline %s
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<2> : tensor<i32>
// CHECK-NEXT:    %[[A:.*]] = stablehlo.add %[[C]], %[[C]] : tensor<i32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.add %[[A]], %[[A]] : tensor<i32>
// CHECK-NEXT:    return %[[B]] : tensor<i32>
// CHECK-NOT: call
// CHECK-NOT: @twice
func.func private @twice(%x: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.add %x, %x : tensor<i32>
  return %0 : tensor<i32>
}
func.func @main() -> tensor<i32> {
  %c = stablehlo.constant dense<2> : tensor<i32>
  %0 = call @twice(%c) : (tensor<i32>) -> tensor<i32>
  %1 = call @twice(%0) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}
