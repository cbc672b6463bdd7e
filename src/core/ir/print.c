/* The printer. Output follows mlir-opt/sdy_opt:
 *  - SSA names are assigned the way MLIR's SSANameState does: a region's
 *    block arguments and op results are numbered first (entry block args
 *    %argN, other values %N, name hints such as %cst uniqued with _N), then
 *    each nested region continues from the counters at the end of its
 *    parent region; sibling regions start from the same counters.
 *  - Known ops use their custom syntax; ops directly in a func.func body drop
 *    the "func." prefix (the default dialect); unknown ops print generically,
 *    and so do StableHLO's test dialects (check.*, interpreter.*) unless
 *    asked for stablehlo-opt's custom syntax (test_dialects).
 *  - Attribute dictionaries are printed sorted; loc(...) only with debug info. */
#include "ir/print.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "ir/op_table.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

typedef struct value_name {
  const char *name; /* "arg0", "cst_1", or NULL for a number */
  uint32_t number;
} value_name;

/* The counters a region's numbering starts from and ends with. */
typedef struct name_counters {
  uint32_t value, arg, conflict;
} name_counters;

/* A region to number, the counters it starts from and how many used names
 * it inherits. */
typedef struct name_ctx {
  const shard_region *region;
  name_counters counters;
  uint32_t used_mark;
} name_ctx;

typedef SHARD_VEC(name_ctx) name_stack;

/* The shardings whose text the printer keeps, by pointer hash, and the
 * longest text kept: an op's out_sharding is often the very sharding the
 * ops before it printed (a lowered module's collectives: nine in ten). */
#define SHARD_PRINT_SHARDING_SLOTS 256
#define SHARD_PRINT_SHARDING_TEXT 112

typedef struct sharding_text {
  const shard_tensor_sharding *sharding;
  uint32_t len;
  char text[SHARD_PRINT_SHARDING_TEXT];
} sharding_text;

struct shard_printer {
  shard_buf *out;
  const shard_print_options *opts;
  unsigned indent;
  const char *default_dialect; /* "func" inside a func.func body */
  /* Names, in numbering order. A value is found without hashing it: an op's
   * results are consecutive from results_at[its dense id], a block's
   * arguments from the index its (few) blocks map to. */
  SHARD_VEC(value_name) names;
  shard_op_table ops; /* ops with results */
  SHARD_VEC(uint32_t) results_at; /* by op id: index in names of results[0] */
  shard_ptrmap blocks; /* block -> 1 + index in names of args[0] */
  /* blocks looked up lately, by a hash of the block: an operand is mostly an
   * argument of one of the few blocks around it */
  struct {
    const shard_block *block;
    uint32_t at;
  } recent[64];
  /* used names, as a stack so sibling regions can forget each other's, and
   * as a set (name -> how many times on the stack) to ask in O(1) */
  SHARD_VEC(const char *) used;
  shard_strmap used_set;
  shard_arena *scratch;
  /* the region whose ops' regions are numbered as each op is printed, and
   * the counters and used names they start from */
  const shard_region *deferred;
  name_counters deferred_counters;
  uint32_t deferred_mark;
  /* regions still to number */
  name_stack stack;
  sharding_text *shardings; /* SHARD_PRINT_SHARDING_SLOTS, from scratch once one is printed */
};

/* ---- value names ----------------------------------------------------------- */

/* The name given to `v`, NULL when it has none. */
static value_name *S_name_of(shard_printer *pr, const shard_value *v) {
  uint32_t at;
  if (v->def) {
    uint32_t id;
    if (!shard_op_table_find(&pr->ops, v->def, &id) || v != &v->def->results[v->index]) return NULL;
    at = pr->results_at.items[id];
  } else {
    const shard_block *b = v->block;
    if (!b || v != &b->args[v->index]) return NULL;
    size_t slot = ((uintptr_t)b >> 4 ^ (uintptr_t)b >> 10) & 63;
    if (pr->recent[slot].block != b) {
      uint64_t i = shard_ptrmap_get(&pr->blocks, b);
      if (!i) return NULL;
      pr->recent[slot].block = b;
      pr->recent[slot].at = (uint32_t)(i - 1);
    }
    at = pr->recent[slot].at;
  }
  return &pr->names.items[at + v->index];
}

