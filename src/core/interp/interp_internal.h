/* What interp.c, interp_ops.c and interp_collectives.c share: the per-device
 * process, the world of processes a run_parallel starts, frames of SSA
 * values, and index helpers. Private to the interpreter. */
#ifndef SHARD_INTERP_INTERNAL_H
#define SHARD_INTERP_INTERNAL_H

#include <complex.h>
#include <pthread.h>

#include "ir/clone.h"
#include "interp/interp.h"
#include "support/ptrmap.h"

/* glibc defines C11's CMPLX only for GCC >= 4.7; clang (which reports GCC
 * 4.2) has the same builtin. Every file of the interpreter gets it here. */
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

/* Per-dim scratch of an op's executor, zeroed, in the process's arena (which
 * holds its tensors, so it lives as long as they do): sized by the ranks at
 * hand, the interpreter has no rank limit. INTERP_RANK_ARRAY has one entry per
 * dim of the op's largest operand or result. */
#define INTERP_ARRAY(p, T, n) SHARD_NEW_ARRAY((p)->arena, T, (size_t)(n) + 1)
#define INTERP_RANK_ARRAY(p, op, T) INTERP_ARRAY(p, T, shard_interp_op_rank(op))

/* The devices of one run_parallel (or the single device running @main). */
typedef struct interp_world {
  shard_module *module;
  shard_diag_engine *de;
  pthread_mutex_t *diag_mu; /* shared by every world: diagnostics are serialised */
  int64_t num_replicas, num_partitions, num_procs;
  /* Rendezvous: every process deposits its operands, waits, reads the
   * deposits of its group, waits again. */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int64_t arrived;
  uint64_t generation;
  bool aborted; /* a process failed: the others stop at their next barrier */
  bool unreached; /* a process returned normally: barriers can no longer be met */
  shard_tensor ***slots; /* per process: its deposited operands */
  uint32_t *slot_counts;
  unsigned checks;
  int64_t max_steps; /* per process, > 0 */
  bool track_rounding; /* shard_interp_options.track_rounding */
  const char *probe_dir; /* shard_interp_options.probe_dir */
  int64_t *probe_count; /* probes written in this run (shared by nested worlds, under diag_mu) */
  /* send/recv (interp_collectives.c), under mu: the channels used so far,
   * what each process waits for (0: nothing), how many have finished, and
   * the arena of messages in flight (a sender's values may live in a loop's
   * scratch arena that is gone before the receiver reads them). */
  struct interp_channel *channels;
  uint32_t num_channels, cap_channels;
  int *p2p_wait; /* per process: INTERP_WAIT_SEND/RECV or 0 */
  int64_t *p2p_wait_ch; /* per process: the channel it waits on */
  int64_t finished;
  bool p2p_deadlock; /* no process could go on: every waiter gives up */
  shard_arena *mail;
  /* infeed: run_parallel's `infeed` array of functions, popped in order
   * under mu; NULL outside a run_parallel */
  const shard_attr *infeed;
  uint32_t infeed_next;
} interp_world;

/* An error a device thread found, reported once every device has stopped. */
typedef struct interp_pending_error {
  shard_span span;
  char *message;
} interp_pending_error;

typedef struct interp_proc {
  interp_world *world;
  int64_t replica_id, partition_id, index; /* index = replica * partitions + partition */
  shard_arena *arena; /* this process's tensors */
  bool failed;
  int64_t steps; /* ops executed so far */
  const shard_op *loop; /* the innermost stablehlo.while running, for the step-budget error */
  /* Errors of a process of a multi-device world: threads finish in any
   * order, so they are held back and reported in device order
   * (shard_interp_report_pending) for the same output on every run. */
  SHARD_VEC(interp_pending_error) pending;
  /* The reducer region shard_interp_reduce_elems saw last and its decoded
   * binary op (interp_ops.c), so a reduction decodes its body once. */
  const shard_region *reducer;
  int reducer_op;
} interp_proc;

/* SSA values of one function invocation (regions of ops see their parent's). */
typedef struct interp_frame {
  struct interp_frame *parent;
  shard_ptrmap values;
} interp_frame;

/* interp.c */
/* Operand i of op (a located error when op has fewer operands or the
 * value is unbound), and a fresh zero tensor of result i's type. */
