/* MLIR types as shard needs them: ranked tensors are modelled (shape, element
 * type, encoding), tuples and function types structurally, everything else
 * (!stablehlo.token, i32, index, ...) is kept as its printed text. */
#ifndef SHARD_TYPE_H
#define SHARD_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/limits.h"

typedef enum shard_type_kind {
  SHARD_TYPE_TENSOR, /* tensor<8x?xf32[, encoding]> */
  SHARD_TYPE_UNRANKED_TENSOR, /* tensor<*xf32> */
  SHARD_TYPE_TUPLE, /* tuple<a, b> */
  SHARD_TYPE_FUNCTION, /* (a, b) -> c */
  SHARD_TYPE_OTHER /* anything else, by text */
} shard_type_kind;

/* A uniform quantized element type (StableHLO's "Quantized element types"):
 *   !quant.uniform<STORAGE[<MIN:MAX>]:EXPRESSED, SCALE[:ZERO_POINT]>
 *   !quant.uniform<STORAGE[<MIN:MAX>]:EXPRESSED:AXIS, {S0[:Z0],S1[:Z1],...}>
 * Values of the type are their storage integers; x = (q - zero_point) * scale. */
typedef struct shard_quant {
  bool is_signed; /* i8 (signed) or u8 / ui8 (unsigned) storage */
  unsigned storage_bits; /* 1 .. SHARD_QUANT_MAX_STORAGE_BITS */
  int64_t storage_min, storage_max;
  const char *expressed; /* "f32", "bf16", ... */
  int64_t axis; /* the quantization dimension; -1 per tensor */
  uint32_t num_scales; /* 1 per tensor */
  const double *scales; /* as written (rounded to the expressed type when used) */
  const int64_t *zero_points;
} shard_quant;

/* MLIR's quant dialect: storage types of at most 32 bits. */
#define SHARD_QUANT_MAX_STORAGE_BITS 32u
/* Scales of a per-axis type (a named limit: the list is read into a bounded array). */
#define SHARD_QUANT_MAX_SCALES 65536u

/* Reads `!quant.uniform<...>` (text[0..len), blanks allowed between tokens)
 * into *out (arrays in arena) and checks StableHLO's constraints on the
 * element type (integer storage, float expressed type, storage range within
 * the storage type, scales finite and > 0, zero points in the storage
 * range). On failure *err is a message and *err_off the offset in text it
 * points at. */
bool shard_quant_parse(shard_arena *a, const char *text, size_t len, shard_quant *out, const char **err,
                       size_t *err_off);
/* The canonical (MLIR's printed) form, e.g. "!quant.uniform<i8:f32, 1.000000e-01:-30>". */
void shard_quant_print(shard_buf *b, const shard_quant *q);
/* The canonical text of q with another quantization dimension (in arena). */
const char *shard_quant_text_with_axis(shard_arena *a, const shard_quant *q, int64_t axis);
/* The tensor constraints of a quantized element type against a shape:
 * axis < rank and dims[axis] == number of scales (a dynamic dim passes).
 * NULL when they hold, else the message (a static string or arena text). */
const char *shard_quant_check_shape(shard_arena *a, const shard_quant *q, uint32_t rank, const int64_t *dims);
/* The default storage range of a storage type. */
void shard_quant_storage_range(bool is_signed, unsigned bits, int64_t *min, int64_t *max);

typedef struct shard_type shard_type;
struct shard_type {
  shard_type_kind kind;
  const char *text; /* canonical printed form; types are equal iff texts are */
  /* TENSOR / UNRANKED_TENSOR */
  uint32_t rank;
  int64_t *dims; /* SHARD_DYNAMIC_DIM for '?' */
  const char *elem; /* element type text: "f32", "i1", "complex<f32>", ... */
  const char *encoding; /* text after the element type's comma, or NULL */
  const shard_quant *quant; /* TENSOR: the element type when it is !quant.uniform<...>, else NULL */
  /* TUPLE: elems; FUNCTION: inputs and results */
  shard_type **inputs;
  uint32_t num_inputs;
  shard_type **results;
  uint32_t num_results;
};

bool shard_type_equal(const shard_type *a, const shard_type *b);
bool shard_type_is_static_tensor(const shard_type *t);
/* Number of elements of a static tensor; -1 when dynamic or overflowing. */
int64_t shard_type_num_elements(const shard_type *t);
/* Bits per element of a tensor's element type (f32 -> 32, i1 -> 1, complex<f32> -> 64, a quantized
 * type -> its storage width), 0 if unknown. */
unsigned shard_elem_bits(const char *elem);

/* Builders: they compute `text`. */
shard_type *shard_type_tensor(shard_arena *a, uint32_t rank, const int64_t *dims, const char *elem,
                              const char *encoding);
shard_type *shard_type_other(shard_arena *a, const char *text);
shard_type *shard_type_tuple(shard_arena *a, shard_type **elems, uint32_t n);
shard_type *shard_type_function(shard_arena *a, shard_type **in, uint32_t nin, shard_type **out, uint32_t nout);
/* The same tensor type with other dims. */
shard_type *shard_type_with_dims(shard_arena *a, const shard_type *t, const int64_t *dims);
void shard_type_print(shard_buf *b, const shard_type *t);

#endif
