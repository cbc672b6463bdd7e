/* Shared pieces of the pipeline harnesses (fuzz_propagate, fuzz_export,
 * fuzz_lower_verify, fuzz_explain, fuzz_interp, fuzz_module_convert): read
 * and verify a module, the print -> parse -> print fixed-point oracle, and
 * the budgets that keep execution small.
 *
 * A pipeline harness aborts (a finding) when, besides fuzz_common.h's
 * cases: a pass or pipeline fails without an error diagnostic; a module that
 * verified (as read, or after a pipeline said it succeeded) prints, pretty
 * or generic, as text that does not read back, does not verify again, or
 * prints differently the second time (print -> parse -> print is a fixed
 * point). */
#ifndef SHARD_FUZZ_PIPELINE_H
#define SHARD_FUZZ_PIPELINE_H

#include "fuzz_common.h"
#include "pass/pass_shardings.h"
#include "pipeline/pass_registry.h"
#include "sdy/sharding.h"
#include "support/arena.h"

/* Execution budgets: the interpreter's own limits (interp.h) are sized for
 * real programs (2^26 elements a tensor, 4096 devices) and would make one
 * fuzz unit take minutes. */
#define FUZZ_MAX_ELEMENTS 1024 /* elements of any tensor the module names */
#define FUZZ_MAX_DEVICES_RUN 16 /* devices of any mesh a sharding names */
#define FUZZ_MAX_STEPS 20000 /* ops one device may execute */

/* What the diagnostics of a unit said, besides fuzz_diag's span checks. */
typedef struct fuzz_sink {
  const char *needle, *needle2; /* an error message holding one is a finding (NULL: none) */
  const char *found; /* the first such message (static copy below) */
  char msg[512];
} fuzz_sink;

static inline void fuzz_sink_diag(void *ctx, const shard_diag *d) {
  fuzz_diag(NULL, d);
  fuzz_sink *s = ctx;
  if (s && !s->found && d->severity == SHARD_ERROR &&
      ((s->needle && strstr(d->message, s->needle)) || (s->needle2 && strstr(d->message, s->needle2)))) {
    snprintf(s->msg, sizeof s->msg, "%s", d->message);
    s->found = s->msg;
  }
}

/* A NUL-terminated heap copy of the input, as the CLI hands the parser. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *text = shard_xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  return text;
}

/* Parses and verifies; NULL (after checking an error was reported) when
 * either fails. */
static inline shard_module *fuzz_read_verified(shard_source *src, shard_diag_engine *de) {
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  unsigned before = de->errors;
  shard_module *m = shard_parse_module(src, &popts, de);
  if (!m) {
    if (de->errors == before) fuzz_fail("parse failed without an error");
    return NULL;
  }
  shard_verify_options vopts = {.extra_warnings = false};
  bool ok = shard_verify_module(m, &vopts, de);
  if (!ok && de->errors == before) fuzz_fail("verify failed without an error");
  if (!ok || de->errors != before) {
    shard_module_free(m);
    return NULL;
  }
  return m;
}

/* The module printed, pretty or generic, in a heap string. */
static inline char *fuzz_print(const shard_module *m, bool generic) {
  shard_buf out;
  shard_buf_init(&out);
  shard_print_options prt = {.generic = generic};
  shard_print_module(&out, m, &prt);
  char *s = shard_xstrdup(shard_buf_str(&out));
  shard_buf_free(&out);
  return s;
}

/* A verified module's prints read back, verify again and print the same
 * text. `stage` names what made the module, for the report. */
static inline void fuzz_fixed_point(const shard_module *m, const char *stage) {
  for (int generic = 0; generic < 2; generic++) {
    char *first = fuzz_print(m, generic != 0);
    shard_source again = {"<reprint>", first, strlen(first), 0};
    shard_diag_engine de;
    shard_diag_init(&de, fuzz_diag, NULL);
    shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
    shard_module *m2 = shard_parse_module(&again, &popts, &de);
    shard_verify_options vopts = {.extra_warnings = false};
    if (!m2 || de.errors) {
      fprintf(stderr, "%s: %s print:\n%s\n", stage, generic ? "generic" : "pretty", first);
      fuzz_fail(generic ? "generic print does not parse again" : "pretty print does not parse again");
    }
    if (!shard_verify_module(m2, &vopts, &de) || de.errors) {
      fprintf(stderr, "%s: %s print:\n%s\n", stage, generic ? "generic" : "pretty", first);
      fuzz_fail("the print of a verified module does not verify again");
    }
    char *second = fuzz_print(m2, generic != 0);
    if (strcmp(first, second) != 0) {
      fprintf(stderr, "%s: first %s print:\n%s\nsecond:\n%s\n", stage, generic ? "generic" : "pretty", first, second);
      fuzz_fail("print -> parse -> print is not a fixed point");
    }
    free(second);
    shard_module_free(m2);
    free(first);
  }
}

