// RUN: not shard lower --local %s -o %t/out.mlir
// RUN: test ! -e %t/out.mlir
// An sdy.reshard between two meshes with no sharded op between them: the
// per-device conversion cannot move the data, and the reshard's operand and
// result (SameOperandsAndResultType in Shardy) would disagree. It used to
// exit 0 and write a module that did not parse back (fuzz finding 40).
// ERR: error: 'sdy.reshard' op requires the same type for all operands and results
sdy.mesh @m1 = <["x"=2]>
sdy.mesh @m2 = <["y"=2]>
func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m1, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m2, [{"y"}]>}) {
  %0 = sdy.reshard %arg0 <@m2, [{"y"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
