/* `shard lower --verify`: runs a program's global form and its per-device
 * form with the reference interpreter and compares them element by element. */
#ifndef SHARD_CLI_LOWER_VERIFY_H
#define SHARD_CLI_LOWER_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"

/* For every function of `local` that `ref` also has: runs `ref`'s version
 * on deterministic pseudo-random global inputs on one device, and `local`'s
 * version on every device of its mesh (inputs sliced by the argument
 * shardings of `sharded`, the lowered global module), then checks that each
 * device's results are its pieces of the global results: bit-exactly, or
 * within the derived rounding bound of float sums across devices (see
 * lower_verify.c). Each device may run `max_steps` ops (0: the
 * interpreter's default). `ref` may be changed (sdy ops without global
 * effect are dropped). A function that cannot be run is skipped with a note
 * in `notes`, and every compared result gets a line there saying how it was
 * compared. Returns false after reporting a mismatch or an interpreter error
 * through `de`; *num_verified gets the number of functions compared. */
bool cli_lower_verify(shard_module *ref, shard_module *sharded, shard_module *local, int64_t max_steps,
                      shard_diag_engine *de, shard_buf *notes, unsigned *num_verified);

#endif
