/* Recognising XLA's sdy round-trip form and importing it for the commands
 * that read modules (check, propagate, lower, viz). */
#include <string.h>

#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "xla/xla.h"
#include "xla/xla_import.h"

static bool S_has_xla_key(const shard_attr *dict) {
  if (!dict || dict->kind != SHARD_ATTR_DICT) return false;
  for (uint32_t i = 0; i < dict->u.dict.num; i++)
    if (strncmp(dict->u.dict.entries[i].name, "xla.sdy.", 8) == 0) return true;
  return false;
}

static bool S_op_in_form(shard_op *op, void *ctx) {
  bool *found = ctx;
  if (S_has_xla_key(shard_op_attr(op, SHARD_XLA_FRONTEND_ATTRS))) *found = true;
  shard_attr *t = strcmp(op->name, "stablehlo.custom_call") == 0 ? shard_op_attr(op, "call_target_name") : NULL;
  if (t && t->kind == SHARD_ATTR_STRING && strncmp(t->u.str.data, "xla.sdy.", 8) == 0) *found = true;
  if (strcmp(op->name, "func.func") == 0 && op->num_regions && op->regions[0].first) {
    shard_block *entry = op->regions[0].first;
    for (uint32_t i = 0; i < entry->num_args; i++)
      if (S_has_xla_key(shard_value_attr(&entry->args[i], SHARD_XLA_FRONTEND_ATTRS))) *found = true;
  }
  return !*found;
}

bool shard_xla_is_round_trip_form(const shard_module *m) {
  bool found = S_has_xla_key(shard_op_attr(m->top, SHARD_XLA_FRONTEND_ATTRS));
  if (!found) shard_walk(m->top, S_op_in_form, &found);
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
