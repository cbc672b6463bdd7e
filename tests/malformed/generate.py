#!/usr/bin/env python3
"""Generates the malformed-input corpus in this directory.

  generate.py --shard BUILD/shard [--mlir-opt mlir-opt-16]

Two kinds of cases come out:

* Hand-written ones (HAND below): each names its input and the exact first
  diagnostic line it must produce. These expectations were written from
  MLIR's and Shardy's behaviour, not copied from shard's output, so they are
  real assertions; when shard disagrees the generator says so.
* Derived ones, made mechanically from real inputs (samples/ and the
  design-doc notation): truncations at spread-out offsets, mismatched or
  missing brackets, invalid UTF-8 and NUL bytes spliced into valid text,
  deterministic binary junk. Their expectations are recorded from shard
  (run.py --bless) and must then be read: the generator prints every
  derived case whose diagnostic is not located or whose exit status is not 1
  and drops those that turned out valid (e.g. a truncation that happens to
  end between two complete ops). With --mlir-opt it also compares, for
  truncations of the generic form, shard's error position with
  mlir-opt-16's, and prints the disagreements.

Everything is deterministic: running it again rewrites the same files.
"""
import argparse
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = ["attention", "mlp_dp_mp", "multi_mesh", "reshape_subaxes", "shard_map"]

MESH = 'sdy.mesh @m = <["x"=2, "y"=4]>\n'


# One op in @main: (argument type, result type, op text, returned type).
FN1 = "func.func @main(%%a: %s) -> %s {\n  %%0 = %s\n  return %%0 : %s\n}\n"
# A 2-D convolution of a 1x8x8x4 input and a 3x3x4x16 kernel.
def conv(dims, window, bgc, fgc, result):
    return ("func.func @main(%%a: tensor<1x8x8x4xf32>, %%b: tensor<3x3x4x16xf32>) -> %s {\n"
            "  %%0 = stablehlo.convolution(%%a, %%b) dim_numbers = %s, window = {%s} "
            "{batch_group_count = %d : i64, feature_group_count = %d : i64} : "
            "(tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>) -> %s\n"
            "  return %%0 : %s\n}\n" % (result, dims, window, bgc, fgc, result, result))


# select_and_scatter of a 4x6 operand with 2x2 windows: (source type, select
# region parameters, source type).
SAS = ("func.func @main(%%x: tensor<4x6xf32>, %%s: %s) -> tensor<4x6xf32> {\n"
       "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
       "  %%0 = \"stablehlo.select_and_scatter\"(%%x, %%s, %%z) ({\n"
       "  ^bb0(%s):\n"
       "    %%c = stablehlo.compare GE, %%p, %%q : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
       "    stablehlo.return %%c : tensor<i1>\n"
       "  }, {\n"
       "  ^bb0(%%u: tensor<f32>, %%v: tensor<f32>):\n"
       "    %%a = stablehlo.add %%u, %%v : tensor<f32>\n"
       "    stablehlo.return %%a : tensor<f32>\n"
       "  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : "
       "(tensor<4x6xf32>, %s, tensor<f32>) -> tensor<4x6xf32>\n"
       "  return %%0 : tensor<4x6xf32>\n}\n")
# A reduce over `dimensions = [%s]` of a 4x8 tensor.
REDUCE = ("func.func @main(%%a: tensor<4x8xf32>) -> tensor<4xf32> {\n"
          "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
          "  %%0 = stablehlo.reduce(%%a init: %%z) applies stablehlo.add across dimensions = [%s] : "
          "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
          "  return %%0 : tensor<4xf32>\n}\n")


def func_arg(sharding, ty="tensor<8x16xf32>"):
    return MESH + "func.func @f(%%a: %s {sdy.sharding = %s}) {\n  return\n}\n" % (ty, sharding)


def nest(open_, close, n, inner=""):
    return open_ * n + inner + close * n


DEEP = 600  # above the parser's default limit of 512

