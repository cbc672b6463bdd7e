// A generic func.func whose arg_attrs/res_attrs do not match its signature
// is refused with MLIR's message, at the op.
// RUN: not shard opt -split-input-file %s
// ERR: generic_func_attrs_errors.mlir:[[@LINE+3]]:1: error: 'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 1, but expected 2
// ERR: generic_func_attrs_errors.mlir:[[@LINE+9]]:1: error: 'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 2, but expected 1
// ERR: generic_func_attrs_errors.mlir:[[@LINE+15]]:1: error: 'func.func' op expects argument attribute dictionary to be a DictionaryAttr
"func.func"() ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) {arg_attrs = [{}], function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "a"} : () -> ()

// -----

"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{}, {}], sym_name = "b"} : () -> ()

// -----

"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) {arg_attrs = [1 : i32], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "c"} : () -> ()
