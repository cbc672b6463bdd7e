/* -sdy-populate-op-sharding-rules: attaches `sdy.sharding_rule` to every op
 * that has a rule in the registry and none yet (an existing rule, written by
 * a user or an earlier pass, is left alone). Option:
 * conservative-propagation=true builds the conservative rules.
 *
 * Ops are visited in post-order (an op after the ops nested in it), as
 * MLIR's walk does. Like Shardy, the pass warns once about an op the
 * registry does not know and once about an unknown custom call target; those
 * ops get no rule. */
#include <string.h>

#include "pass/pass.h"
#include "rules/rule_registry.h"

typedef struct populate_ctx {
  shard_arena *arena;
  shard_diag_engine *de;
  bool conservative;
  const shard_rule_provider *extra_rules;
  bool warned_op, warned_custom_call;
} populate_ctx;

static void visit(populate_ctx *c, shard_op *op) {
  if (shard_op_attr(op, "sdy.sharding_rule")) return;
  shard_op_sharding_rule *r = shard_rule_create(c->arena, op, c->conservative, c->extra_rules);
  if (r) {
    shard_attr *a = shard_attr_new(c->arena, SHARD_ATTR_SDY_RULE);
    a->u.rule = r;
    shard_op_set_attr(c->arena, op, "sdy.sharding_rule", a, false);
    return;
  }
  shard_buf msg;
  shard_buf_init(&msg);
  if (shard_rule_unknown_message(op, &msg)) {
    bool *warned = strcmp(op->name, "stablehlo.custom_call") == 0 ? &c->warned_custom_call : &c->warned_op;
    if (!*warned) shard_warning(c->de, op->span, "%s", shard_buf_str(&msg));
    *warned = true;
  }
  shard_buf_free(&msg);
}

static void walk_post_order(populate_ctx *c, shard_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (shard_op *o = b->first; o; o = o->next) walk_post_order(c, o);
  visit(c, op);
}

bool shard_pass_populate_op_sharding_rules(shard_module *m, const char *options, const shard_pass_context *cx) {
  shard_diag_engine *de = cx->de;
  populate_ctx c = {.arena = m->arena, .de = de, .extra_rules = cx->rules};
  shard_pass_option_bool(options, "conservative-propagation", &c.conservative);
  if (m->top) walk_post_order(&c, m->top);
  return true;
}
