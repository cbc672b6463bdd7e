/* Helpers for the sdy model tests: parse one attribute through the real
 * parser (as the value of a generic op's attribute) and print it back, with
 * every diagnostic collected. */
#ifndef SHARD_TEST_SDY_TESTING_H
#define SHARD_TEST_SDY_TESTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/parse.h"

typedef struct sdy_diags {
  char text[4096]; /* every message, one per line */
  unsigned count;
} sdy_diags;

static inline void sdy_collect(void *ctx, const shard_diag *d) {
  sdy_diags *c = ctx;
  size_t used = strlen(c->text);
  snprintf(c->text + used, sizeof c->text - used, "%s\n", d->message);
  c->count++;
}

typedef struct sdy_parsed {
  shard_source src;
  char *text;
  shard_module *module;
  shard_attr *attr; /* the value of `a` on the op */
  sdy_diags diags;
} sdy_parsed;

/* Parses `"t.op"() {a = <attr>} : () -> ()`. On failure module is NULL and the
 * diagnostics say why. Free with sdy_parsed_free. */
static inline void sdy_parse_attr(sdy_parsed *r, const char *attr) {
  memset(r, 0, sizeof *r);
  size_t n = strlen(attr) + 64;
  r->text = malloc(n);
  snprintf(r->text, n, "\"t.op\"() {a = %s} : () -> ()\n", attr);
  r->src.name = "test.mlir";
  r->src.text = r->text;
  r->src.len = strlen(r->text);
  shard_diag_engine de;
  shard_diag_init(&de, sdy_collect, &r->diags);
  r->module = shard_parse_module(&r->src, NULL, &de);
  if (!r->module) return;
  shard_op *op = r->module->top->regions[0].first->first;
  r->attr = op ? shard_op_attr(op, "a") : NULL;
}

static inline void sdy_parsed_free(sdy_parsed *r) {
  if (r->module) shard_module_free(r->module);
  free(r->text);
}

/* Parses an attribute and prints it with shard_sdy_attr_print; returns a heap
 * string ("<parse error>\n" + diagnostics on failure). */
static inline char *sdy_roundtrip(const char *attr) {
  sdy_parsed r;
  sdy_parse_attr(&r, attr);
  shard_buf b;
  shard_buf_init(&b);
  if (r.attr) shard_sdy_attr_print(&b, r.attr);
  else shard_buf_printf(&b, "<parse error>\n%s", r.diags.text);
  sdy_parsed_free(&r);
  return shard_buf_take(&b);
}

/* Parses an attribute that must produce diagnostics; returns them (heap), or
 * "<parsed>" when there were none. */
static inline char *sdy_errors(const char *attr) {
  sdy_parsed r;
  sdy_parse_attr(&r, attr);
  char *out = strdup(r.diags.count ? r.diags.text : "<parsed>");
  sdy_parsed_free(&r);
  return out;
}

#endif
