/* The verifier: every invariant of Shardy's dialect verifier, with the same
 * message texts, plus shard's own warnings (non-divisible dims, meshes with
 * different device counts, size-1 axes). */
#ifndef SHARD_VERIFY_H
#define SHARD_VERIFY_H

#include <stdbool.h>

#include "support/diag.h"
#include "ir/ir.h"

typedef struct shard_verify_options {
  bool extra_warnings; /* shard's warnings beyond Shardy (shard check, not shard opt) */
} shard_verify_options;

/* Returns true when no error was reported. */
bool shard_verify_module(const shard_module *m, const shard_verify_options *opts, shard_diag_engine *de);

/* Streamed verification (shard check of a large module): the ops of a
 * module body verified one at a time as the parser hands them over
 * (shard_parse_options.top_op), so that no more than one of them is in
 * memory, keeping only what later ops look up (meshes, function
 * signatures, calls for the recursion check).
 *
 * It answers one question: would shard_verify_module on the whole module
 * report nothing at all? It reports nothing itself. A stream op or finish
 * returning false means "maybe not" (something to report, an op of a kind
 * it does not stream, a symbol named before its definition): the caller
 * then parses and verifies the whole module, which reports everything in
 * its order. So a streamed check never says anything a whole one would not.
 * Accepts only func.func and sdy.mesh ops without operands or results. */
typedef struct shard_verify_stream shard_verify_stream;
shard_verify_stream *shard_verify_stream_new(const shard_verify_options *opts);
/* `op` sits alone in the module body block, whose region has no parent op
 * yet; it may be freed once this returns. */
bool shard_verify_stream_op(shard_verify_stream *vs, shard_op *op);
/* Ops of the body of the next func.func, b's ops, read so far
 * (shard_parse_options.body_ops): verified now, then let go. True: they
 * are clean and each op's `results` points at copies in the stream's
 * memory, with a stand-in def holding what later checks read of it, until
 * that function has been given to shard_verify_stream_op. False: keep
 * them (of a kind not let go, or something to report). */
bool shard_verify_stream_body_ops(shard_verify_stream *vs, shard_block *b);
/* The module whose body was streamed (its body now empty): its own op
 * verified, the module-wide checks made. True: the whole module is clean. */
bool shard_verify_stream_finish(shard_verify_stream *vs, const shard_module *m);
void shard_verify_stream_free(shard_verify_stream *vs);

#endif
