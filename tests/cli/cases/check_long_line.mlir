// A source line longer than the window (JAX writes lines of many hundred
// columns) is shown as a window around the caret, "..." marking cut ends.
// RUN: not shard check %s 2> %t/e
// RUN: cat %t/e
// The window is 200 bytes of the line plus the two marks, no line longer:
// RUN: awk 'length > 206 { exit 1 }' %t/e
// and the caret stays under column 399 (the blank before @oops):
// RUN: awk 'NR == 2 { l = $0 } NR == 3 { exit index(l, "@oops") - 1 != index($0, "^") }' %t/e
// CHECK: check_long_line.mlir:[[#@LINE+3]]:399: error: expected ')'
// CHECK-NEXT: {{^}}...{{.*}}%b: tensor<8xf32> @oops{{.*}}...{{$}}
// CHECK-NEXT: {{^ +\^$}}
func.func @f(%a0: tensor<2xf32>, %a1: tensor<2xf32>, %a2: tensor<2xf32>, %a3: tensor<2xf32>, %a4: tensor<2xf32>, %a5: tensor<2xf32>, %a6: tensor<2xf32>, %a7: tensor<2xf32>, %a8: tensor<2xf32>, %a9: tensor<2xf32>, %a10: tensor<2xf32>, %a11: tensor<2xf32>, %a12: tensor<2xf32>, %a13: tensor<2xf32>, %a14: tensor<2xf32>, %a15: tensor<2xf32>, %a16: tensor<2xf32>, %a17: tensor<2xf32>, %b: tensor<8xf32> @oops) { %c0: tensor<2xf32>, %c1: tensor<2xf32>, %c2: tensor<2xf32>, %c3: tensor<2xf32>, %c4: tensor<2xf32>, %c5: tensor<2xf32>, %c6: tensor<2xf32>, %c7: tensor<2xf32>, %c8: tensor<2xf32>, %c9: tensor<2xf32> %d0: tensor<2xf32>, %d1: tensor<2xf32>, %d2: tensor<2xf32>, %d3: tensor<2xf32>, %d4: tensor<2xf32>, %d5: tensor<2xf32>, %d6: tensor<2xf32>, %d7: tensor<2xf32>, %d8: tensor<2xf32>, %d9: tensor<2xf32>, %d10: tensor<2xf32>, %d11: tensor<2xf32>
  return
}
