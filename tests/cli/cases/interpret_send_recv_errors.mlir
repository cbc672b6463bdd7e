// A recv or send that no process can ever pair with, and an infeed with
// nothing (left) to feed it, are located errors, not hangs or crashes.
// RUN: not shard interpret -split-input-file %s
// ERR: interpret_send_recv_errors.mlir:11:3: error: recv timed out: no process sends on channel 3
// ERR: interpret_send_recv_errors.mlir:21:5: error: send timed out: no process receives on channel 4 (on replica 0, partition 0)
// ERR: interpret_send_recv_errors.mlir:21:5: error: send timed out: no process receives on channel 4 (on replica 0, partition 1)
// ERR: interpret_send_recv_errors.mlir:39:3: error: infeed is only supported when run via interpreter.run_parallel
// ERR: interpret_send_recv_errors.mlir:52:5: error: the infeed queue is empty: run_parallel's 'infeed' lists 1 functions
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
  func.return
}

// -----

// both processes send on channel 4, neither receives
module {
  func.func @s(%t : !stablehlo.token) -> !stablehlo.token {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %s = "stablehlo.send"(%c, %t) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 2>, is_host_transfer = true} : (tensor<i32>, !stablehlo.token) -> !stablehlo.token
    return %s : !stablehlo.token
  }
  func.func @main() {
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "interpreter.run_parallel"(%t, %t) {programs = [[@s, @s]]} : (!stablehlo.token, !stablehlo.token) -> (!stablehlo.token, !stablehlo.token)
    func.return
  }
}

// -----

func.func @one() -> tensor<i32> {
  %c = stablehlo.constant dense<1> : tensor<i32>
  return %c : tensor<i32>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
  func.return
}

// -----

module {
  func.func @one() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func @feed(%t : !stablehlo.token) -> tensor<i32> {
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    return %b#0 : tensor<i32>
  }
  func.func @main() {
    %t = stablehlo.after_all : !stablehlo.token
    %r = "interpreter.run_parallel"(%t) {infeed = [@one], programs = [[@feed]]} : (!stablehlo.token) -> tensor<i32>
    func.return
  }
}
