/* The reference interpreter: runs the lowered op set (StableHLO ops, func
 * calls and the StableHLO collectives) over small tensors, the way
 * `stablehlo-translate --interpret` does, so that a partitioned program can be
 * checked against its unpartitioned original by execution.
 *
 * Tensors are flat row-major buffers of a tagged element type: integers
 * (i1 .. i64, ui2 .. ui64) are held as int64_t wrapped to their width,
 * floats (every format of the spec, f64 down to f4E2M1FN) as doubles rounded
 * to their format after every operation, which gives exactly the results of computing in the format
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
  SHARD_ELEM_SINT, /* i2 .. i64 */
  SHARD_ELEM_UINT, /* ui2 .. ui64 */
  SHARD_ELEM_FLOAT, /* every float format of shard_float_fmt */
  SHARD_ELEM_COMPLEX /* complex<f32>, complex<f64>: bits is the part's width */
} shard_elem_kind;

/* The float formats of the StableHLO spec (interp_float.c). Values of every
 * format are held as doubles rounded to the format; f64 and f32 round with
 * the hardware, the narrower ones with shard_float_round. */
typedef enum shard_float_fmt {
  SHARD_FLOAT_NONE, /* not a float */
  SHARD_FLOAT_F64,
  SHARD_FLOAT_F32,
  SHARD_FLOAT_TF32,
  SHARD_FLOAT_F16,
  SHARD_FLOAT_BF16,
  SHARD_FLOAT_F8E5M2,
  SHARD_FLOAT_F8E4M3,
  SHARD_FLOAT_F8E3M4,
  SHARD_FLOAT_F8E4M3FN,
  SHARD_FLOAT_F8E5M2FNUZ,
  SHARD_FLOAT_F8E4M3FNUZ,
  SHARD_FLOAT_F8E4M3B11FNUZ,
  SHARD_FLOAT_F8E8M0FNU,
  SHARD_FLOAT_F6E2M3FN,
  SHARD_FLOAT_F6E3M2FN,
  SHARD_FLOAT_F4E2M1FN,
  SHARD_FLOAT_NUM_FORMATS
} shard_float_fmt;

/* The format of a float element type name ("f8E4M3FN"), or
 * SHARD_FLOAT_NONE. */
shard_float_fmt shard_float_format(const char *elem);
/* Width in bits of a format's encoding. */
unsigned shard_float_width(shard_float_fmt fmt);
/* Rounds x to the format, ties to even; overflow gives infinity (IEEE
 * formats), NaN (the FN/FNUZ formats that have a NaN but no infinity) or the
 * largest finite value (the finite-only f4/f6 formats), as MLIR's APFloat
 * converts. The FNUZ formats have no -0; f8E8M0FNU holds positive powers
 * of two only. */
double shard_float_round(double x, shard_float_fmt fmt);
/* Rounds x to an IEEE-like binary format of exp_bits exponent bits and
 * mant_bits fraction bits (infinities, NaN, subnormals; ties to even;
 * overflow to infinity): stablehlo.reduce_precision. Formats at least as
 * wide as f64 leave x as it is. */
double shard_float_round_bits(double x, int exp_bits, int mant_bits);
/* The encoding of a value already rounded to the format, and the value of
 * an encoding. */
uint64_t shard_float_encode(double x, shard_float_fmt fmt);
double shard_float_decode(uint64_t bits, shard_float_fmt fmt);
/* How many representable values of the format lie between a and b (both
 * rounded to it): the distance in units in the last place that check ops
 * count tolerances in. +0 and -0 are 0 apart; UINT64_MAX when exactly one
 * is NaN, 0 when both are. */
uint64_t shard_float_ulp_distance(double a, double b, shard_float_fmt fmt);
/* Significand bits (with the implicit one) and smallest normal exponent of
 * a format; false for SHARD_FLOAT_NONE. */
bool shard_float_params(shard_float_fmt fmt, int *prec, int *emin);
/* Appends x (a value of the format) the way MLIR prints a float attribute
 * (interp_print.c): APFloat::toString with 6 digits when that reads back as
 * the same value ("1.000000e-01"), else toString's natural form
 * ("0.96778680215277412", "7.5285721538218659E-4"), else the encoding in
 * hex ("0x7F800000", "0x7F" for a NaN of f8E4M3FN). */
void shard_float_print(struct shard_buf *b, double x, shard_float_fmt fmt);
/* Unit roundoff (half the distance from 1 to the next value) of a format,
 * and its largest finite value. */
