// RUN: %S/run_sdy_interpreter_tir

sdy.mesh @mesh_2 = <["x"=2]>

// Performs rallel iota and checks that
// they are equivalent.
func.func @main() {
  %seq = func.call @sequential_iota() : () -> tensor<2xi32>

  %pars:2 = "interpreter.run_parallel"() {
    programs = [[@parallel_iota, @parallel_iota]]
  } : () -> (tensor<1xi32>, tensor<1xi32>)
  %par = "stablehlo.concatenate"(%pars#0, %pars#1) {
    dimension = 0 : i64
  } : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi31>

  "check.expect_eq"(%seq, %par) : (tensor<2xi32>, tensor<2xi31>) -> ()

  return
}
