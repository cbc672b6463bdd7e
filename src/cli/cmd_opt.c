/* `shard opt`: a drop-in for Shardy's sdy_opt (mlir-opt) in lit tests.
 *
 * Reads one input, optionally cuts it into -split-input-file chunks, and for
 * each chunk independently: parses, verifies, runs the requested passes in
 * command-line order, and prints the module. Chunk outputs are joined by
 * `// -----` lines. Diagnostics go to stderr in mlir-opt's format
 * (FILE:LINE:COL: error: MSG, source line, caret) or, with
 * -verify-diagnostics, are matched against the chunk's expected-*
 * designators instead; then the run succeeds iff every chunk's
 * expectations matched, whatever the chunks themselves did.
 *
 * All output is built in memory and written at the end: to stdout, or with
 * -o atomically to a file, and only if the run succeeded, so a failed run
 * leaves an existing output file as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ir/expect.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "pipeline/pass_registry.h"
#include "ir/split.h"
#include "verify/verify.h"

typedef struct requested_pass {
  const shard_pass_def *pass;
  const char *options; /* NULL when none */
} requested_pass;

typedef struct opt_config {
  const char *input;
  const char *output; /* NULL: stdout */
  bool split;
  bool verify_diagnostics;
  bool allow_unregistered;
  shard_print_options print;
  SHARD_VEC(requested_pass) passes;
} opt_config;

void cmd_opt_usage(FILE *f) {
  fprintf(f, "usage: shard opt [options] [FILE | -]\n"
             "\n"
             "Parses an MLIR file with Shardy (sdy) ops, verifies it, runs the given passes and\n"
             "prints the result, like sdy_opt. Options may start with '-' or '--'.\n"
             "\n"
             "Options:\n"
             "  -o FILE                     write the output to FILE (atomically; untouched on failure)\n"
             "  -split-input-file           process each '// -----' chunk separately\n"
             "  -verify-diagnostics         check diagnostics against '// expected-error {{...}}'\n"
             "  -allow-unregistered-dialect accept ops of unknown dialects (generic form)\n"
             "  -mlir-print-op-generic      print every op in generic form\n"
             "  -mlir-print-debuginfo       print locations\n"
             "  --                          end of options\n"
             "  -h, --help                  show this help\n"
             "\n"
             "Passes (-NAME or -NAME='KEY=VALUE ...'); each pass's options are listed below it:\n");
  unsigned n;
  const shard_pass_def *passes = shard_pass_registry(&n);
  for (unsigned i = 0; i < n; i++) {
    fprintf(f, "  -%-26s %s\n", passes[i].name, passes[i].summary);
    for (const shard_pass_option_def *o = passes[i].options; o && o->name; o++) {
      fprintf(f, "      %s=%s (default %s): %s\n", o->name,
              o->kind == SHARD_PASS_OPTION_BOOL   ? "true|false"
              : o->kind == SHARD_PASS_OPTION_INT  ? "N"
              : o->kind == SHARD_PASS_OPTION_ENUM ? o->choices
                                                  : "TEXT",
              o->fallback && *o->fallback ? o->fallback : "none", o->help);
    }
  }
  fprintf(f, "\n"
             "Exit status: 0 success, 1 invalid input or unmatched expectations, 2 usage\n"
             "error (including an unknown pass), 3 internal error or unwritable output.\n");
}

/* Flags that name MLIR/Shardy passes; an unknown one is reported as a pass
 * rather than as a misspelt option. */
static bool looks_like_pass(const char *name, size_t len) {
  static const char *const mlir_passes[] = {"canonicalize", "cse", "inline", "symbol-dce", "sccp", "pass-pipeline"};
  if (len > 4 && memcmp(name, "sdy-", 4) == 0) return true;
  for (size_t i = 0; i < sizeof mlir_passes / sizeof mlir_passes[0]; i++)
    if (strlen(mlir_passes[i]) == len && memcmp(mlir_passes[i], name, len) == 0) return true;
  return false;
}

/* Parses argv into cfg. Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, opt_config *cfg) {
  bool options_done = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (cfg->input) return cli_usage_error("opt", "too many input files (at '%s'); shard opt reads one", arg);
      cfg->input = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = true;
      continue;
    }
    /* LLVM's option parser takes -name and --name alike, with an optional =value. */
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const char *value = eq ? eq + 1 : NULL;
#define IS(s) (len == strlen(s) && memcmp(name, s, len) == 0)
    if (IS("h") || IS("help")) {
      cmd_opt_usage(stdout);
      return CLI_EXIT_OK;
    } else if (IS("o")) {
      if (!value) {
        if (i + 1 >= argc) return cli_usage_error("opt", "'%s' needs a file name", arg);
        value = argv[++i];
      }
      if (!*value) return cli_usage_error("opt", "'%s' needs a file name", arg);
      cfg->output = value;
    } else if (IS("split-input-file")) {
      if (value && strcmp(value, SHARD_SPLIT_MARKER) != 0)
        return cli_usage_error("opt", "only the default split marker is supported (got '%s')", arg);
      cfg->split = true;
    } else if (IS("verify-diagnostics")) {
      if (value && strcmp(value, "all") != 0) return cli_usage_error("opt", "unsupported value in '%s'", arg);
      cfg->verify_diagnostics = true;
    } else if (IS("allow-unregistered-dialect")) {
      cfg->allow_unregistered = true;
    } else if (IS("mlir-print-op-generic")) {
      cfg->print.generic = true;
    } else if (IS("mlir-print-debuginfo")) {
      cfg->print.debug_info = true;
    } else {
      const shard_pass_def *p = shard_pass_find(name, len);
      if (!p) {
        unsigned np;
        const shard_pass_def *all = shard_pass_registry(&np);
        const char **names = shard_xcalloc(np + 1, sizeof *names);
        for (unsigned k = 0; k < np; k++) names[k] = all[k].name;
        const char *guess = cli_did_you_mean(name, len, names, np);
        int code =
            guess
                ? cli_usage_error("opt", "%s '%s'; did you mean '-%s'?",
                                  looks_like_pass(name, len) ? "unknown pass" : "unknown option", arg, guess)
                : cli_usage_error("opt", looks_like_pass(name, len) ? "unknown pass '%s'" : "unknown option '%s'", arg);
        free(names);
        return code;
      }
      shard_buf why;
      shard_buf_init(&why);
      if (!shard_pass_options_validate(p, value, &why)) {
        int code = cli_usage_error("opt", "%s", shard_buf_str(&why));
        shard_buf_free(&why);
        return code;
      }
      shard_buf_free(&why);
      requested_pass rp = {p, value};
      SHARD_VEC_PUSH(cfg->passes, rp);
    }
