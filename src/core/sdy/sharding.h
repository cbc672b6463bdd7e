/* The Shardy sharding model: meshes, axis references (with the sub-axis
 * algebra), dimension shardings, tensor shardings and op sharding rules.
 *
 * Structures are plain data allocated in a module's arena. Functions named
 * shard_axis_* live in axis.c, shard_mesh_* in mesh.c, shard_sharding_* in
 * sharding.c and shard_rule_* in rule.c. */
#ifndef SHARD_SHARDING_H
#define SHARD_SHARDING_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/diag.h"

/* ---- meshes ---------------------------------------------------------- */

typedef struct shard_mesh_axis {
  const char *name;
  int64_t size;
} shard_mesh_axis;

/* <["x"=2, "y"=4], device_ids=[...]>. Without explicit ids the devices are
 * iota(product of sizes). <[]> is the empty mesh; <[], device_ids=[3]> is a
 * maximal mesh. */
typedef struct shard_mesh {
  shard_mesh_axis *axes;
  uint32_t num_axes;
  int64_t *device_ids; /* NULL when implicit (iota) */
  uint32_t num_device_ids;
  shard_span span;
} shard_mesh;

int64_t shard_mesh_axis_size(const shard_mesh *m, const char *name); /* -1 if absent */
int shard_mesh_axis_index(const shard_mesh *m, const char *name); /* -1 if absent */
/* Product of axis sizes (1 for no axes); -1 on overflow. */
int64_t shard_mesh_num_devices(const shard_mesh *m);
bool shard_mesh_is_maximal(const shard_mesh *m); /* no axes, exactly one device id */
bool shard_mesh_is_empty(const shard_mesh *m); /* no axes, no device ids */
/* Drops explicit device ids equal to iota (as Shardy's MeshAttr builder does). */
void shard_mesh_canonicalize(shard_mesh *m);
bool shard_mesh_equal(const shard_mesh *a, const shard_mesh *b);
bool shard_mesh_same_axes(const shard_mesh *a, const shard_mesh *b);
/* Prints the body: <["x"=2], device_ids=[1, 0]> */
void shard_mesh_print(shard_buf *b, const shard_mesh *m);

/* ---- axis references -------------------------------------------------- */

/* "x" (full axis) or "x":(pre_size)size (sub-axis). Parsed values may be
 * invalid (negative, zero); the verifier reports them. */
typedef struct shard_axis_ref {
  const char *name;
  bool is_sub;
  int64_t pre_size; /* only when is_sub */
  int64_t size; /* only when is_sub */
} shard_axis_ref;

/* Where the ref starts on its axis: the pre-size, 1 for the full axis. */
static inline int64_t shard_axis_pre(const shard_axis_ref *r) { return r->is_sub ? r->pre_size : 1; }
/* Where the ref ends on its axis: pre*size (INT64_MAX when that overflows),
 * the axis size for the full axis (-1 if the mesh lacks it). */
int64_t shard_axis_end(const shard_axis_ref *r, const shard_mesh *m);
/* The sub-axis "x":(pre)size (never normalised to the full axis, as Shardy's
 * AxisRefAttr::get does not). */
