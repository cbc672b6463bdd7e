/* `shard propagate`: sharding propagation that explains itself.
 *
 *   shard propagate model.mlir                       Shardy's pipeline, pretty MLIR
 *   shard propagate model.mlir --explain             where every new axis came from
 *   shard propagate model.mlir --mode explicit       errors where the output is a choice
 *   shard propagate model.mlir --rules my_ops.json   rules for ops of other dialects
 *
 * The input is parsed (ops of any dialect, in generic form), verified, then
 * one propagation strategy runs (its result verified with --verify-each or
 * --rules): one of Shardy's passes, or with
 * --op-priority a run of the worklist driver per user-given op group. With
 * --explain an observer records every axis the driver adds (explain.h) and
 * the explanation is printed instead of the module (the module still goes
 * to -o OUT). --mode explicit refuses to pick when an op's output sharding
 * is ambiguous and the user left it open; nothing is written then.
 *
 * Exit status: 0 propagated, 1 invalid input or an ambiguity in explicit
 * mode, 2 bad command line, 3 output could not be written. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "propagate/explain.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "pipeline/pass_registry.h"
#include "pass/pass_shardings.h"
#include "ir/print.h"
#include "propagate/propagate.h"
#include "rules/rules_json.h"
#include "verify/verify.h"
#include "xla/xla_import.h"

void cmd_propagate_usage(FILE *f);
int cmd_propagate(int argc, char **argv);

typedef enum strategy {
  STRAT_PIPELINE,
  STRAT_BASIC,
  STRAT_AGGRESSIVE,
  STRAT_OP_PRIORITY,
  STRAT_USER_PRIORITY
} strategy;
typedef enum emit { EMIT_MLIR, EMIT_GENERIC, EMIT_JSON } emit;
typedef enum explain_mode { EXPLAIN_NONE, EXPLAIN_TEXT, EXPLAIN_JSON } explain_mode;

typedef struct propagate_config {
  const char *input, *output, *rules, *op_priority;
  strategy strategy;
  bool strategy_given;
  emit emit;
  bool explicit_mode;
  explain_mode explain;
  cli_color_mode color;
  bool no_progress;
  bool verify_each; /* --verify-each: the result verified too */
} propagate_config;

void cmd_propagate_usage(FILE *f) {
  fprintf(f, "usage: shard propagate [options] [FILE | -]\n"
             "\n"
             "Propagates the sharding annotations of an MLIR module through its ops, the\n"
             "way Shardy does, and prints the result.\n"
             "\n"
             "Options:\n"
             "  -o OUT                 write the module to OUT (atomically)\n"
             "  --strategy STRATEGY    pipeline (default: Shardy's -sdy-propagation-pipeline),\n"
             "                         basic, aggressive, op-priority or user-priority (the\n"
             "                         propagation pass of that name alone)\n"
             "  --emit FORMAT          mlir (default, pretty), generic, or json (every value's\n"
             "                         final sharding)\n"
             "  --mode MODE            auto (default) or explicit: stop with an error where an\n"
             "                         op's output sharding is ambiguous instead of picking one\n"
             "  --explain[=FORMAT]     print, instead of the module, where each new axis came\n"
             "                         from, every conflict and every op that blocked\n"
             "                         propagation; FORMAT text (default) or json\n"
             "  --rules FILE           JSON sharding rules for ops the registry does not know:\n"
             "                         {\"rules\": {\"my.op\": \"([i, j])->([i, j])\"}}\n"
             "  --op-priority LIST     op-priority propagation in the user's order: comma-separated\n"
             "                         op names (a trailing '*' matches a prefix); step k lets the\n"
             "                         ops of the first k entries propagate, then all ops do\n"
             "  --color=WHEN           auto (default), always, never\n"
             "  --verify-each          verify the result too, not only the input (on by itself\n"
             "                         with --rules, whose rules the propagation cannot vouch for)\n"
             "  --no-progress          no status line on a terminal (shown on stderr while\n"
             "                         working when it is a TTY, unless TERM=dumb)\n"
             "  -h, --help             show this help\n"
             "\n"
             "Exit status: 0 propagated, 1 invalid input or an ambiguity in explicit mode,\n"
             "2 usage error, 3 output could not be written.\n");
}

