/* Recognising XLA's sdy round-trip form and importing it for the commands
 * that read modules (check, propagate, lower, viz), HLO text dumps read
 * first (hlo_text.c). */
#include <stdlib.h>
#include <string.h>

#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/hlo_text.h"
#include "xla/xla.h"
#include "xla/xla_import.h"

static bool S_has_xla_key(const shard_attr *dict) {
  if (!dict || dict->kind != SHARD_ATTR_DICT) return false;
  for (uint32_t i = 0; i < dict->u.dict.num; i++)
    if (strncmp(dict->u.dict.entries[i].name, "xla.sdy.", 8) == 0) return true;
  return false;
}

/* Asked of every op of every module a command reads, so one pass over the
 * op's attributes (sorted by name: up to the first past m*) decides what to
 * look up: the frontend attributes only when one is named mhlo.*, a custom
 * call's target only when one is named c* (call_target_name; the op name is
 * compared only then, not for every stablehlo.* op), func.func's arguments
 * only for func.func. */
static bool S_op_in_form(const shard_op *op) {
  bool has_m = false, has_c = false;
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    unsigned char c0 = (unsigned char)op->attrs[i].name[0];
    if (c0 > 'm') break; /* sorted: no c* or m* name after this one */
    has_c |= c0 == 'c';
    has_m |= c0 == 'm';
  }
  if (has_m && S_has_xla_key(shard_op_attr(op, SHARD_XLA_FRONTEND_ATTRS))) return true;
  shard_attr *t = has_c && op->name[0] == 's' && strcmp(op->name, "stablehlo.custom_call") == 0
                      ? shard_op_attr(op, "call_target_name")
                      : NULL;
  if (t && t->kind == SHARD_ATTR_STRING && strncmp(t->u.str.data, "xla.sdy.", 8) == 0) return true;
  if (op->name[0] == 'f' && strcmp(op->name, "func.func") == 0 && op->num_regions && op->regions[0].first) {
    shard_block *entry = op->regions[0].first;
    for (uint32_t i = 0; i < entry->num_args; i++)
      if (S_has_xla_key(shard_value_attr(&entry->args[i], SHARD_XLA_FRONTEND_ATTRS))) return true;
  }
  return false;
}

/* The first op of op's regions, or NULL. */
static const shard_op *S_first_child(const shard_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const shard_block *b = op->regions[r].first; b; b = b->next)
      if (b->first) return b->first;
  return NULL;
}

/* Whether an op under root (root included) is in the form: a pre-order walk
 * like shard_walk's, without its callback per op, stopping at the first. */
bool shard_xla_op_in_round_trip_form(const shard_op *root) {
  const shard_op *op = root;
  for (;;) {
    if (S_op_in_form(op)) return true;
    const shard_op *next = S_first_child(op);
    while (!next) { /* the next op after op's subtree, climbing out of ops done */
      if (op == root) return false;
      if (op->next) {
        next = op->next;
        break;
      }
      const shard_block *b = op->parent;
      for (const shard_block *nb = b->next; nb && !next; nb = nb->next) next = nb->first;
      const shard_op *owner = b->parent->parent;
      for (uint32_t r = (uint32_t)(b->parent - owner->regions) + 1; r < owner->num_regions && !next; r++)
        for (const shard_block *nb = owner->regions[r].first; nb && !next; nb = nb->next) next = nb->first;
      op = owner;
    }
    op = next;
  }
}

bool shard_xla_input_is_mlir(const char *text, size_t len) { return !shard_hlo_text_detect(text, len); }

bool shard_xla_is_round_trip_form(const shard_module *m) {
  bool found = S_has_xla_key(shard_op_attr(m->top, SHARD_XLA_FRONTEND_ATTRS));
  if (!found) found = shard_xla_op_in_round_trip_form(m->top);
  return found;
}

bool shard_xla_import_if_round_trip(shard_module *m, shard_diag_engine *de) {
  if (!shard_xla_is_round_trip_form(m)) return true;
  shard_note(de, shard_no_span,
             "%s is in XLA's sdy round-trip form (xla.sdy.* frontend attributes): "
             "imported first, as by shard opt -xla-sdy-round-trip-import-pipeline",
             m->src && m->src->name ? m->src->name : "the module");
  unsigned before = de->errors;
  return shard_pass_run("xla-sdy-round-trip-import-pipeline", m, NULL, SHARD_PASS_CONTEXT(de)) && de->errors == before;
}

shard_module *shard_xla_read_input(shard_source *src, const shard_parse_options *popts, shard_xla_input *keep,
                                   shard_diag_engine *de) {
  memset(keep, 0, sizeof *keep);
  if (!shard_hlo_text_detect(src->text, src->len)) {
    unsigned before = de->errors;
    shard_module *m = shard_parse_module(src, popts, de);
    if (m && (de->errors != before || !shard_xla_import_if_round_trip(m, de))) {
      shard_module_free(m);
      m = NULL;
    }
    return m;
  }
  shard_module *m = shard_hlo_text_read(src, popts, &keep->gen, de);
  if (!m) return NULL;
  const char *name = src->name ? src->name : "the input";
  if (!shard_xla_is_round_trip_form(m)) {
    shard_note(de, shard_no_span, "%s is an HLO text dump: read as StableHLO, as by XLA's HLO importer", name);
    return m;
  }
  shard_note(de, shard_no_span,
             "%s is an HLO text dump in XLA's sdy round-trip form (xla.sdy.* frontend attributes): read as "
             "StableHLO and imported first, as by shard opt -xla-sdy-round-trip-import-pipeline",
             name);
  unsigned before = de->errors;
  if (!shard_pass_run("xla-sdy-round-trip-import-pipeline", m, NULL, SHARD_PASS_CONTEXT(de)) || de->errors != before) {
    shard_module_free(m);
    return NULL;
  }
  return m;
}

bool shard_xla_is_hlo_round_trip_text(const char *text, size_t len) {
  if (!shard_hlo_text_detect(text, len)) return false;
  for (size_t i = 0; i + 8 <= len; i++)
    if (text[i] == 'x' && memcmp(text + i, "xla.sdy.", 8) == 0) return true;
  return false;
}

void shard_xla_input_release(shard_xla_input *keep) {
  free((char *)keep->gen.text);
  free((char *)keep->gen.name);
  memset(keep, 0, sizeof *keep);
}
