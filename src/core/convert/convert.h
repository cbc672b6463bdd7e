/* Conversion between sharding notations: XLA's HloSharding (V2 tile
 * assignments and V3 named shardings), Shardy (#sdy.sharding and the design
 * doc notation), JAX PartitionSpec, PyTorch DTensor placements and
 * TensorFlow DTensor layout strings.
 *
 * Every notation is read into one hub, shard_conv: a Shardy-style sharding
 * (mesh + per-dimension axis lists + replicated/unreduced/manual axes) or one
 * of the special HloSharding kinds that need no mesh ({replicated},
 * {maximal device=N}, {manual}, {unknown}, {unreduced}, tuples). Printers
 * write the hub in each notation and emit one warning per thing the target
 * cannot express.
 *
 * Equivalence is decided on a device map (shard_device_map): for a shape and
 * a sharding, the slice every device holds and which devices hold the same
 * value or summands of one value. Two shardings are equivalent when their
 * device maps are equal; the round-trip tests rest on that.
 *
 * Everything is allocated in the context's arena unless said otherwise. */
#ifndef SHARD_CONVERT_H
#define SHARD_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/diag.h"
#include "sdy/sharding.h"

/* ---- notations ----------------------------------------------------------- */

/* The most devices a mesh or tile assignment may hold, and the bound on a
 * device id: device maps and pictures hold one entry per device. */
#define SHARD_CONV_MAX_DEVICES (1 << 24)

typedef enum shard_notation {
  SHARD_NOTATION_HLO, /* HloSharding V2 text (V3 accepted on input) */
  SHARD_NOTATION_HLO_V3, /* HloSharding V3 (named) text */
  SHARD_NOTATION_SHARDY, /* #sdy.sharding<@mesh, [...]> with its sdy.mesh */
  SHARD_NOTATION_PSPEC, /* JAX P('x', ('y', 'z'), None) */
  SHARD_NOTATION_DTENSOR, /* PyTorch [Shard(0), Replicate(), Partial()] */
  SHARD_NOTATION_TF, /* TF DTensor sharding_specs:..., mesh:... */
  SHARD_NOTATION_PADDLE, /* Paddle dist attr mesh_shape:[2,2],...,dims_mappings:[-1,1] */
  SHARD_NOTATION_PADDLE_PLACEMENTS, /* Paddle [Shard(dim=1), Replicate()] */
  SHARD_NOTATION_ONEFLOW, /* OneFlow nd-SBP (S(1), B, P) */
  SHARD_NOTATION_ONEFLOW_PYTHON /* (oneflow.sbp.split(dim=1), oneflow.sbp.broadcast) */
} shard_notation;

/* hlo, hlo-v3, shardy (sdy), pspec (jax), dtensor (torch), tf, paddle,
 * paddle-placements, oneflow, oneflow-python; false otherwise. */
bool shard_notation_from_name(const char *name, shard_notation *out);
const char *shard_notation_name(shard_notation n);

/* How a framework cuts a tensor dimension over devices when the sizes do
 * not divide; the notations agree whenever they do. A conversion between
 * notations of different rules is made only when every device holds the
 * same block both ways (shard_conv_check_exact). */
typedef enum shard_split_rule {
  SHARD_SPLIT_PADDED, /* XLA, Shardy, JAX, TF, Paddle: one split of the whole
                         * dimension in pieces of ceil(size/n), the last ones short */
  SHARD_SPLIT_CHUNKED, /* PyTorch DTensor: mesh dimension by mesh dimension, each
                         * cutting what the ones before it left, as torch.chunk */
  SHARD_SPLIT_BALANCED, /* OneFlow: hierarchy dimension by hierarchy dimension,
                         * each in pieces whose sizes differ by at most one, the
                         * first ones larger (its BalancedSplitter) */
} shard_split_rule;

/* The rule of the framework a notation belongs to. */
shard_split_rule shard_notation_split(shard_notation n);
/* Guesses the notation of a sharding text from its first characters. */
bool shard_notation_guess(const char *text, shard_notation *out);