# (name, input bytes or str, expected first line with {f} for the file name,
#  or None when only derived checks apply). .notation inputs are snippets.
HAND = [
    # -- numbers: huge, negative, zero, overflowing products ----------------
    ("num_axis_size_huge.mlir", 'sdy.mesh @m = <["x"=99999999999999999999]>\n',
     "{f}:1:21: error: integer value too large"),
    ("num_axis_size_negative.mlir", 'sdy.mesh @m = <["x"=-2]>\n',
     "{f}:1:1: error: custom op 'sdy.mesh' axis size must be at least 1, got: -2"),
    ("num_axis_size_zero.mlir", 'sdy.mesh @m = <["x"=0]>\n',
     "{f}:1:1: error: custom op 'sdy.mesh' axis size must be at least 1, got: 0"),
    ("num_axis_product_overflow.mlir", 'sdy.mesh @m = <["x"=4294967296, "y"=4294967296]>\n',
     "{f}:1:33: error: mesh has too many devices: the product of its axis sizes does not fit in 64 bits"),
    ("num_axis_product_overflow_max.mlir", 'sdy.mesh @m = <["x"=9223372036854775807, "y"=2]>\n',
     "{f}:1:42: error: mesh has too many devices: the product of its axis sizes does not fit in 64 bits"),
    ("num_axis_product_overflow_three.mlir", 'sdy.mesh @m = <["a"=2097152, "b"=2097152, "c"=2097152]>\n',
     "{f}:1:43: error: mesh has too many devices: the product of its axis sizes does not fit in 64 bits"),
    ("num_axis_product_overflow_sqrt.mlir", 'sdy.mesh @m = <["x"=3037000500, "y"=3037000500]>\n',
     "{f}:1:33: error: mesh has too many devices: the product of its axis sizes does not fit in 64 bits"),
    ("num_inline_mesh_product_overflow.mlir",
     'func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<mesh<["x"=4294967296, "y"=4294967296]>, [{}]>}) {\n'
     '  return\n}\n',
     "{f}:1:84: error: mesh has too many devices: the product of its axis sizes does not fit in 64 bits"),
    ("num_sub_axis_product_overflow.mlir",
     func_arg('#sdy.sharding<@m, [{"y":(4611686018427387904)4611686018427387904}, {}]>'),
     "{f}:2:96: error: sub-axis pre-size times size does not fit in 64 bits"),
    ("num_sub_axis_product_wraps_to_zero.mlir",
     func_arg('#sdy.sharding<@m, [{"y":(4611686018427387904)4}, {}]>'),
     "{f}:2:96: error: sub-axis pre-size times size does not fit in 64 bits"),
    ("num_sub_axis_pre_size_negative.mlir", func_arg('#sdy.sharding<@m, [{"y":(-1)2}, {}]>'),
     "{f}:2:1: error: 'func.func' op arg 0 - sub-axis pre-size must be at least 1: \"y\":(-1)2"),
    ("num_sub_axis_size_one.mlir", func_arg('#sdy.sharding<@m, [{"y":(1)1}, {}]>'),
     "{f}:2:1: error: 'func.func' op arg 0 - sub-axis sizes must be greater than 1: \"y\":(1)1"),
    ("num_priority_huge.mlir", func_arg('#sdy.sharding<@m, [{"x"}p99999999999999999999, {}]>'),
     "{f}:2:75: error: expecting integer priority, got: p99999999999999999999"),
    ("num_priority_negative.mlir", func_arg('#sdy.sharding<@m, [{"x"}p-1, {}]>'),
     "{f}:2:75: error: expecting priority in format 'p<number>', got: p"),
    ("num_device_id_negative.mlir", 'sdy.mesh @m = <["x"=2], device_ids=[0, -1]>\n',
     "{f}:1:1: error: custom op 'sdy.mesh' device id must be non-negative, got: -1"),
    ("num_device_id_huge.mlir", 'sdy.mesh @m = <["x"=2], device_ids=[0, 99999999999999999999]>\n',
     "{f}:1:40: error: integer value too large"),
    ("num_tensor_dim_huge.mlir", "func.func @f(%a: tensor<99999999999999999999xf32>) {\n  return\n}\n",
     "{f}:1:25: error: tensor dimension is too large"),
    ("num_tensor_dim_negative.mlir", "func.func @f(%a: tensor<-1xf32>) {\n  return\n}\n",
     "{f}:1:25: error: expected non-function type"),
    ("num_int_attr_i32_huge.mlir", '"a.b"() {x = 99999999999999999999 : i32} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_int_attr_i8_300.mlir", '"a.b"() {x = 300 : i8} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_int_attr_i8_minus_129.mlir", '"a.b"() {x = -129 : i8} : () -> ()\n',
     "{f}:1:15: error: integer constant out of range for attribute"),
    ("num_int_attr_si8_128.mlir", '"a.b"() {x = 128 : si8} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_int_attr_ui8_negative.mlir", '"a.b"() {x = -1 : ui8} : () -> ()\n',
     "{f}:1:15: error: negative integer literal not valid for unsigned integer type"),
    ("num_int_attr_i64_2_64.mlir", '"a.b"() {x = 18446744073709551616 : i64} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_int_attr_hex_i8.mlir", '"a.b"() {x = 0x100 : i8} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_int_attr_i1_2.mlir", '"a.b"() {x = 2 : i1} : () -> ()\n',
     "{f}:1:14: error: integer constant out of range for attribute"),
    ("num_num_partitions_huge.mlir",
     "module attributes {mhlo.num_partitions = 99999999999 : i32} {\n}\n",
     "{f}:1:42: error: integer constant out of range for attribute"),
    # -- duplicate names ------------------------------------------------------
    ("dup_mesh_axis.mlir", 'sdy.mesh @m = <["x"=2, "x"=2]>\n',
     "{f}:1:1: error: custom op 'sdy.mesh' duplicate axis name: \"x\""),
    ("dup_mesh_symbol.mlir", 'sdy.mesh @m = <["x"=2]>\nsdy.mesh @m = <["y"=2]>\n',
     "{f}:2:1: error: redefinition of symbol named 'm'"),
    ("dup_func_symbol.mlir", "func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n",
     "{f}:4:1: error: redefinition of symbol named 'f'"),
    ("dup_block_arg.mlir", "func.func @f(%a: tensor<8xf32>, %a: tensor<8xf32>) {\n  return\n}\n",
     "{f}:1:33: error: redefinition of SSA value '%a'"),
    ("dup_ssa_value.mlir",
     'func.func @f() {\n  %0 = "a.b"() : () -> i32\n  %0 = "a.b"() : () -> i32\n  return\n}\n',
     "{f}:3:3: error: redefinition of SSA value '%0'"),
    ("dup_dict_key.mlir", '"a.b"() {x = 1, x = 2} : () -> ()\n',
     "{f}:1:17: error: duplicate key 'x' in dictionary attribute"),
    ("dup_axis_in_sharding.mlir", func_arg('#sdy.sharding<@m, [{"x", "x"}, {}]>'),
     "{f}:2:1: error: 'func.func' op arg 0 - duplicate axis ref: \"x\""),
    ("dup_axis_across_dims.mlir", func_arg('#sdy.sharding<@m, [{"x"}, {"x"}]>'),
     "{f}:2:1: error: 'func.func' op arg 0 - duplicate axis ref: \"x\""),
    ("dup_axis_replicated.mlir", func_arg('#sdy.sharding<@m, [{"x"}, {}], replicated={"x"}>'),
     "{f}:2:1: error: 'func.func' op arg 0 - duplicate axis ref: \"x\""),
    ("dup_block_label.mlir",
     'func.func @f() {\n  "a.br"()[^bb1] : () -> ()\n^bb1:\n  "a.br"()[^bb1] : () -> ()\n'
     '^bb1:\n  return\n}\n',
     "{f}:5:1: error: redefinition of block '^bb1'"),
    ("dup_notation_mesh_axis.notation", '@m = <["x"=2, "x"=4]>\nsharding<@m, [{"x"}]> : tensor<8xf32>',
     None),
    # -- deep nesting (limit 512) ---------------------------------------------
    ("deep_regions.mlir",
     "func.func @f() {\n" + '"a.b"() ({\n' * DEEP + "}\n",
     "{f}:257:1: error: nesting is deeper than 512 levels"),
    ("deep_array_attr.mlir", '"a.b"() {x = ' + nest("[", "]", DEEP) + "} : () -> ()\n",
     "{f}:1:525: error: nesting is deeper than 512 levels"),
    ("deep_dict_attr.mlir", '"a.b"() {x = ' + nest("{a = ", "}", DEEP, "1") + "} : () -> ()\n",
     "{f}:1:2569: error: nesting is deeper than 512 levels"),
    ("deep_tuple_type.mlir", '"a.b"() : () -> (' + nest("tuple<", ">", DEEP, "f32") + ")\n",
     "{f}:1:3078: error: nesting is deeper than 512 levels"),
    ("deep_tensor_type.mlir", '"a.b"() : () -> (' + nest("tensor<", ">", DEEP, "f32") + ")\n",
     "{f}:1:3588: error: nesting is deeper than 512 levels"),
    ("deep_parens.mlir", '"a.b"() : () -> (' + "(" * DEEP + ")\n",
     "{f}:1:528: error: nesting is deeper than 512 levels"),
    ("deep_unbalanced_million.mlir", '"a.b"() {x = ' + "[" * 1000000 + "} : () -> ()\n",
     "{f}:1:525: error: nesting is deeper than 512 levels"),
    ("deep_dialect_attr.mlir", '"a.b"() {x = ' + nest("#a.b<", ">", DEEP) + "} : () -> ()\n", None),
    ("deep_dialect_type.mlir", '"a.b"() : () -> (' + nest("!a.b<", ">", DEEP) + ")\n", None),
    ("deep_callsite_loc.mlir",
     '"a.b"() : () -> () loc(' + "callsite(" * DEEP + '"a"' + ' at "b")' * DEEP + ")\n", None),
    ("deep_dense.mlir", '"a.b"() {x = dense<' + nest("[", "]", DEEP, "1") + "> : tensor<1xi32>} : () -> ()\n",
     None),
    ("deep_notation_braces.notation", '@m = <["x"=2]>\nsharding<@m, [' + "{" * DEEP + "}]> : tensor<8xf32>",
     None),
    # -- empty and whitespace-only inputs: valid (an empty module) ----------
    ("empty.mlir", "", ""),
    ("empty_comment_only.mlir", "// nothing here\n", ""),
    ("empty_whitespace.mlir", "\n\n   \t\n", ""),
    # -- invalid UTF-8 and stray bytes ----------------------------------------
    ("utf8_in_symbol.mlir", b'sdy.mesh @\xff = <["x"=2]>\n', "{f}:1:10: error: expected symbol reference"),
    ("utf8_in_value_name.mlir", b"func.func @f(%a\xff: tensor<8xf32>) {\n  return\n}\n", None),
    ("utf8_bare_byte.mlir", b"\xc3\x28\n", "{f}:1:1: error: unexpected character"),
    ("utf8_overlong_slash.mlir", b"\xc0\xaf\n", "{f}:1:1: error: unexpected character"),
    # A byte order mark is skipped at the start of a file only.
    ("utf8_bom_not_at_start.mlir", MESH.encode() + b"\xef\xbb\xbf" + MESH.encode(), "{f}:2:1: error: unexpected character"),
    ("utf8_lone_continuation.mlir", b'sdy.mesh @m = <["x"=2]>\n\x80\n', "{f}:2:1: error: unexpected character"),
    # MLIR reads 's', then stops at the NUL byte: the same message as mlir-opt-16.
    ("utf16_le.mlir", MESH.encode("utf-16-le"), "{f}:1:1: error: custom op 's' is unknown"),
    ("nul_byte.mlir", b'sdy.mesh @m = <["x"=2]>\n\x00\n', None),
    ("nul_in_string.mlir", b'sdy.mesh @m = <["x\x00"=2]>\n', ""),  # a NUL is data in a string
    # -- other malformed sdy attributes ----------------------------------------
    ("sdy_unknown_mesh.mlir", func_arg('#sdy.sharding<@nope, [{}, {}]>'), None),
    ("sdy_unknown_axis.mlir", func_arg('#sdy.sharding<@m, [{"z"}, {}]>'), None),
    ("sdy_rank_mismatch.mlir", func_arg('#sdy.sharding<@m, [{"x"}]>'), None),
    ("sdy_axis_not_string.mlir", func_arg('#sdy.sharding<@m, [{x}, {}]>'), None),
    ("sdy_missing_mesh.mlir", func_arg('#sdy.sharding<[{}, {}]>'), None),
    ("sdy_unclosed_dim.mlir", func_arg('#sdy.sharding<@m, [{"x", {}]>'), None),
    ("sdy_open_twice.mlir", func_arg('#sdy.sharding<@m, [{"x", ?, ?}, {}]>'), None),
    ("sdy_sub_axis_no_size.mlir", func_arg('#sdy.sharding<@m, [{"y":(2)}, {}]>'), None),
    ("sdy_sub_axis_not_dividing.mlir", func_arg('#sdy.sharding<@m, [{"y":(3)2}, {}]>'), None),
    ("sdy_replicated_not_list.mlir", func_arg('#sdy.sharding<@m, [{}, {}], replicated="x">'), None),
    ("sdy_unknown_keyword.mlir", func_arg('#sdy.sharding<@m, [{}, {}], sideways={"x"}>'), None),
    ("sdy_mesh_axis_no_size.mlir", 'sdy.mesh @m = <["x"]>\n', None),
    ("sdy_mesh_missing_close.mlir", 'sdy.mesh @m = <["x"=2]\n', None),
    ("sdy_mesh_device_ids_mismatch.mlir", 'sdy.mesh @m = <["x"=2], device_ids=[0, 1, 2]>\n', None),
    ("sdy_mesh_device_ids_dup.mlir", 'sdy.mesh @m = <["x"=2], device_ids=[1, 1]>\n', None),
    ("sdy_rule_bad_factor.mlir",
     'func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = stablehlo.negate %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([j]) {i=8}>} : tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n', None),
    ("sdy_constraint_no_sharding.mlir",
     MESH + 'func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = sdy.sharding_constraint %a : tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n', None),
    ("sdy_manual_axes_unknown.mlir",
     MESH + 'func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"q"}]>] out_shardings=[<@m, [{}]>] '
     'manual_axes={"q"} (%b: tensor<8xf32>) {\n    sdy.return %b : tensor<8xf32>\n'
     '  } : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n', None),
    # -- required attributes missing or of the wrong kind (generic form) ------
    ("req_sdy_constant_no_value.mlir",
     'func.func @f() -> tensor<2xf32> {\n  %0 = "sdy.constant"() <{vaule = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>\n'
     '  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:3: error: 'sdy.constant' op requires attribute 'value'"),
    ("req_mesh_no_mesh.mlir", '"sdy.mesh"() {sym_name = "m"} : () -> ()\n',
     "{f}:1:1: error: 'sdy.mesh' op requires attribute 'mesh'"),
    ("req_func_sym_name_int.mlir", '"func.func"() ({}) {function_type = () -> (), sym_name = 3 : i64} : () -> ()\n',
     "{f}:1:1: error: 'func.func' op attribute 'sym_name' failed to satisfy constraint: string attribute"),
    ("req_call_no_callee.mlir",
     'func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = "func.call"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
     '  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:3: error: 'func.call' op requires attribute 'callee'"),
    ("req_slice_no_start.mlir",
     'func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {\n'
     '  %0 = "stablehlo.slice"(%a) {limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>\n'
     '  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.slice' op requires attribute 'start_indices'"),
    ("req_slice_rank.mlir",
     'func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {\n'
     '  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 1>, strides = array<i64: 1, 1>} : (tensor<4xf32>) -> tensor<2xf32>\n'
     '  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.slice' op the number of elements in start_indices (2) does not match the rank of the operand (1)"),
    ("req_pad_lengths.mlir",
     'func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<6xf32> {\n'
     '  %0 = "stablehlo.pad"(%a, %z) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1, 0>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>\n'
     '  return %0 : tensor<6xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.pad' op the number of elements in edge_padding_high (2) does not match the number of elements in edge_padding_low (1)"),
    ("req_compare_direction_kind.mlir",
     'func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {\n'
     '  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n'
     '  return %0 : tensor<4xi1>\n}\n',
     "{f}:2:3: error: 'stablehlo.compare' op attribute 'comparison_direction' failed to satisfy constraint: enum attribute"),
    # a mesh-axes replica group is parsed as StableHLO's struct format: an
    # axis ref without its name is the generated parser's error at the '>'
    ("shlo_mesh_axes_axis_ref_without_name.mlir",
     'func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {\n'
     '  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<sub_axis_info = (1)2>]>} : (tensor<4xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n',
     "{f}:2:173: error: struct is missing required parameter: name"),
    ("terminator_not_last.mlir",
     'func.func @f(%a: tensor<2xf32>) {\n  "func.return"() : () -> ()\n  "a.b"() : () -> ()\n}\n',
     "{f}:2:3: error: 'func.return' op must be the last operation in the parent block"),
    ("use_before_def.mlir",
     'func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = "a.b"(%1) : (tensor<2xf32>) -> tensor<2xf32>\n'
     '  %1 = "a.c"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:3: error: 'a.b' op operand #0 does not dominate this use"),
    ("use_of_sibling_region_value.mlir",
     'func.func @f(%a: tensor<2xf32>) {\n  "a.r"() ({\n    "a.use"(%x) : (tensor<2xf32>) -> ()\n    "a.end"() : () -> ()\n'
     '  }, {\n    %x = "a.def"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n    "a.end"() : () -> ()\n  }) : () -> ()\n  return\n}\n',
     "{f}:3:5: error: 'a.use' op operand #0 does not dominate this use"),
    ("branch_to_entry_block.mlir",
     'func.func @f() {\n^bb0:\n  "a.br"()[^bb0] : () -> ()\n^bb1:\n  return\n}\n',
     "{f}:1:1: error: entry block of region may not have predecessors"),
    # a module in generic form with operands, results and no region: its
    # custom syntax has room for none of them (shard opt printed it and
    # crashed on the missing region; fuzz_mlir)
    ("generic_module_with_operands.mlir",
     'func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {\n  %0 = "module"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n'
     '  return %0 : tensor<4xi1>\n}\n',
     "{f}:2:3: error: 'module' op requires zero operands"),
    # a function body without its return, and a dense literal with stray
    # text: both printed something that did not read back (fuzz_mlir)
    ("func_body_without_terminator.mlir",
     'func.func @f() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>\n}\n',
     "{f}:2:3: error: block with no terminator, has 'stablehlo.constant' op"),
    ("dense_stray_text.mlir",
     'func.func @f() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense<[1.0, 2/o/]> : tensor<2xf32>\n'
     '  return %0 : tensor<2xf32>\n}\n',
     "{f}:2:39: error: expected element literal of primitive type"),
    ("dense_bracket_misplaced.mlir",
     "func.func @f(%a: tensor<8x9xf32>) -> tensor<8x9xf32> {\n  %1 = \"x.default\"(%a) {padding = dense<[[7, 0],  ][,00]> : tensor<2x2xi64>} : (tensor<8x9xf32>) -> tensor<8x9xf32>\n  return %1 : tensor<8x9xf32>\n}\n",
     "{f}:2:51: error: expected element literal of primitive type"),
    ("dense_list_without_comma.mlir",
     "func.func @f() -> tensor<2xf32> {\n  %0 = \"x.y\"() {v = dense<[1.0 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
     "{f}:2:31: error: expected ']'"),
    ("dense_two_top_level_elements.mlir",
     "func.func @f() -> tensor<2xf32> {\n  %0 = \"x.y\"() {v = dense<1.0 2.0> : tensor<2xf32>} : () -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
     "{f}:2:30: error: expected '>'"),
    ("dense_elements_without_comma.mlir",
     'func.func @f() -> tensor<2xcomplex<f32>> {\n  %0 = stablehlo.constant dense<[(1.0, 0.0), (2.0 0.0)]> : tensor<2xcomplex<f32>>\n'
     '  return %0 : tensor<2xcomplex<f32>>\n}\n',
     "{f}:2:50: error: expected ',' between complex elements"),
    ("generic_module_without_region.mlir",
     'func.func @f() {\n  "builtin.module"() : () -> ()\n  return\n}\n',
     "{f}:2:3: error: 'builtin.module' op requires one region"),
    # -- StableHLO op constraints (TypeInference.cpp / StablehloOps.cpp) -------
    # Each of these crashed `interpret` or `lower --verify` while `check`
    # accepted it.
    ("shlo_transpose_permutation_out_of_range.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<3x2xf32>",
            "stablehlo.transpose %a, dims = [1, 5] : (tensor<2x3xf32>) -> tensor<3x2xf32>", "tensor<3x2xf32>"),
     "{f}:2:3: error: attribute permutation must be a permutation of [0, 1] but got [1, 5]"),
    ("shlo_transpose_permutation_size.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<3x2xf32>",
            "stablehlo.transpose %a, dims = [1, 0, 2] : (tensor<2x3xf32>) -> tensor<3x2xf32>", "tensor<3x2xf32>"),
     "{f}:2:3: error: TransposeOp operand rank 2 does not match permutation size 3"),
    ("shlo_transpose_wrong_result.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<2x3xf32>",
            "stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>", "tensor<2x3xf32>"),
     "{f}:2:3: error: 'stablehlo.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return "
     "type(s) of operation 'tensor<2x3xf32>'"),
    ("shlo_concatenate_dimension_out_of_range.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<4x3xf32>",
            "stablehlo.concatenate %a, %a, dim = 7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
            "tensor<4x3xf32>"),
     "{f}:2:3: error: dimension 7 is out-of-bounds for input rank 2"),
    ("shlo_concatenate_dimension_negative.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<4x3xf32>",
            "stablehlo.concatenate %a, %a, dim = -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
            "tensor<4x3xf32>"),
     "{f}:2:3: error: dimension -1 is negative"),
    ("shlo_iota_dimension_out_of_range.mlir",
     FN1 % ("tensor<f32>", "tensor<4x3xi32>", "stablehlo.iota dim = 9 : tensor<4x3xi32>", "tensor<4x3xi32>"),
     "{f}:2:3: error: iota dimension cannot go beyond the output rank or be negative."),
    ("shlo_sort_dimension_out_of_range.mlir",
     'func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n'
     '  %0 = "stablehlo.sort"(%a) <{dimension = 3 : i64, is_stable = false}> ({\n'
     '  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     '    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
     '    stablehlo.return %c : tensor<i1>\n'
     '  }) : (tensor<4xf32>) -> tensor<4xf32>\n'
     '  return %0 : tensor<4xf32>\n}\n',
     "{f}:2:3: error: dimension attribute value must be in range [-1, 1), but found 3"),
    ("shlo_reduce_dimension_negative.mlir", REDUCE % "-1",
     "{f}:3:3: error: Out-of-bounds dimension -1, expected to be less than the input-tensor rank 2"),
    ("shlo_reduce_dimension_out_of_range.mlir", REDUCE % "5",
     "{f}:3:3: error: Out-of-bounds dimension 5, expected to be less than the input-tensor rank 2"),
    ("shlo_reduce_dimension_repeated.mlir", REDUCE.replace("tensor<4xf32>", "tensor<4x8xf32>") % "0, 0",
     "{f}:3:3: error: Duplicate reduction dimension: 0"),
    ("shlo_reducer_argument_count.mlir",
     'func.func @main(%a: tensor<4x8xf32>) -> tensor<4xf32> {\n'
     '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
     '  %0 = "stablehlo.reduce"(%a, %z) <{dimensions = array<i64: 1>}> ({\n'
     '  ^bb0(%x: tensor<f32>):\n'
     '    stablehlo.return %x : tensor<f32>\n'
     '  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n'
     '  return %0 : tensor<4xf32>\n}\n',
     "{f}:3:3: error: Reduction-region must take 2 parameters, but takes 1 parameter(s)"),
    ("shlo_broadcast_in_dim_out_of_range.mlir",
     FN1 % ("tensor<3xf32>", "tensor<2x3xf32>",
            "stablehlo.broadcast_in_dim %a, dims = [4] : (tensor<3xf32>) -> tensor<2x3xf32>", "tensor<2x3xf32>"),
     "{f}:2:3: error: broadcast_dimensions contains invalid value 4 for result with rank 2"),
    ("shlo_broadcast_in_dim_size.mlir",
     FN1 % ("tensor<3xf32>", "tensor<2x4xf32>",
            "stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>", "tensor<2x4xf32>"),
     "{f}:2:3: error: size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)"),
    ("shlo_slice_limit_out_of_range.mlir",
     FN1 % ("tensor<8xf32>", "tensor<4xf32>",
            "stablehlo.slice %a [6:10] : (tensor<8xf32>) -> tensor<4xf32>", "tensor<4xf32>"),
     "{f}:2:3: error: limit index 10 is larger than dimension size 8 in dimension 0"),
    ("shlo_reverse_dimension_out_of_range.mlir",
     FN1 % ("tensor<8xf32>", "tensor<8xf32>",
            "stablehlo.reverse %a, dims = [1] : tensor<8xf32>", "tensor<8xf32>"),
     "{f}:2:3: error: all dimensions should be between [0, 1). Got dimension: 1."),
    ("shlo_dot_general_dimension_out_of_range.mlir",
     FN1 % ("tensor<4x8xf32>", "tensor<4x4xf32>",
            "stablehlo.dot_general %a, %a, contracting_dims = [2] x [1] : (tensor<4x8xf32>, tensor<4x8xf32>) "
            "-> tensor<4x4xf32>", "tensor<4x4xf32>"),
     "{f}:2:3: error: lhs_contracting_dimensions value: 2 is out of range: [0, 2)"),
    ("shlo_get_dimension_size_out_of_range.mlir",
     FN1 % ("tensor<8xf32>", "tensor<i32>",
            "stablehlo.get_dimension_size %a, dim = 3 : (tensor<8xf32>) -> tensor<i32>", "tensor<i32>"),
     "{f}:2:3: error: requires dimension attribute in range [0, 1); found (3)"),
    ("shlo_elementwise_shape_mismatch.mlir",
     'func.func @main(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {\n'
     '  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>\n'
     '  return %0 : tensor<4xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.add' op requires the same shape for all operands and results"),
    ("shlo_gather_start_index_map_out_of_range.mlir",
     'func.func @main(%a: tensor<8x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n'
     '  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
     'collapsed_slice_dims = [0], start_index_map = [5], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : '
     '(tensor<8x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n'
     '  return %0 : tensor<2x4xf32>\n}\n',
     "{f}:2:3: error: start_index_map[0]: 5 is out of bounds for operand rank 2"),
    ("shlo_gather_slice_size_out_of_range.mlir",
     'func.func @main(%a: tensor<8x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x9xf32> {\n'
     '  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
     'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 9>}> : '
     '(tensor<8x4xf32>, tensor<2x1xi32>) -> tensor<2x9xf32>\n'
     '  return %0 : tensor<2x9xf32>\n}\n',
     "{f}:2:3: error: slice size (9) is out of bounds for operand dimension (4) at index 1"),
    ("shlo_scatter_inserted_dim_out_of_range.mlir",
     'func.func @main(%a: tensor<8x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {\n'
     '  %0 = "stablehlo.scatter"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<'
     'update_window_dims = [1], inserted_window_dims = [6], scatter_dims_to_operand_dims = [0], '
     'index_vector_dim = 1>}> ({\n'
     '  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     '    stablehlo.return %y : tensor<f32>\n'
     '  }) : (tensor<8x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<8x4xf32>\n'
     '  return %0 : tensor<8x4xf32>\n}\n',
     "{f}:2:3: error: Expects each element of inserted_window_dims to be in range [0, rank-of('operand') i.e. "
     "[0, 2). got: 6."),
    ("shlo_reduce_window_dimensions_size.mlir",
     'func.func @main(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {\n'
     '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
     '  %0 = "stablehlo.reduce_window"(%a, %z) <{window_dimensions = array<i64: 2, 1, 5>}> ({\n'
     '  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     '    %s = stablehlo.add %x, %y : tensor<f32>\n'
     '    stablehlo.return %s : tensor<f32>\n'
     '  }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>\n'
     '  return %0 : tensor<8x4xf32>\n}\n',
     "{f}:3:3: error: expects window-dimensions size == input rank, but got window-dimensions size: 3 and input: "
     "'tensor<8x4xf32>' with rank = 2."),
    ("shlo_reduce_window_result_shape.mlir",
     'func.func @main(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {\n'
     '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
     '  %0 = "stablehlo.reduce_window"(%a, %z) <{padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>, '
     'window_dimensions = array<i64: 3, 9>, window_strides = array<i64: 2, 1>}> ({\n'
     '  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     '    %s = stablehlo.add %x, %y : tensor<f32>\n'
     '    stablehlo.return %s : tensor<f32>\n'
     '  }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>\n'
     '  return %0 : tensor<8x4xf32>\n}\n',
     "{f}:3:3: error: 'stablehlo.reduce_window' op inferred type(s) 'tensor<4x0xf32>' are incompatible with return "
     "type(s) of operation 'tensor<8x4xf32>'"),
    ("shlo_dot_general_precision_not_an_enum.mlir",
     'func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {\n'
     '  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], '
     'rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGH>, 3 : i32]} : '
     '(tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n'
     '  return %0 : tensor<4x2xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.dot_general' op attribute 'precision_config' failed to satisfy constraint: "
     "Precision Config attribute"),
    ("shlo_dot_precision_three_entries.mlir",
     'func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {\n'
     '  %0 = stablehlo.dot %a, %b, precision = [HIGH, HIGH, DEFAULT] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>\n'
     '  return %0 : tensor<4x2xf32>\n}\n',
     "{f}:2:3: error: 'stablehlo.dot' op expects precision config to be empty or have <= 2 elements."),
    ("shlo_all_gather_replica_id_repeated.mlir",
     'func.func @main(%a: tensor<4xf32>) -> tensor<8xf32> {\n'
     '  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [1, 2]]> : '
     'tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n',
     "{f}:2:3: error: replica id #1 seen more than once"),
    ("shlo_all_gather_replica_id_missing.mlir",
     'func.func @main(%a: tensor<4xf32>) -> tensor<8xf32> {\n'
     '  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 5], [2, 1]]> : '
     'tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n',
     "{f}:2:3: error: replica id #3 not seen in replica groups"),
    ("shlo_collective_permute_negative_id.mlir",
     'func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n'
     '  %0 = "stablehlo.collective_permute"(%a) <{source_target_pairs = dense<[[0, 1], [-3, 2]]> : '
     'tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>\n'
     '  return %0 : tensor<4xf32>\n}\n',
     "{f}:2:3: error: replica ids in source_target_pairs must be >= 0."),
    ("shlo_collective_permute_duplicate_target.mlir",
     'func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n'
     '  %0 = "stablehlo.collective_permute"(%a) <{source_target_pairs = dense<[[0, 1], [2, 1]]> : '
     'tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>\n'
     '  return %0 : tensor<4xf32>\n}\n',
     "{f}:2:3: error: duplicate targets not allowed."),
    # -- functions -------------------------------------------------------------
    ("func_return_type_mismatch.mlir",
     'func.func @main(%a: tensor<3xf32>) -> tensor<4xf32> {\n  return %a : tensor<3xf32>\n}\n',
     "{f}:2:3: error: type of return operand 0 ('tensor<3xf32>') doesn't match function result type "
     "('tensor<4xf32>') in function @main"),
    ("func_return_count_mismatch.mlir",
     'func.func @main(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {\n  return %a : tensor<3xf32>\n}\n',
     "{f}:2:3: error: 'func.return' op has 1 operands, but enclosing function (@main) returns 2"),
    ("func_public_declaration.mlir", 'func.func @ext(tensor<8xf32>) -> tensor<8xf32>\n',
     "{f}:1:1: error: 'func.func' op symbol declaration cannot have public visibility"),
    ("func_calls_itself.mlir",
     'func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = call @main(%a) : (tensor<8xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n',
     "{f}:2:3: error: recursive call graph is not supported: @main calls itself"),
    ("func_calls_itself_through_another.mlir",
     'func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = call @g(%a) : (tensor<8xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n'
     'func.func @g(%a: tensor<8xf32>) -> tensor<8xf32> {\n'
     '  %0 = call @main(%a) : (tensor<8xf32>) -> tensor<8xf32>\n'
     '  return %0 : tensor<8xf32>\n}\n',
     "{f}:2:3: error: recursive call graph is not supported: @main calls itself through @g"),
    ("dense_unsigned_negative.mlir",
     FN1 % ("tensor<f32>", "tensor<2xui32>", "stablehlo.constant dense<[1, -3]> : tensor<2xui32>", "tensor<2xui32>"),
     "{f}:2:27: error: expected unsigned integer elements, but parsed negative value"),
    # -- StableHLO op constraints the interpreter and passes index by --------
    ("dense_i8_out_of_range.mlir",
     FN1 % ("tensor<f32>", "tensor<4xi8>", "stablehlo.constant dense<[1, 2, 300, 4]> : tensor<4xi8>", "tensor<4xi8>"),
     "{f}:2:27: error: integer constant out of range for type"),
    ("dense_si8_negative_out_of_range.mlir",
     FN1 % ("tensor<f32>", "tensor<2xsi8>", "stablehlo.constant dense<[-129, 1]> : tensor<2xsi8>", "tensor<2xsi8>"),
     "{f}:2:27: error: integer constant out of range for type"),
    ("dense_int_parsed_float.mlir",
     FN1 % ("tensor<f32>", "tensor<2xi32>", "stablehlo.constant dense<[1.5, 2]> : tensor<2xi32>", "tensor<2xi32>"),
     "{f}:2:27: error: expected integer elements, but parsed floating-point"),
    ("shlo_conv_dims_out_of_range.mlir",
     conv("[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f]", "stride = [1, 1, 1]", 1, 1, "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects input, kernel, and output dimension-numbers to be in-range [0, 4)."),
    ("shlo_conv_feature_group_zero.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", 1, 0,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects feature_group_count to be a positive number, got 0."),
    ("shlo_conv_feature_group_not_dividing.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", 1, 3,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects input feature dimension (4) to be a multiple of feature_group_count. Got "
     "feature_group_count = 3."),
    ("shlo_conv_batch_group_not_dividing.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", 2, 1,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects input batch dimension (1) to be divisible by batch_group_count. Got "
     "batch_group_count = 2."),
    ("shlo_conv_both_group_counts.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", 2, 2,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects batch_group_count and feature_group_count not to be both greater than 1. Got 2 and 2 "
     "resp."),
    ("shlo_conv_strides_size.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1, 1], pad = [[1, 1], [1, 1]]", 1, 1,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects window-strides to have same dimension-size as size of window dimensions (2), but got: 3."),
    ("shlo_conv_zero_stride.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 0], pad = [[1, 1], [1, 1]]", 1, 1,
             "tensor<1x8x8x16xf32>"),
     "{f}:2:3: error: expects window to have positive stride for 1-th window dimension, but got 0."),
    ("shlo_conv_wrong_result.mlir",
     conv("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", 1, 1,
             "tensor<1x9x8x16xf32>"),
     "{f}:2:3: error: 'stablehlo.convolution' op inferred shape '[1, 8, 8, 16]' is incompatible with return type of "
     "operation 'tensor<1x9x8x16xf32>'"),
    ("shlo_fft_rfft_length.mlir",
     FN1 % ("tensor<4x8xf32>", "tensor<4x5xcomplex<f32>>",
            "stablehlo.fft %a, type = RFFT, length = [16] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>",
            "tensor<4x5xcomplex<f32>>"),
     "{f}:2:3: error: RFFT requires innermost dimensions match fft_length. Got: 4, 8 but wanted 16."),
    ("shlo_fft_real_input.mlir",
     FN1 % ("tensor<4x8xf32>", "tensor<4x8xcomplex<f32>>",
            "stablehlo.fft %a, type = FFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x8xcomplex<f32>>",
            "tensor<4x8xcomplex<f32>>"),
     "{f}:2:3: error: FFT takes a complex tensor as input, but is given 'tensor<4x8xf32>'."),
    ("shlo_fft_rank_above_operand.mlir",
     FN1 % ("tensor<8xcomplex<f32>>", "tensor<8xcomplex<f32>>",
            "stablehlo.fft %a, type = FFT, length = [8, 8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>",
            "tensor<8xcomplex<f32>>"),
     "{f}:2:3: error: operand rank must not be less than fft rank of 2 for operand of type 'tensor<8xcomplex<f32>>'."),
    ("shlo_fft_wrong_result.mlir",
     FN1 % ("tensor<4x8xf32>", "tensor<4x8xcomplex<f32>>",
            "stablehlo.fft %a, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x8xcomplex<f32>>",
            "tensor<4x8xcomplex<f32>>"),
     "{f}:2:3: error: 'stablehlo.fft' op inferred type(s) 'tensor<4x5xcomplex<f32>>' are incompatible with return "
     "type(s) of operation 'tensor<4x8xcomplex<f32>>'"),
    ("shlo_batch_norm_feature_index.mlir",
     'func.func @main(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) -> tensor<2x3x4xf32> {\n'
     '  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 5 : i64} '
     ': (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>\n'
     '  return %0 : tensor<2x3x4xf32>\n}\n',
     "{f}:2:3: error: expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
     "featureIndex 5, and rank 3."),
    ("shlo_batch_norm_scale_size.mlir",
     'func.func @main(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {\n'
     '  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} '
     ': (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>\n'
     '  return %0 : tensor<2x3x4xf32>\n}\n',
     "{f}:2:3: error: expects the size of scale factor to be same as the feature count, but the size of scale factor "
     "is 4 and the feature count is 3."),
    ("shlo_cholesky_not_square.mlir",
     FN1 % ("tensor<4x8xf32>", "tensor<4x8xf32>", "stablehlo.cholesky %a, lower = true : tensor<4x8xf32>",
            "tensor<4x8xf32>"),
     "{f}:2:3: error: minor dimensions of 'a' must have equal size, got shape 4, 8."),
    ("shlo_rng_normal_int.mlir",
     "func.func @rng(%a: tensor<i32>, %b: tensor<i32>) -> tensor<2x3xi32> {\n  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<2x3xi32>\n  return %0 : tensor<2x3xi32>\n}\n",
     "{f}:3:3: error: mu and sigma must be floats"),
    ("shlo_rng_shape_mismatch.mlir",
     "func.func @rng2(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2x4xf32> {\n  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x4xf32>\n  return %0 : tensor<2x4xf32>\n}\n",
     "{f}:3:3: error: 'stablehlo.rng' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'"),
    ("shlo_dynamic_reshape_rank.mlir",
     "func.func @dr(%a: tensor<8xf32>, %s: tensor<3xi64>) -> tensor<?x?xf32> {\n  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<8xf32>, tensor<3xi64>) -> tensor<?x?xf32>\n  return %0 : tensor<?x?xf32>\n}\n",
     "{f}:2:3: error: output should have a rank equal to the number of elements in output_shape"),
    ("shlo_dynamic_pad_length.mlir",
     "func.func @dp(%a: tensor<8xf32>, %p: tensor<f32>, %l: tensor<2xi64>) -> tensor<?xf32> {\n  %0 = stablehlo.dynamic_pad %a, %p, %l, %l, %l : (tensor<8xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n",
     "{f}:2:3: error: edge_padding_low length(2) must match operand rank(1)."),
    ("shlo_real_dynamic_slice_size.mlir",
     "func.func @rds(%a: tensor<8xf32>, %l: tensor<2xi64>, %k: tensor<1xi64>) -> tensor<?xf32> {\n  %0 = stablehlo.real_dynamic_slice %a, %k, %l, %k : (tensor<8xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n",
     "{f}:2:3: error: has mismatched number of operand rank (1) and limit_indices size (2)"),
    ("shlo_custom_call_ffi_config.mlir",
     "func.func @cc(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.custom_call @foo(%a) {api_version = 4 : i32, backend_config = \"x\"} : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n",
     "{f}:2:3: error: 'stablehlo.custom_call' op backend_config for api_version API_VERSION_TYPED_FFI must be a dictionary attribute."),
    ("shlo_custom_call_api_version.mlir",
     "func.func @cc2(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.custom_call @foo(%a) {api_version = 9 : i32} : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n",
     "{f}:2:3: error: 'stablehlo.custom_call' op attribute 'api_version' failed to satisfy constraint: allowed 32-bit signless integer cases: 0, 1, 2, 3, 4"),
    ("shlo_infeed_layout_size.mlir",
     "func.func @inf(%t: !stablehlo.token) -> tensor<8xf32> {\n  %0, %1 = \"stablehlo.infeed\"(%t) {layout = [[0], [1]]} : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)\n  return %0 : tensor<8xf32>\n}\n",
     "{f}:2:3: error: layout-attribute size must be 1 (which is the number of op-results - 1 (for token result)), but got 2"),
    ("shlo_recv_no_token.mlir",
     "func.func @recv(%t: !stablehlo.token) -> tensor<8xf32> {\n  %0, %1 = \"stablehlo.recv\"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<8xf32>, tensor<8xf32>)\n  return %0 : tensor<8xf32>\n}\n",
     "{f}:2:3: error: last element of result types is expected to be of token type, but got 'tensor<8xf32>'"),
    ("shlo_compare_mixed_elements.mlir",
     "func.func @cmp(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xi1> {\n  %0 = stablehlo.compare LT, %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>\n  return %0 : tensor<4xi1>\n}\n",
     "{f}:2:3: error: 'stablehlo.compare' op requires the same element type for all operands"),
    ("shlo_compare_result_type.mlir",
     "func.func @cmp2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.compare\"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
     "{f}:2:3: error: 'stablehlo.compare' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'"),
    ("shlo_real_part_type.mlir",
     "func.func @real(%a: tensor<4xcomplex<f32>>) -> tensor<4xf64> {\n  %0 = stablehlo.real %a : (tensor<4xcomplex<f32>>) -> tensor<4xf64>\n  return %0 : tensor<4xf64>\n}\n",
     "{f}:2:3: error: 'stablehlo.real' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'"),
    ("shlo_complex_part_type.mlir",
     "func.func @complex(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xcomplex<f64>> {\n  %0 = stablehlo.complex %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f64>>\n  return %0 : tensor<4xcomplex<f64>>\n}\n",
     "{f}:2:3: error: 'stablehlo.complex' op inferred type(s) 'tensor<4xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<4xcomplex<f64>>'"),
    ("shlo_replica_id_type.mlir",
     "func.func @rid() -> tensor<i32> {\n  %0 = \"stablehlo.replica_id\"() : () -> tensor<i32>\n  return %0 : tensor<i32>\n}\n",
     "{f}:2:3: error: 'stablehlo.replica_id' op inferred type(s) 'tensor<ui32>' are incompatible with return type(s) of operation 'tensor<i32>'"),
    ("shlo_after_all_operand.mlir",
     "func.func @aa(%a: tensor<f32>) -> !stablehlo.token {\n  %0 = \"stablehlo.after_all\"(%a) : (tensor<f32>) -> !stablehlo.token\n  return %0 : !stablehlo.token\n}\n",
     "{f}:2:3: error: 'stablehlo.after_all' op operand #0 must be variadic of token, but got 'tensor<f32>'"),
    ("shlo_triangular_solve_shared_dim.mlir",
     'func.func @main(%a: tensor<4x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {\n'
     '  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, '
     'transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>\n'
     '  return %0 : tensor<3x4xf32>\n}\n',
     "{f}:2:3: error: shared dimension of operands 'a' and 'b' does not match, but got 'tensor<4x4xf32>' and "
     "'tensor<3x4xf32>'"),
    ("shlo_reduce_precision_zero_exponent.mlir",
     FN1 % ("tensor<4xf32>", "tensor<4xf32>", "stablehlo.reduce_precision %a, format = e0m10 : tensor<4xf32>",
            "tensor<4xf32>"),
     "{f}:2:3: error: 'stablehlo.reduce_precision' op attribute 'exponent_bits' failed to satisfy constraint: 32-bit "
     "signless integer attribute whose value is positive"),
    ("shlo_bitcast_convert_widths.mlir",
     FN1 % ("tensor<4xi64>", "tensor<4x3xi32>", "stablehlo.bitcast_convert %a : (tensor<4xi64>) -> tensor<4x3xi32>",
            "tensor<4x3xi32>"),
     "{f}:2:3: error: requires compatible bit widths. Got: 'tensor<4xi64>' and 'tensor<4x3xi32>', but 32 * 3 != 64."),
    ("shlo_bitcast_convert_rank.mlir",
     FN1 % ("tensor<i64>", "tensor<i32>", "stablehlo.bitcast_convert %a : (tensor<i64>) -> tensor<i32>", "tensor<i32>"),
     "{f}:2:3: error: rank of smaller element type (0) should be 1 more than rank of larger element type (0), but "
     "0 != 0 + 1."),
    ("shlo_custom_call_layout_not_permutation.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<2x3xf32>",
            "stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[1, 2]> : tensor<2xindex>], "
            "result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
            "tensor<2x3xf32>"),
     "{f}:2:3: error: 'stablehlo.custom_call' op incorrect layout dense<[1, 2]> : tensor<2xindex> for type "
     "'tensor<2x3xf32>', layout must be a permutation of [0, 2)"),
    ("shlo_custom_call_layout_count.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<2x3xf32>",
            "stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[1, 0]> : tensor<2xindex>, "
            "dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : "
            "(tensor<2x3xf32>) -> tensor<2x3xf32>",
            "tensor<2x3xf32>"),
     "{f}:2:3: error: 'stablehlo.custom_call' op Number of operands must match the number of operand layouts, 1 != 2"),
    ("shlo_custom_call_one_side_layouts.mlir",
     FN1 % ("tensor<2x3xf32>", "tensor<2x3xf32>",
            "stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[1, 0]> : tensor<2xindex>]} : "
            "(tensor<2x3xf32>) -> tensor<2x3xf32>",
            "tensor<2x3xf32>"),
     "{f}:2:3: error: 'stablehlo.custom_call' op Layout attributes should be specified for either both operands and "
     "results or none."),
    ("shlo_rng_bit_generator_state_shape.mlir",
     'func.func @main(%a: tensor<2xui64>) -> tensor<4xui32> {\n'
     '  %0, %1 = stablehlo.rng_bit_generator %a, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<3xui64>, '
     'tensor<4xui32>)\n'
     '  return %1 : tensor<4xui32>\n}\n',
     "{f}:2:3: error: output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and "
     "'tensor<3xui64>'"),
    ("shlo_select_and_scatter_source_shape.mlir",
     SAS % ("tensor<2xf32>", "%p: tensor<f32>, %q: tensor<f32>", "tensor<2xf32>"),
     "{f}:3:3: error: expects source-type to be 'tensor<2x3xf32>', but got'tensor<2xf32>'"),
    ("shlo_select_and_scatter_select_arity.mlir",
     SAS % ("tensor<2x3xf32>", "%p: tensor<f32>, %q: tensor<f32>, %r: tensor<f32>", "tensor<2x3xf32>"),
     "{f}:3:3: error: expects the select-region to take 2 parameters, but takes 3"),
    # -- notation snippets ------------------------------------------------------
    ("note_unknown_mesh.notation", 'sharding<@nope, [{}]> : tensor<8xf32>', None),
    ("note_no_type.notation", '@m = <["x"=2]>\nsharding<@m, [{"x"}]>', None),
    ("note_axis_product_overflow.notation",
     '@m = <["x"=4294967296, "y"=4294967296]>\nsharding<@m, [{"x"}]> : tensor<8xf32>', None),
    ("note_negative_axis.notation", '@m = <["x"=-4]>\nsharding<@m, [{}]> : tensor<8xf32>', None),
    ("note_rank_mismatch.notation", '@m = <["x"=2]>\nsharding<@m, [{"x"}, {}]> : tensor<8xf32>', None),
    ("note_garbage.notation", 'hello world', None),
    ("note_bad_mesh_line.notation", '@m = ["x"=2]\nsharding<@m, [{}]> : tensor<8xf32>', None),
    ("note_dim_not_number.notation", '@m = <["x"=2]>\nsharding<@m, [{"x"}]> : tensor<axf32>', None),
    ("note_huge_dim.notation", '@m = <["x"=2]>\nsharding<@m, [{"x"}]> : tensor<99999999999999999999xf32>', None),
    ("note_invalid_utf8.notation", b'@m = <["\xff"=2]>\nsharding<@m, [{"\xfe"}]> : tensor<8xf32>', None),
]


def write(name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def cut_points(n, count):
    """`count` offsets spread over (0, n), deterministic and distinct."""
    pts = sorted({max(1, min(n - 1, (n * k) // (count + 1) + (k * 7) % 5)) for k in range(1, count + 1)})
    return pts


def derived_cases(shard):
    out = []
    for s in SAMPLES:
        with open(os.path.join(ROOT, "samples", s + ".mlir"), "rb") as f:
            text = f.read()
        # Truncations: the comment header is skipped, cuts fall in the code.
        body_start = text.find(b"\nmodule") + 1
        code = text[body_start:]
        for i, cut in enumerate(cut_points(len(code), 14)):
            out.append(("trunc_%s_%02d.mlir" % (s, i), code[:cut]))
        # Wrong nesting: a closer swapped for another kind, or dropped, or a
        # stray one added.
        closers = [m.start() for m in re.finditer(rb"[\]\)>}]", code)]
        swap = {b"]": b")", b")": b"}", b">": b"]", b"}": b">"}
        for i, pos in enumerate(closers[len(closers) // 7::max(1, len(closers) // 6)][:6]):
            c = code[pos:pos + 1]
            out.append(("nest_swap_%s_%d.mlir" % (s, i), code[:pos] + swap[c] + code[pos + 1:]))
        for i, pos in enumerate(closers[len(closers) // 5::max(1, len(closers) // 3)][:3]):
            out.append(("nest_drop_%s_%d.mlir" % (s, i), code[:pos] + code[pos + 1:]))
        out.append(("nest_extra_%s.mlir" % s, code[:len(code) // 2] + b"}" + code[len(code) // 2:]))
        # Invalid UTF-8 and NUL spliced into the middle of a token.
        mid = code.find(b"sdy.sharding", len(code) // 3)
        if mid > 0:
            out.append(("utf8_splice_%s.mlir" % s, code[:mid + 5] + b"\xff\xfe" + code[mid + 5:]))
            out.append(("nul_splice_%s.mlir" % s, code[:mid + 5] + b"\x00" + code[mid + 5:]))
    # Binary junk, deterministic.
    rng = random.Random(20240601)
    for i in range(12):
        size = [1, 7, 64, 300, 4096][i % 5]
        out.append(("junk_random_%02d.mlir" % i, bytes(rng.randrange(256) for _ in range(size))))
    out.append(("junk_elf_header.mlir", b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"\x03\x00>\x00"))
    out.append(("junk_gzip_header.mlir", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(40))))
    out.append(("junk_printable.mlir", b"".join(bytes([33 + (i * 37) % 94]) for i in range(200))))
    # Notation: every sharding line of samples/notation.txt truncated at a few
    # points (with its meshes kept complete), and its meshes truncated.
    with open(os.path.join(ROOT, "samples", "notation.txt")) as f:
        lines = [l for l in f.read().splitlines() if l and not l.startswith("//")]
    meshes = [l for l in lines if l.startswith("@")]
    shardings = [l for l in lines if l.startswith("sharding")]
    prelude = "\n".join(meshes) + "\n"
    for i, line in enumerate(shardings):
        for j, cut in enumerate(cut_points(len(line), 4)):
            out.append(("note_trunc_%d_%d.notation" % (i, j), prelude + line[:cut]))
    for i, line in enumerate(meshes):
        for j, cut in enumerate(cut_points(len(line), 4)):
            out.append(("note_mesh_trunc_%d_%d.notation" % (i, j), line[:cut] + "\n" + shardings[0]))
    return out


def generic_truncations(shard):
    """Truncations of a sample's generic form, which mlir-opt-16 can read."""
    proc = subprocess.run([shard, "opt", "--mlir-print-op-generic", os.path.join(ROOT, "samples", "mlp_dp_mp.mlir")],
                          stdout=subprocess.PIPE, check=True)
    text = proc.stdout
    return [("trunc_generic_mlp_%02d.mlir" % i, text[:cut]) for i, cut in enumerate(cut_points(len(text), 16))]


def bless(shard, names):
    subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--shard", shard, "--bless"] + names,
                   check=False, stdout=subprocess.DEVNULL)


def first_line(name):
    with open(os.path.join(HERE, os.path.splitext(name)[0] + ".expected"), encoding="utf-8") as f:
        return f.read().rstrip("\n")


def status_of(shard, name):
    cmd = [shard, "check", "--color=never"]
    if name.endswith(".notation"):
        with open(os.path.join(HERE, name), "rb") as f:
            cmd.append(b"-e" + f.read())
    else:
        cmd.append(name)
    return subprocess.run(cmd, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shard", required=True)
    ap.add_argument("--mlir-opt")
    args = ap.parse_args()
    shard = os.path.abspath(args.shard)
    for f in os.listdir(HERE):
        if f.endswith((".mlir", ".notation", ".expected")):
            os.remove(os.path.join(HERE, f))

    derived = derived_cases(shard) + generic_truncations(shard)
    for name, data in derived:
        write(name, data)
    hand_blessed = []
    for name, data, _ in HAND:
        write(name, data)
        hand_blessed.append(name)
    bless(shard, [n for n, _ in derived] + hand_blessed)

    problems = 0
    for name, _, want in HAND:
        if want is None:
            continue
        want = want.format(f=name)
        got = first_line(name)
        if got != want:
            problems += 1
            print("DISAGREE %s\n  want: %s\n  shard: %s" % (name, want, got))
        with open(os.path.join(HERE, os.path.splitext(name)[0] + ".expected"), "w", encoding="utf-8") as f:
            f.write(want + "\n" if want else "")

    dropped = 0
    valid_ok = {n for n, _, w in HAND if w == ""}
    for name, _ in derived + [(n, d) for n, d, _ in HAND]:
        if name in valid_ok:
            continue
        status = status_of(shard, name)
        if status == 0:
            # e.g. a truncation right after a complete op: valid, not malformed.
            for ext in (name, os.path.splitext(name)[0] + ".expected"):
                os.remove(os.path.join(HERE, ext))
            dropped += 1
        elif status != 1:
            problems += 1
            print("STATUS %s: exit %d" % (name, status))

    if args.mlir_opt:
        for name, _ in generic_truncations(shard):
            if not os.path.exists(os.path.join(HERE, name)):
                continue
            proc = subprocess.run([args.mlir_opt, "--allow-unregistered-dialect", name], cwd=HERE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            theirs = proc.stderr.decode("utf-8", "replace").split("\n", 1)[0]
            ours = first_line(name)
            if theirs.split(": error:")[0] != ours.split(": error:")[0]:
                print("POSITION %s\n  mlir-opt: %s\n  shard:    %s" % (name, theirs, ours))

    total = sum(1 for f in os.listdir(HERE) if f.endswith((".mlir", ".notation")))
    print("%d cases written (%d valid truncations dropped), %d problems" % (total, dropped, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