/* Room in names for the values `count` values from now, their index. */
static uint32_t S_add_names(shard_printer *pr, uint32_t count) {
  uint32_t at = pr->names.len;
  for (uint32_t i = 0; i < count; i++) {
    value_name fresh = {0};
    SHARD_VEC_PUSH(pr->names, fresh);
  }
  return at;
}

static bool S_name_used(shard_printer *pr, const char *name) {
  return shard_strmap_get_cstr(&pr->used_set, name) != NULL;
}

static void S_use_name(shard_printer *pr, const char *name) {
  SHARD_VEC_PUSH(pr->used, name);
  void **n = shard_strmap_slot(&pr->used_set, name, strlen(name));
  *n = (void *)((uintptr_t)*n + 1);
}

/* Forgets the names used after the first `mark`. */
static void S_forget_names(shard_printer *pr, uint32_t mark) {
  while (pr->used.len > mark) {
    const char *name = pr->used.items[--pr->used.len];
    void **n = shard_strmap_slot(&pr->used_set, name, strlen(name));
    *n = (void *)((uintptr_t)*n - 1);
  }
}

static const char *S_unique(shard_printer *pr, name_counters *c, const char *hint) {
  const char *name = hint;
  if (S_name_used(pr, name)) {
    for (;;) {
      size_t hl = strlen(hint);
      char *n = shard_arena_alloc(pr->scratch, hl + 22);
      memcpy(n, hint, hl);
      n[hl] = '_';
      n[hl + 1 + shard_fmt_u64(n + hl + 1, c->conflict++)] = '\0';
      name = n;
      if (!S_name_used(pr, name)) break;
    }
  }
  S_use_name(pr, name);
  return name;
}

/* Numbers the values of r and pushes its ops' regions onto `kids` (their
 * counters are filled in by the caller, once r's are known): one walk over
 * the ops, not one to number and one to find the nested regions. */
static void S_number_region(shard_printer *pr, const shard_region *r, name_counters *c, name_stack *kids) {
  const shard_op *owner = r->parent;
  const char *arg_hint = NULL;
  if (!pr->opts->generic && owner && owner->def && owner->def->block_arg_name)
    arg_hint = owner->def->block_arg_name(owner, (uint32_t)(r - owner->regions));
  for (const shard_block *b = r->first; b; b = b->next) {
    bool entry = b == r->first;
    if (b->num_args) {
      uint32_t at = S_add_names(pr, b->num_args);
      shard_ptrmap_put(&pr->blocks, b, (uint64_t)at + 1);
      value_name *names = &pr->names.items[at];
      for (uint32_t i = 0; i < b->num_args; i++) {
        if (arg_hint && entry) {
          names[i].name = S_unique(pr, c, arg_hint);
        } else if (entry) {
          char n[24] = "arg";
          size_t len = 3 + shard_fmt_u64(n + 3, c->arg++);
          names[i].name = S_unique(pr, c, shard_arena_strndup(pr->scratch, n, len));
        } else {
          names[i].number = c->value++;
        }
      }
    }
    for (const shard_op *op = b->first; op; op = op->next) {
      for (uint32_t i = 0; kids && i < op->num_regions; i++) {
        name_ctx child = {&op->regions[i], {0, 0, 0}, 0};
        SHARD_VEC_PUSH(*kids, child);
      }
      if (!op->num_results) continue;
      uint32_t id = shard_op_table_add(&pr->ops, op);
      uint32_t at = S_add_names(pr, op->num_results);
      while (pr->results_at.len <= id) SHARD_VEC_PUSH(pr->results_at, 0);
      pr->results_at.items[id] = at;
      value_name *names = &pr->names.items[at];
      if (!pr->opts->generic && op->def && op->def->result_names && op->num_results > 1) {
        for (uint32_t i = 0; i < op->num_results; i++) names[i].name = S_unique(pr, c, op->def->result_names(op, i));
        continue;
      }
      const char *hint = NULL;
      if (!pr->opts->generic && op->def && op->def->result_name && op->num_results == 1)
        hint = op->def->result_name(op);
      if (hint) names[0].name = S_unique(pr, c, hint);
      else names[0].number = c->value++;
    }
  }
}