/* ---- the hub ------------------------------------------------------------- */

typedef enum shard_conv_kind {
  SHARD_CONV_NAMED, /* mesh + sharding (+ manual axes) */
  SHARD_CONV_REPLICATED, /* {replicated} without a mesh */
  SHARD_CONV_MAXIMAL, /* whole tensor on `device` */
  SHARD_CONV_MANUAL, /* {manual}: per-device values */
  SHARD_CONV_UNKNOWN, /* {unknown}: nothing decided (open dims) */
  SHARD_CONV_UNREDUCED, /* {unreduced}: partial values on every device */
  SHARD_CONV_TUPLE /* one sharding per leaf */
} shard_conv_kind;

typedef struct shard_conv {
  shard_conv_kind kind;
  shard_mesh *mesh; /* NAMED (and the others when known) */
  const char *mesh_name; /* symbol name for Shardy output; NULL: "mesh" */
  /* NAMED: dims, replicated and unreduced axes; mesh_name/inline_mesh unused */
  shard_tensor_sharding *sharding;
  shard_axis_ref *manual; /* manual axes (HloSharding MANUAL subgroups, V3 manual=) */
  uint32_t num_manual;
  int64_t device; /* MAXIMAL */
  bool names_invented; /* mesh axis names made up (_axis_0, ...) */
  const char *partial_op; /* DTensor reduce op Shardy lacks ("avg", "product") */
  const char *metadata; /* HloSharding metadata={...} as read, written back by V2/V3 */
  bool v2_explicit; /* V2 written with an explicit device list (TF's OpSharding) */
  const struct shard_hlo_sharding *hlo; /* the V2 text read: V2 output prints it again */
  bool iota_device_ids; /* V3 device_ids=([..]T(..)): V2 output keeps an iota */
  uint32_t spec_entries; /* PartitionSpec read: its entries, which JAX prints all */
  shard_split_rule split; /* how a dimension its axes do not divide is cut (see there) */
  struct shard_conv *elems; /* TUPLE */
  uint32_t num_elems;
  shard_span span;
} shard_conv;

/* What conversions need besides the sharding. */
typedef struct shard_conv_ctx {
  shard_arena *arena;
  shard_diag_engine *de; /* located errors and the lossy-conversion warnings */
  const shard_mesh *mesh; /* the user's mesh (--mesh), or NULL */
  const int64_t *shape; /* the tensor shape (--shape), or NULL */
  int32_t rank; /* -1 when no shape was given */
  bool v3_bare; /* V3 axis names unquoted (XLA's HloSharding printer; V2 or
                           * unquoted V3 input), else quoted as Shardy's exporter does */
  bool allow_lossy; /* a conversion that moves data between devices warns, not fails */
} shard_conv_ctx;

void shard_conv_ctx_init(shard_conv_ctx *cx, shard_arena *arena, shard_diag_engine *de);

/* Reads a sharding written in `from` from the whole of `src`. Errors are
 * located in src (column = offset in the text). NULL on error. */
shard_conv *shard_conv_parse(shard_conv_ctx *cx, shard_notation from, const shard_source *src);

/* Writes `c` in notation `to`: the sharding into `out` and, for notations
 * that keep the mesh apart (Shardy, PartitionSpec, DTensor), the mesh into
 * `mesh_out` (left empty when the user's mesh was used unchanged and the
 * notation does not need it). Warns once per thing `to` cannot express.
 * False (after an error) when nothing sensible can be written. */
bool shard_conv_print(shard_conv_ctx *cx, shard_notation to, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);

/* Parses a mesh given on the command line: {'x': 2, 'y': 4} (Python dict),
 * x=2,y=4, or Shardy's <["x"=2, "y"=4], device_ids=[...]> (also with a
 * leading `mesh`, `sdy.mesh @name =` or `@name =`). The dict and x=2 forms
 * may be followed by `device_ids=[...]`. NULL on error (located in src). */
shard_mesh *shard_conv_parse_mesh(shard_conv_ctx *cx, const shard_source *src);

