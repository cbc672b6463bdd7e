/* Sentinels and limits that every layer shares, each defined once here.
 * A limit that only one subsystem has stays in that subsystem's header,
 * named, with a located error where it is hit. */
#ifndef SHARD_LIMITS_H
#define SHARD_LIMITS_H

#include <stdint.h>

/* The extent of a dynamic dimension (`tensor<?x4xf32>`). */
#define SHARD_DYNAMIC_DIM INT64_MIN

#endif