/* Numbers the regions on the stack and everything nested in them, depth
 * first, each nested region starting from the counters at the end of its
 * parent region. Iterative over an explicit stack. */
static void S_number_stack(shard_printer *pr, name_stack *stack) {
  while (stack->len) {
    name_ctx ctx = stack->items[--stack->len];
    S_forget_names(pr, ctx.used_mark);
    size_t first_child = stack->len;
    S_number_region(pr, ctx.region, &ctx.counters, stack);
    uint32_t mark = pr->used.len;
    for (size_t i = first_child; i < stack->len; i++) {
      stack->items[i].counters = ctx.counters;
      stack->items[i].used_mark = mark;
    }
    /* children in reverse so they are numbered in source order */
    for (size_t lo = first_child, hi = stack->len; hi > lo + 1; lo++, hi--) {
      name_ctx tmp = stack->items[lo];
      stack->items[lo] = stack->items[hi - 1];
      stack->items[hi - 1] = tmp;
    }
  }
}

/* Numbers the regions of `op`, each from `counters` and the used names
 * up to `mark`, and all that is nested in them. */
static void S_number_regions_of(shard_printer *pr, const shard_op *op, name_counters counters, uint32_t mark) {
  for (uint32_t i = op->num_regions; i-- > 0;) {
    name_ctx ctx = {&op->regions[i], counters, mark};
    SHARD_VEC_PUSH(pr->stack, ctx);
  }
  S_number_stack(pr, &pr->stack);
}

/* Numbers the root's values. With one region (a module), only that region
 * is numbered now: each op in it (a function) is numbered when it is about
 * to be printed (S_number_deferred), so the ops are walked twice while they
 * are in the cache rather than once for all the module and again. Names do
 * not change: sibling regions start from the same counters and the same
 * used names whenever they are numbered. */
static void S_number_all(shard_printer *pr, const shard_op *root) {
  if (root->num_regions == 1) {
    name_counters c = {0, 0, 0};
    S_number_region(pr, &root->regions[0], &c, NULL);
    pr->deferred = &root->regions[0];
    pr->deferred_counters = c;
    pr->deferred_mark = pr->used.len;
    return;
  }
  S_number_regions_of(pr, root, (name_counters){0, 0, 0}, 0);
}

/* Numbers op's regions if their numbering was deferred (a module's ops). */
static void S_number_deferred(shard_printer *pr, const shard_op *op) {
  if (op->num_regions && pr->deferred && op->parent && op->parent->parent == pr->deferred)
    S_number_regions_of(pr, op, pr->deferred_counters, pr->deferred_mark);
}

/* ---- the printer API --------------------------------------------------------- */

shard_buf *shard_printer_buf(shard_printer *pr) { return pr->out; }
void shard_printer_putn(shard_printer *pr, const char *s, size_t n) { shard_buf_putn(pr->out, s, n); }

void shard_printer_printf(shard_printer *pr, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shard_buf_vprintf(pr->out, fmt, ap);
  va_end(ap);
}

/* Results of a multi-result op named one by one print as %a, %b, not %N#i. */
static bool S_individually_named(const shard_printer *pr, const shard_op *op) {
  return !pr->opts->generic && op->def && op->def->result_names != NULL;
}

/* %name or %N, without printf: the printer writes one for every operand
 * and result. */
static void S_put_name(shard_buf *out, const value_name *s) {
  shard_buf_putc(out, '%');
  if (s->name) shard_buf_puts(out, s->name);
  else shard_buf_put_i64(out, s->number);
}

void shard_printer_value(shard_printer *pr, const shard_value *v) {
  if (!v) {
    shard_buf_puts(pr->out, "<<NULL VALUE>>");
    return;
  }
  const shard_value *key = v;
  uint32_t result_no = 0;
  bool grouped = v->def && v->def->num_results > 1 && !S_individually_named(pr, v->def);
  if (grouped) {
    key = &v->def->results[0];
    result_no = v->index;
  }
  value_name *s = S_name_of(pr, key);
  if (!s) {
    shard_buf_puts(pr->out, "<<UNKNOWN SSA VALUE>>");
    return;
  }
  S_put_name(pr->out, s);
  if (grouped) {
    shard_buf_putc(pr->out, '#');
    shard_buf_put_i64(pr->out, result_no);
  }
}