static int parse_args(int argc, char **argv, propagate_config *cfg) {
  bool options_done = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v = NULL;
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (cfg->input) return cli_usage_error("propagate", "too many input files (at '%s')", arg);
      cfg->input = arg;
    } else if (strcmp(arg, "--") == 0) {
      options_done = true;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_propagate_usage(stdout);
      return CLI_EXIT_OK;
    } else if (cli_match_value(argc, argv, &i, "-o", &v)) {
      if (!v || !*v) return cli_usage_error("propagate", "'%s' needs a file name", arg);
      cfg->output = v;
    } else if (cli_match_value(argc, argv, &i, "--strategy", &v)) {
      static const char *const names[] = {"pipeline", "basic", "aggressive", "op-priority", "user-priority"};
      bool found = false;
      for (int k = 0; k < 5 && v; k++)
        if (strcmp(v, names[k]) == 0) {
          cfg->strategy = (strategy)k;
          found = true;
        }
      if (!found)
        return cli_usage_error("propagate",
                               "--strategy takes pipeline, basic, aggressive, op-priority or user-priority (got '%s')",
                               v ? v : "");
      cfg->strategy_given = true;
    } else if (cli_match_value(argc, argv, &i, "--emit", &v)) {
      if (v && strcmp(v, "mlir") == 0) cfg->emit = EMIT_MLIR;
      else if (v && strcmp(v, "generic") == 0) cfg->emit = EMIT_GENERIC;
      else if (v && strcmp(v, "json") == 0) cfg->emit = EMIT_JSON;
      else return cli_usage_error("propagate", "--emit takes mlir, generic or json (got '%s')", v ? v : "");
    } else if (cli_match_value(argc, argv, &i, "--mode", &v)) {
      if (v && strcmp(v, "auto") == 0) cfg->explicit_mode = false;
      else if (v && strcmp(v, "explicit") == 0) cfg->explicit_mode = true;
      else return cli_usage_error("propagate", "--mode takes auto or explicit (got '%s')", v ? v : "");
    } else if (strcmp(arg, "--no-progress") == 0) {
      cfg->no_progress = true;
    } else if (strcmp(arg, "--verify-each") == 0) {
      cfg->verify_each = true;
    } else if (strcmp(arg, "--explain") == 0) {
      cfg->explain = EXPLAIN_TEXT;
    } else if (strncmp(arg, "--explain=", 10) == 0) {
      if (strcmp(arg + 10, "text") == 0) cfg->explain = EXPLAIN_TEXT;
      else if (strcmp(arg + 10, "json") == 0) cfg->explain = EXPLAIN_JSON;
      else return cli_usage_error("propagate", "--explain takes text or json (got '%s')", arg + 10);
    } else if (cli_match_value(argc, argv, &i, "--rules", &v)) {
      if (!v || !*v) return cli_usage_error("propagate", "'%s' needs a file name", arg);
      cfg->rules = v;
    } else if (cli_match_value(argc, argv, &i, "--op-priority", &v)) {
      if (!v || !*v) return cli_usage_error("propagate", "'%s' needs a list of op names", arg);
      cfg->op_priority = v;
    } else if (strncmp(arg, "--color=", 8) == 0) {
      if (!cli_parse_color(arg + 8, &cfg->color))
        return cli_usage_error("propagate", "--color takes auto, always or never (got '%s')", arg + 8);
    } else {
      return cli_usage_error("propagate", "unknown option '%s'", arg);
    }
  }
  if (cfg->op_priority) {
    if (cfg->strategy_given && cfg->strategy != STRAT_OP_PRIORITY)
      return cli_usage_error("propagate", "--op-priority goes with --strategy op-priority, not '%s'",
                             cfg->strategy == STRAT_PIPELINE ? "pipeline" : "another strategy");
    cfg->strategy = STRAT_OP_PRIORITY;
  }
  if (!cfg->input) cfg->input = "-";
  return -1;
}

/* ---- a user-given op order ---------------------------------------------------------------- */

typedef struct user_order {
  char **entries;
  uint32_t num;
  uint32_t step; /* entries [0, step] may propagate */
} user_order;

static bool S_entry_matches(const char *entry, const char *name) {
  size_t n = strlen(entry);
  if (n && entry[n - 1] == '*') return strncmp(entry, name, n - 1) == 0;
  return strcmp(entry, name) == 0;
}

/* sdy ops (data-flow edges, constraints, barriers) and func results always
 * propagate: they only carry shardings along. */
static shard_direction S_user_direction(void *ctx, shard_propagation *s, const shard_op *op, int64_t factor) {
  (void)s;
  (void)factor;
  const user_order *u = ctx;
  if (strncmp(op->name, "sdy.", 4) == 0 || strcmp(op->name, "func.func") == 0) return SHARD_DIR_BOTH;
  for (uint32_t i = 0; i <= u->step && i < u->num; i++)
    if (S_entry_matches(u->entries[i], op->name)) return SHARD_DIR_BOTH;
  return SHARD_DIR_NONE;
}