shard_axis_ref shard_axis_sub(const char *name, int64_t pre, int64_t size);
/* Size of the ref: the sub-axis size, or the full axis size from the mesh (-1 if unknown). */
int64_t shard_axis_size(const shard_axis_ref *r, const shard_mesh *m);
/* Pre-size and size of a ref as a sub-range of its axis: full axis is (1, size). */
void shard_axis_range(const shard_axis_ref *r, const shard_mesh *m, int64_t *pre, int64_t *size);
bool shard_axis_equal(const shard_axis_ref *a, const shard_axis_ref *b);
/* Do the two refs cover some common part of the same axis? */
bool shard_axis_overlaps(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Does a contain b? */
bool shard_axis_contains(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Can b directly follow a as the next minor sub-axis ("x":(1)2, "x":(2)2 -> "x":(1)4)? */
bool shard_axis_can_merge(const shard_axis_ref *a, const shard_axis_ref *b);
/* Merges two mergeable refs; the result is the full axis when it covers it. */
shard_axis_ref shard_axis_merge(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Is a a prefix (major part) of b, i.e. same axis, same pre-size, a no larger? */
bool shard_axis_is_prefix_of(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Is a a suffix (minor part) of b: b contains a and both end at the same place? */
bool shard_axis_is_suffix_of(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Can two refs of the same axis both shard one tensor (AxisRefAttr::canCoexist)?
 * Refs of different axes, or a full axis, always can; invalid sizes cannot. */
bool shard_axis_can_coexist(const shard_axis_ref *a, const shard_axis_ref *b);
/* The largest prefix of a that does not overlap b (getPrefixWithoutOverlap);
 * false when there is none. */
bool shard_axis_prefix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out);
/* The largest prefix of a overlapping none of `others`; false when none. */
bool shard_axis_prefix_without_overlap_list(const shard_axis_ref *a, const shard_axis_ref *others, uint32_t n,
                                            shard_axis_ref *out);
/* The largest suffix of a that does not overlap b (getSuffixWithoutOverlap);
 * false when there is none. */
bool shard_axis_suffix_without_overlap(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m,
                                       shard_axis_ref *out);
/* The shorter of two refs when one is a prefix of the other
 * (AxisRefAttr::getGreatestCommonPrefix); false otherwise. */
bool shard_axis_common_prefix(const shard_axis_ref *a, const shard_axis_ref *b, shard_axis_ref *out);
/* Ordering of Shardy's AxisRefAttr::operator<: by mesh axis order, then
 * sub-axes by (pre_size, size) with the full axis after "x":(1)k. Returns <0, 0, >0. */
int shard_axis_compare(const shard_axis_ref *a, const shard_axis_ref *b, const shard_mesh *m);
/* Prints "x" or "x":(2)4 */
void shard_axis_print(shard_buf *b, const shard_axis_ref *r);
/* Prints {"x", "y"} */
void shard_axis_list_print(shard_buf *b, const shard_axis_ref *axes, uint32_t n);
/* Product of sizes of the refs, -1 on overflow or unknown axis. */
int64_t shard_axes_product(const shard_axis_ref *axes, uint32_t n, const shard_mesh *m);
bool shard_axes_equal(const shard_axis_ref *a, uint32_t na, const shard_axis_ref *b, uint32_t nb);
/* Which shard along `axes` (major to minor) `device` holds: its coordinates
 * in the mesh (its position among device_ids, or the id itself when they are
 * implicit) read through the (sub-)axes. 0 for refs the verifier rejects.
 * (In mesh.c.) */
int64_t shard_mesh_shard_index(const shard_mesh *m, int64_t device, const shard_axis_ref *axes, uint32_t n);
/* sortAndMergeAxes in place: shard_axis_compare order, consecutive sub-axes
 * merged (into the full axis when they cover it). Returns the new count. */
uint32_t shard_axes_sort_and_merge(shard_axis_ref *axes, uint32_t n, const shard_mesh *m);
/* Greatest common divisor of |a| and |b|; gcd(0, 0) = 0. */
int64_t shard_gcd(int64_t a, int64_t b);

/* ---- one mesh axis cut at every sub-axis boundary ------------------------ */

/* The points 1 = at[0] < at[1] < ... < at[n-1] = size where some sub-axis of
 * mesh axis `name` starts or ends (Shardy's GetOrderedAxisRefs, XLA's
 * V3ToV2Sharding): piece k is "name":(at[k])(at[k+1]/at[k]). Build with
 * init, add (any number of times), finish; free with shard_axis_cuts_free. */
typedef struct shard_axis_cuts {
  const char *name;
  int64_t size; /* of the mesh axis */
  int64_t *at;
  uint32_t n, cap;
} shard_axis_cuts;

void shard_axis_cuts_init(shard_axis_cuts *c, const char *name, int64_t size);
/* Adds the two ends of each sub-axis of c->name among `refs`. Full axes and
 * other axes add nothing; so does a sub-axis whose pre-size or size is not
 * positive or whose end overflows (the verifier reports those). */
void shard_axis_cuts_add(shard_axis_cuts *c, const shard_axis_ref *refs, uint32_t n);
/* Sorts the points and drops repeats; returns the number of pieces. */
uint32_t shard_axis_cuts_finish(shard_axis_cuts *c);
/* Piece k as a ref: a sub-axis, or the full axis when it is the only piece. */
shard_axis_ref shard_axis_cuts_piece(const shard_axis_cuts *c, uint32_t k);
/* Does `r` (a ref of the same axis) cover piece k? */
bool shard_axis_cuts_piece_in(const shard_axis_cuts *c, uint32_t k, const shard_axis_ref *r);
/* The first piece whose ends do not divide (at[k] does not divide at[k+1]:
 * the sub-axes do not fit together), or -1. */
int64_t shard_axis_cuts_misfit(const shard_axis_cuts *c);
void shard_axis_cuts_free(shard_axis_cuts *c);

/* ---- tensor shardings --------------------------------------------------- */

typedef enum shard_reduction { SHARD_RED_SUM, SHARD_RED_MAX, SHARD_RED_MIN } shard_reduction;
const char *shard_reduction_name(shard_reduction r); /* "sum", "max", "min" */

#define SHARD_NO_PRIORITY (-1)

/* {"x", "y", ?}p1 — axes major to minor; open dims may be sharded further. */
typedef struct shard_dim_sharding {
  shard_axis_ref *axes;
  uint32_t num_axes;
  bool is_open;
  int64_t priority; /* SHARD_NO_PRIORITY when absent */
} shard_dim_sharding;

typedef struct shard_tensor_sharding {
  const char *mesh_name; /* symbol without '@'; NULL when the mesh is inlined */
  shard_mesh *inline_mesh; /* mesh<...> */
  shard_dim_sharding *dims;
  uint32_t rank;
  shard_axis_ref *replicated;
  uint32_t num_replicated;
  shard_axis_ref *unreduced;
  uint32_t num_unreduced;
  shard_reduction reduction; /* of the unreduced axes */
  shard_span span;
} shard_tensor_sharding;

typedef struct shard_sharding_per_value {
  shard_tensor_sharding *shardings;
  uint32_t num;
  shard_span span;
} shard_sharding_per_value;

/* Prints the stripped body <@mesh, [{"x"}, {}], replicated={"y"}> */
void shard_sharding_print(shard_buf *b, const shard_tensor_sharding *s);
/* Appends a sharding's contents in binary, every list led by its length:
 * equal keys mean shardings that print alike (an inline mesh by its
 * address, finer than its text). The key of memos of shardings
 * (reshard-to-collectives' plans, verify's clean shardings). */
void shard_sharding_key(shard_buf *b, const shard_tensor_sharding *s);
/* Prints [<...>, <...>] */
void shard_sharding_list_print(shard_buf *b, const shard_tensor_sharding *s, uint32_t n);
bool shard_sharding_equal(const shard_tensor_sharding *a, const shard_tensor_sharding *b);
bool shard_sharding_fully_replicated(const shard_tensor_sharding *s);
/* Adds the sub-axis boundaries of every ref of `s` (dims, replicated,
 * unreduced) to cuts of one mesh axis. */
void shard_sharding_add_cuts(shard_axis_cuts *c, const shard_tensor_sharding *s);
/* Is `name` one of names[0..n)? */
bool shard_axis_name_in(const char *name, const char *const *names, uint32_t n);
/* How many axes lead dim `d` whose axis is one of manual[0..n) (a manual
 * computation's shardings put its manual axes first). */
uint32_t shard_dim_manual_prefix(const shard_dim_sharding *d, const char *const *manual, uint32_t n);
/* Shardy's eraseManualAxes: what a manual computation's body sees of a
 * sharding. Drops the leading manual axes of each dim (in and out shardings
 * put them first) and the manual replicated and unreduced axes. Returns `s`
 * itself when there is nothing to drop (no names, or `s` NULL). */
shard_tensor_sharding *shard_sharding_drop_manual(shard_arena *a, const shard_tensor_sharding *s,
                                                  const char *const *manual, uint32_t n);
/* Product of the sizes of the axes sharding dim d (1 when unsharded). */
int64_t shard_sharding_dim_size(const shard_tensor_sharding *s, uint32_t d, const shard_mesh *m);

/* Local (per-device) shape: ceil(dim / sharded size) per dim. Writes rank
 * entries to `local`. Dynamic dims stay dynamic. */
void shard_sharding_local_shape(const shard_tensor_sharding *s, const shard_mesh *m, const int64_t *global,
                                int64_t *local);

/* ---- op sharding rules -------------------------------------------------- */

typedef struct shard_dim_mapping {
  int64_t *factors; /* factor indices, major to minor */
  uint32_t num_factors;
} shard_dim_mapping;

typedef struct shard_tensor_mapping {
  shard_dim_mapping *dims;
  uint32_t rank;
} shard_tensor_mapping;

/* #sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=16} reduction={j}> */
typedef struct shard_op_sharding_rule {
  shard_tensor_mapping *operands;
  uint32_t num_operands;
  shard_tensor_mapping *results;
  uint32_t num_results;
  int64_t *factor_sizes;
  uint32_t num_factors;
  int64_t *reduction;
  uint32_t num_reduction;
  int64_t *need_replication;
  uint32_t num_need_replication;
  int64_t *permutation;
  uint32_t num_permutation;
  int64_t *blocked_propagation;
  uint32_t num_blocked_propagation;
  bool is_custom;
  shard_span span;
} shard_op_sharding_rule;

/* Factor index -> symbol: 0..17 are i..z, then z_1, z_2, ... */
void shard_rule_factor_symbol(shard_buf *b, int64_t factor);
/* Prints the body <(...)->(...) {...} ...> */
void shard_rule_print(shard_buf *b, const shard_op_sharding_rule *r);

#endif
