// Global-to-local lists every device of a mesh in its collectives: a mesh of
// 2^32 devices is refused at the mesh before anything is rewritten, by the
// pass and by lower --verify, which runs it (it ran out of memory building
// replica groups).
// RUN: not shard lower --verify %s -o %t/out.mlir
// RUN: not shard opt %s -sdy-convert-global-to-local
// ERR: lower_verify_device_limit.mlir:9:1: error: mesh @m has 4294967296 devices; -sdy-convert-global-to-local lists every device in its collectives and supports at most 1048576
// ERR: lower_verify_device_limit.mlir:9:1: error: mesh @m has 4294967296 devices; -sdy-convert-global-to-local lists every device in its collectives and supports at most 1048576
sdy.mesh @m = <["x"=65536, "y"=65536]>
func.func @main(%a: tensor<65536x65536xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"y"}]>}) -> (tensor<65536x65536xf32> {sdy.sharding = #sdy.sharding<@m, [{"y"}, {"x"}]>}) {
  return %a : tensor<65536x65536xf32>
}