void shard_printer_operands(shard_printer *pr, const shard_op *op, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to && i < op->num_operands; i++) {
    if (i > from) shard_buf_puts(pr->out, ", ");
    shard_printer_value(pr, op->operands[i].value);
  }
}

void shard_printer_type(shard_printer *pr, const shard_type *t) {
  shard_buf_puts(pr->out, t ? t->text : "<<NULL TYPE>>");
}

void shard_printer_operand_types(shard_printer *pr, const shard_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (i) shard_buf_puts(pr->out, ", ");
    shard_printer_type(pr, op->operands[i].value->type);
  }
}

void shard_printer_return_form(shard_printer *pr, const shard_op *op) {
  shard_printer_attr_dict(pr, op, NULL);
  if (!op->num_operands) return;
  shard_buf_putc(pr->out, ' ');
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_buf_puts(pr->out, " : ");
  shard_printer_operand_types(pr, op);
}

void shard_printer_attr(shard_printer *pr, const shard_attr *a) { shard_attr_print(pr->out, a); }

void shard_printer_sharding(shard_printer *pr, const shard_tensor_sharding *s) {
  if (!pr->shardings)
    pr->shardings = SHARD_NEW_ARRAY(pr->scratch, sharding_text, SHARD_PRINT_SHARDING_SLOTS); /* zeroed */
  sharding_text *slot = &pr->shardings[shard_ptrmap_hash(s) & (SHARD_PRINT_SHARDING_SLOTS - 1)];
  if (slot->sharding == s) {
    shard_buf_putn(pr->out, slot->text, slot->len);
    return;
  }
  /* the module being printed does not change, nor does a sharding's text */
  size_t at = pr->out->len;
  shard_sharding_print(pr->out, s);
  size_t len = pr->out->len - at;
  if (len > SHARD_PRINT_SHARDING_TEXT) return;
  slot->sharding = s;
  slot->len = (uint32_t)len;
  memcpy(slot->text, pr->out->data + at, len);
}

static bool S_elided(const char *name, const char *const *elided) {
  if (!elided) return false;
  for (const char *const *e = elided; *e; e++)
    if (strcmp(*e, name) == 0) return true;
  return false;
}

/* "name = value" (or "name" for a unit): a one-entry dictionary printed in
 * place, then its braces taken off, so the attribute printer alone decides
 * how a name is spelled. */
static void S_put_named(shard_buf *out, const shard_named_attr *e) {
  shard_attr one = {.kind = SHARD_ATTR_DICT, .u.dict = {(shard_named_attr *)e, 1}};
  size_t at = out->len;
  shard_attr_print(out, &one);
  memmove(out->data + at, out->data + at + 1, out->len - at - 2);
  out->len -= 2;
  out->data[out->len] = '\0';
}

static void S_attr_dict(shard_printer *pr, const shard_op *op, const char *const *elided, bool all,
                        shard_printer_attr_skip_fn skip) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    const shard_named_attr *e = &op->attrs[i];
    if ((!all && e->inherent) || S_elided(e->name, elided) || (skip && skip(e))) continue;
    shard_buf_puts(pr->out, n++ ? ", " : " {");
    S_put_named(pr->out, e);
  }
  if (n) shard_buf_putc(pr->out, '}');
}

void shard_printer_attr_dict(shard_printer *pr, const shard_op *op, const char *const *elided) {
  S_attr_dict(pr, op, elided, false, NULL);
}

void shard_printer_attr_dict_all(shard_printer *pr, const shard_op *op, const char *const *elided) {
  S_attr_dict(pr, op, elided, true, NULL);
}

void shard_printer_attr_dict_all_except(shard_printer *pr, const shard_op *op, const char *const *elided,
                                        shard_printer_attr_skip_fn skip) {
  S_attr_dict(pr, op, elided, true, skip);
}

void shard_printer_same_or_functional_type(shard_printer *pr, const shard_op *op) {
  const shard_type *t = op->num_results ? op->results[0].type : NULL;
  bool same = op->num_results == 1;
  for (uint32_t i = 0; same && i < op->num_operands; i++)
    if (!shard_type_equal(op->operands[i].value->type, t)) same = false;
  if (same) {
    shard_printer_type(pr, t);
    return;
  }
  shard_printer_functional_type(pr, op);
}

