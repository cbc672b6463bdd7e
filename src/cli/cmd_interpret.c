/* `shard interpret FILE`: runs a StableHLO program with the reference
 * interpreter (src/core/interp), with the contract of
 * `stablehlo-translate --interpret`: the entry is func.func @main or the
 * module's only function, fed with --args; its results are printed to
 * stdout the way stablehlo-translate prints them; interpreter.run_parallel
 * runs one program per device, check.* ops (and custom_call @check.*)
 * verify values, and the first failed check ends the run with a located
 * error and exit status 1. -split-input-file runs each `// -----` chunk on
 * its own and goes on after a failing one.
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
#include "ir/split.h"

/* Declared again in main.c's command table. */
int cmd_interpret(int argc, char **argv);
void cmd_interpret_usage(FILE *f);

void cmd_interpret_usage(FILE *f) {
  fprintf(f, "usage: shard interpret [options] [FILE | -]\n"
             "\n"
             "Runs a StableHLO module (FILE, or standard input) with shard's reference interpreter, as\n"
             "`stablehlo-translate --interpret` does: the entry is func.func @main, else the\n"
             "module's only function; its results are printed to stdout. interpreter.run_parallel\n"
             "runs one program per (replica, partition) with collectives exchanged between them,\n"
             "and check.expect_eq / expect_almost_eq / expect_close / expect_*_const (and\n"
             "stablehlo.custom_call @check.expect_*) compare values. The first failed check\n"
             "stops the run with a located error.\n"
             "\n"
             "Options:\n"
             "  --interpret           accepted for compatibility with stablehlo-translate\n"
             "  --args=ARRAY          the entry's arguments: \"[dense<1> : tensor<2xi32>, ...]\",\n"
             "                        or @FILE to read that text from FILE\n"
             "  -split-input-file     run each '// -----' chunk as a module of its own\n"
             "  --interpreter-print-dense\n"
             "                        print results as dense<...> : type attributes\n"
             "  --probe-output-dir=DIR\n"
             "                        where interpreter.probe writes probe<N>.npy and index.csv\n"
             "  -q, --quiet           no summary line on stderr (results still go to stdout)\n"
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

/* --args=@FILE: the text of FILE. */
static char *read_args_file(const char *path) {
  char *text;
  size_t len;
  shard_buf err;
  shard_buf_init(&err);
  bool ok = cli_read_input(path, &text, &len, &err);
  shard_buf_free(&err);
  return ok ? text : NULL;
}

typedef struct interp_run {
  const char *args_text; /* NULL: no --args */
  bool dense, quiet;
  shard_interp_options iopts;
  unsigned checks;
} interp_run;

/* Parses, verifies and runs one module (a whole file or one chunk); prints
 * its results to stdout. False after reporting an error through de. */
static bool run_chunk(interp_run *r, shard_source *src, shard_diag_engine *de) {
  unsigned before = de->errors;
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0, .read_past = cli_input_read_past};
  shard_module *m = shard_parse_module(src, &popts, de);
  /* the interpreter indexes shapes with op attributes: only a module the
   * verifier accepts runs */
  shard_verify_options vopts = {.extra_warnings = false};
  if (!m || !shard_verify_module(m, &vopts, de) || de->errors != before) {
    if (m) shard_module_free(m);
    return false;
  }
  shard_arena *a = shard_arena_new();
  shard_tensor **args = NULL, **results = NULL;
  uint32_t nargs = 0, nresults = 0;
  bool ok = true;
  if (r->args_text) {
    shard_buf err;
    shard_buf_init(&err);
    ok = shard_interp_parse_args(a, r->args_text, &args, &nargs, &err);
    if (!ok) shard_error(de, shard_no_span, "%s", shard_buf_str(&err));
    shard_buf_free(&err);
  }
  unsigned checks = 0;
  if (ok) ok = shard_interp_run_entry(m, args, nargs, &r->iopts, a, &results, &nresults, de, &checks);
  r->checks += checks;
  if (ok) {
    shard_buf out;
    shard_buf_init(&out);
    for (uint32_t i = 0; i < nresults; i++) {
      shard_interp_print_value(&out, results[i], r->dense);
      shard_buf_putc(&out, '\n');
    }
    fputs(shard_buf_str(&out), stdout);
    fflush(stdout);
    shard_buf_free(&out);
  }
  shard_arena_free(a);
  shard_module_free(m);
  return ok;
}

int cmd_interpret(int argc, char **argv) {
  const char *file = NULL;
  bool split = false;
  char *args_owned = NULL;
  interp_run run = {0};
  cli_color_mode color = CLI_COLOR_AUTO;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      cmd_interpret_usage(stdout);
      cli_input_free(args_owned);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--interpret") || !strcmp(a, "-interpret")) {
      continue;
    } else if (!strcmp(a, "-split-input-file") || !strcmp(a, "--split-input-file")) {
      split = true;
    } else if (!strcmp(a, "--interpreter-print-dense") || !strcmp(a, "-interpreter-print-dense")) {
      run.dense = true;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      run.quiet = true;
    } else if (!strcmp(a, "--args") || !strncmp(a, "--args=", 7) || !strcmp(a, "-args") || !strncmp(a, "-args=", 6)) {
      const char *eq = strchr(a, '=');
      const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v) {
        fprintf(stderr, "shard interpret: --args needs a value\n");
        return CLI_EXIT_USAGE;
      }
      cli_input_free(args_owned);
      args_owned = NULL;
      if (v[0] == '@') {
        args_owned = read_args_file(v + 1);
        if (!args_owned) {
          fprintf(stderr, "shard interpret: error: failed to read args file '%s'\n", v + 1);
          return CLI_EXIT_INVALID;
        }
        run.args_text = args_owned;
      } else {
        run.args_text = v;
      }
    } else if (!strcmp(a, "--probe-output-dir") || !strncmp(a, "--probe-output-dir=", 19) ||
               !strncmp(a, "-probe-output-dir=", 18)) {
      const char *eq = strchr(a, '=');
      const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) {
        fprintf(stderr, "shard interpret: --probe-output-dir needs a directory\n");
        cli_input_free(args_owned);
        return CLI_EXIT_USAGE;
      }
      run.iopts.probe_dir = v;
    } else if (!strcmp(a, "--max-steps") || !strncmp(a, "--max-steps=", 12)) {
      const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
      if (!parse_max_steps(v, &run.iopts.max_steps)) {
        fprintf(stderr, "shard interpret: --max-steps needs a count from 1 to %lld (got '%s')\n",
                (long long)MAX_STEPS_LIMIT, v ? v : "");
        cli_input_free(args_owned);
        return CLI_EXIT_USAGE;
      }
    } else if (!strncmp(a, "--color=", 8)) {
      if (!cli_parse_color(a + 8, &color)) {
        fprintf(stderr, "shard interpret: bad --color value '%s'\n", a + 8);
        cli_input_free(args_owned);
        return CLI_EXIT_USAGE;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "shard interpret: unknown option '%s'\n", a);
      cli_input_free(args_owned);
      return CLI_EXIT_USAGE;
    } else if (file) {
      fprintf(stderr, "shard interpret: only one input file\n");
      cli_input_free(args_owned);
      return CLI_EXIT_USAGE;
    } else {
      file = a;
    }
  }
  if (!file) file = "-"; /* as stablehlo-translate: no file reads standard input */

  char *text;
  size_t len;
  shard_buf err;
  shard_buf_init(&err);
  if (!cli_read_input(file, &text, &len, &err)) {
    cli_report_read_error(file, &err);
    shard_buf_free(&err);
    cli_input_free(args_owned);
    return CLI_EXIT_INVALID;
  }
  shard_buf_free(&err);

  cli_sink sink;
  cli_sink_init(&sink, CLI_FORMAT_TEXT, stderr, cli_use_color(color, stderr));
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, &sink);
  shard_source whole = {cli_input_name(file), text, len, 0};
  bool ok = true;
  if (split) {
    shard_source *chunks;
    uint32_t n = shard_source_split(&whole, &chunks, &de);
    for (uint32_t k = 0; k < n; k++)
      if (!run_chunk(&run, &chunks[k], &de)) ok = false;
    free(chunks);
  } else {
    ok = run_chunk(&run, &whole, &de);
  }
  if (ok && !run.quiet) fprintf(stderr, "shard interpret: %u check%s passed\n", run.checks, run.checks == 1 ? "" : "s");
  cli_sink_free(&sink);
  cli_input_free(text);
  cli_input_free(args_owned);
  return ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
}
