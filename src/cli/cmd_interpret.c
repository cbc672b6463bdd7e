/* `shard interpret FILE`: runs func.func @main of a StableHLO program with
 * the reference interpreter (src/core/interp.c), with the contract of
 * `stablehlo-translate --interpret`: interpreter.run_parallel runs one
 * program per device, check.expect_* ops verify values, and the first failed
 * check ends the run with a located error and exit status 1.
 *
 * `--interpret` is accepted and ignored, so a two-line script can stand in
 * for stablehlo-translate. --max-steps bounds the ops one device may run, so
 * that a loop that never ends stops with a located error. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interp/interp.h"
#include "verify/verify.h"
#include "ir/ir.h"
#include "ir/parse.h"

/* Declared again in main.c's command table. */
int cmd_interpret(int argc, char **argv);
void cmd_interpret_usage(FILE *f);

void cmd_interpret_usage(FILE *f) {
  fprintf(f,
          "usage: shard interpret [options] FILE | -\n"
          "\n"
          "Runs func.func @main of a StableHLO module with shard's reference interpreter,\n"
          "as `stablehlo-translate --interpret` does: interpreter.run_parallel runs one\n"
          "program per (replica, partition) with collectives exchanged between them, and\n"
          "check.expect_eq / expect_almost_eq / expect_close / expect_*_const compare\n"
          "values. The first failed check stops the run with a located error.\n"
          "\n"
          "Options:\n"
          "  --interpret           accepted for compatibility with stablehlo-translate\n"
          "  -q, --quiet           print nothing on success\n"
          "  --max-steps N         stop with an error after N ops on one device (loop\n"
          "                        iterations and region bodies count; default 20000000)\n"
          "  --color=WHEN          auto (default; honours NO_COLOR), always, never\n"
          "  -h, --help            show this help\n"
          "\n"
          "Exit status: 0 all checks passed, 1 a check failed or the program could not\n"
          "run, 2 usage error, 3 internal error.\n");
}

#define MAX_STEPS_LIMIT INT64_C(1000000000000)

/* --max-steps N: a positive count (at most 10^12). */
static bool parse_max_steps(const char *v, int64_t *out) {
  char *end;
  if (!v || !*v || *v == '-') return false;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (*end || errno || n < 1 || n > MAX_STEPS_LIMIT) return false;
  *out = n;
  return true;
}

int cmd_interpret(int argc, char **argv) {
  const char *file = NULL;
  bool quiet = false;
  cli_color_mode color = CLI_COLOR_AUTO;
  shard_interp_options iopts = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      cmd_interpret_usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--interpret") || !strcmp(a, "-interpret")) {
      continue;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = true;
    } else if (!strcmp(a, "--max-steps") || !strncmp(a, "--max-steps=", 12)) {
      const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
      if (!parse_max_steps(v, &iopts.max_steps)) {
        fprintf(stderr, "shard interpret: --max-steps needs a count from 1 to %lld (got '%s')\n",
                (long long)MAX_STEPS_LIMIT, v ? v : "");
        return CLI_EXIT_USAGE;
      }
    } else if (!strncmp(a, "--color=", 8)) {
      if (!cli_parse_color(a + 8, &color)) {
        fprintf(stderr, "shard interpret: bad --color value '%s'\n", a + 8);
        return CLI_EXIT_USAGE;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "shard interpret: unknown option '%s'\n", a);
      return CLI_EXIT_USAGE;
    } else if (file) {
      fprintf(stderr, "shard interpret: only one input file\n");
      return CLI_EXIT_USAGE;
    } else {
      file = a;
    }
  }
  if (!file) {
    cmd_interpret_usage(stderr);
    return CLI_EXIT_USAGE;
  }

  char *text;
  size_t len;
  shard_buf err;
  shard_buf_init(&err);
  if (!cli_read_input(file, &text, &len, &err)) {
    cli_report_read_error(file, &err);
    shard_buf_free(&err);
    return CLI_EXIT_INVALID;
  }
  shard_buf_free(&err);

  cli_sink sink;
  cli_sink_init(&sink, CLI_FORMAT_TEXT, stderr, cli_use_color(color, stderr));
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, &sink);
  shard_source src = {cli_input_name(file), text, len, 0};
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(&src, &popts, &de);
  int rc = CLI_EXIT_INVALID;
  /* the interpreter indexes shapes with op attributes: only a module the
   * verifier accepts runs */
  shard_verify_options vopts = {.extra_warnings = false};
  if (m && (!shard_verify_module(m, &vopts, &de) || de.errors)) {
    shard_module_free(m);
    m = NULL;
  }
  if (m) {
    unsigned checks = 0;
    if (shard_interp_run_main(m, &iopts, &de, &checks)) {
      rc = CLI_EXIT_OK;
      if (!quiet) fprintf(stderr, "shard interpret: %u check%s passed\n", checks, checks == 1 ? "" : "s");
    }
    shard_module_free(m);
  }
  cli_sink_free(&sink);
  free(text);
  return rc;
}
