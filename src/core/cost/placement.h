/* Where the pieces of a sharded tensor live: for a static tensor type, a
 * sharding and its mesh, every block (tile) of the tensor with its index
 * ranges, and the devices that hold it with their mesh coordinates.
 *
 * This is the data model behind `shard viz placement` and the REPL's device
 * maps; the pictures (src/viz) only lay it out. Everything is allocated in
 * the arena passed to shard_placement_compute. */
#ifndef SHARD_PLACEMENT_H
#define SHARD_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "support/buf.h"
#include "support/diag.h"
#include "sdy/sharding.h"
#include "ir/type.h"

/* Pictures of more devices or blocks than this would be unreadable, and the
 * limit keeps the model's size bounded for hostile input. */
#define SHARD_PLACEMENT_MAX_DEVICES 4096
#define SHARD_PLACEMENT_MAX_BLOCKS 4096

/* What a mesh axis (or a part of it) does for the tensor. */
typedef enum shard_axis_role {
  SHARD_ROLE_DIM, /* shards tensor dimension `dim` */
  SHARD_ROLE_REPLICATED, /* named in replicated={...} */
  SHARD_ROLE_UNREDUCED, /* named in unreduced={...}: devices hold partial values */
  SHARD_ROLE_IMPLICIT /* not named at all: the tensor is replicated along it */
} shard_axis_role;

/* A mesh axis cut into the sub-axes the sharding uses: "x"=8 with "x":(2)2
 * in a dimension becomes "x":(1)2 (implicit), "x":(2)2 (dim), "x":(4)2
 * (implicit). Uncut axes keep their full name. */
typedef struct shard_placement_axis {
  shard_axis_ref ref; /* "x" or "x":(pre)size */
  uint32_t mesh_axis; /* index in the mesh */
  int64_t pre_size, size;
  shard_axis_role role;
  uint32_t dim; /* for SHARD_ROLE_DIM */
} shard_placement_axis;

typedef struct shard_placement_device {
  int64_t id; /* the device id (device_ids[i], or i) */
  int64_t *coords; /* one coordinate per mesh axis */
  uint32_t block; /* the block this device holds */
  int64_t partial; /* which partial value, 0..num_partials-1 (0 when nothing is unreduced) */
} shard_placement_device;

typedef struct shard_placement_block {
  int64_t *tile; /* tile index per tensor dimension */
  int64_t *start, *end; /* half-open index range per dimension, clipped to the tensor */
  uint32_t *devices; /* indices into shard_placement.devices, in mesh order */
  uint32_t num_devices;
  bool padded; /* shorter than the local shape in some dimension */
  bool empty; /* no elements at all: the device holds only padding */
} shard_placement_block;

typedef struct shard_placement {
  const shard_tensor_sharding *sharding;
  const shard_mesh *mesh;
  const char *mesh_name; /* NULL for an inlined mesh */
  const shard_type *type;
  uint32_t rank;
  const int64_t *dims; /* global shape */
  int64_t *shards; /* number of shards per dimension */
  int64_t *local; /* ceil(dim / shards): what every device holds, padding included */
  shard_placement_axis *axes; /* mesh order, major part of each axis first */
  uint32_t num_axes;
  shard_placement_device *devices; /* mesh order: row-major over coordinates */
  uint32_t num_devices;
  shard_placement_block *blocks; /* row-major over tile indices */
  uint32_t num_blocks;
  int64_t num_partials; /* product of the unreduced axes' sizes */
  int64_t copies; /* devices holding the same (partial) block */
  /* Per dimension and tile, the extent another framework gives the tile
   * when it cuts an uneven dimension unlike Shardy (PyTorch, OneFlow; set
   * by whoever draws it so); NULL: Shardy's padded split. Read through
   * shard_placement_tile_range. */
  int64_t **tile_start, **tile_end;
} shard_placement;

/* The elements [start, end) of dimension d that tile t holds. */
void shard_placement_tile_range(const shard_placement *p, uint32_t d, int64_t t, int64_t *start, int64_t *end);

/* Computes the placement of a static ranked tensor of type `type` sharded by
 * `s` over mesh `m` (which the caller resolved). Problems (dynamic shape,
 * rank mismatch, unknown axes, sub-axes that do not fit, too many devices)
 * are reported through de at `where`; the result is NULL then. */
shard_placement *shard_placement_compute(shard_arena *a, const shard_type *type, const shard_tensor_sharding *s,
                                         const shard_mesh *m, const char *mesh_name, shard_diag_engine *de,
                                         shard_span where);

/* Index of the block with the given tile indices (one per dimension). */
uint32_t shard_placement_block_index(const shard_placement *p, const int64_t *tile);

/* Prints "[0:4, 8:12]" for a block. */
void shard_placement_print_ranges(shard_buf *b, const shard_placement *p, uint32_t block);
/* Prints "x=0, y=1" for a device. */
void shard_placement_print_coords(shard_buf *b, const shard_placement *p, uint32_t device);
/* Prints "sum" style role text: "dim 0", "replicated", "unreduced", "implicitly replicated". */
const char *shard_axis_role_name(shard_axis_role r);

/* Do a and b put the same elements (and the same partial status) on every
 * device id? When not, says why in `why` (the first device that differs). */
bool shard_placement_same(const shard_placement *a, const shard_placement *b, shard_buf *why);

#endif
