// stablehlo.send and stablehlo.recv between the processes of
// interpreter.run_parallel pair up per channel (a rendezvous, as StableHLO's
// reference interpreter defines them), and stablehlo.infeed takes the next
// function of run_parallel's `infeed` list and returns its results.
// RUN: shard interpret %s
// ERR: 4 checks passed
module {
  // ping sends x on channel 7 and waits for the answer on channel 8
  func.func @ping(%x : tensor<2xf32>, %t : !stablehlo.token) -> tensor<2xf32> {
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %y, %t2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 8, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %y : tensor<2xf32>
  }
  // pong doubles what it receives and sends it back, with a second value
  func.func @pong(%t : !stablehlo.token) -> tensor<2xf32> {
    %v, %t1 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %w = stablehlo.add %v, %v : tensor<2xf32>
    %s = "stablehlo.send"(%w, %t1) {channel_handle = #stablehlo.channel_handle<handle = 8, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %v : tensor<2xf32>
  }
  func.func @feed(%t : !stablehlo.token) -> (tensor<i32>, tensor<i32>) {
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    return %a#0, %b#0 : tensor<i32>, tensor<i32>
  }
  func.func @first() -> tensor<i32> {
    %c = stablehlo.constant dense<11> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func @second() -> tensor<i32> {
    %c = stablehlo.constant dense<22> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.5, -4.0]> : tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "interpreter.run_parallel"(%x, %t, %t) {programs = [[@ping], [@pong]]} : (tensor<2xf32>, !stablehlo.token, !stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[3.0, -8.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[1.5, -4.0]> : tensor<2xf32>
    %f:2 = "interpreter.run_parallel"(%t) {infeed = [@first, @second], programs = [[@feed]]} : (!stablehlo.token) -> (tensor<i32>, tensor<i32>)
    check.expect_eq_const %f#0, dense<11> : tensor<i32>
    check.expect_eq_const %f#1, dense<22> : tensor<i32>
    func.return
  }
}