static bool S_run_user_order(shard_module *m, const char *list, const shard_pass_context *cx) {
  user_order u = {0};
  char *copy = shard_xstrdup(list);
  SHARD_VEC(char *) entries = {0};
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    while (*tok == ' ') tok++;
    if (*tok) SHARD_VEC_PUSH(entries, tok);
  }
  u.entries = entries.items;
  u.num = entries.len;
  shard_propagation *s = shard_propagation_begin(m, false, cx->rules, cx->de);
  if (s) {
    shard_propagation_set_observer(s, cx->observer);
    for (u.step = 0; u.step < u.num; u.step++) shard_propagation_run(s, SHARD_FACTOR_AGGRESSIVE, S_user_direction, &u);
    shard_propagation_run(s, SHARD_FACTOR_AGGRESSIVE, NULL, NULL);
    shard_propagation_end(s, false);
  }
  SHARD_VEC_FREE(entries);
  free(copy);
  return s != NULL;
}

static bool S_run_strategy(const propagate_config *cfg, shard_module *m, const shard_pass_context *cx) {
  if (cfg->op_priority) return S_run_user_order(m, cfg->op_priority, cx);
  switch (cfg->strategy) {
  case STRAT_PIPELINE: return shard_pass_run("sdy-propagation-pipeline", m, NULL, cx);
  case STRAT_BASIC: return shard_pass_run("sdy-basic-propagate", m, NULL, cx);
  case STRAT_AGGRESSIVE: return shard_pass_run("sdy-aggressive-propagate", m, NULL, cx);
  case STRAT_OP_PRIORITY: return shard_pass_run("sdy-op-priority-propagate", m, NULL, cx);
  case STRAT_USER_PRIORITY: return shard_pass_run("sdy-user-priority-propagate", m, NULL, cx);
  }
  return false;
}

/* ---- --emit json ------------------------------------------------------------------------- */

static void S_add_value(cJSON *list, shard_module *m, const shard_value *v, const char *what, const shard_op *op) {
  const shard_tensor_sharding *s = shard_propagation_value_sharding(m->arena, v);
  cJSON *o = cJSON_CreateObject();
  char name[64];
  if (v->name) snprintf(name, sizeof name, "%%%s", v->name);
  else snprintf(name, sizeof name, "%s", what);
  cJSON_AddStringToObject(o, "value", name);
  cJSON_AddStringToObject(o, "op", op->name);
  uint32_t line, col;
  shard_span at = shard_value_span(v);
  shard_span_linecol(at.src ? at : op->span, &line, &col);
  cJSON_AddNumberToObject(o, "line", line);
  cJSON_AddNumberToObject(o, "column", col);
  cJSON_AddStringToObject(o, "type", v->type ? v->type->text : "");
  if (s) {
    shard_buf b;
    shard_buf_init(&b);
    shard_buf_puts(&b, "#sdy.sharding");
    shard_sharding_print(&b, s);
    cJSON_AddStringToObject(o, "sharding", shard_buf_str(&b));
    shard_buf_free(&b);
  } else {
    cJSON_AddNullToObject(o, "sharding");
  }
  cJSON_AddItemToArray(list, o);
}

typedef struct json_walk {
  shard_module *m;
  cJSON *values;
} json_walk;

static bool S_json_collect(shard_op *op, void *ctx) {
  json_walk *w = ctx;
  if (strcmp(op->name, "func.func") == 0) {
    shard_block *entry = op->num_regions ? op->regions[0].first : NULL;
    for (uint32_t i = 0; entry && i < entry->num_args; i++)
      S_add_value(w->values, w->m, &entry->args[i], "argument", op);
    return true;
  }
  if (strncmp(op->name, "sdy.", 4) == 0 && strcmp(op->name, "sdy.reshard") != 0 &&
      strcmp(op->name, "sdy.sharding_constraint") != 0)
    return true;
  for (uint32_t i = 0; i < op->num_results; i++) S_add_value(w->values, w->m, &op->results[i], "result", op);
  return true;
}

static char *S_emit_json(shard_module *m) {
  cJSON *doc = cJSON_CreateObject();
  cJSON *values = cJSON_AddArrayToObject(doc, "values");
  json_walk w = {m, values};
  shard_walk(m->top, S_json_collect, &w);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  return text;
}

/* ---- main ------------------------------------------------------------------------------ */

