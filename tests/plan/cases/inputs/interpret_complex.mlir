// Complex numbers in the ops the spec gives them: expected values from
// Python's cmath (exp(z) - 1, log(1 + z), 1 / sqrt(z), z / |z|, ...).
func.func @main() {
  %z = stablehlo.constant dense<[(1.5, 2.5), (-0.5, 0.25)]> : tensor<2xcomplex<f64>>
  %w = stablehlo.constant dense<[(-0.5, 0.25), (-0.5, 0.25)]> : tensor<2xcomplex<f64>>
  %0 = stablehlo.tanh %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %0, dense<[(0.967786802152774, -0.0926378362684199), (-0.4854872810241353, 0.19805544995134958)]> : tensor<2xcomplex<f64>>
  %1 = stablehlo.exponential_minus_one %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %1, dense<[(-4.590476585567814, 2.6821660671324894), (-0.4123249096560774, 0.15005808662216327)]> : tensor<2xcomplex<f64>>
  %2 = stablehlo.log_plus_one %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %2, dense<[(1.2628643221541278, 0.7853981633974483), (-0.5815754049028404, 0.4636476090008061)]> : tensor<2xcomplex<f64>>
  %3 = stablehlo.rsqrt %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %3, dense<[(0.5096409316961854, -0.28855379225520805), (0.3072900763121319, -1.3017016520692888)]> : tensor<2xcomplex<f64>>
  %4 = stablehlo.logistic %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %4, dense<[(1.1863037852668916, 0.19289797630487535), (0.3757248355800388, 0.059002964314508036)]> : tensor<2xcomplex<f64>>
  %5 = stablehlo.sign %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %5, dense<[(0.5144957554275265, 0.8574929257125441), (-0.8944271909999159, 0.4472135954999579)]> : tensor<2xcomplex<f64>>
  %6 = stablehlo.power %z, %w : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %6, dense<[(0.4388479386369963, -0.11097247399383811), (0.05910942608313866, -0.6821959902860281)]> : tensor<2xcomplex<f64>>
  %7 = stablehlo.tan %z : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %7, dense<[(0.001927343523745636, 1.0134287782038935), (-0.504500702698564, 0.31242069250258875)]> : tensor<2xcomplex<f64>>
  // the spec's order: real part first, then imaginary part
  %8 = stablehlo.maximum %z, %w : tensor<2xcomplex<f64>>
  check.expect_eq_const %8, dense<[(1.5, 2.5), (-0.5, 0.25)]> : tensor<2xcomplex<f64>>
  %9 = stablehlo.minimum %z, %w : tensor<2xcomplex<f64>>
  check.expect_eq_const %9, dense<[(-0.5, 0.25), (-0.5, 0.25)]> : tensor<2xcomplex<f64>>
  %10 = stablehlo.compare GT, %z, %w : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> tensor<2xi1>
  check.expect_eq_const %10, dense<[true, false]> : tensor<2xi1>
  // convert to a real type keeps the real part
  %11 = stablehlo.convert %z : (tensor<2xcomplex<f64>>) -> tensor<2xf32>
  check.expect_eq_const %11, dense<[1.5, -0.5]> : tensor<2xf32>
  %12 = stablehlo.convert %z : (tensor<2xcomplex<f64>>) -> tensor<2xi1>
  check.expect_eq_const %12, dense<true> : tensor<2xi1>
  // iota and dot_general: (1.5+2.5i)(-0.5+0.25i) + (-0.5+0.25i)^2
  %13 = stablehlo.iota dim = 0 : tensor<3xcomplex<f32>>
  check.expect_eq_const %13, dense<[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]> : tensor<3xcomplex<f32>>
  %14 = stablehlo.dot_general %z, %w, contracting_dims = [0] x [0] : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> tensor<complex<f64>>
  check.expect_eq_const %14, dense<(-1.1875, -1.125)> : tensor<complex<f64>>
  func.return
}
