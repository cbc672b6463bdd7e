/* The -verify-diagnostics matcher: designator syntax, line resolution
 * (@+N, @-N, @above, @below, @unknown), substring and -re matching, near
 * misses, and the mlir-opt texts of the mismatch reports. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ir/expect.h"

typedef struct reports {
  char text[4096]; /* "LINE:COL: MSG" per report, "-: MSG" without location */
  unsigned count;
} reports;

static void collect(void *ctx, const shard_diag *d) {
  reports *r = ctx;
  size_t used = strlen(r->text);
  if (d->span.src) {
    uint32_t line, col;
    shard_span_linecol(d->span, &line, &col);
    snprintf(r->text + used, sizeof r->text - used, "%u:%u: %s\n", line, col, d->message);
  } else {
    snprintf(r->text + used, sizeof r->text - used, "-: %s\n", d->message);
  }
  r->count++;
}

typedef struct fixture {
  shard_source src;
  reports out;
  shard_diag_engine report;
  shard_expect *ex;
} fixture;

static void setup(fixture *f, const char *text, uint32_t line_base) {
  memset(f, 0, sizeof *f);
  f->src.name = "t.mlir";
  f->src.text = text;
  f->src.len = strlen(text);
  f->src.line_base = line_base;
  shard_diag_init(&f->report, collect, &f->out);
  f->ex = shard_expect_new(&f->src, &f->report);
}

/* Emits a diagnostic at the start of 1-based chunk line `line` (or nowhere when 0). */
static void emit(fixture *f, shard_severity sev, uint32_t line, const char *msg) {
  shard_span sp = shard_no_span;
  if (line) {
    uint32_t off = 0;
    for (uint32_t l = 1; l < line; l++) off = (uint32_t)(strchr(f->src.text + off, '\n') - f->src.text) + 1;
    sp = (shard_span){&f->src, off, 1};
  }
  shard_diag d = {sev, sp, msg};
  shard_expect_consume(f->ex, &d);
}

static bool finish(fixture *f) {
  bool ok = shard_expect_finish(f->ex);
  shard_expect_free(f->ex);
  return ok;
}

Test(expect, relative_lines_and_substring) {
  fixture f;
  setup(&f,
        "// expected-error@+1 {{undeclared SSA}}\n"
        "x\n"
        "y\n"
        "// expected-warning@-1 {{size}}\n",
        0);
  cr_assert_eq(shard_expect_count(f.ex), 2);
  emit(&f, SHARD_ERROR, 2, "use of undeclared SSA value name");
  emit(&f, SHARD_WARNING, 3, "axis of size 1");
  cr_assert(finish(&f), "%s", f.out.text);
  cr_assert_eq(f.out.count, 0);
}

Test(expect, same_line_and_spaces_before_at) {
  fixture f;
  setup(&f, "op // expected-error {{bad}}\n  // expected-note @+1 {{here}}\nz\n", 0);
  emit(&f, SHARD_ERROR, 1, "a bad thing");
  emit(&f, SHARD_NOTE, 3, "see here");
  cr_assert(finish(&f), "%s", f.out.text);
}

Test(expect, above_and_below_skip_designator_lines) {
  fixture f;
  setup(&f,
        "a\n"
        "// expected-error@below {{one}}\n"
        "// expected-error@below {{two}}\n"
        "b\n"
        "// expected-error@above {{three}}\n"
        "// expected-error@above {{four}}\n",
        0);
  emit(&f, SHARD_ERROR, 4, "one");
  emit(&f, SHARD_ERROR, 4, "two");
  emit(&f, SHARD_ERROR, 4, "three");
  emit(&f, SHARD_ERROR, 4, "four");
  cr_assert(finish(&f), "%s", f.out.text);
}

Test(expect, unknown_location) {
  fixture f;
  setup(&f, "// expected-error@unknown {{nowhere}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 1, "nowhere"); /* located: must not match @unknown */
  emit(&f, SHARD_ERROR, 0, "from nowhere");
  cr_assert_not(finish(&f));
  cr_assert_str_eq(f.out.text, "1:1: unexpected error: nowhere\n");
}

Test(expect, unmatched_and_unexpected_reports) {
  fixture f;
  setup(&f, "x\n  // expected-error@-1 {{wanted}}\n// expected-note@unknown {{gone}}\n", 0);
  emit(&f, SHARD_ERROR, 1, "something else");
  cr_assert_not(finish(&f));
  cr_assert_str_eq(f.out.text, "1:1: unexpected error: something else\n"
                               "2:6: expected error \"wanted\" was not produced\n"
                               "-: expected note \"gone\" was not produced\n");
}

Test(expect, near_miss_on_severity) {
  fixture f;
  setup(&f, "// expected-warning@+1 {{odd}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 2, "odd thing");
  cr_assert_not(finish(&f));
  cr_assert_str_eq(f.out.text, "1:4: 'error' diagnostic emitted when expecting a 'warning'\n"
                               "1:4: expected warning \"odd\" was not produced\n");
}

Test(expect, one_designator_matches_repeated_diagnostics) {
  fixture f;
  setup(&f, "// expected-error@+1 {{dup}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 2, "dup");
  emit(&f, SHARD_ERROR, 2, "dup");
  cr_assert(finish(&f), "%s", f.out.text);
}

Test(expect, text_runs_to_last_braces_of_line) {
  fixture f;
  setup(&f, "// expected-error@+1 {{expected '}}' here}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 2, "error: expected '}}' here, got eof");
  cr_assert(finish(&f), "%s", f.out.text);
}

Test(expect, not_a_designator) {
  fixture f;
  /* No braces, an unknown kind, trailing text after the braces. */
  setup(&f,
        "// expected-error@+1 nothing\n"
        "// expected-fatal {{x}}\n"
        "// expected-error {{x}} trailing\n",
        0);
  cr_assert_eq(shard_expect_count(f.ex), 0);
  cr_assert(finish(&f));
}

Test(expect, regex) {
  fixture f;
  setup(&f, "// expected-error-re@+1 {{dim {{[0-9]+}} of size {{[0-9]+}} (odd)}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 2, "dim 1 of size 7 (odd) is bad");
  cr_assert(finish(&f), "%s", f.out.text);

  setup(&f, "// expected-error-re@+1 {{a.c}}\nx\n", 0);
  emit(&f, SHARD_ERROR, 2, "abc"); /* '.' outside {{ }} is literal */
  cr_assert_not(finish(&f));

  setup(&f, "// expected-error-re {{open {{never closed}}\n", 0);
  cr_assert_eq(shard_expect_count(f.ex), 0);
  cr_assert_not(finish(&f));
  cr_assert_str_eq(f.out.text, "1:4: found start of regex with no end '}}'\n");
}

Test(expect, line_base_of_split_chunks) {
  fixture f;
  setup(&f, "// expected-error@+1 {{in chunk}}\nx\n", 40);
  emit(&f, SHARD_ERROR, 2, "in chunk"); /* reported as file line 42 */
  cr_assert(finish(&f), "%s", f.out.text);
}

Test(expect, dangling_below) {
  fixture f;
  setup(&f, "x\n// expected-error@below {{never}}", 0);
  cr_assert_not(finish(&f));
  cr_assert_str_eq(f.out.text, "2:4: expected error \"never\" was not produced\n");
}
