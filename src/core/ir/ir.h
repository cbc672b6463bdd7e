/* The IR: modules, operations, regions, blocks and SSA values, the way MLIR
 * has them. Any op of any dialect fits: name, operands, results, attributes
 * (inherent ones flagged), regions and successors. Ops that shard knows
 * (func, sdy, stablehlo) have an op definition (opdef.h) that gives their
 * pretty syntax; the rest are printed in generic form.
 *
 * Everything lives in the module's arena. Use lists are kept up to date by
 * the mutation functions below; passes must not edit operand arrays directly. */
#ifndef SHARD_IR_H
#define SHARD_IR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "support/diag.h"
#include "ir/type.h"

typedef struct shard_op shard_op;
typedef struct shard_block shard_block;
typedef struct shard_region shard_region;
typedef struct shard_value shard_value;
typedef struct shard_operand shard_operand;
typedef struct shard_op_def shard_op_def;

/* An SSA value: an op result or a block argument. 48 bytes: what only block
 * arguments have (loc, argument attributes, source span) sits in their
 * block's arg_info, so the op results, most of a module's values, do not
 * pay for it. Read it through shard_value_arg_info, shard_value_attr and
 * shard_value_span. */
struct shard_value {
  shard_type *type;
  shard_op *def; /* defining op; NULL for a block argument */
  shard_block *block; /* owning block of a block argument */
  shard_operand *first_use;
  const char *name; /* the SSA name in the source, without '%' (NULL if none) */
  uint32_t index; /* result number or argument number */
};

/* A use of a value: 32 bytes. Its operand number is its place in its
 * owner's operands (shard_operand_index), not stored. */
struct shard_operand {
  shard_value *value;
  shard_op *owner;
  shard_operand *next_use, **prev_use_link;
};

/* What a block argument has beyond its shard_value, at its index in its
 * block's arg_info. */
typedef struct shard_block_arg_info {
  shard_attr *loc; /* loc(...) of the argument, if written */
  shard_named_attr *attrs; /* argument attributes (func.func args), sorted */
  uint32_t num_attrs;
  shard_span span;
} shard_block_arg_info;

struct shard_block {
  shard_region *parent;
  shard_block *prev, *next;
  shard_value *args;
  shard_block_arg_info *arg_info; /* one per argument, beside args */
  uint32_t num_args;
  shard_op *first, *last;
  const char *label; /* ^bb name in the source, without '^' (NULL if none) */
};

struct shard_region {
  shard_op *parent;
  shard_block *first, *last;
};

/* The most successors an op may have (its count is 16 bits, beside the
 * flags); the parser refuses more with a located error. */
#define SHARD_OP_MAX_SUCCESSORS UINT16_MAX

/* Counts in pairs between the pointers (no padding after each), and the
 * rarely large successor count and the few flags in 16 bits each: 128
 * bytes, not 160, for every op of a module. */
struct shard_op {
  const char *name; /* "stablehlo.add" */
  const shard_op_def *def; /* NULL for an op shard does not know */
  shard_block *parent;
  shard_op *prev, *next;
  shard_operand *operands;
  shard_value *results;
  uint32_t num_operands;
  uint32_t num_results;
  shard_named_attr *attrs; /* sorted by name */
  shard_region *regions;
  uint32_t num_attrs;
  uint32_t num_regions;
  shard_block **successors;
  shard_attr *loc; /* trailing loc(...) or NULL */
  uint16_t num_successors; /* at most SHARD_OP_MAX_SUCCESSORS */
  uint16_t flags;
  uint32_t mark; /* a shard_op_table's cache of the op's id (op_table.h); no meaning of its own */
  shard_span span; /* from the first result name (or op name) */
};

/* A parsed module. `top` is the builtin.module op (implicit if the source had none). */
typedef struct shard_module {
  shard_arena *arena;
  shard_op *top;
  bool implicit_top;
  shard_source *src;
  /* #alias = ... / !alias = ... definitions, kept for printing with debug info */
  shard_named_attr *attr_aliases;
  uint32_t num_attr_aliases;
  /* Symbol name -> top-level op, built by the first shard_module_lookup_symbol
   * (in the arena; NULL until then). A hint, checked on every use. */
  struct shard_symbol_index *symbols;
} shard_module;

