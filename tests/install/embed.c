/* A tool that embeds libshard, built by tests/install/install.sh against the
 * installed header and `pkg-config --cflags --libs shard` only.
 *
 *   embed FILE [SNIPPET...]
 *
 * Parses and verifies FILE, printing each diagnostic as one line
 * ("FILE:LINE:COL: LEVEL: MESSAGE"); on success checks that the printed
 * module (pretty and generic) parses and verifies again. Then each SNIPPET
 * (design-doc notation) is parsed and its global and local shapes printed.
 * Exit 0 when everything verified, 1 otherwise. */
#include <shard/shard.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
  unsigned errors, warnings;
} tally;

static void on_diagnostic(void *ctx, const shard_diagnostic *d) {
  tally *t = ctx;
  if (d->level == SHARD_DIAGNOSTIC_ERROR) t->errors++;
  else if (d->level == SHARD_DIAGNOSTIC_WARNING) t->warnings++;
  if (d->file) printf("%s:%u:%u: ", d->file, d->line, d->column);
  printf("%s: %s\n", shard_diagnostic_level_name(d->level), d->message);
  /* The source line must be the one the location names. */
  if (d->file && (!d->source_line || memchr(d->source_line, '\n', d->source_line_len))) printf("bad source line\n");
}

/* Prints m with `flags`, parses the text again and verifies it. */
static int reparse(const shard_module *m, unsigned flags, const char *label) {
  char *text = shard_module_print(m, flags);
  tally t = {0, 0};
  shard_module *again = shard_module_parse(label, text, strlen(text), on_diagnostic, &t);
  unsigned errors = again ? shard_module_verify(again, 0, on_diagnostic, &t) : 1;
  printf("%s: %zu bytes, %s\n", label, strlen(text), errors ? "INVALID" : "valid");
  shard_module_free(again);
  free(text);
  return errors != 0;
}

static void print_dims(const int64_t *dims, unsigned rank) {
  for (unsigned d = 0; d < rank; d++) {
    if (d) putchar('x');
    if (dims[d] == SHARD_DIM_DYNAMIC) putchar('?');
    else printf("%lld", (long long)dims[d]);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: embed FILE [SNIPPET...]\n");
    return 2;
  }
  printf("libshard %s\n", shard_version());
  int failed = 0;
  tally t = {0, 0};
  shard_module *m = shard_module_parse_file(argv[1], on_diagnostic, &t);
  if (!m) {
    printf("%s: parse failed\n", argv[1]);
    failed = 1;
  } else {
    unsigned errors = shard_module_verify(m, SHARD_VERIFY_EXTRA_WARNINGS, on_diagnostic, &t);
    printf("%s: %u errors, %u warnings\n", argv[1], errors, t.warnings);
    if (errors) failed = 1;
    else failed |= reparse(m, 0, "pretty") | reparse(m, SHARD_PRINT_GENERIC, "generic");
  }
  shard_module_free(m);

  for (int i = 2; i < argc; i++) {
    tally st = {0, 0};
    shard_sharding *s = shard_sharding_parse(argv[i], on_diagnostic, &st);
    if (!s) {
      printf("snippet %d: invalid\n", i - 1);
      failed = 1;
      continue;
    }
    unsigned rank = shard_sharding_rank(s);
    int64_t *global = calloc(rank + 1, sizeof *global);
    int64_t *local = calloc(rank + 1, sizeof *local);
    shard_sharding_global_dims(s, global);
    shard_sharding_local_dims(s, local);
    printf("snippet %d: %lld devices, global ", i - 1, (long long)shard_sharding_num_devices(s));
    print_dims(global, rank);
    printf(", local ");
    print_dims(local, rank);
    printf("\n");
    free(global);
    free(local);
    shard_sharding_free(s);
  }
  return failed;
}