double shard_float_unit_roundoff(shard_float_fmt fmt);
double shard_float_max_finite(shard_float_fmt fmt);

typedef struct shard_tensor {
  shard_type *type; /* static ranked tensor type */
  shard_elem_kind kind;
  unsigned bits; /* element width (of a part for complex numbers) */
  shard_float_fmt fmt; /* FLOAT, COMPLEX: the format (of a part) */
  int64_t num; /* number of elements */
  int64_t *ints; /* BOOL, SINT, UINT */
  double *floats; /* FLOAT; COMPLEX as (real, imaginary) pairs, 2 * num */
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
  int64_t max_steps; /* ops one device may execute (region bodies, loop
                        * iterations and reducer bodies included) before the
                        * run stops with an error at the innermost loop;
                        * 0: SHARD_INTERP_DEFAULT_MAX_STEPS */
  bool track_rounding; /* keep the shard_tensor rounding bookkeeping */
  /* Where interpreter.probe writes probe<N>.npy and index.csv (and
   * check.expect_serialized_eq reads them back); NULL: probes fail. */
  const char *probe_dir;
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
bool shard_tensor_from_dense(shard_arena *a, const char *payload, shard_type *type, shard_tensor **out,
                             const char **err);
/* Rounds/wraps a value to the tensor's element type. shard_elem_round_float
 * is the older form for f16/bf16/f32/f64 (bits 16 with is_bf16); new code
 * rounds with shard_float_round and the tensor's fmt. */
double shard_elem_round_float(double x, unsigned bits, bool is_bf16);
int64_t shard_elem_wrap_int(int64_t x, shard_elem_kind kind, unsigned bits);
/* Prints the elements as a dense payload ([[1, 2], [3, 4]]). */
void shard_tensor_print(shard_buf *b, const shard_tensor *t);

/* Runs func.func @main of the module (no arguments). Returns true when it
 * ran to the end with every check passing; otherwise an error was reported
 * through `de` at the failing op. Counts of checks go to *num_checks. */
bool shard_interp_run_main(shard_module *m, const shard_interp_options *opts, shard_diag_engine *de,
                           unsigned *num_checks);

/* Runs the entry function the way stablehlo-translate --interpret picks it:
 * func.func @main, else the module's only function; a module without
 * functions runs nothing and succeeds (*nresults = 0). `args` must match the
 * entry's argument count and types (StableHLO's errors otherwise, with a
 * hint to pass --args when none were given). Results are allocated in `a`.
 * Counts of checks go to *num_checks. */
bool shard_interp_run_entry(shard_module *m, shard_tensor *const *args, uint32_t nargs,
                            const shard_interp_options *opts, shard_arena *a, shard_tensor ***results,
                            uint32_t *nresults, shard_diag_engine *de, unsigned *num_checks);

/* Prints a value the way stablehlo-translate --interpret prints results:
 * `tensor<2x2xi8> {` then nested rows, one per line, and `}`; with `dense`
 * (--interpreter-print-dense) as `dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>`.
 * Elements are printed as MLIR prints attributes (1.000000e+00, true,
 * [re, im] for complex numbers). No trailing newline. */
void shard_interp_print_value(shard_buf *b, const shard_tensor *t, bool dense);

/* Reads the --args text of stablehlo-translate: `[dense<...> : tensor<...>,
 * ...]`. False with `err` set to StableHLO's message when the text is not
 * such an array or an element does not fit its type. */
bool shard_interp_parse_args(shard_arena *a, const char *text, shard_tensor ***args, uint32_t *nargs, shard_buf *err);

/* Calls a function of the module on one device (replica 0, partition 0 of a
 * 1x1 grid). Results are allocated in `a`; *results gets an array of
 * func-result-count tensors. False after reporting an error. */
bool shard_interp_call(shard_module *m, const char *func, shard_tensor *const *args, uint32_t nargs,
                       const shard_interp_options *opts, shard_arena *a, shard_tensor ***results, uint32_t *nresults,
                       shard_diag_engine *de);

/* Which piece of a dim sharded by `axes` (major to minor, sub-axes allowed)
 * device `device` holds: its position in the mesh's device order (explicit
 * device_ids or iota) decomposed into axis coordinates. Pieces are numbered
 * 0 .. product of the axis sizes - 1. */
int64_t shard_interp_piece_index(int64_t device, const shard_mesh *mesh, const shard_axis_ref *axes, uint32_t num_axes);

#endif
