// chlo.scan: parsed, printed back in its own syntax, verified, and run. The
// body takes one slice of each input along `dimension` and the carries, and
// returns one slice of each output and the next carries.
// RUN: shard opt %s -split-input-file > %t/out.mlir
// RUN: cat %t/out.mlir
// RUN: shard interpret -split-input-file %t/out.mlir
// RUN: not shard check %S/inputs/chlo_scan_bad_slice.mlir
// CHECK: chlo.scan(%{{.*}}) inits(%{{.*}}) dimension=1 {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>):
// CHECK: } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
// CHECK: chlo.scan(%{{.*}}, %{{.*}}) inits(%{{.*}}) dimension=0 attributes {is_reverse = true} {
// ERR: 5 checks passed
// ERR: chlo_scan_bad_slice.mlir:2:3: error: 'chlo.scan' op body argument #0 must be a slice of input #0 without dimension 0
func.func @main() {
  // running products along the rows' second dimension; the carry is a row
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]> : tensor<2x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2xf32>
  %r:2 = chlo.scan(%x) inits(%one) dimension=1 {
  ^bb0(%e: tensor<2xf32>, %acc: tensor<2xf32>):
    %p = stablehlo.multiply %e, %acc : tensor<2xf32>
    stablehlo.return %p, %p : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  check.expect_eq_const %r#0, dense<[[1.0, 2.0, 6.0], [-1.0, -0.5, -2.0]]> : tensor<2x3xf32>
  check.expect_eq_const %r#1, dense<[6.0, -2.0]> : tensor<2xf32>
  // no output slices, only a carry: a fold
  %s = chlo.scan(%x) inits(%one) dimension=1 {
  ^bb0(%e: tensor<2xf32>, %acc: tensor<2xf32>):
    %q = stablehlo.add %e, %acc : tensor<2xf32>
    stablehlo.return %q : tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %s, dense<[7.0, 4.5]> : tensor<2xf32>
  func.return
}

// -----

// two inputs, reversed: out[i] = a[i] - b[i] + carry, from the end; the
// carry counts the steps
func.func @main() {
  %a = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi64>
  %b = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = chlo.scan(%a, %b) inits(%z) dimension=0 attributes {is_reverse = true} {
  ^bb0(%x: tensor<i64>, %y: tensor<i64>, %n: tensor<i64>):
    %d = stablehlo.subtract %x, %y : tensor<i64>
    %o = stablehlo.add %d, %n : tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %m = stablehlo.add %n, %c : tensor<i64>
    stablehlo.return %o, %m : tensor<i64>, tensor<i64>
  } : (tensor<3xi64>, tensor<3xi64>, tensor<i64>) -> (tensor<3xi64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<[11, 19, 27]> : tensor<3xi64>
  check.expect_eq_const %r#1, dense<3> : tensor<i64>
  func.return
}