/* Parses --shape: 8x16, 8,16, [8, 16], tensor<8x16xf32> or f32[8,16];
 * "" or "scalar" is rank 0. Returns the rank, -1 on error (message in err). */
int32_t shard_conv_parse_shape(const char *text, int64_t **dims, shard_buf *err);

/* Structural checks of a NAMED sharding against its mesh (axes exist,
 * sub-axes divide, no axis used twice, rank matches the shape). Errors go to
 * cx->de; false when any. */
bool shard_conv_validate(shard_conv_ctx *cx, const shard_conv *c);

/* ---- building blocks shared by the notation modules ---------------------- */

shard_conv *shard_conv_new(shard_conv_ctx *cx, shard_conv_kind kind, shard_span span);
/* A NAMED sharding of the given rank with every dimension closed and empty. */
shard_conv *shard_conv_new_named(shard_conv_ctx *cx, shard_mesh *mesh, uint32_t rank, shard_span span);
/* A mesh in the arena; names are copied. device_ids may be NULL (iota). */
shard_mesh *shard_conv_mesh_new(shard_conv_ctx *cx, uint32_t num_axes, const char *const *names, const int64_t *sizes,
                                const int64_t *device_ids);
/* The mesh to print `c` on: its own, else the user's. */
const shard_mesh *shard_conv_mesh_of(const shard_conv_ctx *cx, const shard_conv *c);

/* Whether a name can be written as a string without escapes (Python, V3):
 * it does not hold both ' and ". */
bool shard_conv_quotable(const char *name);
/* Checks that every axis name of `m` (may be NULL) passes `spellable`; else
 * reports at c's span: mesh axis "N" has no <notation> spelling (<why>). */
bool shard_conv_mesh_names_ok(shard_conv_ctx *cx, const shard_conv *c, const shard_mesh *m,
                              bool (*spellable)(const char *name), const char *notation, const char *why);

/* Rewrites a NAMED sharding so that it uses no sub-axes: every mesh axis that
 * some sub-axis splits becomes several axes named name_0, name_1, ... (major
 * first). Device order is unchanged. Returns `c` itself when nothing needs
 * splitting; *changed tells. */
shard_conv *shard_conv_split_sub_axes(shard_conv_ctx *cx, const shard_conv *c, bool *changed);

/* Warns once per Shardy feature `target` lacks: open dimensions, priorities. */
/* `open_empty_ok`: the target has unconstrained dims ({?} is P.UNCONSTRAINED). */
void shard_conv_warn_shardy_only(shard_conv_ctx *cx, const shard_conv *c, const char *target, bool open_empty_ok);

/* Expresses a device array over a mesh: `dims` are the array's dimensions,
 * the first `rank` are tensor dimensions, the others subgroups of the given
 * `types` (SHARD_HLO_* subgroup types below); `devices` holds the device at
 * every row-major index. Returns NULL when the mesh cannot express it (no
 * error is reported: callers decide). */
typedef enum shard_subgroup_type {
  SHARD_SUBGROUP_REPLICATED = 0, /* OpSharding enum values */
  SHARD_SUBGROUP_MAXIMAL = 1,
  SHARD_SUBGROUP_MANUAL = 4,
  SHARD_SUBGROUP_UNREDUCED = 6
} shard_subgroup_type;

shard_conv *shard_conv_from_device_array(shard_conv_ctx *cx, const shard_mesh *mesh, const int64_t *dims,
                                         uint32_t num_dims, uint32_t rank, const int *types, bool explicit_replicated,
                                         const int64_t *devices, shard_span span);

/* A small tokenizer for the Python-like notations (PartitionSpec, DTensor
 * placements): identifiers (with dots), integers, 'strings' / "strings"
 * and one-character punctuation. Errors are reported once, located. */
typedef enum shard_pytok_kind {
  SHARD_PYTOK_EOF,
  SHARD_PYTOK_ERROR,
  SHARD_PYTOK_IDENT,
  SHARD_PYTOK_INT,
  SHARD_PYTOK_STRING, /* off/len exclude the quotes */
  SHARD_PYTOK_PUNCT
} shard_pytok_kind;

