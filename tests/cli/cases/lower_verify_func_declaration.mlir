// A module holding a function declaration (no body): lower --verify skips
// the declaration itself and reports the call of it as the interpreter's
// error; it used to read the declaration's missing region (SEGV, found by
// fuzz_lower_verify).
// RUN: not shard lower --verify %s -o %t/out.mlir
// ERR: error: cannot call a function without a body
// ERR: error: --verify: the global program @main failed in the interpreter
sdy.mesh @m = <["x"=2]>
func.func private @ext(%a: tensor<8xf32>) -> tensor<8xf32>
func.func @main(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8xf32> {
  %0 = call @ext(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