static bool S_load_rules(const char *path, shard_diag_engine *de, char **text, shard_source *src,
                         shard_rules_file **out) {
  shard_buf err;
  shard_buf_init(&err);
  size_t len = 0;
  if (!cli_read_input(path, text, &len, &err)) {
    cli_report_read_error(path, &err);
    shard_buf_free(&err);
    return false;
  }
  shard_buf_free(&err);
  src->name = path;
  src->text = *text;
  src->len = len;
  src->line_base = 0;
  *out = shard_rules_json_parse(src, de);
  return *out != NULL;
}

int cmd_propagate(int argc, char **argv) {
  propagate_config cfg = {0};
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;

  shard_diag_printer printer = {stderr, cli_use_color(cfg.color, stderr), true};
  shard_diag_engine de;
  shard_diag_init(&de, cli_progress_diag, &printer);

  char *text = NULL, *rules_text = NULL;
  size_t len = 0;
  code = cli_read_transform_input("propagate", cfg.input, cfg.output, &text, &len);
  if (code >= 0) return code;
  shard_buf err;
  shard_buf_init(&err);

  int exit_code = CLI_EXIT_INVALID;
  shard_source src = {cli_input_name(cfg.input), text, len, 0};
  shard_source rules_src = {0};
  shard_rules_file *rules = NULL;
  shard_module *m = NULL;
  shard_explain *x = NULL;
  shard_xla_input xin = {0};
  shard_buf out;
  shard_buf_init(&out);

  shard_rule_provider provider;
  shard_propagation_observer observer;
  shard_pass_context cx = {.de = &de};
  if (cfg.rules) {
    if (!S_load_rules(cfg.rules, &de, &rules_text, &rules_src, &rules)) goto done;
    provider = shard_rules_json_provider(rules, &de);
    cx.rules = &provider;
  }
  cli_progress_start("propagate", !cfg.no_progress);
  cli_progress_update("parsing %s", src.name);
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0, .read_past = cli_input_read_past};
  m = shard_xla_read_input(&src, &popts, &xin, &de);
  if (!m || de.errors) goto done;
  shard_verify_options vopts = {.extra_warnings = false};
  if (!shard_verify_module(m, &vopts, &de) || de.errors) goto done;

  if (cfg.explain != EXPLAIN_NONE || cfg.explicit_mode) {
    x = shard_explain_new(m, cx.rules);
    observer = shard_explain_observer(x);
    cx.observer = &observer;
  }
  cli_progress_update("%s", "propagating");
  bool ran = S_run_strategy(&cfg, m, &cx);
  if (!ran || de.errors) goto done;
  /* Propagation keeps valid IR valid: checking the result was a tenth of
   * the run at 100k ops and never fired. Rules from --rules are the
   * user's, so what propagating by them makes is checked. */
  if (cfg.verify_each || cfg.rules) {
    cli_progress_update("%s", "checking the result");
    if (!shard_verify_module(m, &vopts, &de) || de.errors) goto done;
  }
  cli_progress_finish();
  if (x) shard_explain_finish(x);
  if (cfg.explicit_mode && shard_explain_check_explicit(x, &de)) goto done;

  exit_code = CLI_EXIT_OK;
  bool module_to_stdout = !cfg.output || strcmp(cfg.output, "-") == 0;
  if (cfg.explain != EXPLAIN_NONE) {
    shard_buf ex;
    shard_buf_init(&ex);
    if (cfg.explain == EXPLAIN_JSON) shard_explain_render_json(x, &ex);
    else shard_explain_render_text(x, &ex);
    int wrote = cli_write_output("propagate", NULL, ex.data, ex.len);
    if (wrote != CLI_EXIT_OK) exit_code = wrote;
    shard_buf_free(&ex);
    if (module_to_stdout) goto done; /* the explanation replaces the module */
  }
  if (cfg.emit == EMIT_JSON) {
    char *json = S_emit_json(m);
    shard_buf_puts(&out, json);
    shard_buf_putc(&out, '\n');
    free(json);
  } else if (exit_code == CLI_EXIT_OK) {
    shard_print_options po = {.generic = cfg.emit == EMIT_GENERIC};
    exit_code = cli_write_module("propagate", module_to_stdout ? NULL : cfg.output, m, &po, NULL);
    goto done;
  }
  if (exit_code == CLI_EXIT_OK) {
    int wrote = cli_write_output("propagate", module_to_stdout ? NULL : cfg.output, out.data, out.len);
    if (wrote != CLI_EXIT_OK) exit_code = wrote;
  }

done:
  cli_progress_finish();
  shard_explain_free(x);
  if (m) shard_module_free(m);
  shard_xla_input_release(&xin);
  shard_rules_json_free(rules);
  shard_buf_free(&out);
  shard_buf_free(&err);
  cli_input_free(rules_text);
  cli_input_free(text);
  return exit_code;
}
