// Process groups of the collectives on 2 replicas x 2 partitions. Device
// (r, p) holds [10 r + p]. With a channel and no use_global_device_ids
// (cross_replica_and_partition) a group of replicas [0, 1] spans both
// partitions partition-major: (0,0), (1,0), (0,1), (1,1).
func.func @gather(%x: tensor<1xi64>) -> tensor<4xi64> {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
                                  channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<1xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}
// reduce_scatter in the same mode: the sum (0 + 10 + 1 + 11) of each
// element, piece k to the k-th member in partition-major order.
func.func @scatter(%x: tensor<1xi64>) -> tensor<1xi64> {
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %b = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<1xi64>) -> tensor<4xi64>
  %m = stablehlo.multiply %b, %c : tensor<4xi64>
  %r = "stablehlo.reduce_scatter"(%m) ({
  ^bb0(%a: tensor<i64>, %b2: tensor<i64>):
    %s = stablehlo.add %a, %b2 : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xi64>) -> tensor<1xi64>
  return %r : tensor<1xi64>
}
// flattened ids [[3, 0]]: device 3 = (1, 1) first, then device 0 = (0, 0)
func.func @flat(%x: tensor<1xi64>) -> tensor<2xi64> {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>,
                                  channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
                                  use_global_device_ids} : (tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
// collective_reduce: only a group's first member keeps the sum
func.func @creduce(%x: tensor<1xi64>) -> tensor<1xi64> {
  %r = "stablehlo.collective_reduce"(%x) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<1xi64>) -> tensor<1xi64>
  return %r : tensor<1xi64>
}
// collective_broadcast across partitions (a channel): the first member of
// [[1]] sends to itself, partition 0 is in no group and gets zeros
func.func @bcast(%x: tensor<1xi64>) -> tensor<1xi64> {
  %r = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1]]> : tensor<1x1xi64>,
                                             channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<1xi64>) -> tensor<1xi64>
  return %r : tensor<1xi64>
}
func.func @main() {
  %d0 = stablehlo.constant dense<[0]> : tensor<1xi64>
  %d1 = stablehlo.constant dense<[1]> : tensor<1xi64>
  %d10 = stablehlo.constant dense<[10]> : tensor<1xi64>
  %d11 = stablehlo.constant dense<[11]> : tensor<1xi64>
  %g:4 = "interpreter.run_parallel"(%d0, %d1, %d10, %d11) {programs = [[@gather, @gather], [@gather, @gather]]}
      : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  check.expect_eq_const %g#0, dense<[0, 10, 1, 11]> : tensor<4xi64>
  check.expect_eq_const %g#3, dense<[0, 10, 1, 11]> : tensor<4xi64>
  %s:4 = "interpreter.run_parallel"(%d0, %d1, %d10, %d11) {programs = [[@scatter, @scatter], [@scatter, @scatter]]}
      : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
  // (0,0) is member 0, (0,1) member 2, (1,0) member 1, (1,1) member 3
  check.expect_eq_const %s#0, dense<[22]> : tensor<1xi64>
  check.expect_eq_const %s#1, dense<[66]> : tensor<1xi64>
  check.expect_eq_const %s#2, dense<[44]> : tensor<1xi64>
  check.expect_eq_const %s#3, dense<[88]> : tensor<1xi64>
  %f:4 = "interpreter.run_parallel"(%d0, %d1, %d10, %d11) {programs = [[@flat, @flat], [@flat, @flat]]}
      : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %f#0, dense<[11, 0]> : tensor<2xi64>
  check.expect_eq_const %f#1, dense<[1, 10]> : tensor<2xi64>
  %c:2 = "interpreter.run_parallel"(%d1, %d10) {programs = [[@creduce], [@creduce]]}
      : (tensor<1xi64>, tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>)
  check.expect_eq_const %c#0, dense<[0]> : tensor<1xi64>
  check.expect_eq_const %c#1, dense<[11]> : tensor<1xi64>
  %b:2 = "interpreter.run_parallel"(%d1, %d10) {programs = [[@bcast, @bcast]]}
      : (tensor<1xi64>, tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>)
  check.expect_eq_const %b#0, dense<[0]> : tensor<1xi64>
  check.expect_eq_const %b#1, dense<[10]> : tensor<1xi64>
  func.return
}
