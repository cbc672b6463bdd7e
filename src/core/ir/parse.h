/* The MLIR parser and its API for op definitions' custom parsers.
 *
 * shard_parse_module reads a whole buffer (one -split-input-file chunk) into
 * a module. Custom op parsers (opdef.h) receive a shard_parser and fill a
 * shard_op_state: they read tokens with the functions below, which report
 * located errors themselves and return false on failure. */
#ifndef SHARD_PARSE_H
#define SHARD_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "ir/lex.h"
#include "ir/type.h"

typedef struct shard_parse_options {
  bool allow_unregistered; /* accept unknown dialect ops in custom form? (never: they must be generic) */
  uint32_t max_depth; /* nesting limit (default 512) */
  /* Optional, told as the parser moves on that the source text before `p`
   * is behind it: a mapped input (cli/input.c) gives those pages back, so a
   * module is not in memory twice, as text and as IR. The text must stay
   * readable (a diagnostic reads it back). */
  void (*read_past)(const char *p);
  /* Optional streaming (shard check): when the input's first op is a
   * builtin.module, each op directly in its body is handed to `top_op` as
   * soon as it is parsed, then unlinked from the module, and the memory of
   * everything but an sdy.mesh is reused for the next one: a module of many
   * functions is never in memory whole. The op's block is the module body,
   * whose region has no parent op yet. `top_op` returning false stops the
   * parse, which returns NULL without a diagnostic; so does an op that
   * defines values at module level or uses ones not defined yet (the
   * parser cannot let it go). The module returned has an empty body; when
   * the first op is not a builtin.module, top_op is never called and the
   * module is whole. */
  bool (*top_op)(void *ctx, shard_op *op);
  /* Optional, with top_op: the body of a streamed func.func written in
   * custom form goes by in pieces too. Between two of its ops (never
   * before the last), `body_ops` gets the body's entry block holding the
   * ops read since its last call; the function op is not made yet (the
   * block's region has no parent op). Returning true lets those ops go:
   * body_ops has pointed each op's `results` at copies that outlive it
   * (later ops name them), with no uses. False keeps them, and the rest
   * of the body, whole. */
  bool (*body_ops)(void *ctx, shard_block *b);
  void *top_op_ctx;
} shard_parse_options;

/* Parses `src` into a new module; NULL on error (diagnostics went to de).
 * The caller frees the result with shard_module_free. `src` must outlive it. */
shard_module *shard_parse_module(shard_source *src, const shard_parse_options *opts, shard_diag_engine *de);

/* Parses the whole of `src` as one attribute (`#sdy.sharding<...>`, a
 * dictionary, ...), allocated in m's arena: attributes that other tools carry
 * as text inside string attributes (XLA's frontend attributes). `src` must
 * outlive the module. NULL after reporting an error located in src. */
shard_attr *shard_parse_attr_text(shard_module *m, const shard_source *src, shard_diag_engine *de);

typedef struct shard_parser shard_parser;

/* A use of an SSA value before resolution: %name or %name#N. */
typedef struct shard_unresolved {
  const char *name; /* without '%' */
  uint32_t name_len;
  uint32_t number; /* the #N part, 0 if absent */
  shard_span span;
} shard_unresolved;

/* A region argument as written: %name : type {attrs} loc(...). */
typedef struct shard_arg_decl {
  shard_unresolved ref;
  shard_type *type;
  shard_named_attr *attrs;
  uint32_t num_attrs;
  shard_attr *loc;
} shard_arg_decl;

/* What a custom parser produces; the generic machinery turns it into an op. */
typedef struct shard_op_state {
  const char *name;
  shard_span span;
  SHARD_VEC(shard_unresolved) operands;
  SHARD_VEC(shard_type *) operand_types; /* one per operand, filled before resolving */
  SHARD_VEC(shard_type *) result_types;
  SHARD_VEC(shard_named_attr) attrs;
  SHARD_VEC(shard_region *) regions;
  SHARD_VEC(shard_block *) successors;
  uint32_t num_results_declared; /* how many result names the op line declared */
} shard_op_state;

shard_arena *shard_parser_arena(shard_parser *p);
/* The #stablehlo<precision ...> case `value`, one attribute per parser
 * shared by the StableHLO ops that name it (nothing changes an attribute
 * in place but shard_op_mark_mhlo, and an mhlo op gets its own). */
shard_attr *shard_parser_precision(shard_parser *p, uint32_t value);
/* What an op parser made for the key bytes earlier in this parse (NULL
 * the first time), and remembering it: for read-only parts that ops spelling
 * the same text may share (the dimension numbers of dots). */
void *shard_parser_memo_get(shard_parser *p, const void *key, size_t len);
void shard_parser_memo_put(shard_parser *p, const void *key, size_t len, void *val);
shard_diag_engine *shard_parser_diag(shard_parser *p);
const shard_source *shard_parser_source(shard_parser *p);

