// RUN: shard opt %s -split-input-file -verify-diagnostics
// Quantized element types that break StableHLO's constraints are located
// errors (at the offending token).

// expected-error @+1 {{scale 0.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]}}
func.func @zero_scale(%a: tensor<2x!quant.uniform<i8:f32, 0.0:3>>)

// -----

// expected-error @+1 {{zero point 300 is outside the storage range [-128, 127]}}
func.func @zero_point(%a: tensor<2x!quant.uniform<i8:f32, 0.1:300>>)

// -----

// expected-error @+1 {{zero point 20 is outside the storage range [-10, 10]}}
func.func @zero_point_range(%a: tensor<2x!quant.uniform<i8<-10:10>:f32, 0.1:20>>)

// -----

// expected-error @+1 {{illegal quantized storage type alias}}
func.func @float_storage(%a: tensor<2x!quant.uniform<f8:f32, 0.1>>)

// -----

// expected-error @+1 {{illegal storage type size: 64}}
func.func @wide_storage(%a: tensor<2x!quant.uniform<i64:f32, 0.1>>)

// -----

// expected-error @+1 {{illegal storage type minimum: -200}}
func.func @storage_min(%a: tensor<2x!quant.uniform<i8<-200:3>:f32, 0.1>>)

// -----

// expected-error @+1 {{the expressed type of a quantized type must be f16, bf16, f32 or f64}}
func.func @int_expressed(%a: tensor<2x!quant.uniform<i8:i32, 0.1>>)

// -----

// expected-error @+1 {{quantization dimension 1 of a quantized element type is not less than the rank 1}}
func.func @axis(%a: tensor<2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>)

// -----

// expected-error @+1 {{dimension 0 has size 2 but the quantized element type has 3 scales}}
func.func @scales(%a: tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>>)

// -----

// expected-error @+1 {{expected '>'}}
func.func @junk(%a: tensor<2x!quant.uniform<i8:f32, 0.1:3 x>>)
