/* The diagnostics engine and the clang-style text printer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/buf.h"
#include "support/diag.h"

static char *print_one(shard_severity sev, shard_span sp, const char *msg, bool color) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  shard_diag_printer pr = {f, color, true};
  shard_diag d = {sev, sp, msg};
  shard_diag_print_text(&pr, &d);
  fclose(f);
  return out;
}

Test(diag, clang_style_with_caret) {
  shard_source src = {"f.mlir", "first\n  second line\nthird", 25, 0};
  shard_span sp = {&src, 8, 6}; /* "second" */
  char *s = print_one(SHARD_ERROR, sp, "bad thing", false);
  cr_assert_str_eq(s, "f.mlir:2:3: error: bad thing\n  second line\n  ^\n");
  free(s);
}

Test(diag, tabs_keep_the_caret_aligned_and_line_base_counts) {
  shard_source src = {"g.mlir", "\tx = y\n", 7, 10};
  shard_span sp = {&src, 5, 1};
  char *s = print_one(SHARD_WARNING, sp, "w", false);
  cr_assert_str_eq(s, "g.mlir:11:6: warning: w\n\tx = y\n\t    ^\n");
  free(s);
}

Test(diag, unknown_location_and_color) {
  char *s = print_one(SHARD_NOTE, shard_no_span, "n", false);
  cr_assert_str_eq(s, "note: n\n");
  free(s);
  shard_source src = {"f", "x", 1, 0};
  shard_span sp = {&src, 0, 1};
  s = print_one(SHARD_ERROR, sp, "m", true);
  cr_assert(strstr(s, "\033[1;31merror: ") != NULL, "%s", s);
  free(s);
}

static unsigned seen;
static shard_severity last_sev;
static char last_msg[64];
static void grab(void *ctx, const shard_diag *d) {
  (void)ctx;
  seen++;
  last_sev = d->severity;
  snprintf(last_msg, sizeof last_msg, "%s", d->message);
}

Test(diag, counting_formatting_and_werror) {
  shard_diag_engine de;
  shard_diag_init(&de, grab, NULL);
  seen = 0;
  shard_warning(&de, shard_no_span, "w%d", 1);
  cr_assert_eq(de.warnings, 1);
  cr_assert_eq(last_sev, SHARD_WARNING);
  de.warnings_as_errors = true;
  shard_warning(&de, shard_no_span, "%s-%u", "x", 7u);
  cr_assert_eq(last_sev, SHARD_ERROR);
  cr_assert_str_eq(last_msg, "x-7");
  cr_assert_eq(de.errors, 1);
  cr_assert_eq(de.warnings, 1);
  shard_note(&de, shard_no_span, "n");
  cr_assert_eq(seen, 3);
  /* An engine without a callback still counts. */
  shard_diag_engine quiet;
  shard_diag_init(&quiet, NULL, NULL);
  shard_error(&quiet, shard_no_span, "e");
  cr_assert_eq(quiet.errors, 1);
}

Test(diag, span_helpers_clamp) {
  shard_source src = {"f", "ab\ncd\r\n", 7, 0};
  size_t n;
  shard_span sp = {&src, 4, 1};
  const char *line = shard_span_line_text(sp, &n);
  cr_assert_eq(n, 2);
  cr_assert(memcmp(line, "cd", 2) == 0);
  shard_span past = {&src, 1000, 0};
  uint32_t l, c;
  shard_span_linecol(past, &l, &c);
  cr_assert_eq(l, 3);
  shard_span j = shard_span_join((shard_span){&src, 4, 1}, (shard_span){&src, 0, 2});
  cr_assert_eq(j.off, 0);
  cr_assert_eq(j.len, 5);
}

Test(buf, printf_growth_and_escapes) {
  shard_buf b;
  shard_buf_init(&b);
  cr_assert_str_eq(shard_buf_str(&b), "");
  for (int i = 0; i < 1000; i++) shard_buf_printf(&b, "%d,", i);
  cr_assert_eq(strncmp(b.data, "0,1,2,", 6), 0);
  cr_assert_eq(b.len, strlen(b.data));
  shard_buf_clear(&b);
  shard_buf_put_escaped(&b, "a\"b\\c\n\x01", 7);
  cr_assert_str_eq(shard_buf_str(&b), "\"a\\22b\\\\c\\0A\\01\"");
  char *s = shard_buf_take(&b);
  cr_assert_eq(b.data, NULL);
  free(s);
  s = shard_buf_take(&b);
  cr_assert_str_eq(s, "");
  free(s);
}