typedef struct shard_pytok {
  shard_pytok_kind kind;
  uint32_t off, len;
  int64_t value;
  bool overflow;
} shard_pytok;

typedef struct shard_pylex {
  shard_conv_ctx *cx;
  const shard_source *src;
  uint32_t pos;
  shard_pytok tok;
  bool has_tok;
  bool failed;
} shard_pylex;

void shard_pylex_init(shard_pylex *lx, shard_conv_ctx *cx, const shard_source *src);
shard_pytok shard_pylex_peek(shard_pylex *lx);
shard_pytok shard_pylex_next(shard_pylex *lx);
bool shard_pylex_is(const shard_pylex *lx, const shard_pytok *t, const char *text);
bool shard_pylex_accept(shard_pylex *lx, const char *text);
bool shard_pylex_expect(shard_pylex *lx, const char *text);
/* Error at a token (the first error only); always false. */
bool shard_pylex_error(shard_pylex *lx, const shard_pytok *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Arena copy of a token's text. */
const char *shard_pylex_text(shard_pylex *lx, const shard_pytok *t);
/* The rest of a bracketed list after its opening bracket:
 * (elem (',' elem)*)? ','? close. elem reads one element (false after an
 * error). */
typedef bool (*shard_pylex_elem_fn)(shard_pylex *lx, void *ctx);
bool shard_pylex_list(shard_pylex *lx, const char *close, shard_pylex_elem_fn elem, void *ctx);
/* True at the end of the input, else the error "unexpected text after
 * WHAT" at the next token. */
bool shard_pylex_end(shard_pylex *lx, const char *what);

/* ---- device maps ------------------------------------------------------------ */

/* Which slice of the tensor each device holds. `offset`/`limit` have
 * num_devices * rank entries; a device holding nothing has held[d] false.
 * replica[d] is the smallest device holding the same value as d; group[d]
 * the smallest device whose value is summed with d's (same slice, differing
 * only in unreduced axes). Heap-allocated; free with shard_device_map_free. */
typedef struct shard_device_map {
  int64_t num_devices;
  uint32_t rank;
  bool per_device_values; /* manual: values are not slices of one tensor */
  bool *held;
  int64_t *offset, *limit;
  int64_t *replica, *group;
} shard_device_map;

/* Builds the map of `c` for `shape` (rank entries) over `num_devices`
 * devices (used by the mesh-less kinds; NAMED takes its mesh's count).
 * False when c is not a single sharding or does not fit (message in err). */
bool shard_device_map_build(const shard_conv *c, const int64_t *shape, uint32_t rank, int64_t num_devices,
                            shard_device_map *out, shard_buf *err);
void shard_device_map_free(shard_device_map *m);
/* Allocates a map with every device holding nothing (the filling helpers of
 * shard_hlo_device_map use it). */
void shard_device_map_alloc(shard_device_map *m, int64_t num_devices, uint32_t rank);
/* Sets replica[] and group[] from per-device keys: devices with equal
 * (k1, k2) hold the same value; equal (k1, k3) are summed together. */
void shard_device_map_classes(shard_device_map *m, const int64_t *k1, const int64_t *k2, const int64_t *k3);
/* Equal maps; otherwise false and the first difference in `why` (may be NULL). */
bool shard_device_map_equal(const shard_device_map *a, const shard_device_map *b, shard_buf *why);
/* The placement `c` denotes for cx->shape, in its own framework's rules
 * (DTensor's torch.chunk per mesh dim, XLA's padded split otherwise), one
 * line: `D:start,...-stop,...;...` by device id (an empty block starts and
 * stops at its offset), then `sum:` with each device's reduction group and
 * `manual` when there are such. Without a shape every dimension has one
 * element per shard. A fully replicated sharding is `replicated`, one on a
 * single device `maximal D`; tuples write one line per element. */
bool shard_conv_placement(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out);
/* When `c`'s framework and `to`'s split an uneven dimension differently
 * (DTensor against the others), compares the two placements for cx->shape:
 * an error naming the first device that differs (a warning with
 * cx->allow_lossy). True when the conversion may go on. */
bool shard_conv_check_exact(shard_conv_ctx *cx, const shard_conv *c, shard_notation to);

/* ---- HloSharding (convert_hlo.c) ------------------------------------------- */

typedef enum shard_hlo_kind {
  SHARD_HLO_REPLICATED,
  SHARD_HLO_MANUAL,
  SHARD_HLO_UNKNOWN,
  SHARD_HLO_UNREDUCED,
  SHARD_HLO_MAXIMAL,
  SHARD_HLO_TILED,
  SHARD_HLO_TUPLE,
  SHARD_HLO_NAMED /* V3 */
} shard_hlo_kind;

typedef struct shard_hlo_sharding {
  shard_hlo_kind kind;
  int64_t device; /* MAXIMAL */
  int64_t *dims; /* TILED: tile assignment dims, subgroups last */
  uint32_t num_dims;
  int64_t *devices; /* explicit device list, NULL for iota */
  int64_t *reshape, *perm; /* iota: <=[reshape]T(perm) */
  uint32_t num_reshape;
  int *types; /* subgroup types of the trailing dims */
  uint32_t num_types;
  bool last_tile_dim_replicate; /* written with that keyword */
  int shard_group_kind; /* 0 none, 1 shard_as, 2 shard_like */
  const char *metadata; /* {...} after metadata=, as read */
  int64_t shard_group;
  struct shard_hlo_sharding *elems; /* TUPLE */
  uint32_t num_elems;
  shard_conv *named; /* NAMED */
  shard_span span;
} shard_hlo_sharding;

/* Parses HloSharding text (V2 or V3) in src[off, end). Errors located in src. */
shard_hlo_sharding *shard_hlo_parse(shard_conv_ctx *cx, const shard_source *src, uint32_t off, uint32_t end);
/* XLA's canonical V2 text. */
void shard_hlo_print(shard_buf *b, const shard_hlo_sharding *h);
/* Device count a tiled sharding uses (product of its dims); 0 for other kinds. */
int64_t shard_hlo_num_devices(const shard_hlo_sharding *h);
/* The tile assignment, one device per row-major index (heap; caller frees). */
int64_t *shard_hlo_device_array(const shard_hlo_sharding *h);
/* The same in cx's arena. */
int64_t *shard_hlo_device_array_in(shard_conv_ctx *cx, const shard_hlo_sharding *h);
/* HloSharding::Validate for a shape (rank < 0: no shape) and, when
 * num_devices > 0, a device count. Errors at h->span. */
bool shard_hlo_validate(shard_conv_ctx *cx, const shard_hlo_sharding *h, const int64_t *shape, int32_t rank,
                        int64_t num_devices);
/* The device map straight from the tile assignment (independent of the
 * hub), for checking conversions. False for tuples and bad ranks. */
bool shard_hlo_device_map(const shard_hlo_sharding *h, const int64_t *shape, uint32_t rank, int64_t num_devices,
                          shard_device_map *out, shard_buf *err);
/* HloSharding -> hub: on cx->mesh when it can express the sharding, else on
 * an invented mesh (names _axis_0, ...). */
shard_conv *shard_hlo_to_conv(shard_conv_ctx *cx, const shard_hlo_sharding *h);
/* Hub -> HloSharding V2 (V3ToV2Sharding's rules). Warns about what is lost. */
shard_hlo_sharding *shard_hlo_from_conv(shard_conv_ctx *cx, const shard_conv *c, bool warn);
/* Hub -> V3 text. */
bool shard_hlo_print_v3(shard_conv_ctx *cx, shard_buf *b, const shard_conv *c);

/* ---- the other notations ------------------------------------------------------ */

/* One sharding of the Python notations (pspec, dtensor) printed by `one`. */
typedef bool (*shard_conv_print_fn)(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);
/* A tuple as a Python tuple, `(a, b)` and `(a,)`, its elements printed by
 * `one`; a single sharding is printed by `one` as is. Stops at the first
 * element `one` fails on. */
bool shard_conv_print_python(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out,
                             shard_conv_print_fn one);

/* convert_pspec.c: P('x', ('y', 'z'), None, unreduced={'w'}) over cx->mesh. */
shard_conv *shard_pspec_parse(shard_conv_ctx *cx, const shard_source *src);
bool shard_pspec_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);
/* Prints a mesh as a Python dict {'x': 2, 'y': 4} (with device_ids=[...]). */
void shard_pspec_print_mesh(shard_buf *b, const shard_mesh *m);

