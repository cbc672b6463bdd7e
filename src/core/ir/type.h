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
  SHARD_TYPE_TENSOR,          /* tensor<8x?xf32[, encoding]> */
  SHARD_TYPE_UNRANKED_TENSOR, /* tensor<*xf32> */
  SHARD_TYPE_TUPLE,           /* tuple<a, b> */
  SHARD_TYPE_FUNCTION,        /* (a, b) -> c */
  SHARD_TYPE_OTHER            /* anything else, by text */
} shard_type_kind;

typedef struct shard_type shard_type;
struct shard_type {
  shard_type_kind kind;
  const char *text; /* canonical printed form; types are equal iff texts are */
  /* TENSOR / UNRANKED_TENSOR */
  uint32_t rank;
  int64_t *dims;        /* SHARD_DYNAMIC_DIM for '?' */
  const char *elem;     /* element type text: "f32", "i1", "complex<f32>", ... */
  const char *encoding; /* text after the element type's comma, or NULL */
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
/* Bits per element of a tensor's element type (f32 -> 32, i1 -> 1, complex<f32> -> 64), 0 if unknown. */
unsigned shard_elem_bits(const char *elem);

/* Builders: they compute `text`. */
shard_type *shard_type_tensor(shard_arena *a, uint32_t rank, const int64_t *dims,
                              const char *elem, const char *encoding);
shard_type *shard_type_other(shard_arena *a, const char *text);
shard_type *shard_type_tuple(shard_arena *a, shard_type **elems, uint32_t n);
shard_type *shard_type_function(shard_arena *a, shard_type **in, uint32_t nin,
                                shard_type **out, uint32_t nout);
/* The same tensor type with other dims. */
shard_type *shard_type_with_dims(shard_arena *a, const shard_type *t, const int64_t *dims);
void shard_type_print(shard_buf *b, const shard_type *t);

#endif
