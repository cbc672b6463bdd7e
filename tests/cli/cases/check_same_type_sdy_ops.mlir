// RUN: not shard check %s
// sdy.reshard, sdy.data_flow_edge and sdy.func_data_flow_edge have one type
// for their operand and result (written in generic form, they could differ).
// ERR: 'sdy.reshard' op requires the same type for all operands and results
// ERR: 'sdy.data_flow_edge' op requires the same type for all operands and results
sdy.mesh @m = <["x"=2]>
func.func @f(%arg0: tensor<8xf32>) -> tensor<4xf32> {
  %0 = "sdy.reshard"(%arg0) <{sharding = #sdy.sharding<@m, [{"x"}]>}> : (tensor<8xf32>) -> tensor<4xf32>
  %1 = "sdy.data_flow_edge"(%0) : (tensor<4xf32>) -> tensor<8xf32>
  %2 = "stablehlo.slice"(%1) <{start_indices = array<i64: 0>, limit_indices = array<i64: 4>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
