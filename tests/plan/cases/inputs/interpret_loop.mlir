// Sums 1..100 in a loop: about 500 interpreter steps.
func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %limit = stablehlo.constant dense<100> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %s = %zero) : tensor<i64>, tensor<i64>
   cond {
    %c = stablehlo.compare NE, %i, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i64>
    %t = stablehlo.add %s, %n : tensor<i64>
    stablehlo.return %n, %t : tensor<i64>, tensor<i64>
  }
  check.expect_eq_const %r#1, dense<5050> : tensor<i64>
  return
}
