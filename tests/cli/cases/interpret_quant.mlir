// Quantized element types in the interpreter. Values of a quantized type are
// their storage integers; expected values are worked by hand from the spec:
// quantize(x) = clamp(round_half_even(x / scale) + zero_point, storage range),
// dequantize(q) = (q - zero_point) * scale; other ops dequantize, compute and
// quantize their results.
// RUN: shard interpret -split-input-file %s
// ERR: 11 checks passed

// per tensor: ties round to even (0.5 -> 0, 1.5 -> 2, -0.5 -> -0, 2.5 -> 2),
// 200 and -200 clamp to the i8 range
func.func @main() {
  %x = stablehlo.constant dense<[0.25, 0.75, -0.25, 1.25, 100.0, -100.0, 1.0]> : tensor<7xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<7xf32>) -> tensor<7x!quant.uniform<i8:f32, 0.5:1>>
  check.expect_eq_const %q, dense<[1, 3, 1, 3, 127, -128, 3]> : tensor<7x!quant.uniform<i8:f32, 0.5:1>>
  // an explicit storage range clamps to it; unsigned storage clamps to [0, 255]
  %r = stablehlo.uniform_quantize %x : (tensor<7xf32>) -> tensor<7x!quant.uniform<i8<-10:10>:f32, 0.5:1>>
  %rb = stablehlo.bitcast_convert %r : (tensor<7x!quant.uniform<i8<-10:10>:f32, 0.5:1>>) -> tensor<7xi8>
  check.expect_eq_const %rb, dense<[1, 3, 1, 3, 10, -10, 3]> : tensor<7xi8>
  %u = stablehlo.uniform_quantize %x : (tensor<7xf32>) -> tensor<7x!quant.uniform<u8:f32, 0.5:128>>
  %ub = stablehlo.bitcast_convert %u : (tensor<7x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<7xui8>
  check.expect_eq_const %ub, dense<[128, 130, 128, 130, 255, 0, 130]> : tensor<7xui8>
  func.return
}

// -----

// a constant holds storage values; dequantize, and requantize to another scale
func.func @main() {
  %c = stablehlo.constant dense<[1, 3, 127, -128]> : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %d = stablehlo.uniform_dequantize %c : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4xf32>
  check.expect_eq_const %d, dense<[0.0, 1.0, 63.0, -64.5]> : tensor<4xf32>
  %s = stablehlo.constant dense<[10, -6]> : tensor<2x!quant.uniform<i8:f32, 0.5:2>>
  %t = stablehlo.uniform_quantize %s : (tensor<2x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<2x!quant.uniform<i8:f32, 0.25:-5>>
  %tb = stablehlo.bitcast_convert %t : (tensor<2x!quant.uniform<i8:f32, 0.25:-5>>) -> tensor<2xi8>
  check.expect_eq_const %tb, dense<[11, -21]> : tensor<2xi8>
  func.return
}

// -----

// per axis: column k has its own scale and zero point; transposing moves the
// quantization dimension, and dequantizing uses the result's
func.func @main() {
  %x = stablehlo.constant dense<[[1.0, 4.0, 1.0], [-1.0, -3.0, 0.125]]> : tensor<2x3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 2.0:-1, 0.25:4}>>
  %qb = stablehlo.bitcast_convert %q : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 2.0:-1, 0.25:4}>>) -> tensor<2x3xi8>
  check.expect_eq_const %qb, dense<[[2, 1, 8], [-2, -3, 4]]> : tensor<2x3xi8>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 2.0:-1, 0.25:4}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.5, 2.0:-1, 0.25:4}>>
  %tb = stablehlo.bitcast_convert %t : (tensor<3x2x!quant.uniform<i8:f32:0, {0.5, 2.0:-1, 0.25:4}>>) -> tensor<3x2xi8>
  check.expect_eq_const %tb, dense<[[2, -2], [1, -3], [8, 4]]> : tensor<3x2xi8>
  %d = stablehlo.uniform_dequantize %t : (tensor<3x2x!quant.uniform<i8:f32:0, {0.5, 2.0:-1, 0.25:4}>>) -> tensor<3x2xf32>
  check.expect_eq_const %d, dense<[[1.0, -1.0], [4.0, -4.0], [1.0, 0.0]]> : tensor<3x2xf32>
  func.return
}

// -----

// dequantize_op_quantize: 1.0 + 1.0 and 0.5 + 2.0 in the floats, 2.5 rounds
// to the even 2 in the result's scale 1.0; maximum in the result's scale 0.5
func.func @main() {
  %a = stablehlo.constant dense<[2, 4]> : tensor<2x!quant.uniform<i8:f32, 0.5>>
  %b = stablehlo.constant dense<[5, 3]> : tensor<2x!quant.uniform<i8:f32, 0.25:1>>
  %s = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  check.expect_eq_const %s, dense<[2, 2]> : tensor<2x!quant.uniform<i8:f32, 1.0>>
  %m = stablehlo.maximum %a, %b : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  check.expect_eq_const %m, dense<[2, 4]> : tensor<2x!quant.uniform<i8:f32, 0.5>>
  func.return
}

// -----

// u32 storage with f16 as the expressed type: the storage maximum rounds to
// infinity in f16, so an infinite value saturates at 4294967295; -1.0 clamps to 0
func.func @main() {
  %x = stablehlo.constant dense<[65504.0, 0x7C00, -1.0]> : tensor<3xf16>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf16>) -> tensor<3x!quant.uniform<u32:f16, 1.0>>
  check.expect_eq_const %q, dense<[65504, 4294967295, 0]> : tensor<3x!quant.uniform<u32:f16, 1.0>>
  func.return
}
