// The verifier checks the shapes of chlo ops as ChloOps.cpp's type inference does.
// RUN: shard opt %s -split-input-file -verify-diagnostics
func.func @top_k_too_few(%x: tensor<4x3xf32>) -> (tensor<4x5xf32>, tensor<4x5xi32>) {
  // expected-error@+1 {{'chlo.top_k' op operand's last dimension must be at least 5}}
  %v, %i = chlo.top_k(%x, k = 5) : tensor<4x3xf32> -> (tensor<4x5xf32>, tensor<4x5xi32>)
  return %v, %i : tensor<4x5xf32>, tensor<4x5xi32>
}

// -----

func.func @top_k_result_shape(%x: tensor<4x3xf32>) -> (tensor<4x1xf32>, tensor<4x2xi32>) {
  // expected-error@+1 {{result #0 of type tensor<4x1xf32> must have the operand's shape with last dimension 2}}
  %v, %i = chlo.top_k(%x, k = 2) : tensor<4x3xf32> -> (tensor<4x1xf32>, tensor<4x2xi32>)
  return %v, %i : tensor<4x1xf32>, tensor<4x2xi32>
}

// -----

func.func @numpy_trailing(%x: tensor<4x3xf32>, %y: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{operand #1 of type tensor<4xf32> does not broadcast to the result type tensor<4x3xf32>}}
  %0 = chlo.broadcast_add %x, %y : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @explicit_dims(%x: tensor<4x3xf32>, %y: tensor<4xf32>, %z: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = chlo.broadcast_add %x, %y {broadcast_dimensions = array<i64: 0>} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  %1 = chlo.broadcast_multiply %0, %z : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

func.func @bad_dims(%x: tensor<4x3xf32>, %y: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{broadcast_dimensions contains invalid value 2 for result with rank 2}}
  %0 = chlo.broadcast_add %x, %y {broadcast_dimensions = array<i64: 2>} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @shape_changed(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  // expected-error@+1 {{'chlo.lgamma' op requires the same type for all operands and results}}
  %0 = chlo.lgamma %x : tensor<4x3xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @is_inf_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'chlo.is_inf' op result must be a tensor of i1, got tensor<4xf32>}}
  %0 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
