// stablehlo-translate --interpret's contract: -split-input-file cuts at
// every `// -----`, a commented-out one too (as mlir does); a chunk without
// @main runs its only function and prints the results the way
// Tensor::print does; custom_call @check.* are the testdata's checks, with
// ULPs counted in the element type (f16 here); an empty module runs nothing.
// RUN: shard interpret -split-input-file %s
// CHECK:      tensor<2x2xi8> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [1, 2],
// CHECK-NEXT:     [3, -4]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<3xf32> {
// CHECK-NEXT:   [1.000000e+00, 2.16367912, -5.69104915E-4]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<ui8> {255}
// CHECK-NEXT: tensor<2xcomplex<f32>> {
// CHECK-NEXT{LITERAL}:   [[1.500000e+00, -2.000000e+00], [0.000000e+00, 1.000000e+00]]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2xf16> {
// CHECK-NEXT:   [1.000000e+00, 1.001950e+00]
// CHECK-NEXT: }
// CHECK-NOT: tensor
// ERR: shard interpret: 3 checks passed
func.func @only() -> (tensor<2x2xi8>, tensor<3xf32>, tensor<ui8>, tensor<2xcomplex<f32>>) {
  %a = stablehlo.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %b = stablehlo.constant dense<[1.0, 2.16367912, -5.69104915E-4]> : tensor<3xf32>
  %c = stablehlo.constant dense<255> : tensor<ui8>
  %d = stablehlo.constant dense<[(1.5, -2.0), (0.0, 1.0)]> : tensor<2xcomplex<f32>>
  func.return %a, %b, %c, %d : tensor<2x2xi8>, tensor<3xf32>, tensor<ui8>, tensor<2xcomplex<f32>>
}

// // -----

func.func private @helper() -> tensor<2xf16> {
  %x = stablehlo.constant dense<[1.0, 1.0019531]> : tensor<2xf16>
  func.return %x : tensor<2xf16>
}
func.func @main() -> tensor<2xf16> {
  %0 = call @helper() : () -> tensor<2xf16>
  // 1.0 + 3 f16 ULPs (3 * 2^-10) is within expect_close's 3 ULPs of f16
  %1 = stablehlo.constant dense<[1.0, 1.0029297]> : tensor<2xf16>
  stablehlo.custom_call @check.expect_close(%1, %0) {has_side_effect = true} : (tensor<2xf16>, tensor<2xf16>) -> ()
  %2 = stablehlo.constant dense<[1.0, 1.0019531]> : tensor<2xf16>
  stablehlo.custom_call @check.expect_eq(%2, %0) {has_side_effect = true} : (tensor<2xf16>, tensor<2xf16>) -> ()
  stablehlo.custom_call @check.expect_almost_eq(%1, %0) {has_side_effect = true} : (tensor<2xf16>, tensor<2xf16>) -> ()
  return %0 : tensor<2xf16>
}

// -----

module {
}