shard_tensor *shard_interp_operand(interp_proc *p, interp_frame *f, const shard_op *op, uint32_t i);
shard_tensor *shard_interp_result(interp_proc *p, const shard_op *op, uint32_t i);
shard_tensor *shard_interp_lookup(interp_frame *f, const shard_value *v);
void shard_interp_bind(interp_frame *f, const shard_value *v, shard_tensor *t);
bool shard_interp_error(interp_proc *p, const shard_op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Runs a region's entry block with arguments; writes the terminator's
 * operands into results (num must match). */
bool shard_interp_run_region(interp_proc *p, interp_frame *parent, shard_region *r, shard_tensor *const *args,
                             uint32_t nargs, shard_tensor **results, uint32_t nresults);
shard_tensor *shard_interp_tensor_like(interp_proc *p, shard_type *type, const shard_op *op);
/* A new tensor of the element type of `elem_of` and shape dims. */
shard_tensor *shard_interp_tensor_shape(interp_proc *p, const shard_tensor *elem_of, uint32_t rank,
                                        const int64_t *dims);
shard_tensor *shard_interp_tensor_copy(shard_arena *a, const shard_tensor *t);

/* Element access as double/int regardless of kind. */
static inline double interp_get_f(const shard_tensor *t, int64_t i) {
  return t->kind == SHARD_ELEM_FLOAT                   ? t->floats[i]
         : t->kind == SHARD_ELEM_COMPLEX               ? t->floats[2 * i]
         : t->kind == SHARD_ELEM_UINT && t->bits == 64 ? (double)(uint64_t)t->ints[i]
                                                       : (double)t->ints[i];
}
void shard_interp_set_f(shard_tensor *t, int64_t i, double x);
void shard_interp_set_i(shard_tensor *t, int64_t i, int64_t x);
/* Copies element si of s into element di of d (same element type). */
static inline void interp_copy_elem(shard_tensor *d, int64_t di, const shard_tensor *s, int64_t si) {
  if (d->kind == SHARD_ELEM_COMPLEX) {
    d->floats[2 * di] = s->floats[2 * si];
    d->floats[2 * di + 1] = s->floats[2 * si + 1];
  } else if (d->kind == SHARD_ELEM_FLOAT) {
    d->floats[di] = s->floats[si];
  } else {
    d->ints[di] = s->ints[si];
  }
}

/* The largest rank among an op's operands and results (0 for scalars). */
uint32_t shard_interp_op_rank(const shard_op *op);
/* Row-major strides of a shape; returns the element count. */
int64_t shard_interp_strides(uint32_t rank, const int64_t *dims, int64_t *strides);
/* Advances a multi-index over dims; false after the last one. */
bool shard_interp_next_index(uint32_t rank, const int64_t *dims, int64_t *idx);

/* Attribute readers; false (after an error) when missing or malformed. */
bool shard_interp_attr_i64s(interp_proc *p, const shard_op *op, const char *name, int64_t *out, uint32_t *n,
                            uint32_t max);
bool shard_interp_attr_int(interp_proc *p, const shard_op *op, const char *name, int64_t *out);
/* An attribute's integer list copied into out[max]; false when longer. */
bool shard_interp_list(const shard_i64s *l, int64_t *out, uint32_t *n, uint32_t max);

/* Prints element i of t as shard_tensor_print does. */
void shard_interp_print_elem(shard_buf *b, const shard_tensor *t, int64_t i);

/* interp_check.c: a `check.*` op (expect_eq, expect_almost_eq, expect_close
 * and their *_const forms). False after reporting the first mismatch. */
bool shard_interp_exec_check(interp_proc *p, interp_frame *f, shard_op *op);
/* True for ops interp_check.c runs: check.*, interpreter.probe and a
 * stablehlo.custom_call whose target is check.* (the testdata convention). */
bool shard_interp_is_check_op(const shard_op *op);
/* interp_ops.c: executes one non-control op. Returns false after an error.
 * *handled is false when the op is not one interp_ops knows. */
bool shard_interp_exec_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);
/* Scalar binary ops by name (also used by reductions): add, multiply, ...
 * shard_interp_binop decodes a name (with or without "stablehlo.") once,
 * 0 for names that are no binary op; shard_interp_apply_binop applies a
 * decoded op (false for op 0 or an op the element type has not). */
int shard_interp_binop(const char *name);
bool shard_interp_apply_binop(int binop, const shard_tensor *t, double a, double b, int64_t ia, int64_t ib, double *fr,
                              int64_t *ir);
