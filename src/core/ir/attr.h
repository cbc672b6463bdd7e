/* MLIR attributes. The ones shard reasons about are modelled (integers,
 * strings, arrays, dictionaries, dense arrays, every sdy attribute, and
 * StableHLO's dimension numbers, enums, channel handles, meshes and mesh-axes
 * replica groups, decoded once by the parser); any other attribute, or
 * malformed StableHLO text, is kept verbatim, so unknown dialects survive a
 * round trip untouched (malformed mesh-axes replica groups are parse errors). Passes, rules
 * and the interpreter read attributes only through the accessors below (and
 * shard_op_dot_dims & co. in ir.h), never their text. */
#ifndef SHARD_ATTR_H
#define SHARD_ATTR_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/diag.h"
#include "sdy/sharding.h"
#include "ir/type.h"

typedef enum shard_attr_kind {
  SHARD_ATTR_RAW, /* verbatim text of an attribute we don't model */
  SHARD_ATTR_UNIT, /* `unit` (or a dict entry without value) */
  SHARD_ATTR_BOOL, /* true / false */
  SHARD_ATTR_INT, /* 5 : i64  (type may be NULL: bare integer is i64) */
  SHARD_ATTR_FLOAT, /* 1.0 : f32, text kept as written */
  SHARD_ATTR_STRING, /* "..." unescaped bytes */
  SHARD_ATTR_SYMREF, /* @a or @a::@b */
  SHARD_ATTR_TYPE, /* a type used as attribute */
  SHARD_ATTR_ARRAY, /* [a, b] */
  SHARD_ATTR_DICT, /* {a = b, c} */
  SHARD_ATTR_DENSE_ARRAY, /* array<i64: 1, 2> */
  SHARD_ATTR_DENSE, /* dense<...> : type (payload kept as text) */
  SHARD_ATTR_LOC, /* loc(...) kept as text */
  /* sdy */
  SHARD_ATTR_SDY_MESH, /* #sdy.mesh<...> */
  SHARD_ATTR_SDY_SHARDING, /* #sdy.sharding<...> (also stripped <...> in ops) */
  SHARD_ATTR_SDY_PER_VALUE, /* #sdy.sharding_per_value<[...]> */
  SHARD_ATTR_SDY_RULE, /* #sdy.op_sharding_rule<...> */
  SHARD_ATTR_SDY_MANUAL_AXES, /* {"a", "b"} as in manual_axes= */
  SHARD_ATTR_SDY_AXIS_LIST, /* {"x", "y":(1)2} */
  SHARD_ATTR_SDY_AXIS_LISTS, /* [{"x"}, {}] (per-dim axes of collectives) */
  SHARD_ATTR_SDY_ALL_TO_ALL, /* [{"x"}: 0->2, ...] */
  SHARD_ATTR_SDY_REDUCTION, /* sum / max / min */
  SHARD_ATTR_SDY_EDGES, /* #sdy.propagation_edges<...> */
  SHARD_ATTR_SDY_DIRECTION, /* FORWARD / BACKWARD / NONE / BOTH */
  /* stablehlo, decoded once by the parser (ops_stablehlo_attr.c) */
  SHARD_ATTR_SHLO_DOT, /* #stablehlo.dot<lhs_batching_dimensions = [0], ...> */
  SHARD_ATTR_SHLO_CONV, /* #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> */
  SHARD_ATTR_SHLO_GATHER, /* #stablehlo.gather<offset_dims = [1], ...> */
  SHARD_ATTR_SHLO_SCATTER, /* #stablehlo.scatter<update_window_dims = [1], ...> */
  SHARD_ATTR_SHLO_ENUM, /* #stablehlo<comparison_direction LT>, #stablehlo<precision HIGH>, ... */
  SHARD_ATTR_SHLO_CHANNEL, /* #stablehlo.channel_handle<handle = 1, type = 1> */
  /* parsed and printed by attr_stablehlo_mesh.c, which has their structs */
  SHARD_ATTR_SHLO_MESH, /* #stablehlo.mesh<axes=[<name = "x", size = 2>]> */
  SHARD_ATTR_SHLO_MESH_AXES /* #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]> */
} shard_attr_kind;

typedef struct shard_attr shard_attr;