/* convert_dtensor.c: [Shard(0), Replicate(), Partial()] over cx->mesh (mesh dims in order). */
shard_conv *shard_dtensor_parse(shard_conv_ctx *cx, const shard_source *src);
bool shard_dtensor_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);

/* convert_tf.c: sharding_specs:x,unsharded, mesh:|x=2,y=2|0,1,2,3|... */
shard_conv *shard_tf_parse(shard_conv_ctx *cx, const shard_source *src);
bool shard_tf_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out);

/* convert.c: Shardy text, optionally preceded by mesh definitions
 * (`sdy.mesh @m = <...>`, `@m = <...>`, separated by newlines or ';'). */
shard_conv *shard_sdy_conv_parse(shard_conv_ctx *cx, const shard_source *src);
bool shard_sdy_conv_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);

/* ---- Paddle and OneFlow (convert_hierarchy.c, convert_paddle.c, convert_oneflow.c) ---- */

/* The most dimensions a device hierarchy (ProcessMesh, placement) may have,
 * and the highest rank read off Shard(d)/S(d) when no --shape is given. */
#define SHARD_HIERARCHY_MAX_RANK 16
#define SHARD_HIERARCHY_MAX_GUESSED_RANK 64

/* Does the text look like a device hierarchy: 2x2, [[0, 1], [2, 3]],
 * ProcessMesh(...), {shape: [...], process_ids: [...]}, mesh_shape:[...],
 * oneflow.placement(...)? */
