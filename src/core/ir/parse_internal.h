/* Parser state shared by parse.c (ops, regions, SSA) and parse_attr.c
 * (attributes and types). Not part of the op-definition API. */
#ifndef SHARD_PARSE_INTERNAL_H
#define SHARD_PARSE_INTERNAL_H

#include "ir/parse.h"
#include "support/strmap.h"

typedef struct ssa_entry ssa_entry;
typedef struct fwd_ref fwd_ref;
typedef struct alias_def {
  const char *name; /* without '#' or '!' */
  uint32_t len;
  shard_attr *attr; /* for # aliases */
  shard_type *type; /* for ! aliases */
} alias_def;

struct shard_parser {
  shard_lexer lx;
  shard_tok tok; /* lookahead */
  bool has_tok;
  shard_arena *arena;
  /* the parser's own records (SSA scopes, forward references), freed with
   * the parser rather than kept with the module; NULL: arena */
  shard_arena *scratch;
  shard_diag_engine *de;
  shard_module *module;
  const shard_parse_options *opts;
  bool failed;
  uint32_t depth, max_depth;
  /* SSA names -> their innermost ssa_entry (shadowed ones chained behind) */
  shard_strmap names;
  /* the same for the names that are decimal numbers (%0, %17: nearly every
   * value of a generated module), by number: no hash, 8 bytes a name */
  SHARD_VEC(ssa_entry *) numbered;
  uint32_t numbered_used; /* entries of numbered ever set: 1 + the largest number */
  SHARD_VEC(ssa_entry *) defined; /* in definition order, for popping scopes */
  SHARD_VEC(uint32_t) scope_marks;
  SHARD_VEC(fwd_ref *) fwd; /* unresolved forward references */
  SHARD_VEC(uint32_t) fwd_marks;
  SHARD_VEC(alias_def) attr_aliases;
  SHARD_VEC(alias_def) type_aliases;
  shard_region *cur_region; /* region being parsed, for successor names */
  uint32_t read_past_at; /* the lexer offset at which to tell src->read_past next */
  /* tensor types by their source text: most modules repeat a few types many
   * times, and building a type (and its canonical text) is not free */
  shard_strmap type_cache; /* source text -> shard_type */
  /* function types by their parts (input count, then the input and result
   * type pointers as bytes): one object per distinct signature, instead of
   * a type and its text built again for every op */
  shard_strmap fn_type_cache;
  /* function types spelled plainly, `(tensor<..>, tensor<..>) -> tensor<..>`,
   * by their source text: an op's signature is read once, not type by type */
  shard_strmap fn_text_cache;
  /* the precision values of dot ops (DEFAULT, HIGH, HIGHEST), one attribute
   * each shared by every op: two 56-byte attributes a dot otherwise */
  shard_attr *precisions[4];
  /* shard_parser_memo's map: bytes (in scratch) -> a parser-made object */
  shard_strmap memo;
  /* SHARD_OP_MHLO while the op being read is an mhlo op read as its twin:
   * its attributes get marked #mhlo afterwards, so it shares none */
  unsigned op_alias;
  /* custom op names as written -> their definitions: a module names a few
   * dozen ops a hundred thousand times, and the definition tables are
   * searched by string compares */
  shard_strmap op_def_cache;
  /* identifiers, attribute names, strings and symbols as read (bytes ->
   * their one copy in the module arena, or a literal of the seed list in
   * parse.c): every occurrence of a name gets the same pointer. Only when
   * `interning` (the module parser); the others (attribute text, read once
   * per frontend attribute, and convert.c's) copy each occurrence. */
  shard_strmap interned;
  bool interning;
  shard_arena *intern_arena; /* where interned copies go: the module's arena */
  /* op states kept for reuse (their vectors keep their capacity): one per
   * nesting level is live at a time */
  SHARD_VEC(shard_op_state *) state_pool;
  /* successor references, checked against the labels when their region ends */
  struct block_ref {
    shard_block *block;
    shard_span span;
  } * block_refs;
  uint32_t num_block_refs, cap_block_refs;
  /* streaming (shard_parse_options.top_op): armed until the first op's
   * name is known, pending until that module's body block is made, then
   * the block whose ops are streamed; `op_arena` holds one streamed op at
   * a time */
  bool stream_armed, stream_pending;
  shard_block *stream_block;
  shard_arena *op_arena;
  /* streaming inside a function body (shard_parse_options.body_ops):
   * pending until the streamed func.func's body block is made, then that
   * block, whose ops since the last hand-over are in `body_arena` and
   * defined[body_mark..) their names; `body_whole` once body_ops kept
   * them. Their SSA names outlive them: in op_arena. The piece's size is
   * looked at from the lexer offset body_next on. */
  bool body_pending, body_whole;
  shard_block *body_block;
  shard_arena *body_arena;
  uint32_t body_mark, body_next;
};

/* The lookahead token, lexed on first ask (shard_parser_peek without the
 * copy, for the parser's own hot paths). */
static inline const shard_tok *shard_parser_peek_ref(shard_parser *p) {
  if (!p->has_tok) {
    shard_lex_into(&p->lx, &p->tok);
    p->has_tok = true;
  }
  return &p->tok;
}

bool shard_parser_enter(shard_parser *p);
void shard_parser_leave(shard_parser *p);
/* The NUL-terminated string of s[0..n), one copy per distinct string
 * (see `interned`). Read-only: the copy is shared by every occurrence. */
const char *shard_parser_intern(shard_parser *p, const char *s, uint32_t n);
/* Seeds the interned strings and turns interning on. */
void shard_parser_intern_init(shard_parser *p);

#endif
