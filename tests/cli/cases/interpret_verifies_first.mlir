// The interpreter runs only what the verifier accepts: a transpose whose
// permutation names a dimension the operand lacks read outside its shape
// (SEGV); now it is StableHLO's located error, exit 1, from every command.
// RUN: not shard interpret %s
// RUN: not shard lower --verify %s -o %t/out.mlir
// RUN: not shard propagate --explain %s
// EXIT: 0
// ERR: interpret_verifies_first.mlir:12:3: error: attribute permutation must be a permutation of [0, 1] but got [1, 5]
// ERR: interpret_verifies_first.mlir:12:3: error: attribute permutation must be a permutation of [0, 1] but got [1, 5]
// ERR: interpret_verifies_first.mlir:12:3: error: attribute permutation must be a permutation of [0, 1] but got [1, 5]
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %a, dims = [1, 5] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