bool shard_hierarchy_mesh_detect(const char *text);
/* Reads one from src[off..]; dimensions named d0, d1, ... unless dim_names
 * are given. Process ids that are not 0..N-1 are numbered in order (with a
 * warning). NULL on error (located). */
shard_mesh *shard_hierarchy_mesh_parse(shard_conv_ctx *cx, const shard_source *src, uint32_t off);
/* A mesh from a hierarchy's shape, ids (NULL: 0..N-1; num_ids their count)
 * and names (NULL: d0, d1, ...), checked and numbered as above. */
shard_mesh *shard_hierarchy_mesh_build(shard_conv_ctx *cx, const int64_t *shape, uint32_t rank, const int64_t *ids,
                                       int64_t num_ids, const char *const *names, uint32_t num_names, shard_span sp);
/* The device ids of m: [0,1,2,3] (C++ str_join) or, nested, [[0, 1], [2, 3]]. */
void shard_hierarchy_print_ids(shard_buf *b, const shard_mesh *m, bool nested);

/* One placement per mesh dimension (Paddle placements, OneFlow nd-SBP). */
typedef enum shard_mesh_dim_kind {
  SHARD_MESH_DIM_REPLICATE,
  SHARD_MESH_DIM_SHARD,
  SHARD_MESH_DIM_PARTIAL
} shard_mesh_dim_kind;

typedef struct shard_mesh_dim_placement {
  shard_mesh_dim_kind kind;
  int64_t dim; /* SHARD: the tensor dimension */
  const char *op; /* PARTIAL: sum, max, min, avg or product */
  shard_span at; /* for errors */
} shard_mesh_dim_placement;
typedef SHARD_VEC(shard_mesh_dim_placement) shard_mesh_dim_placements;

/* "sum" etc. as the static string shard_conv_from_mesh_dims expects; NULL if unknown. */
const char *shard_mesh_dim_op(const char *name);
/* The hub of one placement per dimension of m (rank: --shape, else one past
 * the highest split dim). Several mesh dims on one tensor dim split it in
 * mesh order. NULL after a located error. */
