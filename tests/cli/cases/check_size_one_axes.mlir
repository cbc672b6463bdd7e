// shard check's warning about mesh axes of size 1 comes once per dimension,
// naming a few of them (one located warning per axis made a mesh of 10^5
// such axes run for minutes).
// RUN: shard check %s
// ERR: check_size_one_axes.mlir:8:1: warning: 'func.func' op arg 0 - dim 0 is sharded along 5 mesh axes of size 1 ("a", "b", "c", ...), which have no effect
// ERR: check_size_one_axes.mlir:8:1: warning: 'func.func' op arg 0 - dim 1 is sharded along mesh axis "f" of size 1, which has no effect
sdy.mesh @m = <["a"=1, "b"=1, "c"=1, "d"=1, "e"=1, "f"=1, "x"=2]>
func.func @main(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", "b", "c", "d", "e"}, {"f", "x"}]>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}