void shard_module_free(shard_module *m);
/* Frees what a module keeps beside its arena (the symbol index), for a
 * shard_module built by hand around an arena its maker frees;
 * shard_module_free does this itself. */
void shard_module_release_index(shard_module *m);

/* Attributes. */
shard_attr *shard_op_attr(const shard_op *op, const char *name);
/* The typed StableHLO attributes of an op, decoded when it was parsed (see
 * attr.h): NULL when absent or not of that kind (malformed text kept
 * verbatim, which the verifier reports). */
const shard_dot_dims *shard_op_dot_dims(const shard_op *op); /* dot_dimension_numbers */
const shard_conv_dims *shard_op_conv_dims(const shard_op *op); /* dimension_numbers */
const shard_gather_dims *shard_op_gather_dims(const shard_op *op); /* dimension_numbers */
const shard_gather_dims *shard_op_scatter_dims(const shard_op *op); /* scatter_dimension_numbers */
/* The integers of the integer list attribute `name` (shard_attr_i64_list). */
bool shard_op_i64_list(const shard_op *op, const char *name, shard_i64s *out);
/* The same list copied into out[max]: its length, or 0 when absent or
 * longer than max. */
uint32_t shard_op_i64_list_copy(const shard_op *op, const char *name, int64_t *out, uint32_t max);
/* The case of the StableHLO enum attribute `name` of `kind`, or -1. */
int shard_op_enum(const shard_op *op, const char *name, shard_shlo_enum_kind kind);
/* Inserts or replaces, keeping the list sorted. */
void shard_op_set_attr(shard_arena *a, shard_op *op, const char *name, shard_attr *value, bool inherent);
bool shard_op_remove_attr(shard_op *op, const char *name);
/* A block argument's attributes; an op result has none (setting one is a
 * no-op, as MLIR has no result attributes). */
shard_attr *shard_value_attr(const shard_value *v, const char *name);
void shard_value_set_attr(shard_arena *a, shard_value *v, const char *name, shard_attr *value);
bool shard_value_remove_attr(shard_value *v, const char *name);

/* What only a block argument has (see shard_block_arg_info); NULL for an op result. */
static inline shard_block_arg_info *shard_value_arg_info(const shard_value *v) {
  return v->def ? NULL : &v->block->arg_info[v->index];
}
/* Where v was written: a block argument's name, an op result's op when the
 * op says so (SHARD_OP_RESULT_SPANS), else shard_no_span. */
shard_span shard_value_span(const shard_value *v);

/* Use lists. */
static inline uint32_t shard_operand_index(const shard_operand *use) { return (uint32_t)(use - use->owner->operands); }
void shard_operand_set(shard_operand *use, shard_value *v);
void shard_value_replace_all_uses(shard_value *from, shard_value *to);
uint32_t shard_value_num_uses(const shard_value *v);

/* Structure. */
shard_op *shard_op_create(shard_arena *a, const char *name, uint32_t num_operands, shard_value *const *operands,
                          uint32_t num_results, shard_type *const *result_types, uint32_t num_regions);
void shard_block_append(shard_block *b, shard_op *op);
void shard_op_insert_before(shard_op *pos, shard_op *op);
void shard_op_insert_after(shard_op *pos, shard_op *op);
/* Inserts op right after the definition of v: after its defining op, or at
 * the start of its block when v is a block argument. */
void shard_op_insert_after_value(shard_value *v, shard_op *op);
/* Takes op out of its block (if any), keeping its operands and the uses of
 * its results, to insert it elsewhere. */
void shard_op_unlink(shard_op *op);
/* Unlinks op from its block and drops its operands' uses. */
void shard_op_erase(shard_op *op);
shard_block *shard_region_add_block(shard_arena *a, shard_region *r);
shard_value *shard_block_add_arg(shard_arena *a, shard_block *b, shard_type *type);
/* Appends n arguments of types[0..n) at once (the argument arrays are copied
 * once, not n times): the first of them. */
