/* Private to the verifier (verify*.c): the verification context, the error
 * emitter that reproduces MLIR's message prefixes, and the helpers the
 * sharding, op and collective checks share. */
#ifndef SHARD_VERIFY_INTERNAL_H
#define SHARD_VERIFY_INTERNAL_H

#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "ir/op_table.h"
#include "support/ptrmap.h"
#include "support/strmap.h"
#include "verify/verify.h"

/* A set of axis refs compared by value, reset in O(1) between uses. */
/* A sharding names a handful of axes: up to this many are kept in a list
 * and compared in turn (cheaper than hashing names); more go to the hash
 * table. */
#define VF_AXIS_SET_SMALL 8

typedef struct vf_axis_set {
  const shard_axis_ref **keys;
  uint32_t *stamp;
  uint32_t cap, len, cur;
  const shard_axis_ref *small[VF_AXIS_SET_SMALL]; /* the refs while len <= VF_AXIS_SET_SMALL */
} vf_axis_set;

void shard_verify_axis_set_reset(vf_axis_set *s);
/* False when an equal ref is already in the set. */
bool shard_verify_axis_set_insert(vf_axis_set *s, const shard_axis_ref *r);
bool shard_verify_axis_set_contains(const vf_axis_set *s, const shard_axis_ref *r);

/* The enclosing sdy.manual_computation ops of the op being verified,
 * innermost first. */
typedef struct vf_manual {
  const shard_op *op;
  const shard_attr *axes; /* SHARD_ATTR_SDY_MANUAL_AXES or NULL */
  const struct vf_manual *parent;
} vf_manual;

/* The longest mesh name vf_ctx.mesh_seen_name remembers, NUL included. */
#define VF_MESH_NAME_MAX 64

/* The walk asks how much scratch memory the ops before used (a sum over
 * arena blocks and lanes) once every this many ops, not at each. */
#define VF_SCRATCH_CHECK_EVERY 32

typedef struct vf_ctx {
  const shard_module *m;
  const shard_verify_options *opts;
  shard_diag_engine *de;
  shard_arena *scratch; /* temporary shardings and message strings: reset between ops */
  shard_arena *keep; /* what lives for the whole verification (axis indexes) */
  shard_strmap symbols; /* the symbols of the top module by name */
  shard_ptrmap axis_index; /* shard_mesh* -> per-mesh axis-name hash table */
  shard_ptrmap block_scope; /* shard_block* -> nearest IsolatedFromAbove op */
  shard_op_table walked; /* ops with results whose walk (regions included) has finished */
  uint32_t num_ops; /* counted by the first walk: walked is sized once */
  uint32_t walk_tick; /* ops walked, for asking scratch's size every VF_SCRATCH_CHECK_EVERY ops */
  vf_axis_set seen; /* axis refs of the sharding being verified */
  /* verify_stablehlo.c's dispatch by op name, remembered by the op's
   * definition (static: kept for the whole verification, streamed ops
   * included): a bsearch of string compares per op otherwise */
  struct vf_name_check {
    const struct shard_op_def *def;
    const void *check;
    bool stablehlo;
  } shlo_checks[64]; /* a power of two */
  /* shardings that verified without a diagnostic, by what the check reads
   * (verify_sharding.c's S_clean_key), and where their keys are kept:
   * made on first use, kept for the whole verification */
  shard_strmap clean_shardings;
  shard_arena *clean_keys;
  shard_buf clean_key; /* the key being looked up, reused */
  /* the mesh symbol found last and its name (names longer than the buffer
   * are not remembered): shardings name the same mesh over and over */
  const shard_mesh *mesh_seen;
  char mesh_seen_name[VF_MESH_NAME_MAX];
  bool ok;
  /* streamed (shard_verify_stream): a symbol looked up and not found may
   * be defined later, so the answer is open */
  bool streaming, stream_missed;
} vf_ctx;

/* Where an error goes and how it is prefixed: "'<op>' op <prefix><msg>", or
 * just "<msg>" when op is NULL (MLIR's emitError). */
typedef struct vf_emit {
  vf_ctx *cx;
  const shard_op *op;
  shard_span span;
  const char *prefix;
} vf_emit;

