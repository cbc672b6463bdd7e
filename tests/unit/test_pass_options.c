/* Pass options: MLIR's option text, the registry's schema check, and the
 * readers passes use. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass/pass.h"
#include "pipeline/pass_registry.h"

static const shard_pass_option_def S_options[] = {
    {"flag", SHARD_PASS_OPTION_BOOL, "false", NULL, "a boolean"},
    {"count", SHARD_PASS_OPTION_INT, "1", NULL, "an integer"},
    {"mode", SHARD_PASS_OPTION_ENUM, "fast", "fast|slow", "a choice"},
    {"filter", SHARD_PASS_OPTION_STRING, "", NULL, "any text"},
    {NULL, 0, NULL, NULL, NULL},
};
static const shard_pass_def S_pass = {"test-pass", "a pass for tests", S_options, NULL};
static const shard_pass_def S_bare = {"bare-pass", "a pass without options", NULL, NULL};

/* The validation message, or NULL when the text is valid. */
static char *S_check(const shard_pass_def *p, const char *text) {
  shard_buf err;
  shard_buf_init(&err);
  bool ok = shard_pass_options_validate(p, text, &err);
  char *msg = ok ? NULL : strdup(shard_buf_str(&err));
  shard_buf_free(&err);
  return msg;
}

Test(pass_options, valid_text) {
  const char *good[] = {NULL,
                        "",
                        "flag=true",
                        "flag",
                        "flag=0 count=-3",
                        "mode=slow",
                        "filter='selectLow=0, selectHigh=2'",
                        "filter=dot,constant,reshard count=2",
                        "filter={a b} flag=1",
                        "  count=7  "};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    char *m = S_check(&S_pass, good[i]);
    cr_expect_null(m, "'%s': %s", good[i] ? good[i] : "(null)", m ? m : "");
    free(m);
  }
}

Test(pass_options, errors_name_the_option_and_what_it_accepts) {
  char *m = S_check(&S_pass, "flag=maybe");
  cr_assert(m);
  cr_expect_str_eq(m, "invalid value 'maybe' for option 'flag' of pass '-test-pass': expected true or false");
  free(m);
  m = S_check(&S_pass, "count=12x");
  cr_expect_str_eq(m, "invalid value '12x' for option 'count' of pass '-test-pass': expected an integer");
  free(m);
  m = S_check(&S_pass, "count=99999999999999999999");
  cr_expect(m && strstr(m, "'count'"), "%s", m ? m : "(valid)");
  free(m);
  m = S_check(&S_pass, "mode=medium");
  cr_expect_str_eq(m, "invalid value 'medium' for option 'mode' of pass '-test-pass': expected one of fast, slow");
  free(m);
  m = S_check(&S_pass, "count");
  cr_expect_str_eq(m, "option 'count' of pass '-test-pass' needs a value: an integer");
  free(m);
  m = S_check(&S_pass, "flag=true colour=red");
  cr_expect_str_eq(m, "unknown option 'colour' for pass '-test-pass' (its options: flag, count, mode, filter)");
  free(m);
  m = S_check(&S_bare, "x=1");
  cr_expect_str_eq(m, "unknown option 'x' for pass '-bare-pass' (it takes no options)");
  free(m);
}

Test(pass_options, readers) {
  bool b = false;
  cr_expect(shard_pass_option_bool("flag", "flag", &b) && b);
  cr_expect(shard_pass_option_bool("flag=1 flag=false", "flag", &b) && !b, "the last occurrence wins");
  cr_expect_not(shard_pass_option_bool("flagged=true", "flag", &b), "whole keys only");
  long long n = 0;
  cr_expect(shard_pass_option_int("count=42", "count", &n) && n == 42);
  cr_expect_not(shard_pass_option_int(NULL, "count", &n));
  char *s = shard_pass_option_string("count=1 filter='selectLow=0, selectHigh=2'", "filter");
  cr_expect_str_eq(s, "selectLow=0, selectHigh=2");
  free(s);
  s = shard_pass_option_string("filter=dot,constant", "filter");
  cr_expect_str_eq(s, "dot,constant");
  free(s);
  cr_expect_null(shard_pass_option_string("count=1", "filter"));
}

Test(pass_registry, sorted_unique_and_complete) {
  unsigned n;
  const shard_pass_def *p = shard_pass_registry(&n);
  cr_assert_gt(n, 40u);
  for (unsigned i = 0; i < n; i++) {
    cr_expect(p[i].name && p[i].summary && p[i].run, "pass %u", i);
    if (i) cr_expect_lt(strcmp(p[i - 1].name, p[i].name), 0, "%s before %s", p[i - 1].name, p[i].name);
    cr_expect_eq(shard_pass_find(p[i].name, strlen(p[i].name)), &p[i]);
    /* Every default is a value the schema accepts. */
    for (const shard_pass_option_def *o = p[i].options; o && o->name; o++) {
      if (!o->fallback || !*o->fallback) continue;
      char text[256];
      snprintf(text, sizeof text, "%s=%s", o->name, o->fallback);
      char *m = S_check(&p[i], text);
      cr_expect_null(m, "-%s: %s", p[i].name, m ? m : "");
      free(m);
    }
  }
  cr_expect_null(shard_pass_find("sdy-no-such-pass", 16));
}