shard_value *shard_block_add_args(shard_arena *a, shard_block *b, uint32_t n, shard_type *const *types);
shard_op *shard_block_terminator(const shard_block *b);
shard_op *shard_op_parent_op(const shard_op *op);
/* Nearest enclosing op named `name` (not op itself), or NULL. */
shard_op *shard_op_ancestor(const shard_op *op, const char *name);

/* Op names resolved to their definitions once. Every op of a name shard
 * knows carries that name's definition (the parser, shard_op_new_named and the
 * cloners set it, and a definition is found only by the exact name), so
 * testing an op against a known name compares definition pointers instead of
 * strings; an op without a definition compares names. One per name, at file
 * scope: static shard_op_name K_while = {"stablehlo.while"}; The first test
 * stores the definition (atomically: tests may run on several threads). */
typedef struct shard_op_name {
  const char *name;
  _Atomic(const shard_op_def *) def; /* NULL until resolved */
} shard_op_name;

bool shard_op_is_slow(const shard_op *op, shard_op_name *k);

static inline bool shard_op_is(const shard_op *op, shard_op_name *k) {
  const shard_op_def *d = atomic_load_explicit(&k->def, memory_order_relaxed);
  if (op->def && d) return op->def == d;
  return shard_op_is_slow(op, k);
}

/* Walks ops in pre-order (an op before the ops in its regions). Return false from fn to stop. */
typedef bool (*shard_walk_fn)(shard_op *op, void *ctx);
bool shard_walk(shard_op *root, shard_walk_fn fn, void *ctx);
/* Walks ops in post-order (the ops in an op's regions before the op), as
 * MLIR's Operation::walk does by default. */
bool shard_walk_post(shard_op *root, shard_walk_fn fn, void *ctx);

/* Symbols: sdy.mesh and func.func ops directly inside the top module. The
 * first op of that name, as a scan of the top module finds it; an index makes
 * repeated lookups constant time (an entry is used only while its op is still
 * at the top level under that name, and a miss scans as before). */
shard_op *shard_module_lookup_symbol(const shard_module *m, const char *name);
/* Tells the symbol index (when built) that `op`, now a top-level op, holds
 * its name: a lookup of a symbol just added then needs no scan. */
void shard_module_note_symbol(shard_module *m, shard_op *op);
/* The mesh a sharding refers to (inlined or by symbol), or NULL if unknown. */
const shard_mesh *shard_module_sharding_mesh(const shard_module *m, const shard_tensor_sharding *s);
/* shard_module_sharding_mesh's answers by mesh name, for a pass that asks
 * often while it adds and changes no mesh (propagation, explicit reshards):
 * a small cache before the symbol index's lookup and check, one slot per
 * hash of the (interned) name pointer, the last name asked there winning, so
 * that a module with hundreds of meshes, each used by its own functions,
 * still finds the mesh of the ops at hand without a lookup. Zero it to
 * start. */
enum { SHARD_MESH_MEMO_SLOTS = 32 };
typedef struct shard_mesh_memo {
  const char *names[SHARD_MESH_MEMO_SLOTS];
  const shard_mesh *meshes[SHARD_MESH_MEMO_SLOTS];
} shard_mesh_memo;
const shard_mesh *shard_mesh_memo_get(shard_mesh_memo *memo, const shard_module *m, const shard_tensor_sharding *s);

#define SHARD_OP_GENERIC_INPUT 1u /* the op was written in generic form */
#define SHARD_OP_MHLO 2u /* written `mhlo.X`: read as its StableHLO twin (name "stablehlo.X"), printed as written */
#define SHARD_OP_RESULT_SPANS 4u /* its results were written at the op's span (HLO text import) */

/* The name as the op was written, in two parts ("mhlo." and "add" for an
 * mhlo.add; "" and op->name otherwise): for the printer and for messages. */
const char *shard_op_written_prefix(const shard_op *op);
const char *shard_op_written_rest(const shard_op *op);

#endif