vf_emit shard_verify_emit_op(vf_ctx *cx, const shard_op *op, const char *prefix);
/* Reports an error; returns false so checks can `return shard_verify_fail(...)`. */
bool shard_verify_fail(const vf_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void shard_verify_warn(const vf_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void shard_verify_note(vf_ctx *cx, shard_span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* e's prefix followed by "- " (one value) or "<i> - ", in scratch memory. */
vf_emit shard_verify_emit_value(const vf_emit *e, uint32_t num_values, uint32_t index);
/* "<head><mid><index><tail>" (no index when index is UINT32_MAX), in
 * scratch memory: the message prefixes built for every value checked,
 * without a printf. */
const char *shard_verify_prefix(vf_ctx *cx, const char *head, const char *mid, uint32_t index, const char *tail);

/* Printed forms for messages (scratch memory). */
const char *shard_verify_axis_str(vf_ctx *cx, const shard_axis_ref *r);
const char *shard_verify_axes_str(vf_ctx *cx, const shard_axis_ref *axes, uint32_t n); /* ["x", "y"] */
const char *shard_verify_mesh_str(vf_ctx *cx, const shard_mesh *m); /* #sdy.mesh<...> */
const char *shard_verify_sharding_str(vf_ctx *cx, const shard_tensor_sharding *s); /* #sdy.sharding<...> */
const char *shard_verify_type_str(const shard_type *t); /* text or <<NULL TYPE>> */
const char *shard_verify_types_str(vf_ctx *cx, shard_type *const *ts, uint32_t n); /* 'a', 'b' */
const char *shard_verify_attr_str(vf_ctx *cx, const shard_attr *a); /* as printed */

/* Meshes and values. */
/* The op defining symbol `name` in the top module, or NULL. */
const shard_op *shard_verify_lookup_symbol(vf_ctx *cx, const char *name);
const shard_mesh *shard_verify_sharding_mesh(vf_ctx *cx, const shard_tensor_sharding *s);
int shard_verify_axis_index(vf_ctx *cx, const shard_mesh *m, const char *name); /* -1 if absent */
int64_t shard_verify_axis_full_size(vf_ctx *cx, const shard_mesh *m, const char *name);
/* Shardy's getSharding(value): the sharding a value carries, or NULL. */
const shard_tensor_sharding *shard_verify_value_sharding(vf_ctx *cx, const shard_value *v);
const shard_tensor_sharding *shard_verify_value_sharding_bypassing_barriers(vf_ctx *cx, const shard_value *v);
/* A fully replicated closed sharding of `rank` on the mesh of `like`. */
shard_tensor_sharding *shard_verify_replicated_like(vf_ctx *cx, const shard_tensor_sharding *like, uint32_t rank);
bool shard_verify_same_mesh_ref(const shard_tensor_sharding *a, const shard_tensor_sharding *b);
const shard_attr *shard_verify_attr(const shard_op *op, const char *name);
/* Inline, with the first two characters compared before strcmp: the
 * verifier asks these of every op against a dozen names, and almost every
 * ask is a miss on "st" (stablehlo) against "sd", "fu" or "ch". */
static inline bool shard_verify_is_sdy_op(const shard_op *op) {
  return op && op->name[0] == 's' && op->name[1] == 'd' && op->name[2] == 'y' && op->name[3] == '.';
}
static inline bool shard_verify_op_is(const shard_op *op, const char *name) {
  return op && op->name[0] == name[0] && name[0] && op->name[1] == name[1] && strcmp(op->name, name) == 0;
}
uint32_t shard_verify_type_rank(const shard_type *t); /* rank of a ranked tensor, else 0 */
bool shard_verify_type_static(const shard_type *t);

/* Axis-ref algebra with Shardy's semantics (sizes from the mesh). */
int64_t shard_verify_ax_pre(const shard_axis_ref *r);
int64_t shard_verify_ax_next(vf_ctx *cx, const shard_axis_ref *r, const shard_mesh *m);
bool shard_verify_ax_overlaps(const shard_axis_ref *a, const shard_axis_ref *b);
bool shard_verify_ax_can_merge(const shard_axis_ref *a, const shard_axis_ref *b);
shard_axis_ref shard_verify_ax_merge(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
bool shard_verify_ax_suffix_of(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *of, const shard_mesh *m);
/* Prefix of `a` not overlapping `b`; false when there is none. */
bool shard_verify_ax_prefix_without_overlap(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b,
                                            const shard_mesh *m, shard_axis_ref *out);
/* Shardy's mesh comparator: <0, 0, >0. Unknown axes sort last, by name. */
int shard_verify_ax_compare(vf_ctx *cx, const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
bool shard_verify_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb);
/* Sorts refs by the mesh comparator and merges mergeable neighbours; returns the new count. */
uint32_t shard_verify_sort_and_merge(vf_ctx *cx, shard_axis_ref *axes, uint32_t n, const shard_mesh *m);
int64_t shard_verify_axes_size(vf_ctx *cx, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m);

/* verify_sharding.c */
/* Unknown names, duplicates (in cx->seen) and mergeable neighbours. */
bool shard_verify_check_axis_list(const vf_emit *e, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m);
bool shard_verify_check_sorted_axis_list(const vf_emit *e, const shard_axis_ref *axes, uint32_t n, const shard_mesh *m,
                                         const char *what);
/* verifyTensorShardingAttr with checkDivisibility=false; `type` NULL for "no type". */
bool shard_verify_check_sharding(const vf_emit *e, const shard_tensor_sharding *s, const shard_type *type,
                                 const shard_mesh *mesh, const vf_manual *manual);
/* Looks up the mesh, then shard_verify_check_sharding. */
bool shard_verify_check_sharding_lookup(const vf_emit *e, const shard_tensor_sharding *s, const shard_type *type,
                                        const vf_manual *manual);
/* verifyTensorShardingPerValueAttr: `e` carries the kind prefix ("result "). */
bool shard_verify_check_per_value(const vf_emit *e, const shard_sharding_per_value *pv, shard_type *const *types,
                                  uint32_t ntypes, const vf_manual *manual);
/* PropagationEdgesAttr::verify (parse time). */
bool shard_verify_check_edges_syntax(vf_ctx *cx, const shard_attr *edges, shard_span span);
/* The discardable sdy.* attributes of an op (SdyDialect::verifyOperationAttribute). */
bool shard_verify_check_op_attrs(vf_ctx *cx, const shard_op *op, const vf_manual *manual);
/* Operand/result counts and type equalities of ops with a custom syntax
 * (verify_arity.c). */
bool shard_verify_check_arity(vf_ctx *cx, const shard_op *op);
/* Required attributes of func, sdy and stablehlo ops (verify_required.c). */
bool shard_verify_check_required_attrs(vf_ctx *cx, const shard_op *op);

/* verify_ops.c */
/* Checks run when the op is entered (op verify(), traits, func arg attrs). */
bool shard_verify_check_op_entry(vf_ctx *cx, const shard_op *op, const vf_manual *manual);
/* No func.func calls itself, directly or through others (shard's limit). */
bool shard_verify_check_recursion(vf_ctx *cx);
/* Checks of verifySymbolUses. */
bool shard_verify_check_op_symbol_uses(vf_ctx *cx, const shard_op *op, const vf_manual *manual);
bool shard_verify_check_unreduced_transition(const vf_emit *e, const shard_tensor_sharding *in,
                                             const shard_tensor_sharding *out, bool can_introduce,
                                             shard_reduction introduce_op, bool can_remove, shard_reduction remove_op);

/* verify_stablehlo.c: StableHLO's shape functions and op verifiers. */
bool shard_verify_check_stablehlo(vf_ctx *cx, const shard_op *op);
/* verify_chlo.c: the shapes of chlo ops. */
bool shard_verify_check_chlo(vf_ctx *cx, const shard_op *op);
/* The elements of a dense<...> literal against its type (parse time). */
bool shard_verify_check_dense(vf_ctx *cx, const shard_attr *a, shard_span at);

/* verify_collectives.c */
bool shard_verify_check_collective_entry(vf_ctx *cx, const shard_op *op, const vf_manual *manual);
bool shard_verify_check_collective_symbol_uses(vf_ctx *cx, const shard_op *op);

#endif
