// shard check on mhlo.sharding: a sharding quoted in a `//` comment is not
// checked (this line: mhlo.sharding = "{devices=[3]<=[4]}"); a tuple sharding
// on an op with several results is checked element by element against each
// result; an empty or serialized-proto string is refused at the attribute;
// a tiled sharding over one device is replicated, as XLA reads it through
// its OpSharding proto (HloSharding::FromProto), and sets no device count.
// With --split-input-file each chunk has its own device count.
// RUN: not shard check %s > %t/out.txt 2> %t/err.txt
// RUN: shard check --split-input-file %S/inputs/mhlo_sharding_split.mlir >> %t/out.txt
// RUN: cat %t/out.txt %t/err.txt
// CHECK: check_mhlo_sharding.mlir: 5 shardings, 3 invalid
// CHECK-NEXT: %arg0 tensor<8x2xi32> {devices=[1,1]<=[1]} ok
// CHECK-NEXT: %arg1 tensor<8x2xi32> {devices=[2,2]<=[4]} ok
// CHECK-NEXT: %0:2 (tensor<8x2xi32>, tensor<8xi32>) {{[{][{]}}maximal device=0}, {devices=[4,1]<=[4]}} invalid
// CHECK-NEXT: %1 tensor<8x2xi32> "" invalid
// CHECK-NEXT: %2 tensor<8x2xi32> "" invalid
// CHECK: mhlo_sharding_split.mlir: 1 sharding, 0 invalid
// CHECK-NEXT: %arg0 tensor<8x2xi32> {devices=[2,2]<=[4]} ok
// CHECK-NEXT: mhlo_sharding_split.mlir: 1 sharding, 0 invalid
// CHECK-NEXT: %arg0 tensor<8x2xi32> {devices=[8,1]<=[8]} ok
// CHECK: check_mhlo_sharding.mlir:27:64: error: Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding={devices=[4,1]<=[4]}, input_shape=[8]
// CHECK: check_mhlo_sharding.mlir:28:52: error: binary OpSharding is not supported; use the text form
// CHECK: check_mhlo_sharding.mlir:29:52: error: binary OpSharding is not supported; use the text form
// CHECK-NOT: error
func.func @main(%arg0: tensor<8x2xi32> {mhlo.sharding = "{devices=[1,1]<=[1]}"}, %arg1: tensor<8x2xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> tensor<8x2xi32> {
  // %0 = stablehlo.add %arg0, %arg0 {mhlo.sharding = "{devices=[3]<=[3]}"} : tensor<8x2xi32>
  %0:2 = call @g(%arg0) {mhlo.sharding = "{{maximal device=0}, {devices=[4,1]<=[4]}}"} : (tensor<8x2xi32>) -> (tensor<8x2xi32>, tensor<8xi32>)
  %1 = stablehlo.add %arg0, %arg0 {mhlo.sharding = ""} : tensor<8x2xi32>
  %2 = stablehlo.add %arg0, %arg0 {mhlo.sharding = "\08\01\1A\01\01"} : tensor<8x2xi32>
  return %0#0 : tensor<8x2xi32>
}
func.func private @g(%arg0: tensor<8x2xi32>) -> (tensor<8x2xi32>, tensor<8xi32>) {
  %0 = stablehlo.slice %arg0 [0:8, 0:1] : (tensor<8x2xi32>) -> tensor<8x1xi32>
  %1 = stablehlo.reshape %0 : (tensor<8x1xi32>) -> tensor<8xi32>
  return %arg0, %1 : tensor<8x2xi32>, tensor<8xi32>
}
