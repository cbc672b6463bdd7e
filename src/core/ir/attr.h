/* MLIR attributes. The ones shard reasons about are modelled (integers,
 * strings, arrays, dictionaries, dense arrays and every sdy attribute); any
 * other attribute is kept verbatim as text, so unknown dialects survive a
 * round trip untouched. */
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
  SHARD_ATTR_RAW,         /* verbatim text of an attribute we don't model */
  SHARD_ATTR_UNIT,        /* `unit` (or a dict entry without value) */
  SHARD_ATTR_BOOL,        /* true / false */
  SHARD_ATTR_INT,         /* 5 : i64  (type may be NULL: bare integer is i64) */
  SHARD_ATTR_FLOAT,       /* 1.0 : f32, text kept as written */
  SHARD_ATTR_STRING,      /* "..." unescaped bytes */
  SHARD_ATTR_SYMREF,      /* @a or @a::@b */
  SHARD_ATTR_TYPE,        /* a type used as attribute */
  SHARD_ATTR_ARRAY,       /* [a, b] */
  SHARD_ATTR_DICT,        /* {a = b, c} */
  SHARD_ATTR_DENSE_ARRAY, /* array<i64: 1, 2> */
  SHARD_ATTR_DENSE,       /* dense<...> : type (payload kept as text) */
  SHARD_ATTR_LOC,         /* loc(...) kept as text */
  /* sdy */
  SHARD_ATTR_SDY_MESH,           /* #sdy.mesh<...> */
  SHARD_ATTR_SDY_SHARDING,       /* #sdy.sharding<...> (also stripped <...> in ops) */
  SHARD_ATTR_SDY_PER_VALUE,      /* #sdy.sharding_per_value<[...]> */
  SHARD_ATTR_SDY_RULE,           /* #sdy.op_sharding_rule<...> */
  SHARD_ATTR_SDY_MANUAL_AXES,    /* {"a", "b"} as in manual_axes= */
  SHARD_ATTR_SDY_AXIS_LIST,      /* {"x", "y":(1)2} */
  SHARD_ATTR_SDY_AXIS_LISTS,     /* [{"x"}, {}] (per-dim axes of collectives) */
  SHARD_ATTR_SDY_ALL_TO_ALL,     /* [{"x"}: 0->2, ...] */
  SHARD_ATTR_SDY_REDUCTION,      /* sum / max / min */
  SHARD_ATTR_SDY_EDGES,          /* #sdy.propagation_edges<...> */
  SHARD_ATTR_SDY_DIRECTION       /* FORWARD / BACKWARD / NONE / BOTH */
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

typedef enum shard_direction {
  SHARD_DIR_BOTH, SHARD_DIR_FORWARD, SHARD_DIR_BACKWARD, SHARD_DIR_NONE
} shard_direction;

struct shard_attr {
  shard_attr_kind kind;
  shard_span span;
  union {
    const char *raw; /* RAW, LOC: full text as written; FLOAT: number text */
    bool boolean;
    struct { int64_t value; shard_type *type; const char *text; } integer; /* text: as written, for huge values */
    struct { const char *text; shard_type *type; } flt;
    struct { const char *data; uint32_t len; } str;
    struct { const char **path; uint32_t num; } symref;
    shard_type *type;
    struct { shard_attr **elems; uint32_t num; } array;
    struct { shard_named_attr *entries; uint32_t num; } dict;
    struct { const char *elem; int64_t *vals; uint32_t num; } dense_array;
    struct { const char *payload; shard_type *type; } dense; /* payload between dense< > */
    shard_mesh *mesh;
    shard_tensor_sharding *sharding;
    shard_sharding_per_value *per_value;
    shard_op_sharding_rule *rule;
    struct { const char **names; uint32_t num; } manual_axes;
    shard_axis_list axis_list;
    struct { shard_axis_list *dims; uint32_t num; } axis_lists;
    struct { shard_all_to_all_param *params; uint32_t num; } all_to_all;
    shard_reduction reduction;
    struct { shard_edge_step *steps; uint32_t num; } edges;
    shard_direction direction;
  } u;
};

/* Builders. */
shard_attr *shard_attr_new(shard_arena *a, shard_attr_kind kind);
shard_attr *shard_attr_int(shard_arena *a, int64_t v, shard_type *type);
shard_attr *shard_attr_string(shard_arena *a, const char *s, uint32_t len);
shard_attr *shard_attr_raw(shard_arena *a, const char *text);
shard_attr *shard_attr_dense_i64(shard_arena *a, const int64_t *vals, uint32_t n);
shard_attr *shard_attr_sharding(shard_arena *a, shard_tensor_sharding *s);
shard_attr *shard_attr_per_value(shard_arena *a, shard_tensor_sharding *s, uint32_t n);

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

#endif