#undef IS
  }
  if (!cfg->input) cfg->input = "-";
  return -1;
}

/* A module printed straight to its destination instead of into `out`
 * (cli_write_module): done once that was tried, code what it came to. */
typedef struct opt_stream {
  const char *path;
  bool done;
  int code;
} opt_stream;

/* Parses, verifies, transforms and prints one chunk into `out` (or through
 * it to stream's destination). Returns true when the chunk went through
 * without errors. */
static bool process_chunk(const opt_config *cfg, shard_source *chunk, shard_diag_engine *de, shard_buf *out,
                          opt_stream *stream) {
  shard_parse_options popts = {
      .allow_unregistered = cfg->allow_unregistered, .max_depth = 0, .read_past = cli_input_read_past};
  shard_module *m = shard_parse_module(chunk, &popts, de);
  if (!m || de->errors) goto fail;
  shard_verify_options vopts = {.extra_warnings = false};
  if (!shard_verify_module(m, &vopts, de) || de->errors) goto fail;
  for (uint32_t i = 0; i < cfg->passes.len; i++) {
    const requested_pass *rp = &cfg->passes.items[i];
    if (!rp->pass->run(m, rp->options, SHARD_PASS_CONTEXT(de)) || de->errors) goto fail;
    /* mlir-opt verifies after every pass: a pass that breaks an invariant
     * is a failure of that pass, not of the next one. */
    if (!shard_verify_module(m, &vopts, de) || de->errors) goto fail;
  }
  if (stream) {
    stream->done = true;
    stream->code = cli_write_module("opt", stream->path, m, &cfg->print, NULL);
  } else {
    size_t before = out->len;
    shard_print_module(out, m, &cfg->print);
    if (out->len > before && out->data[out->len - 1] != '\n') shard_buf_putc(out, '\n');
  }
  shard_module_free(m);
  return true;
fail:
  if (m) shard_module_free(m);
  return false;
}

int cmd_opt(int argc, char **argv) {
  opt_config cfg = {0};
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) {
    SHARD_VEC_FREE(cfg.passes);
    return code;
  }

  char *text = NULL;
  size_t len = 0;
  code = cli_read_transform_input("opt", cfg.input, cfg.output, &text, &len);
  if (code >= 0) {
    SHARD_VEC_FREE(cfg.passes);
    return code;
  }
  shard_buf err;
  shard_buf_init(&err);

  shard_diag_printer printer = {stderr, cli_use_color(CLI_COLOR_AUTO, stderr), true};
  shard_diag_engine to_stderr;
  shard_diag_init(&to_stderr, shard_diag_print_text, &printer);

  shard_source whole = {cli_input_name(cfg.input), text, len, 0};
  shard_source *chunks = NULL;
  uint32_t num_chunks = 1;
  if (cfg.split) {
    num_chunks = shard_source_split(&whole, &chunks, &to_stderr);
  } else {
    chunks = shard_xmalloc(sizeof *chunks);
    chunks[0] = whole;
  }

  shard_buf out;
  shard_buf_init(&out);
  /* One module (no --split-input-file) is printed as it goes, once it went
   * through: its text is never all in memory. */
  opt_stream stream = {cfg.output, false, CLI_EXIT_OK};
  bool ok = true;
  for (uint32_t c = 0; c < num_chunks; c++) {
    if (c > 0) shard_buf_puts(&out, SHARD_SPLIT_MARKER "\n");
    shard_diag_engine de;
    if (cfg.verify_diagnostics) {
      /* Each chunk is checked against its own designators, as mlir-opt does. */
      shard_diag_engine report;
      shard_diag_init(&report, shard_diag_print_text, &printer);
      shard_expect *ex = shard_expect_new(&chunks[c], &report);
      shard_diag_init(&de, shard_expect_consume, ex);
      process_chunk(&cfg, &chunks[c], &de, &out, NULL);
      if (!shard_expect_finish(ex)) ok = false;
      shard_expect_free(ex);
    } else {
      shard_diag_init(&de, shard_diag_print_text, &printer);
      if (!process_chunk(&cfg, &chunks[c], &de, &out, num_chunks == 1 ? &stream : NULL)) ok = false;
    }
  }

  int exit_code = ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
  if (stream.done) {
    if (stream.code != CLI_EXIT_OK) exit_code = stream.code;
  } else if (ok || !cfg.output || strcmp(cfg.output, "-") == 0) {
    /* Like mlir-opt's ToolOutputFile: a file is only written on success. */
    int wrote = cli_write_output("opt", cfg.output, out.data, out.len);
    if (wrote != CLI_EXIT_OK) exit_code = wrote;
  }

  shard_buf_free(&out);
  shard_buf_free(&err);
  free(chunks);
  cli_input_free(text);
  SHARD_VEC_FREE(cfg.passes);
  return exit_code;
}