typedef struct shard_named_attr {
  const char *name;
  shard_attr *value;
  bool inherent; /* a property: printed in <{...}> in generic form */
} shard_named_attr;

typedef struct shard_axis_list {
  shard_axis_ref *axes;
  uint32_t num;
} shard_axis_list;

typedef struct shard_all_to_all_param {
  shard_axis_list axes;
  int64_t src_dim, tgt_dim;
} shard_all_to_all_param;

/* #sdy.propagation_edges<[{step-2 = [{"y" = operand-1 -> [operand-0, result-0]}]}, ...]> */
typedef struct shard_value_ref {
  bool is_result; /* operand-N or result-N */
  int64_t index;
} shard_value_ref;
typedef struct shard_axis_edge {
  shard_axis_ref axis;
  shard_value_ref source;
  shard_value_ref *targets;
  uint32_t num_targets;
} shard_axis_edge;
typedef struct shard_edge_step {
  int64_t step;
  shard_axis_edge *edges;
  uint32_t num_edges;
} shard_edge_step;

typedef enum shard_direction { SHARD_DIR_BOTH, SHARD_DIR_FORWARD, SHARD_DIR_BACKWARD, SHARD_DIR_NONE } shard_direction;

/* ---- StableHLO attributes ----------------------------------------------- */

/* An integer list held by an attribute (arena memory; v is NULL when n is 0). */
typedef struct shard_i64s {
  const int64_t *v;
  uint32_t n;
} shard_i64s;

/* The index of x in l, or -1. */
int shard_i64s_find(const shard_i64s *l, int64_t x);

/* #stablehlo.dot<...>: absent fields are empty. */
typedef struct shard_dot_dims {
  shard_i64s lhs_batch, rhs_batch, lhs_contract, rhs_contract;
} shard_dot_dims;

/* #stablehlo.conv<...>: the position of each dimension in its tensor;
 * spatial dim k of the input, kernel and output is in_spatial.v[k], ... */
typedef struct shard_conv_dims {
  int64_t in_batch, in_feature, k_in_feature, k_out_feature, out_batch, out_feature;
  shard_i64s in_spatial, k_spatial, out_spatial;
} shard_conv_dims;

/* #stablehlo.gather<...> and #stablehlo.scatter<...> have the same shape:
 *   gather:  offset_dims, collapsed_slice_dims, operand_batching_dims,
 *            start_indices_batching_dims, start_index_map, index_vector_dim
 *   scatter: update_window_dims, inserted_window_dims, input_batching_dims,
 *            scatter_indices_batching_dims, scatter_dims_to_operand_dims,
 *            index_vector_dim */
typedef struct shard_gather_dims {
  shard_i64s offset, collapsed, operand_batching, indices_batching, index_map;
  int64_t index_vector_dim;
} shard_gather_dims;

/* The StableHLO enums shard models; each case is its index in
 * shard_shlo_enum_name's table (in StableHLO's own order). */
typedef enum shard_shlo_enum_kind {
  SHARD_SHLO_COMPARISON_DIRECTION, /* EQ NE GE GT LE LT */
  SHARD_SHLO_COMPARISON_TYPE, /* NOTYPE FLOAT TOTALORDER SIGNED UNSIGNED */
  SHARD_SHLO_FFT_TYPE, /* FFT IFFT RFFT IRFFT */
  SHARD_SHLO_PRECISION, /* DEFAULT HIGH HIGHEST */
  SHARD_SHLO_RNG_ALGORITHM, /* DEFAULT THREE_FRY PHILOX */
  SHARD_SHLO_RNG_DISTRIBUTION, /* UNIFORM NORMAL */
  SHARD_SHLO_TRANSPOSE, /* TRANSPOSE_INVALID NO_TRANSPOSE TRANSPOSE ADJOINT */
  SHARD_SHLO_NUM_ENUMS
} shard_shlo_enum_kind;