shard_conv *shard_conv_from_mesh_dims(shard_conv_ctx *cx, const shard_mesh *m, shard_mesh_dim_placement *pls,
                                      uint32_t n, shard_span whole, const char *notation);
/* The reverse: one placement per dimension of the returned mesh (sub-axes
 * split into dimensions, with a warning), the tensor rank, and whether the
 * mesh differs from the user's (so the caller prints it). The rank is -1
 * when neither the sharding nor --shape gives it. Warns about what
 * `notation` cannot say; NULL after an error. */
const shard_mesh *shard_conv_to_mesh_dims(shard_conv_ctx *cx, const shard_conv *c, const char *notation,
                                          shard_mesh_dim_placement **out, int32_t *rank, bool *mesh_changed);

/* convert_paddle.c: the dist attr as Paddle's PIR prints it,
 *   mesh_shape:[2,2],process_ids:[2,3,6,7],dims_mappings:[-1,1], partial(0,SUM)
 * (TensorDistAttr::to_string's {process_mesh: {...}, dims_mappings: [...], ...} is read too),
 * and Paddle placements [Partial(reduce_type=SUM), Shard(dim=1)] over --mesh. */
shard_conv *shard_paddle_parse(shard_conv_ctx *cx, const shard_source *src);
bool shard_paddle_print_dist_attr(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out);
bool shard_paddle_print_placements(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out);

/* convert_oneflow.c: nd-SBP (S(1), B, P) or (oneflow.sbp.split(dim=1), ...) over --mesh. */
shard_conv *shard_oneflow_parse(shard_conv_ctx *cx, const shard_source *src);
/* `python`: oneflow.sbp.split(dim=1) as tensor.sbp prints; else S(1) as NdSbpToString. */
bool shard_oneflow_print(shard_conv_ctx *cx, const shard_conv *c, shard_buf *out, shard_buf *mesh_out, bool python);

/* ---- HLO text dumps (hlo_dump.c) ------------------------------------------------ */

/* One sharding found in a dump: an HLO instruction's sharding={...} or an
 * MLIR mhlo.sharding = "..." attribute, with the shape it applies to. */
typedef struct shard_dump_entry {
  const char *name; /* instruction / value name ("%param.1"), or "" */
  shard_span sharding; /* the sharding text ({...}) */
  char *shape_text; /* "f32[8,16]" / "tensor<8x16xf32>" or NULL (heap) */
  int64_t *shape; /* NULL when unknown or a tuple (heap) */
  int32_t rank; /* -1: unknown */
  uint32_t num_leaves; /* of a tuple shape, or results of an MLIR op (0: one value) */
  char **leaf_text; /* each leaf's type ("tensor<8xf32>"), when known, else NULL (heap) */
  char *sharding_text; /* unescaped sharding (heap) */
} shard_dump_entry;

typedef struct shard_dump {
  shard_dump_entry *entries;
  uint32_t num_entries;
  int64_t num_partitions; /* from HloModule ... num_partitions=N, else 0 */
  bool is_mlir;
} shard_dump;

/* Does the text look like an HLO dump (HloModule ...) or contain
 * mhlo.sharding attributes? */
bool shard_dump_detect(const char *text, size_t len);
/* The same, telling read_past (as the parser does, shard_parse_options)
 * as the search moves on that the text before a point is behind it: a
 * mapped input is given back as it is sniffed, not all in memory at once. */
bool shard_dump_detect_reading(const char *text, size_t len, void (*read_past)(const char *p));
/* Finds every sharding in `src`. Free with shard_dump_free. */
void shard_dump_scan(const shard_source *src, shard_dump *out);
void shard_dump_free(shard_dump *d);
/* Checks every entry: parses it (errors at its position in src), validates
 * it against its shape and the module's device count, and appends one line
 * per entry to `listing` ("NAME SHAPE SHARDING [ok|invalid]"). Returns the
 * number of invalid entries. */
uint32_t shard_dump_check(const shard_source *src, const shard_dump *d, shard_diag_engine *de, shard_buf *listing);

#endif