void shard_printer_functional_type(shard_printer *pr, const shard_op *op) {
  shard_buf_putc(pr->out, '(');
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (i) shard_buf_puts(pr->out, ", ");
    shard_printer_type(pr, op->operands[i].value->type);
  }
  shard_buf_puts(pr->out, ") -> ");
  bool paren = op->num_results != 1 || op->results[0].type->kind == SHARD_TYPE_FUNCTION;
  if (paren) shard_buf_putc(pr->out, '(');
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (i) shard_buf_puts(pr->out, ", ");
    shard_printer_type(pr, op->results[i].type);
  }
  if (paren) shard_buf_putc(pr->out, ')');
}

void shard_printer_newline(shard_printer *pr) {
  shard_buf *out = pr->out;
  size_t n = 1 + 2 * (size_t)pr->indent;
  shard_buf_reserve(out, n);
  out->data[out->len] = '\n';
  memset(out->data + out->len + 1, ' ', n - 1);
  out->len += n;
  out->data[out->len] = '\0';
}

static void S_print_loc(shard_printer *pr, const shard_attr *loc) {
  if (pr->opts->debug_info && loc) {
    shard_buf_putc(pr->out, ' ');
    shard_attr_print(pr->out, loc);
  }
}

void shard_printer_arg_decls(shard_printer *pr, const shard_block *b, bool with_attrs) {
  shard_buf_putc(pr->out, '(');
  for (uint32_t i = 0; b && i < b->num_args; i++) {
    if (i) shard_buf_puts(pr->out, ", ");
    shard_printer_value(pr, &b->args[i]);
    shard_buf_puts(pr->out, ": ");
    shard_printer_type(pr, b->args[i].type);
    if (with_attrs && b->arg_info[i].num_attrs) {
      shard_attr d = {.kind = SHARD_ATTR_DICT, .u.dict = {b->arg_info[i].attrs, b->arg_info[i].num_attrs}};
      shard_buf_putc(pr->out, ' ');
      shard_attr_print(pr->out, &d);
    }
    S_print_loc(pr, b->arg_info[i].loc);
  }
  shard_buf_putc(pr->out, ')');
}

static void S_print_op(shard_printer *pr, const shard_op *op);

static void S_block_label(shard_printer *pr, const shard_block *b) {
  /* blocks are numbered ^bbN in region order */
  uint32_t n = 0;
  for (const shard_block *x = b->parent->first; x && x != b; x = x->next) n++;
  shard_buf_puts(pr->out, "^bb");
  shard_buf_put_i64(pr->out, n);
}

static void S_print_blocks(shard_printer *pr, const shard_region *r, bool print_entry_args) {
  for (const shard_block *b = r->first; b; b = b->next) {
    bool header = b != r->first || (print_entry_args && b->num_args);
    if (header) {
      /* the label is outdented by one level */
      pr->indent--;
      shard_printer_newline(pr);
      pr->indent++;
      S_block_label(pr, b);
      if (b->num_args) shard_printer_arg_decls(pr, b, false);
      shard_buf_putc(pr->out, ':');
    }
    for (const shard_op *op = b->first; op; op = op->next) {
      shard_printer_newline(pr);
      S_print_op(pr, op);
      shard_buf_drain(pr->out); /* between ops nothing holds an offset into it */
    }
  }
}

void shard_printer_region(shard_printer *pr, const shard_region *r, bool print_entry_args, bool print_empty_block) {
  (void)print_empty_block;
  const char *saved = pr->default_dialect;
  pr->default_dialect = r->parent && strcmp(r->parent->name, "func.func") == 0 ? "func" : NULL;
  shard_buf_puts(pr->out, " {");
  pr->indent++;
  S_print_blocks(pr, r, print_entry_args);
  pr->indent--;
  shard_printer_newline(pr);
  shard_buf_putc(pr->out, '}');
  pr->default_dialect = saved;
}

/* func.func's argument attributes are on its block arguments; in generic
 * form they become the `arg_attrs` property. */
