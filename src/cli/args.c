/* Command-line pieces every subcommand parses the same way: options that
 * take a value (`--name VALUE` or `--name=VALUE`) and the usage-error line
 * with its pointer to --help. Each subcommand keeps its own option loop;
 * these only make sure the spellings and messages agree between them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "support/arena.h"

bool cli_match_value(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  /* A longer option that merely starts with `name` (--mesh-file vs --mesh). */
  if (arg[n] != '\0') return false;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return true;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "shard %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nSee 'shard %s --help'.\n", cmd);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) of
 * a[0..na) and b[0..nb), stopping early once it exceeds `limit`. */
static size_t S_distance(const char *a, size_t na, const char *b, size_t nb, size_t limit) {
  if (na > nb + limit || nb > na + limit) return limit + 1;
  size_t *prev2 = shard_xcalloc(nb + 1, sizeof *prev2), *prev = shard_xcalloc(nb + 1, sizeof *prev),
         *cur = shard_xcalloc(nb + 1, sizeof *cur);
  for (size_t j = 0; j <= nb; j++) prev[j] = j;
  for (size_t i = 1; i <= na; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
      if (prev[j] + 1 < best) best = prev[j] + 1;
      if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
        best = prev2[j - 2] + 1;
      cur[j] = best;
    }
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  size_t d = prev[nb];
  free(prev2);
  free(prev);
  free(cur);
  return d;
}

const char *cli_did_you_mean(const char *word, size_t len, const char *const *cands, unsigned n) {
  size_t limit = len < 4 ? 1 : 2;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (unsigned i = 0; i < n; i++) {
    size_t d = S_distance(word, len, cands[i], strlen(cands[i]), limit);
    if (d < best_d) {
      best_d = d;
      best = cands[i];
    }
  }
  return best;
}
