// collective_broadcast: each process of a group gets the operand of the
// group's first process; a process in no group gets zeros.
// RUN: shard interpret %s
func.func @cb(%operand : tensor<2xi64>) -> tensor<2xi64> {
  %result = "stablehlo.collective_broadcast"(%operand) {
    replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>
  } : (tensor<2xi64>) -> tensor<2xi64>
  return %result : tensor<2xi64>
}
func.func @main() {
  %o0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %o1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %o2 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  %o3 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
  %r:4 = "interpreter.run_parallel"(%o0, %o1, %o2, %o3) {
    programs = [[@cb], [@cb], [@cb], [@cb]]
  } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %r#0, dense<[0, 0]> : tensor<2xi64>
  check.expect_eq_const %r#1, dense<[5, 6]> : tensor<2xi64>
  check.expect_eq_const %r#2, dense<[5, 6]> : tensor<2xi64>
  check.expect_eq_const %r#3, dense<[0, 0]> : tensor<2xi64>
  func.call @dynamic_root() : () -> ()
  func.return
}
// has_dynamic_root: the last operand picks, per data operand, the position in
// the group of the process it comes from
func.func @cb_root(%d0 : tensor<2xi64>, %d1 : tensor<2xi64>, %root : tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %r:2 = "stablehlo.collective_broadcast"(%d0, %d1, %root) {
    replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
    has_dynamic_root
  } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xi64>, tensor<2xi64>
}
func.func @dynamic_root() {
  %a0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %a1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %b0 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  %b1 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
  %root = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %r:4 = "interpreter.run_parallel"(%a0, %a1, %root, %b0, %b1, %root) {
    programs = [[@cb_root], [@cb_root]]
  } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  // data0 from group position 0 (process 1), data1 from position 1 (process 0)
  check.expect_eq_const %r#0, dense<[5, 6]> : tensor<2xi64>
  check.expect_eq_const %r#1, dense<[3, 4]> : tensor<2xi64>
  check.expect_eq_const %r#2, dense<[5, 6]> : tensor<2xi64>
  check.expect_eq_const %r#3, dense<[3, 4]> : tensor<2xi64>
  func.return
}