static shard_attr *S_func_arg_attrs(shard_printer *pr, const shard_op *op) {
  if (strcmp(op->name, "func.func") != 0 || !op->num_regions || !op->regions[0].first) return NULL;
  const shard_block *b = op->regions[0].first;
  bool any = false;
  for (uint32_t i = 0; i < b->num_args; i++)
    if (b->arg_info[i].num_attrs) any = true;
  if (!any) return NULL;
  shard_attr *arr = shard_attr_new(pr->scratch, SHARD_ATTR_ARRAY);
  arr->u.array.num = b->num_args;
  arr->u.array.elems = SHARD_NEW_ARRAY(pr->scratch, shard_attr *, b->num_args);
  for (uint32_t i = 0; i < b->num_args; i++) {
    shard_attr *d = shard_attr_new(pr->scratch, SHARD_ATTR_DICT);
    d->u.dict.entries = b->arg_info[i].attrs;
    d->u.dict.num = b->arg_info[i].num_attrs;
    arr->u.array.elems[i] = d;
  }
  return arr;
}

static void S_print_named_list(shard_printer *pr, const shard_named_attr *list, uint32_t n, bool props_only, bool all,
                               const char *open, const char *close, const shard_attr *extra) {
  uint32_t count = 0;
  bool extra_done = extra == NULL;
  for (uint32_t i = 0; i <= n; i++) {
    /* merge the synthesized arg_attrs in sorted position */
    if (!extra_done && (i == n || strcmp("arg_attrs", list[i].name) < 0)) {
      shard_buf_puts(pr->out, count++ ? ", " : open);
      shard_buf_puts(pr->out, "arg_attrs = ");
      shard_attr_print(pr->out, extra);
      extra_done = true;
    }
    if (i == n) break;
    if (!all && list[i].inherent != props_only) continue;
    shard_buf_puts(pr->out, count++ ? ", " : open);
    S_put_named(pr->out, &list[i]);
  }
  if (count) shard_buf_puts(pr->out, close);
}

/* " ({...}, {...})": regions in generic form, entry block headers included. */
static void S_print_generic_regions(shard_printer *pr, const shard_op *op) {
  if (!op->num_regions) {
    /* a function declaration: MLIR's func.func always has its region, empty
     * here, and mlir-opt rejects the generic form without it */
    if (strcmp(op->name, "func.func") == 0) {
      shard_buf_puts(pr->out, " ({");
      shard_printer_newline(pr);
      shard_buf_puts(pr->out, "})");
    }
    return;
  }
  shard_buf_puts(pr->out, " (");
  for (uint32_t i = 0; i < op->num_regions; i++) {
    if (i) shard_buf_puts(pr->out, ", ");
    const char *saved = pr->default_dialect;
    pr->default_dialect = NULL;
    shard_buf_putc(pr->out, '{');
    pr->indent++;
    S_print_blocks(pr, &op->regions[i], true);
    pr->indent--;
    shard_printer_newline(pr);
    shard_buf_putc(pr->out, '}');
    pr->default_dialect = saved;
  }
  shard_buf_putc(pr->out, ')');
}

void shard_printer_generic_op(shard_printer *pr, const shard_op *op) {
  /* the name is a string literal: quotes, backslashes and bytes outside
   * printable ASCII are escaped, as MLIR's printEscapedString does */
  if (*shard_op_written_prefix(op)) { /* an mhlo twin's name: plain ASCII */
    shard_buf_putc(pr->out, '"');
    shard_buf_puts(pr->out, shard_op_written_prefix(op));
    shard_buf_puts(pr->out, shard_op_written_rest(op));
    shard_buf_putc(pr->out, '"');
  } else {
    shard_buf_put_escaped(pr->out, op->name, strlen(op->name));
  }
  shard_buf_puts(pr->out, "(");
  shard_printer_operands(pr, op, 0, op->num_operands);
  shard_buf_putc(pr->out, ')');
  if (op->num_successors) {
    shard_buf_putc(pr->out, '[');
    for (uint32_t i = 0; i < op->num_successors; i++) {
      if (i) shard_buf_puts(pr->out, ", ");
      S_block_label(pr, op->successors[i]);
    }
    shard_buf_putc(pr->out, ']');
  }
  shard_attr *arg_attrs = S_func_arg_attrs(pr, op);
  /* In custom-syntax output an op without custom syntax prints like sdy_opt
   * prints it (properties in <{...}>); a whole generic print defaults to the
   * MLIR 16 spelling (all attributes in the dictionary), which loses nothing
   * for a known op, whose definition says which attributes are inherent.
   * An unknown op's properties are known only by where they were written,
   * so they stay in <{...}> (MLIR >= 17, as mlir-opt prints an unregistered
   * op's properties), else they would come back as discardable attributes. */
  bool props = pr->opts->properties_syntax || !pr->opts->generic || !op->def;
  if (!props) {
    S_print_generic_regions(pr, op);
    S_print_named_list(pr, op->attrs, op->num_attrs, false, true, " {", "}", arg_attrs);
  } else {
    S_print_named_list(pr, op->attrs, op->num_attrs, true, false, " <{", "}>", arg_attrs);
    S_print_generic_regions(pr, op);
    S_print_named_list(pr, op->attrs, op->num_attrs, false, false, " {", "}", NULL);
  }
  shard_buf_puts(pr->out, " : ");
  shard_printer_functional_type(pr, op);
}