/* Runs registry passes (pipeline/pass_registry.h), verifying after each.
 * A failure must come with an error; a success must leave a module whose
 * prints are a fixed point. */
static inline bool fuzz_run_steps(shard_module *m, const shard_pipeline_step *steps, size_t n, const char *stage,
                                  shard_diag_engine *de) {
  unsigned before = de->errors;
  bool ok = shard_pipeline_run(m, steps, n, true, SHARD_PASS_CONTEXT(de));
  if (!ok && de->errors == before) fuzz_fail("a pipeline failed without an error");
  if (!ok || de->errors != before) return false;
  fuzz_fixed_point(m, stage);
  return true;
}

/* ---- budgets ---------------------------------------------------------------------- */

typedef struct fuzz_budget {
  const shard_module *m;
  bool ok;
} fuzz_budget;

static inline void fuzz_budget_type(fuzz_budget *b, const shard_type *t) {
  if (!t) return;
  if (t->kind == SHARD_TYPE_FUNCTION) {
    for (uint32_t i = 0; i < t->num_inputs; i++) fuzz_budget_type(b, t->inputs[i]);
    for (uint32_t i = 0; i < t->num_results; i++) fuzz_budget_type(b, t->results[i]);
    return;
  }
  if (t->kind != SHARD_TYPE_TENSOR) return;
  int64_t n = 1;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->dims[d] < 0 || t->dims[d] > FUZZ_MAX_ELEMENTS) {
      b->ok = false;
      return;
    }
    n *= t->dims[d];
    if (n > FUZZ_MAX_ELEMENTS) {
      b->ok = false;
      return;
    }
  }
}

static inline bool fuzz_budget_op(shard_op *op, void *ctx) {
  fuzz_budget *b = ctx;
  for (uint32_t i = 0; i < op->num_results; i++) fuzz_budget_type(b, op->results[i].type);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *bl = op->regions[r].first; bl; bl = bl->next)
      for (uint32_t i = 0; i < bl->num_args; i++) fuzz_budget_type(b, bl->args[i].type);
  shard_attr *ft = shard_op_attr(op, "function_type");
  if (ft && ft->kind == SHARD_ATTR_TYPE) fuzz_budget_type(b, ft->u.type);
  return b->ok;
}

static inline shard_tensor_sharding *fuzz_budget_sharding(shard_tensor_sharding *s, void *ctx) {
  fuzz_budget *b = ctx;
  const shard_mesh *mesh = s ? shard_module_sharding_mesh(b->m, s) : NULL;
  if (mesh && shard_mesh_num_devices(mesh) > FUZZ_MAX_DEVICES_RUN) b->ok = false;
  return s;
}

/* Small enough to execute: every tensor type static with at most
 * FUZZ_MAX_ELEMENTS elements, every mesh of a sharding and every sdy.mesh
 * at most FUZZ_MAX_DEVICES_RUN devices. */
static inline bool fuzz_small_enough(shard_module *m) {
  fuzz_budget b = {m, true};
  shard_walk(m->top, fuzz_budget_op, &b);
  if (!b.ok) return false;
  shard_map_shardings(m, fuzz_budget_sharding, &b);
  for (shard_op *op = m->top->regions[0].first ? m->top->regions[0].first->first : NULL; op && b.ok; op = op->next) {
    shard_attr *mesh = strcmp(op->name, "sdy.mesh") == 0 ? shard_op_attr(op, "mesh") : NULL;
    if (mesh && mesh->kind == SHARD_ATTR_SDY_MESH && shard_mesh_num_devices(mesh->u.mesh) > FUZZ_MAX_DEVICES_RUN)
      b.ok = false;
  }
  return b.ok;
}

#endif