/* Tokens. */
shard_tok shard_parser_peek(shard_parser *p);
shard_tok shard_parser_next(shard_parser *p);
shard_span shard_parser_span(shard_parser *p, const shard_tok *t);
/* Span of the next token (for error positions). */
shard_span shard_parser_here(shard_parser *p);
/* Byte offset of the next token, and rewinding to a saved offset. */
uint32_t shard_parser_save(shard_parser *p);
void shard_parser_restore(shard_parser *p, uint32_t pos);
/* Error at the next token; always returns false. */
bool shard_parser_error(shard_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool shard_parser_error_at(shard_parser *p, shard_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Punctuation and keywords: `expect` reports "expected 'X'"; `accept` consumes if present. */
bool shard_parser_accept(shard_parser *p, const char *text);
bool shard_parser_expect(shard_parser *p, const char *text);
bool shard_parser_accept_keyword(shard_parser *p, const char *kw);
bool shard_parser_expect_keyword(shard_parser *p, const char *kw);
/* A bare identifier; returns an arena copy. */
bool shard_parser_ident(shard_parser *p, const char **out);
/* An integer with optional '-' sign (range-checked to int64). */
bool shard_parser_int(shard_parser *p, int64_t *out);
bool shard_parser_accept_int(shard_parser *p, int64_t *out);
/* A list of non-negative decimal integers spelled plainly on one line,
 * `[0, 2, 1]`, read from the text at once into vals (at most cap): false,
 * consuming nothing, for anything else (other spellings, too many, an
 * integer that might overflow), which the token-by-token reader takes. */
bool shard_parser_plain_int_list(shard_parser *p, int64_t *vals, uint32_t cap, uint32_t *n);
/* The same for bare identifiers, `[DEFAULT, HIGH]`, without consuming it:
 * the identifier tokens into items (at most cap) and the offset after the
 * ']' (shard_parser_skip_to it to consume the list), or 0. */
uint32_t shard_parser_plain_ident_list(shard_parser *p, shard_tok *items, uint32_t cap, uint32_t *n);
void shard_parser_skip_to(shard_parser *p, uint32_t end);
/* A string literal, unescaped into the arena. */
bool shard_parser_string(shard_parser *p, const char **out, uint32_t *len);
/* @name (also @"quoted"); returns the name without '@'. */
bool shard_parser_symbol(shard_parser *p, const char **out);

/* Operands and types. */
bool shard_parser_operand(shard_parser *p, shard_op_state *st); /* appends one */
/* Comma-separated operands until the next token is not an operand. */
bool shard_parser_operand_list(shard_parser *p, shard_op_state *st);
bool shard_parser_type(shard_parser *p, shard_type **out);
/* ': type' giving all operand and result types: either a single type T
 * (all operands and results are T) or a function type (ins) -> outs. */
bool shard_parser_same_or_functional_type(shard_parser *p, shard_op_state *st);
/* ': functional-type(operands, results)' strictly. */
bool shard_parser_functional_type(shard_parser *p, shard_op_state *st);

/* Attributes. */
bool shard_parser_attr(shard_parser *p, shard_attr **out);
/* Optional {name = attr, ...}; merges into st->attrs. */
bool shard_parser_attr_dict(shard_parser *p, shard_op_state *st);
bool shard_parser_attr_dict_into(shard_parser *p, shard_named_attr **out, uint32_t *n);
/* Optional properties `<` attr-dict `>` (as printGenericOp writes them),
 * each entry added to st as an inherent attribute. */
bool shard_parser_properties(shard_parser *p, shard_op_state *st);
/* Adds an attribute to the state (replacing a same-named one). */
void shard_op_state_add_attr(shard_op_state *st, const char *name, shard_attr *value, bool inherent);
/* Optional trailing loc(...). */
bool shard_parser_optional_loc(shard_parser *p, shard_attr **out);

/* Regions. `args` are entry block arguments declared by the op syntax
 * (NULL/0 to read them from a ^bb0(...) header, or none). */
bool shard_parser_region(shard_parser *p, shard_op_state *st, shard_arg_decl *args, uint32_t nargs);
/* (%a: T, %b: T {attrs} loc(..)) */
bool shard_parser_arg_decls(shard_parser *p, void *vec /* SHARD_VEC(shard_arg_decl)* */, bool allow_attrs);
/* %name alone (for iterArg-style `%x = %init` lists). */
bool shard_parser_value_name(shard_parser *p, shard_unresolved *out);

/* The sdy attribute parsers (sdy_parse.c). The `#sdy.<mnemonic>` prefix has
 * already been consumed by the caller where it applies. */
bool shard_parse_sdy_attr(shard_parser *p, const char *mnemonic, shard_span start, shard_attr **out);
bool shard_parse_sdy_mesh_body(shard_parser *p, shard_mesh **out); /* <[...], device_ids=[...]> */
bool shard_parse_sdy_sharding_body(shard_parser *p, shard_tensor_sharding **out); /* <@m, [...], ...> */
bool shard_parse_sdy_sharding_list(shard_parser *p, shard_sharding_per_value **out); /* [<...>, ...] */
bool shard_parse_sdy_axis_list(shard_parser *p, shard_axis_list *out); /* {"x", "y":(1)2} */
bool shard_parse_sdy_axis_lists(shard_parser *p, shard_attr **out); /* [{...}, {...}] */
bool shard_parse_sdy_all_to_all_params(shard_parser *p, shard_attr **out);
bool shard_parse_sdy_rule_body(shard_parser *p, shard_op_sharding_rule **out);
bool shard_parse_sdy_manual_axes(shard_parser *p, shard_attr **out); /* {"a", "b"} */

#endif
