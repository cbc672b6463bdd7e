/* Reading XLA's HLO text (what --xla_dump_hlo_as_text writes: `HloModule
 * name, ...` then computations of `name = shape opcode(operands), attrs`)
 * into StableHLO, as XLA's HLO-to-MHLO importer
 * (xla/hlo/translate/hlo_to_mhlo) does: one func.func per entry or called
 * computation (the entry is @main), the computations of reduce, while,
 * conditional, sort and the collectives as regions, tuples flattened,
 * `sharding={...}` kept as mhlo.sharding and `frontend_attributes={...}` as
 * mhlo.frontend_attributes (so XLA's sdy round-trip import reads them).
 *
 * The reader writes the module as MLIR text and hands it to the MLIR parser,
 * so every op gets the same decoding and checks as in a .mlir file; the
 * spans of the parsed ops and values are moved back onto the HLO lines they
 * came from. An instruction, attribute or shape the reader does not know is
 * a located error naming it, never a silent drop. */
#ifndef SHARD_XLA_HLO_TEXT_H
#define SHARD_XLA_HLO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "ir/parse.h"
#include "support/buf.h"
#include "support/diag.h"

/* Nesting of computations inlined as regions (a while body holding a
 * reduce holding ...), and the rank of a shape: deeper is refused. */
#define SHARD_HLO_MAX_DEPTH 64
#define SHARD_HLO_MAX_RANK 64
/* The StableHLO text a dump may become: a computation inlined as a region
 * in each of its users, nested, can multiply the size of a small dump. */
#define SHARD_HLO_MAX_TEXT (UINT32_C(256) << 20)

/* Does the text start (after blank space) with `HloModule`? */
bool shard_hlo_text_detect(const char *text, size_t len);

/* The MLIR text of the HLO module in `src` appended to `out`. `map` (may be
 * NULL) receives pairs of offsets (offset in out, offset in src), one per
 * emitted op, in increasing order of the first; `map_len` their count (two
 * per pair). False after a located error in src. */
bool shard_hlo_text_to_mlir(const shard_source *src, shard_buf *out, uint32_t **map, uint32_t *map_len,
                            shard_diag_engine *de);

/* The module itself: `src` converted and parsed. `gen` receives the MLIR
 * text's source (name, text): the module's attributes point into it, so the
 * caller keeps it until the module is freed, then frees gen->text and
 * gen->name. Ops and values carry spans in `src`. NULL after an error. */
shard_module *shard_hlo_text_read(const shard_source *src, const shard_parse_options *popts, shard_source *gen,
                                  shard_diag_engine *de);

#endif