static void S_print_results(shard_printer *pr, const shard_op *op) {
  if (!op->num_results) return;
  if (op->num_results > 1 && S_individually_named(pr, op)) {
    for (uint32_t i = 0; i < op->num_results; i++) {
      if (i) shard_buf_puts(pr->out, ", ");
      shard_printer_value(pr, &op->results[i]);
    }
    shard_buf_puts(pr->out, " = ");
    return;
  }
  const shard_value *v = &op->results[0];
  value_name *s = S_name_of(pr, v);
  if (!s) shard_buf_puts(pr->out, "<<UNKNOWN SSA VALUE>>");
  else S_put_name(pr->out, s);
  if (op->num_results > 1) {
    shard_buf_putc(pr->out, ':');
    shard_buf_put_i64(pr->out, op->num_results);
  }
  shard_buf_puts(pr->out, " = ");
}

static void S_print_op(shard_printer *pr, const shard_op *op) {
  S_number_deferred(pr, op);
  S_print_results(pr, op);
  bool custom = !pr->opts->generic && op->def && op->def->print && !shard_op_prints_generic(op) &&
                (pr->opts->test_dialects || !shard_op_def_is_test_dialect(op->def));
  if (!custom) {
    shard_printer_generic_op(pr, op);
  } else {
    const char *name = op->name;
    size_t dl = pr->default_dialect ? strlen(pr->default_dialect) : 0;
    if (strcmp(name, "builtin.module") == 0) name = "module";
    else if (dl && strncmp(name, pr->default_dialect, dl) == 0 && name[dl] == '.') name += dl + 1;
    shard_buf_puts(pr->out, shard_op_written_prefix(op));
    shard_buf_puts(pr->out, name == op->name ? shard_op_written_rest(op) : name);
    op->def->print(pr, op);
  }
  S_print_loc(pr, op->loc);
}

void shard_print_module(shard_buf *b, const shard_module *m, const shard_print_options *opts) {
  shard_print_options defaults = {0};
  shard_printer pr = {0};
  pr.out = b;
  pr.opts = opts ? opts : &defaults;
  pr.scratch = shard_arena_new();
  /* about as much text as was read: one allocation instead of a doubling
   * series (room that stays unused is never touched); a streaming buffer
   * needs its window only */
  if (m->src && !b->sink) shard_buf_reserve(b, m->src->len + m->src->len / 4);
  shard_op_table_init(&pr.ops);
  /* the module op itself is the root of numbering */
  S_number_all(&pr, m->top);
  if (pr.opts->debug_info)
    for (uint32_t i = 0; i < m->num_attr_aliases; i++) {
      shard_buf_printf(b, "#%s = ", m->attr_aliases[i].name);
      shard_attr_print(b, m->attr_aliases[i].value);
      shard_buf_putc(b, '\n');
    }
  S_print_op(&pr, m->top);
  shard_buf_putc(b, '\n');
  shard_op_table_release(&pr.ops);
  SHARD_VEC_FREE(pr.results_at);
  shard_ptrmap_release(&pr.blocks);
  shard_strmap_release(&pr.used_set);
  SHARD_VEC_FREE(pr.names);
  SHARD_VEC_FREE(pr.used);
  SHARD_VEC_FREE(pr.stack);
  shard_arena_free(pr.scratch);
}