enum { SHARD_CMP_EQ, SHARD_CMP_NE, SHARD_CMP_GE, SHARD_CMP_GT, SHARD_CMP_LE, SHARD_CMP_LT };
enum { SHARD_CMP_NOTYPE, SHARD_CMP_FLOAT, SHARD_CMP_TOTALORDER, SHARD_CMP_SIGNED, SHARD_CMP_UNSIGNED };
enum { SHARD_FFT_FFT, SHARD_FFT_IFFT, SHARD_FFT_RFFT, SHARD_FFT_IRFFT };
enum { SHARD_PRECISION_DEFAULT, SHARD_PRECISION_HIGH, SHARD_PRECISION_HIGHEST };
enum { SHARD_TRANSPOSE_INVALID, SHARD_TRANSPOSE_NO_TRANSPOSE, SHARD_TRANSPOSE_TRANSPOSE, SHARD_TRANSPOSE_ADJOINT };

/* Dense payloads of integer type with at most this many elements are also
 * decoded into integers when parsed (they are the lists ops take: padding,
 * old-style dimension lists). Longer ones are values, read as tensors. */
#define SHARD_DENSE_LIST_MAX 4096

struct shard_attr {
  shard_attr_kind kind;
  bool mhlo; /* SHARD_ATTR_SHLO_*: spelled #mhlo (an mhlo op's), else #stablehlo */
  bool chlo; /* SHARD_ATTR_SHLO_ENUM: chlo's own enum, #chlo<comparison_direction LT> */
  shard_span span;
  union {
    const char *raw; /* RAW, LOC: full text as written; FLOAT: number text */
    bool boolean;
    struct {
      int64_t value;
      shard_type *type;
      const char *text;
    } integer; /* text: as written, for huge values */
    struct {
      const char *text;
      shard_type *type;
    } flt;
    struct {
      const char *data;
      uint32_t len;
    } str;
    struct {
      const char **path;
      uint32_t num;
    } symref;
    shard_type *type;
    /* ints: the elements' values when every one is an integer (set by the
     * parser; NULL otherwise) */
    struct {
      shard_attr **elems;
      uint32_t num;
      const int64_t *ints;
    } array;
    struct {
      shard_named_attr *entries;
      uint32_t num;
    } dict;
    struct {
      const char *elem;
      int64_t *vals;
      uint32_t num;
    } dense_array;
    /* payload between dense< >; ints: its integers row-major, a splat
     * repeated (NULL unless an integer payload of at most SHARD_DENSE_LIST_MAX) */
    struct {
      const char *payload;
      shard_type *type;
      const int64_t *ints;
      uint32_t num_ints;
    } dense;
    shard_mesh *mesh;
    shard_tensor_sharding *sharding;
    shard_sharding_per_value *per_value;
    shard_op_sharding_rule *rule;
    struct {
      const char **names;
      uint32_t num;
    } manual_axes;
    shard_axis_list axis_list;
    struct {
      shard_axis_list *dims;
      uint32_t num;
    } axis_lists;
    struct {
      shard_all_to_all_param *params;
      uint32_t num;
    } all_to_all;
    shard_reduction reduction;
    struct {
      shard_edge_step *steps;
      uint32_t num;
    } edges;
    shard_direction direction;
    shard_dot_dims *dot;
    shard_conv_dims *conv;
    shard_gather_dims *gather; /* GATHER and SCATTER */
    struct {
      shard_shlo_enum_kind kind;
      uint32_t value;
    } shlo_enum;
    struct {
      int64_t handle, type;
    } channel;
    struct shard_shlo_mesh *shlo_mesh;
    struct shard_shlo_mesh_axes *mesh_axes;
  } u;
};

/* Builders. */
shard_attr *shard_attr_new(shard_arena *a, shard_attr_kind kind);
shard_attr *shard_attr_int(shard_arena *a, int64_t v, shard_type *type);
shard_attr *shard_attr_string(shard_arena *a, const char *s, uint32_t len);
shard_attr *shard_attr_raw(shard_arena *a, const char *text);
shard_attr *shard_attr_dense_i64(shard_arena *a, const int64_t *vals, uint32_t n);
/* An array attribute of the n attributes elems (the pointers are copied). */
shard_attr *shard_attr_array(shard_arena *a, shard_attr *const *elems, uint32_t n);
shard_attr *shard_attr_sharding(shard_arena *a, shard_tensor_sharding *s);
shard_attr *shard_attr_per_value(shard_arena *a, shard_tensor_sharding *s, uint32_t n);

/* ---- reading attributes: the one set of accessors ------------------------ */

