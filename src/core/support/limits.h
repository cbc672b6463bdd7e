/* Sentinels and limits that every layer shares, each defined once here.
 * A limit that only one subsystem has stays in that subsystem's header,
 * named, with a located error where it is hit. */
#ifndef SHARD_LIMITS_H
#define SHARD_LIMITS_H

#include <stdint.h>

/* The extent of a dynamic dimension (`tensor<?x4xf32>`). */
#define SHARD_DYNAMIC_DIM INT64_MIN

/* The most devices a mesh may have for the commands that build per-device
 * data: global-to-local writes every device of a mesh into each
 * collective's replica groups, and the memory model keeps per-device
 * classes. A larger mesh is refused with a located error at the mesh,
 * before any work (a mesh of 2^32 devices ran out of memory). `shard check`
 * and propagation have no such limit. */
#define SHARD_MAX_MESH_DEVICES (INT64_C(1) << 20)

#endif
