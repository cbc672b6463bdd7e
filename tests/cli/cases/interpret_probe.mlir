// interpreter.probe writes probe<N>.npy and index.csv into
// --probe-output-dir (numpy 1.0 files as StableHLO's NumPy.cpp writes them);
// check.expect_serialized_eq reads the iter-th line back.
// RUN: shard interpret -q --probe-output-dir=%t %s
// RUN: cat %t/index.csv
// RUN: od -c -N 10 %t/probe2.npy
// RUN: not shard interpret %s
// CHECK: p,tensor<2xi32>,{{.*}}/probe1.npy
// CHECK-NEXT: p,tensor<2xi32>,{{.*}}/probe2.npy
// CHECK-NEXT: 0000000 223   N   U   M   P   Y 001  \0   A  \0
// ERR: error: Probe serialization directory cannot be empty. (give one with --probe-output-dir=DIR)
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xi32>
  %2 = stablehlo.add %1, %1 : tensor<2xi32>
  %3 = interpreter.probe %2, probe_id = "p" : tensor<2xi32>
  check.expect_serialized_eq %0, probe_id = "p" : tensor<2xi32>
  check.expect_serialized_eq %2, probe_id = "p", iter = 1 : tensor<2xi32>
  func.return
}
