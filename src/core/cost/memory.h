/* Static per-device memory of a sharded program: will it fit?
 *
 * For every function of a module, per device, the model adds up the bytes of
 *   - its arguments and results, at their local (per-device) shapes with the
 *     padding of non-divisible dims (ceil(dim / shards) rows on every
 *     device, as the partitioned program allocates them); an argument
 *     donated to a result (tf.aliasing_output / mhlo.aliasing_output = K, or
 *     jax.buffer_donor / mhlo.buffer_donor matched to the first result of
 *     the same size) shares that result's buffer and is counted once;
 *   - every other value, live from the op that defines it to its last use
 *     in program order (an op before the ops of its regions; a value used
 *     inside a stablehlo.while stays live until the loop ends, and the
 *     state a loop carries is one buffer for the whole loop, shared with
 *     the loop's operand when that operand is not used again and with its
 *     results; bodies of sdy.manual_computation and sdy.named_computation
 *     see their operands' and results' buffers);
 *   - at a collective, its operand and result (both live there) and, for
 *     an all_gather or reduce_scatter of a padded dim, the padded gather
 *     buffer; at a func.call, the callee's own peak above its arguments and
 *     results.
 * The peak is the largest sum over program points. Arguments live for the
 * whole function (the caller owns them); values returned live to the end.
 *
 * Devices: values sharded on a mesh live on that mesh's devices, maximal
 * shardings on their one device, unsharded values everywhere. Devices that
 * hold the same values are one class; each class has its own totals, the
 * headline is the class with the largest peak.
 *
 * An estimate of the program as written: no fusion, no rematerialization,
 * no in-place updates beyond the aliasing above, no allocator
 * fragmentation or alignment, no runtime/compiler scratch. Values of
 * dynamic shape or unknown element type are not counted (num_unsized).
 *
 * Two readings of a module: a lowered global module (types are global, the
 * per-device shape comes from each value's sharding) or a per-device module
 * (`types_are_local`: the types already are per device). Everything is
 * allocated in the report's arena. */
#ifndef SHARD_MEMORY_H
#define SHARD_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"

/* Meshes (distinct device sets) the device classes are built from; more is
 * a located error, as are meshes over SHARD_MAX_MESH_DEVICES
 * (support/limits.h). */
#define SHARD_MEMORY_MAX_DEVICE_SETS 64

/* A buffer: one value, several values sharing one buffer, or scratch
 * (value NULL) live at one point: a collective's padded buffer or a
 * callee's temporaries at a func.call. */
typedef struct shard_memory_buffer {
  const shard_value *value; /* the value that names it (first of the values sharing it) */
  const char *name; /* "%3", "%arg0", "sdy.all_gather result" */
  shard_span at; /* where it is defined */
  const char *shape; /* local type: "8x1024xf32" */
  int64_t bytes; /* on a device that holds it */
  int64_t padding; /* of those, bytes of padding (non-divisible dims) */
  uint32_t device_set; /* index into the report's device sets */
  uint32_t def, end; /* live over program points [def, end] */
  bool argument, result;
} shard_memory_buffer;

typedef struct shard_memory_point {
  const shard_op *op; /* the op (or, for its end point, the op whose regions end) */
  bool end; /* the end of op's regions, where its results are defined */
} shard_memory_point;

/* Totals of one class of devices that hold the same values. */
typedef struct shard_memory_class {
  uint64_t mask; /* the device sets these devices belong to */
  int64_t *devices; /* ascending */
  int64_t num_devices;
  int64_t argument_bytes; /* all arguments */
  int64_t result_bytes; /* results not sharing a donated argument's buffer */
  int64_t aliased_bytes; /* results that do (not in result_bytes) */
  int64_t peak_bytes;
  uint32_t peak_point;
  uint32_t *live; /* buffers live at the peak, largest first */
  int64_t *live_bytes; /* their bytes on these devices */
  uint32_t num_live;
  int64_t peak_padding; /* padding bytes of the live buffers */
  int64_t *curve; /* live bytes at every program point (the chart) */
} shard_memory_class;

typedef struct shard_memory_function {
  const shard_op *func;
  const char *name; /* without '@' */
  shard_memory_buffer *buffers;
  uint32_t num_buffers;
  shard_memory_point *points;
  uint32_t num_points;
  shard_memory_class *classes;
  uint32_t num_classes;
  uint32_t worst; /* class with the largest peak */
  uint32_t num_unsized; /* values of dynamic shape or unknown element type */
} shard_memory_function;

typedef struct shard_memory_options {
  bool types_are_local; /* a per-device module: do not divide by shardings */
} shard_memory_options;

typedef struct shard_memory_report {
  shard_arena *arena;
  shard_memory_function *functions;
  uint32_t num_functions;
  int64_t num_devices; /* devices of the module (1 without meshes) */
  uint32_t num_device_sets; /* distinct meshes seen (set 0: every device) */
  int64_t peak_bytes; /* the worst function's worst class */
  uint32_t worst_function;
} shard_memory_report;

/* Computes the report for every func.func of the module. False, with a
 * located error, when the module exceeds the limits above. */
bool shard_memory_analyze(shard_memory_report *r, shard_arena *a, const shard_module *m,
                          const shard_memory_options *opts, shard_diag_engine *de);

/* The span to report for a program point: the op's, or the nearest op
 * around it that has one (ops made by passes have none). */
shard_span shard_memory_point_span(const shard_memory_function *f, uint32_t point);

/* "0-3,6": devices as ranges. */
void shard_memory_print_devices(shard_buf *b, const int64_t *devices, int64_t n);
/* Reads a byte count: digits with an optional fraction and unit, B, KB, MB,
 * GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), case as
 * written here, e.g. "80GiB", "1.5 GB", "4276224". False when malformed,
 * not positive or above 2^62. */
bool shard_memory_parse_bytes(const char *s, int64_t *out);
/* "4276224 B (4.08 MiB)". */
void shard_memory_format_bytes(shard_buf *b, int64_t bytes);

/* Text: per function and device class, totals, the peak and the `top`
 * largest buffers live there; then the device memory (0: unknown, with
 * `memory_source` saying where it came from) and whether the peak fits. */
void shard_memory_print_text(shard_buf *b, const shard_memory_report *r, uint32_t top, int64_t device_memory,
                             const char *memory_source);
/* The same as one JSON object. */
void shard_memory_print_json(shard_buf *b, const shard_memory_report *r, uint32_t top, int64_t device_memory,
                             const char *memory_source);

#endif