/* The integers of an integer list attribute, decoded when it was parsed:
 * array<i64: ...> (any integer element type), dense<...> of integers (see
 * SHARD_DENSE_LIST_MAX) or [1, 2] of integers. False for anything else. */
bool shard_attr_i64_list(const shard_attr *a, shard_i64s *out);
/* Typed StableHLO attributes; NULL when `a` is not of that kind. */
const shard_dot_dims *shard_attr_dot_dims(const shard_attr *a);
const shard_conv_dims *shard_attr_conv_dims(const shard_attr *a);
const shard_gather_dims *shard_attr_gather_dims(const shard_attr *a); /* GATHER */
const shard_gather_dims *shard_attr_scatter_dims(const shard_attr *a); /* SCATTER */
/* The case of a StableHLO enum attribute of `kind`, or -1. */
int shard_attr_enum(const shard_attr *a, shard_shlo_enum_kind kind);
/* "LT" for (SHARD_SHLO_COMPARISON_DIRECTION, SHARD_CMP_LT); NULL when out of range. */
const char *shard_shlo_enum_name(shard_shlo_enum_kind kind, uint32_t value);
/* The case of `kind` named `name` ("LT"), or -1. */
int shard_shlo_enum_case_named(shard_shlo_enum_kind kind, const char *name);

/* Decodes the integers of a dense attribute of integer type into
 * u.dense.ints (the parser does this once for every dense attribute; a
 * builder of one calls it too). */
void shard_attr_dense_set_ints(shard_arena *a, shard_attr *dense);
/* Builders of the typed StableHLO attributes (lists are copied). */
shard_attr *shard_attr_shlo_enum(shard_arena *a, shard_shlo_enum_kind kind, uint32_t value);
shard_attr *shard_attr_channel_handle(shard_arena *a, int64_t handle, int64_t type);
/* The handle of a #stablehlo.channel_handle<...>; false for any other attribute. */
bool shard_attr_channel(const shard_attr *a, int64_t *handle, int64_t *type);
shard_attr *shard_attr_dot_dims_new(shard_arena *a, const shard_dot_dims *d);
shard_attr *shard_attr_gather_dims_new(shard_arena *a, shard_attr_kind kind, const shard_gather_dims *d);
/* A typed StableHLO attribute from the text of a #stablehlo... attribute as
 * written in the generic form; NULL when the text is not one shard models or
 * is malformed (the caller then keeps it verbatim). */
shard_attr *shard_attr_shlo_decode(shard_arena *a, const char *text);
/* Prints a SHARD_ATTR_SHLO_* attribute the way StableHLO's printer does. */
void shard_shlo_attr_print(shard_buf *b, const shard_attr *a);
bool shard_shlo_attr_equal(const shard_attr *a, const shard_attr *b);

/* Prints any SHARD_ATTR_SDY_* attribute (sdy_print.c). Kinds that have a
 * #sdy prefix in attribute position (mesh, sharding, sharding_per_value,
 * op_sharding_rule, propagation_edges) are printed with it; op-parameter kinds
 * (axis lists, all-to-all params, reduction, direction, manual axes) print bare. */
void shard_sdy_attr_print(shard_buf *b, const shard_attr *a);

/* Prints an attribute as MLIR (and sdy_opt) would. Sharding attrs print with
 * their #sdy.* prefix; stripped forms are printed by the op printers. */
void shard_attr_print(shard_buf *b, const shard_attr *a);
bool shard_attr_equal(const shard_attr *a, const shard_attr *b);
/* Looks up a name in a sorted named-attribute list; NULL if absent. */
shard_attr *shard_named_attr_get(const shard_named_attr *list, uint32_t n, const char *name);
/* The index of `name` in a sorted named-attribute list (*found), else where
 * it would be inserted. A name that is the list's own pointer (the parser
 * interns names) is found without comparing strings. */
uint32_t shard_named_attr_find(const shard_named_attr *list, uint32_t n, const char *name, bool *found);
/* The attribute names shard's code looks up, as literals (sorted), and the
 * one equal to `name` (NULL if none): stored in place of a copy, a name is
 * then the pointer lookups pass. */
const char *const *shard_attr_known_names(uint32_t *n);
const char *shard_attr_known_name(const char *name);

#endif
