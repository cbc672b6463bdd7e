/* libFuzzer target: the JSON rules files of `shard propagate --rules`
 * (rules_json.c): the JSON, each rule's notation and its factor lists.
 *
 * Input: the file, optionally followed by a line `// -----` and an MLIR
 * module. With a module, the rules are installed and every op shard does
 * not know asks for its rule, as propagation would; each rule obtained is
 * attached to its op as `sdy.sharding_rule`, and the module must then
 * still verify (a rule built from a file fits its op: Shardy's verifier
 * checks factor sizes against the op's types) and print as text that
 * parses again.
 *
 * Findings: crashes and sanitizer reports, a rejected file without an
 * error, an error outside the file, a rule that does not verify or does
 * not print parseably. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "fuzz_common.h"
#include "rules/rule_registry.h"
#include "rules/rules_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct attach_ctx {
  shard_arena *arena;
  const shard_rule_provider *rules;
  unsigned attached;
} attach_ctx;

static bool attach_rule(shard_op *op, void *ctx) {
  attach_ctx *ac = ctx;
  if (op->def || strcmp(op->name, "builtin.module") == 0) return true;
  shard_op_sharding_rule *rule = shard_rule_for_op(ac->arena, op, false, ac->rules);
  if (!rule) return true;
  shard_attr *attr = shard_attr_new(ac->arena, SHARD_ATTR_SDY_RULE);
  attr->u.rule = rule;
  shard_op_set_attr(ac->arena, op, "sdy.sharding_rule", attr, false);
  ac->attached++;
  return true;
}

/* Shows why the module with the rules attached fails, then checks. */
static void loud_diag(void *ctx, const shard_diag *d) {
  if (d->severity == SHARD_ERROR) fprintf(stderr, "error: %s\n", d->message);
  fuzz_diag(ctx, d);
}

static void check_with_module(shard_rules_file *rf, shard_source *msrc) {
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(msrc, &popts, &de);
  if (!m) return;
  shard_verify_options vopts = {.extra_warnings = false};
  bool verified = shard_verify_module(m, &vopts, &de);
  shard_rule_provider rules = shard_rules_json_provider(rf, &de);
  attach_ctx ac = {m->arena, &rules, 0};
  shard_walk(m->top, attach_rule, &ac);
  if (verified && ac.attached) {
    shard_diag_engine vde;
    shard_diag_init(&vde, loud_diag, NULL);
    if (!shard_verify_module(m, &vopts, &vde)) fuzz_fail("a rule from the file does not verify on its op");
    shard_buf out;
    shard_buf_init(&out);
    shard_print_options prt = {.generic = true};
    shard_print_module(&out, m, &prt);
    shard_source again = {"<reprint>", shard_buf_str(&out), out.len, 0};
    shard_module *m2 = shard_parse_module(&again, &popts, &vde);
    if (!m2) {
      fprintf(stderr, "%s\n", shard_buf_str(&out));
      fuzz_fail("a module with rules from the file does not parse again");
    }
    shard_module_free(m2);
    shard_buf_free(&out);
  }
  shard_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char sep[] = "\n// -----\n";
  size_t json_len = size, mod_start = size;
  for (size_t i = 0; i + sizeof sep - 1 <= size; i++)
    if (memcmp(data + i, sep, sizeof sep - 1) == 0) {
      json_len = i;
      mod_start = i + sizeof sep - 1;
      break;
    }
  char *json = shard_xmalloc(json_len + 1);
  memcpy(json, data, json_len);
  json[json_len] = '\0';
  shard_source src = {"<rules>", json, json_len, 0};
  shard_diag_engine de;
  shard_diag_init(&de, fuzz_diag, NULL);
  shard_rules_file *rf = shard_rules_json_parse(&src, &de);
  if (!rf && de.errors == 0) fuzz_fail("rules file rejected without an error");
  if (rf && de.errors) fuzz_fail("rules file accepted after an error");
  if (rf && mod_start < size) {
    char *text = shard_xmalloc(size - mod_start + 1);
    memcpy(text, data + mod_start, size - mod_start);
    text[size - mod_start] = '\0';
    shard_source msrc = {"<module>", text, size - mod_start, 0};
    check_with_module(rf, &msrc);
    free(text);
  }
  shard_rules_json_free(rf);
  free(json);
  return 0;
}