bool shard_interp_scalar_binary(const char *name, const shard_tensor *t, double a, double b, int64_t ia, int64_t ib,
                                double *fr, int64_t *ir);

/* Copies all of src into dst at per-dim offsets / extracts a block of
 * `sizes` starting at `start` (same element type). */
void shard_interp_insert(shard_tensor *dst, const int64_t *offsets, const shard_tensor *src);
shard_tensor *shard_interp_extract(interp_proc *p, const shard_tensor *src, const int64_t *start, const int64_t *sizes);
/* Applies a two-argument scalar reducer region (fast path for a single
 * binary op) to a and b; writes into element i of out. */
bool shard_interp_reduce_elems(interp_proc *p, interp_frame *f, shard_region *r, const shard_tensor *a, int64_t ai,
                               const shard_tensor *b, int64_t bi, shard_tensor *out, int64_t oi);

/* interp_windows.c: gather, scatter, reduce_window, select_and_scatter,
 * convolution. *handled as for shard_interp_exec_op. */
bool shard_interp_exec_window_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);

/* interp_complex.c: the complex element ops (complex, real, imag, fft and the
 * elementwise arithmetic on complex tensors). *handled as for shard_interp_exec_op. */
bool shard_interp_exec_complex_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);

/* interp_chlo.c: the chlo ops (special functions, top_k, the broadcasting
 * binary ops, ...). *handled as for shard_interp_exec_op. */
bool shard_interp_exec_chlo_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);

/* interp_ops_more.c: tokens, tuples, bitcast_convert, reduce_precision,
 * composite, custom_call, the dynamic_* ops, triangular_solve, cholesky.
 * *handled as for shard_interp_exec_op. */
bool shard_interp_exec_more_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);

/* interp_quant.c: uniform_quantize, uniform_dequantize and every other op
 * on quantized tensors (the spec's dequantize_op_quantize). *handled as for
 * shard_interp_exec_op. */
bool shard_interp_exec_quant_op(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);
/* interp.c: runs a data op by the executors above, without the quantized
 * rule (a located error when none knows it). */
bool shard_interp_exec_plain_op(interp_proc *p, interp_frame *f, shard_op *op);

/* interp_collectives.c */
bool shard_interp_exec_collective(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);
/* Reports the held-back errors of procs[0..n) in device order through
 * `into` (the process that ran them), and frees them. */
void shard_interp_report_pending(interp_proc *into, interp_proc *const *procs, int64_t n);
void shard_interp_world_init(interp_world *w, shard_module *m, shard_diag_engine *de, pthread_mutex_t *diag_mu,
                             int64_t replicas, int64_t partitions);
/* A world inherits the step budget and tracking of the world it runs in. */
void shard_interp_world_inherit(interp_world *w, const interp_world *parent);
void shard_interp_world_destroy(interp_world *w);
/* A process is done (returned or failed): wakes waiters. */
void shard_interp_proc_finish(interp_proc *p);

/* interp_collectives.c: stablehlo.send, stablehlo.recv and stablehlo.infeed
 * as StableHLO's reference interpreter defines them. *handled as for
 * shard_interp_exec_op. */
bool shard_interp_exec_p2p(interp_proc *p, interp_frame *f, shard_op *op, bool *handled);

/* interp.c: runs `region` (isolated from above) once per device of a fresh
 * world of `n` partitions, device k getting args[k] (nargs each) and giving
 * results[k] (nresults each, copied into p's arena with the types of
 * `result_types`). False after an error. */
bool shard_interp_run_devices(interp_proc *p, const shard_op *at, int64_t n, shard_region *region, shard_tensor ***args,
                              uint32_t nargs, shard_tensor ***results, uint32_t nresults,
                              shard_type *const *result_types);

/* interp_manual.c: sdy.manual_computation in a global program. */
bool shard_interp_exec_manual(interp_proc *p, interp_frame *f, shard_op *op);

/* interp_rounding.c: the rounding bookkeeping of one executed op (only in
 * worlds with track_rounding); `operands` and `results` are its values. */
void shard_interp_track_op(const interp_proc *p, const shard_op *op, shard_tensor *const *operands, uint32_t nops,
                           shard_tensor *const *results, uint32_t nres);
/* Unit roundoff of a float element type (2^-24 for f32). */
double shard_interp_unit_roundoff(const shard_tensor *t);

#endif
