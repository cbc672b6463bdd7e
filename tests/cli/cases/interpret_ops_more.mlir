// The interpreter runs tokens, tuples, bitcast_convert, reduce_precision,
// composite, the dynamic_* ops, triangular_solve and cholesky.
// RUN: shard interpret %s
func.func private @basics() {
  // tokens and tuples
  %t0 = stablehlo.after_all : !stablehlo.token
  %t1 = stablehlo.create_token : !stablehlo.token
  %t2 = stablehlo.after_all %t0, %t1 : !stablehlo.token
  %v0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %v1 = stablehlo.constant dense<3> : tensor<i64>
  %in = stablehlo.tuple %v1 : tuple<tensor<i64>>
  %tup = stablehlo.tuple %v0, %in : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %e0 = stablehlo.get_tuple_element %tup[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %e1 = stablehlo.get_tuple_element %tup[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %e10 = stablehlo.get_tuple_element %e1[0] : (tuple<tensor<i64>>) -> tensor<i64>
  check.expect_eq_const %e0, dense<[1.0, 2.0]> : tensor<2xf64>
  check.expect_eq_const %e10, dense<3> : tensor<i64>
  // bitcast_convert: same width, one to many and many to one (least significant first)
  %f = stablehlo.constant dense<[1.0, -2.0, 0x7F800000]> : tensor<3xf32>
  %fb = stablehlo.bitcast_convert %f : (tensor<3xf32>) -> tensor<3xui32>
  check.expect_eq_const %fb, dense<[1065353216, 3221225472, 2139095040]> : tensor<3xui32>
  %fs = stablehlo.bitcast_convert %f : (tensor<3xf32>) -> tensor<3x2xi16>
  check.expect_eq_const %fs, dense<[[0, 16256], [0, -16384], [0, 32640]]> : tensor<3x2xi16>
  %fj = stablehlo.bitcast_convert %fs : (tensor<3x2xi16>) -> tensor<3xf32>
  check.expect_eq_const %fj, dense<[1.0, -2.0, 0x7F800000]> : tensor<3xf32>
  %h = stablehlo.constant dense<[1.0, -0.5, 6.103515625E-5, 5.9604644775390625E-8]> : tensor<4xf16>
  %hb = stablehlo.bitcast_convert %h : (tensor<4xf16>) -> tensor<4xui16>
  check.expect_eq_const %hb, dense<[15360, 47104, 1024, 1]> : tensor<4xui16>
  %bb = stablehlo.constant dense<[16256, 49152]> : tensor<2xui16>
  %bf = stablehlo.bitcast_convert %bb : (tensor<2xui16>) -> tensor<2xbf16>
  check.expect_eq_const %bf, dense<[1.0, -2.0]> : tensor<2xbf16>
  %d = stablehlo.constant dense<[1.5]> : tensor<1xf64>
  %db = stablehlo.bitcast_convert %d : (tensor<1xf64>) -> tensor<1xi64>
  check.expect_eq_const %db, dense<[4609434218613702656]> : tensor<1xi64>
  // reduce_precision: f32 to bf16's format, and to e5m2 with overflow
  %rp = stablehlo.constant dense<[1.00390625, 1.01171875, 3.4e38, 1.0e-40, 0x7FC00000]> : tensor<5xf32>
  %rb = stablehlo.reduce_precision %rp, format = e8m7 : tensor<5xf32>
  // (expect_eq is IEEE ==, where NaN never matches: compare the bits)
  %rbi = stablehlo.bitcast_convert %rb : (tensor<5xf32>) -> tensor<5xi32>
  check.expect_eq_const %rbi, dense<[0x3F800000, 0x3F820000, 0x7F800000, 0x00010000, 0x7FC00000]> : tensor<5xi32>
  %r52 = stablehlo.reduce_precision %rp, format = e5m2 : tensor<5xf32>
  %r52i = stablehlo.bitcast_convert %r52 : (tensor<5xf32>) -> tensor<5xi32>
  check.expect_eq_const %r52i, dense<[0x3F800000, 0x3F800000, 0x7F800000, 0x00000000, 0x7FC00000]> : tensor<5xi32>
  %nan = stablehlo.constant dense<0x7FFFFFFFFFFFFFFF> : tensor<f64>
  %ninf = stablehlo.reduce_precision %nan, format = e5m0 : tensor<f64>
  check.expect_eq_const %ninf, dense<0x7FF0000000000000> : tensor<f64>
  func.return
}

func.func private @add_two(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.constant dense<2> : tensor<i64>
  %1 = stablehlo.add %arg0, %0 : tensor<i64>
  func.return %1 : tensor<i64>
}
func.func private @composite() {
  %0 = stablehlo.constant dense<1> : tensor<i64>
  %1 = "stablehlo.composite"(%0) {name = "my.add_two", decomposition = @add_two} : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %1, dense<3> : tensor<i64>
  func.return
}

func.func private @dynamic() {
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %iota = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %iota, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
  %col = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %bshape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %b = stablehlo.dynamic_broadcast_in_dim %col, %bshape, dims = [0, 1] : (tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %b, dense<[[1, 1, 1], [2, 2, 2]]> : tensor<2x3xi32>
  %rshape = stablehlo.constant dense<[6]> : tensor<1xi64>
  %r = stablehlo.dynamic_reshape %b, %rshape : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<6xi32>
  check.expect_eq_const %r, dense<[1, 1, 1, 2, 2, 2]> : tensor<6xi32>
  %pv = stablehlo.constant dense<-1> : tensor<i32>
  %lo = stablehlo.constant dense<[1]> : tensor<1xi64>
  %hi = stablehlo.constant dense<[0]> : tensor<1xi64>
  %interior = stablehlo.constant dense<[1]> : tensor<1xi64>
  %v = stablehlo.constant dense<[5, 6, 7]> : tensor<3xi32>
  %pad = stablehlo.dynamic_pad %v, %pv, %lo, %hi, %interior : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6xi32>
  check.expect_eq_const %pad, dense<[-1, 5, -1, 6, -1, 7]> : tensor<6xi32>
  func.return
}

// a x = b with the lower triangle of a (its upper triangle is ignored), and
// x a^T = b on the right
func.func private @linalg() {
  %a = stablehlo.constant dense<[[2.0, 99.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[2.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf32>
  %x = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %x, dense<[[1.0, 2.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %y = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %y, dense<[[1.0, 0.75], [2.5, 0.875]]> : tensor<2x2xf32>
  %u = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %u, dense<[[-493.0, -590.0], [5.0, 6.0]]> : tensor<2x2xf32>
  %spd = stablehlo.constant dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf64>
  %l = "stablehlo.cholesky"(%spd) {lower = true} : (tensor<2x2xf64>) -> tensor<2x2xf64>
  check.expect_eq_const %l, dense<[[2.0, 0.0], [1.0, 2.0]]> : tensor<2x2xf64>
  %up = "stablehlo.cholesky"(%spd) {lower = false} : (tensor<2x2xf64>) -> tensor<2x2xf64>
  check.expect_eq_const %up, dense<[[2.0, 1.0], [0.0, 2.0]]> : tensor<2x2xf64>
  func.return
}


func.func @main() {
  func.call @basics() : () -> ()
  func.call @composite() : () -> ()
  func.call @dynamic() : () -> ()
  func.call @linalg() : () -> ()
  func.call @batch_norm() : () -> ()
  func.call @rng() : () -> ()
  func.call @opaque_values() : () -> ()
  func.return
}

// batch norm over feature dim 1: mean [2, 3], variance [1, 1]
func.func private @batch_norm() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf32>
  %y, %m, %v = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %y, dense<[[-1.0, 8.0], [1.0, 12.0]]> : tensor<2x2xf32>
  check.expect_eq_const %m, dense<[2.0, 3.0]> : tensor<2xf32>
  check.expect_eq_const %v, dense<[1.0, 1.0]> : tensor<2xf32>
  %yi = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %m, %v) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %yi, dense<[[-1.0, 8.0], [1.0, 12.0]]> : tensor<2x2xf32>
  %g = stablehlo.constant dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %scale, %m, %v, %g) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %gx, dense<0.0> : tensor<2x2xf32>
  check.expect_eq_const %gs, dense<[0.0, 0.0]> : tensor<2xf32>
  check.expect_eq_const %go, dense<[2.0, 2.0]> : tensor<2xf32>
  func.return
}

// THREE_FRY: Random123's known-answer vector (key 0, counter 0) for the
// first element, and the counter advanced by the number of blocks
func.func private @rng() {
  %state = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %ns, %out = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
  check.expect_eq_const %ns, dense<[0, 2]> : tensor<2xui64>
  %first = stablehlo.slice %out [0:1] : (tensor<3xui32>) -> tensor<1xui32>
  check.expect_eq_const %first, dense<[1797259609]> : tensor<1xui32>
  func.return
}

// tokens and tuples cross run_parallel and while loops like tensors
func.func private @pass_token(%t : !stablehlo.token, %x : tensor<2xi64>) -> (!stablehlo.token, tuple<tensor<2xi64>>) {
  %o = "stablehlo.outfeed"(%x, %t) : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  %tu = stablehlo.tuple %x : tuple<tensor<2xi64>>
  return %o, %tu : !stablehlo.token, tuple<tensor<2xi64>>
}
func.func @opaque_values() {
  %k = stablehlo.after_all : !stablehlo.token
  %x = stablehlo.constant dense<[4, 5]> : tensor<2xi64>
  %r:2 = "interpreter.run_parallel"(%k, %x) {programs = [[@pass_token]]} : (!stablehlo.token, tensor<2xi64>) -> (!stablehlo.token, tuple<tensor<2xi64>>)
  %w:2 = stablehlo.while(%a = %r#1, %b = %r#0) : tuple<tensor<2xi64>>, !stablehlo.token
   cond {
    %c = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %a, %b : tuple<tensor<2xi64>>, !stablehlo.token
  }
  %e = stablehlo.get_tuple_element %w#0[0] : (tuple<tensor<2xi64>>) -> tensor<2xi64>
  check.expect_eq_const %e, dense<[4, 5]> : tensor<2xi64>
  func.return
}
