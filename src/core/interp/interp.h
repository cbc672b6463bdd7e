/* The reference interpreter: runs the lowered op set (StableHLO ops, func
 * calls and the StableHLO collectives) over small tensors, the way
 * `stablehlo-translate --interpret` does, so that a partitioned program can be
 * checked against its unpartitioned original by execution.
 *
 * Tensors are flat row-major buffers of a tagged element type: integers
 * (i1 .. i64, ui8 .. ui64) are held as int64_t wrapped to their width,
 * floats (f16, bf16, f32, f64) as doubles rounded to their format after every
 * operation, which gives exactly the results of computing in the format
 * itself for the IEEE operations the interpreter has. Complex numbers keep
 * their two parts side by side, each rounded to the part's format.
 *
 * `interpreter.run_parallel` runs one program per device, each in its own
 * thread; collectives meet at a rendezvous that all devices reach in the same
 * order (SPMD). `sdy.manual_computation` in a global program runs its body
 * the same way, once per device of its mesh, on the operands' pieces. `check.expect_*` ops compare values and report the first
 * mismatch as a located error. */
#ifndef SHARD_INTERP_H
#define SHARD_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "sdy/sharding.h"
#include "ir/type.h"

typedef enum shard_elem_kind {
  SHARD_ELEM_BOOL, /* i1 */
  SHARD_ELEM_SINT, /* i8 .. i64 */
  SHARD_ELEM_UINT, /* ui8 .. ui64 */
  SHARD_ELEM_FLOAT, /* f16, bf16, f32, f64 */
  SHARD_ELEM_COMPLEX /* complex<f32>, complex<f64>: bits is the part's width */
} shard_elem_kind;

typedef struct shard_tensor {
  shard_type *type; /* static ranked tensor type */
  shard_elem_kind kind;
  unsigned bits;    /* element width */
  int64_t num;      /* number of elements */
  int64_t *ints;    /* BOOL, SINT, UINT */
  double *floats;   /* FLOAT; COMPLEX as (real, imaginary) pairs, 2 * num */
  /* Rounding bookkeeping of float sums, kept only by runs with
   * shard_interp_options.track_rounding (interp_rounding.c). When
   * sum_terms > 0 every element is a sum of at most sum_terms terms whose
   * magnitudes add up to at most sum_mag, and sum_int says that every term
   * was an integer. `bound` is how far an element may be from the value the
   * same computation gives on one device: 0 (equal bits), a finite bound
   * (after float sums across devices, which add in another order), or
   * INFINITY (such a value went through an op that has no bound rule). */
  double sum_mag;
  int64_t sum_terms;
  bool sum_int;
  double bound;
  /* A tuple (interp_ops_more.c): its elements; NULL for every other value. */
  struct shard_tensor **elems;
  uint32_t num_elems;
} shard_tensor;

/* How a run is bounded and what it records. Zero-initialised is the
 * default. */
#define SHARD_INTERP_DEFAULT_MAX_STEPS INT64_C(20000000)
typedef struct shard_interp_options {
  int64_t max_steps;   /* ops one device may execute (region bodies, loop
                        * iterations and reducer bodies included) before the
                        * run stops with an error at the innermost loop;
                        * 0: SHARD_INTERP_DEFAULT_MAX_STEPS */
  bool track_rounding; /* keep the shard_tensor rounding bookkeeping */
} shard_interp_options;

/* Element type support: false for element types the interpreter lacks. */
bool shard_elem_classify(const char *elem, shard_elem_kind *kind, unsigned *bits);

/* The most elements one tensor may hold (512 MiB of doubles), and the most
 * devices a run_parallel or a manual computation may run on (one thread
 * each): past them a run stops with an error instead of exhausting memory. */
#define SHARD_INTERP_MAX_ELEMENTS (INT64_C(1) << 26)
/* The most multiply-adds one dot or convolution may take: past it (about
 * ten seconds of interpretation) the run stops with an error at the op,
 * as the step budget does for loops. */
#define SHARD_INTERP_MAX_PRODUCTS (INT64_C(1) << 28)
#define SHARD_INTERP_MAX_DEVICES 4096

/* A zero-filled tensor of a static type, allocated in `a`; NULL when the
 * element type is not supported or it would hold more than
 * SHARD_INTERP_MAX_ELEMENTS elements. */
shard_tensor *shard_tensor_new(shard_arena *a, shard_type *type);
/* Reads a dense<...> payload (nested lists, splats, true/false, hex floats
 * and whole-buffer hex) into a tensor of `type`. False with `err` set
 * (static text) when the payload does not fit. */
bool shard_tensor_from_dense(shard_arena *a, const char *payload, shard_type *type,
                             shard_tensor **out, const char **err);
/* Rounds/wraps a value to the tensor's element type. */
double shard_elem_round_float(double x, unsigned bits, bool is_bf16);
int64_t shard_elem_wrap_int(int64_t x, shard_elem_kind kind, unsigned bits);
/* Prints the elements as a dense payload ([[1, 2], [3, 4]]). */
void shard_tensor_print(shard_buf *b, const shard_tensor *t);

/* Runs func.func @main of the module (no arguments). Returns true when it
 * ran to the end with every check passing; otherwise an error was reported
 * through `de` at the failing op. Counts of checks go to *num_checks. */
bool shard_interp_run_main(shard_module *m, const shard_interp_options *opts, shard_diag_engine *de,
                           unsigned *num_checks);

/* Calls a function of the module on one device (replica 0, partition 0 of a
 * 1x1 grid). Results are allocated in `a`; *results gets an array of
 * func-result-count tensors. False after reporting an error. */
bool shard_interp_call(shard_module *m, const char *func, shard_tensor *const *args, uint32_t nargs,
                       const shard_interp_options *opts, shard_arena *a, shard_tensor ***results,
                       uint32_t *nresults, shard_diag_engine *de);

/* Which piece of a dim sharded by `axes` (major to minor, sub-axes allowed)
 * device `device` holds: its position in the mesh's device order (explicit
 * device_ids or iota) decomposed into axis coordinates. Pieces are numbered
 * 0 .. product of the axis sizes - 1. */
int64_t shard_interp_piece_index(int64_t device, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t num_axes);

#endif
