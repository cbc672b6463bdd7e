/* `shard check`: parse and verify files (or design-doc snippets given with
 * -e) and report every problem, with shard's own warnings on top of
 * Shardy's verifier.
 *
 * Each file, or each `// -----` chunk with --split-input-file, is parsed and
 * verified on its own, and checking goes on after errors so one run reports
 * everything. Diagnostics go to a sink (diag_format.c) that prints text at
 * once or collects JSON/SARIF for one document on stdout at the end.
 *
 * Exit status: 0 when nothing was wrong (warnings allowed unless --Werror),
 * 1 when some input had errors, 2 for a bad command line, 3 when the report
 * itself could not be written. */
#include <stdlib.h>
#include <string.h>

#include "ir/attr.h"
#include "cli.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "sdy/sharding.h"
#include "ir/split.h"
#include "verify/verify.h"
#include "xla/xla_import.h"

/* ---- hook: HloSharding dumps and snippets (hlo_dump_check.c, convert.h) ---- */
bool shard_dump_detect(const char *text, size_t len);
bool shard_dump_detect_reading(const char *text, size_t len, void (*read_past)(const char *p));
bool cli_check_hlo_dump(const shard_source *src, cli_sink *sink, bool text_out);
bool cli_check_hlo_snippet(const char *text, cli_sink *sink, bool text_out, bool werror);
/* ---- end of hook declarations ---- */

typedef struct check_config {
  SHARD_VEC(const char *) files;
  SHARD_VEC(const char *) snippets;
  bool split;
  bool werror;
  /* SHARD_CHECK_WHOLE_MODULE set: never the streamed check (tests compare
   * the two) */
  bool whole_module;
  cli_format format;
  cli_color_mode color;
} check_config;

void cmd_check_usage(FILE *f) {
  fprintf(f, "usage: shard check [options] FILE... | -\n"
             "       shard check [options] -e SNIPPET\n"
             "\n"
             "Parses and verifies MLIR files with Shardy shardings: every check of Shardy's\n"
             "verifier (same messages), plus shard's warnings (dimensions not divisible by\n"
             "their shards, meshes with different device counts, size-1 axes).\n"
             "\n"
             "Options:\n"
             "  -e SNIPPET            check a snippet in design-doc notation instead of a file;\n"
             "                        lines (or ';'-separated parts) are mesh definitions\n"
             "                        '@mesh = <[\"x\"=2, \"y\"=4]>' and shardings\n"
             "                        'sharding<@mesh, [{\"x\"}, {}]> : tensor<4x8xf32>';\n"
             "                        prints each sharding's local (per-device) shape\n"
             "  --split-input-file    check each '// -----' chunk separately\n"
             "  --format=FORMAT       text (default), json, or sarif (SARIF 2.1.0 on stdout)\n"
             "  --Werror              treat warnings as errors\n"
             "  --color=WHEN          auto (default; honours NO_COLOR), always, never\n"
             "  -h, --help            show this help\n"
             "\n"
             "Exit status: 0 no errors, 1 errors found, 2 usage error, 3 internal error.\n");
}

/* Matches `--name`, `-name`, and their `=value` forms; for options that take
 * a value, also `--name value`. Sets *value (NULL when absent). */
static bool match_opt(int argc, char **argv, int *i, const char *name, bool takes_value, const char **value) {
  const char *arg = argv[*i];
  const char *p = arg + (arg[1] == '-' ? 2 : 1);
  size_t n = strlen(name);
  if (strncmp(p, name, n) != 0) return false;
  if (p[n] == '\0') {
    *value = NULL;
    if (takes_value && *i + 1 < argc) *value = argv[++*i];
    return true;
  }
  if (p[n] == '=') {
    *value = p + n + 1;
    return true;
  }
  return false;
}

static int parse_args(int argc, char **argv, check_config *cfg) {
  bool options_done = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *value;
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      SHARD_VEC_PUSH(cfg->files, arg);
    } else if (strcmp(arg, "--") == 0) {
      options_done = true;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_check_usage(stdout);
      return CLI_EXIT_OK;
    } else if (strncmp(arg, "-e", 2) == 0 && arg[1] != '-') {
      const char *snippet = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!snippet) return cli_usage_error("check", "'%s' needs a snippet", arg);
      SHARD_VEC_PUSH(cfg->snippets, snippet);
    } else if (match_opt(argc, argv, &i, "split-input-file", false, &value)) {
      if (value) return cli_usage_error("check", "'%s' takes no value", arg);
      cfg->split = true;
    } else if (match_opt(argc, argv, &i, "Werror", false, &value)) {
      if (value) return cli_usage_error("check", "'%s' takes no value", arg);
      cfg->werror = true;
    } else if (match_opt(argc, argv, &i, "format", true, &value)) {
      if (!value || !cli_parse_format(value, &cfg->format))
        return cli_usage_error("check", "--format must be text, json or sarif (got '%s')", value ? value : "");
    } else if (match_opt(argc, argv, &i, "color", false, &value)) {
      /* Bare --color means always, as in git and grep. */
      if (!value) cfg->color = CLI_COLOR_ALWAYS;
      else if (!cli_parse_color(value, &cfg->color))
        return cli_usage_error("check", "--color must be auto, always or never (got '%s')", value);
    } else {
      return cli_usage_error("check", "unknown option '%s'", arg);
    }
  }
  if (cfg->files.len == 0 && cfg->snippets.len == 0)
    return cli_usage_error("check", "%s", "no input files (use '-' for standard input, or -e SNIPPET)");
  return -1;
}

/* ---- streamed check ---------------------------------------------------- */

/* A module of many functions is checked one function at a time, each let go
 * once verified (shard_verify_stream), so its peak memory is one function's,
 * not the module's. That check answers only "is the module clean?": when it
 * is not sure, or something is to be reported, check_source starts over
 * with the whole module, which says everything in its order. Nothing is
 * said on the way: parse diagnostics only note that something was. */
typedef struct stream_check {
  shard_verify_stream *vs;
  bool said, streamed, refused;
} stream_check;

static void stream_diag(void *ctx, const shard_diag *d) {
  (void)d;
  ((stream_check *)ctx)->said = true;
}

static bool stream_top_op(void *ctx, shard_op *op) {
  stream_check *sc = ctx;
  sc->streamed = true;
  /* an op to import first (XLA's round-trip form) is checked as imported */
  if (sc->said || shard_xla_op_in_round_trip_form(op) || !shard_verify_stream_op(sc->vs, op)) sc->refused = true;
  return !sc->refused;
}

/* A piece of a function body (shard_parse_options.body_ops): verified and
 * let go like a function. */
static bool stream_body_ops(void *ctx, shard_block *b) {
  stream_check *sc = ctx;
  for (const shard_op *op = b->first; op && !sc->refused; op = op->next)
    if (shard_xla_op_in_round_trip_form(op)) sc->refused = true;
  return !sc->said && !sc->refused && shard_verify_stream_body_ops(sc->vs, b);
}

/* True when the module was checked and is clean (nothing to report). */
static bool check_streamed(shard_source *src) {
  if (!shard_xla_input_is_mlir(src->text, src->len)) return false;
  stream_check sc = {shard_verify_stream_new(&(shard_verify_options){.extra_warnings = true}), false, false, false};
  shard_diag_engine de;
  shard_diag_init(&de, stream_diag, &sc);
  shard_parse_options popts = {.allow_unregistered = true,
                               .max_depth = 0,
                               .read_past = cli_input_read_past,
                               .top_op = stream_top_op,
                               .body_ops = stream_body_ops,
                               .top_op_ctx = &sc};
  shard_module *m = shard_parse_module(src, &popts, &de);
  bool clean = m && sc.streamed && !sc.refused && !sc.said && !shard_xla_is_round_trip_form(m) &&
               shard_verify_stream_finish(sc.vs, m) && !sc.said;
  shard_module_free(m);
  shard_verify_stream_free(sc.vs);
  return clean;
}

static void check_source(const check_config *cfg, shard_source *src, cli_sink *sink) {
  if (!cfg->whole_module && check_streamed(src)) return;
  cli_input_reread(src->text); /* read again from the start */
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, sink);
  de.warnings_as_errors = cfg->werror;
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0, .read_past = cli_input_read_past};
  shard_xla_input xin;
  shard_module *m = shard_xla_read_input(src, &popts, &xin, &de);
  if (!m) {
    /* A failure nobody explained must still fail the run. */
    if (de.errors == 0)
      shard_error(&de, shard_no_span, "internal error: parsing '%s' failed without a diagnostic", src->name);
    shard_xla_input_release(&xin);
    return;
  }
  shard_verify_options vopts = {.extra_warnings = true};
  if (!shard_verify_module(m, &vopts, &de) && de.errors == 0)
    shard_error(&de, shard_no_span, "internal error: verifying '%s' failed without a diagnostic", src->name);
  shard_module_free(m);
  shard_xla_input_release(&xin);
}

static void check_file(const check_config *cfg, const char *path, cli_sink *sink) {
  shard_buf err;
  shard_buf_init(&err);
  char *text;
  size_t len;
  if (!cli_read_input(path, &text, &len, &err)) {
    cli_sink_file_error(sink, cli_input_name(path), "%s", shard_buf_str(&err));
    shard_buf_free(&err);
    return;
  }
  shard_buf_free(&err);
  shard_source whole = {cli_input_name(path), text, len, 0};
  /* hook: XLA dumps list and validate their HloShardings; HLO text stops
   * here. With --split-input-file each chunk is a module of its own (its
   * device count too). */
  if (!cfg->split && shard_dump_detect_reading(text, len, cli_input_read_past) &&
      !shard_xla_is_hlo_round_trip_text(text, len) &&
      cli_check_hlo_dump(&whole, sink, cfg->format == CLI_FORMAT_TEXT)) {
    cli_input_free(text);
    return;
  }
  cli_input_reread(text); /* the sniff gave the pages back */
  if (cfg->split) {
    shard_diag_engine de;
    shard_diag_init(&de, cli_sink_diag, sink);
    de.warnings_as_errors = cfg->werror;
    shard_source *chunks;
    uint32_t n = shard_source_split(&whole, &chunks, &de);
    for (uint32_t i = 0; i < n; i++)
      if (!(shard_dump_detect(chunks[i].text, chunks[i].len) &&
            !shard_xla_is_hlo_round_trip_text(chunks[i].text, chunks[i].len) &&
            cli_check_hlo_dump(&chunks[i], sink, cfg->format == CLI_FORMAT_TEXT)))
        check_source(cfg, &chunks[i], sink);
    free(chunks);
  } else {
    check_source(cfg, &whole, sink);
  }
  cli_input_free(text);
}

/* Forwards diagnostics on the generated module to the sink, re-pointed at
 * the snippet the user wrote. */
typedef struct snippet_relay {
  const cli_snippet *snippet;
  cli_sink *sink;
} snippet_relay;

static void relay_diag(void *ctx, const shard_diag *d) {
  snippet_relay *r = ctx;
  shard_diag mapped = *d;
  mapped.span = cli_snippet_map(r->snippet, d->span);
  /* "'func.func' op arg 1 - unknown axis name" talks about the wrapper the
   * user never wrote; name the snippet's sharding instead. */
  static const char wrapper[] = "'func.func' op arg ";
  shard_buf msg;
  shard_buf_init(&msg);
  if (strncmp(d->message, wrapper, sizeof wrapper - 1) == 0) {
    const char *p = d->message + sizeof wrapper - 1;
    char *end;
    unsigned long arg = strtoul(p, &end, 10);
    if (end != p && strncmp(end, " - ", 3) == 0) {
      if (r->snippet->num_shardings > 1) shard_buf_printf(&msg, "sharding %lu: %s", arg + 1, end + 3);
      else shard_buf_puts(&msg, end + 3);
      mapped.message = shard_buf_str(&msg);
      /* Point at that sharding unless the span already lies inside it. */
      if (arg < r->snippet->num_shardings) {
        const cli_snippet_sharding *sh = &r->snippet->shardings[arg];
        if (mapped.span.off < sh->off || mapped.span.off > sh->off + sh->len) {
          shard_span at = {&r->snippet->snippet, sh->off, sh->len};
          mapped.span = at;
        }
      }
    }
  }
  cli_sink_diag(r->sink, &mapped);
  shard_buf_free(&msg);
}

/* tensor<2x8xf32> from dims and the element type of `t`. */
static void print_tensor(shard_buf *b, const int64_t *dims, uint32_t rank, const shard_type *t) {
  shard_buf_puts(b, "tensor<");
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] == SHARD_DYNAMIC_DIM) shard_buf_putc(b, '?');
    else shard_buf_printf(b, "%lld", (long long)dims[d]);
    shard_buf_putc(b, 'x');
  }
  shard_buf_printf(b, "%s>", t->elem ? t->elem : "?");
}

/* After a clean verification: the local shape of every snippet sharding. */
static void report_local_shapes(const cli_snippet *sn, shard_module *m, cli_sink *sink, bool text_out) {
  shard_op *fn = shard_module_lookup_symbol(m, "snippet");
  if (!fn && m->top && m->top->num_regions && m->top->regions[0].first)
    for (shard_op *op = m->top->regions[0].first->first; op && !fn; op = op->next)
      if (strcmp(op->name, "func.func") == 0) fn = op;
  if (!fn || fn->num_regions == 0 || !fn->regions[0].first) return;
  const shard_block *entry = fn->regions[0].first;
  for (uint32_t i = 0; i < entry->num_args && i < sn->num_shardings; i++) {
    const shard_value *arg = &entry->args[i];
    const shard_attr *a = shard_value_attr(arg, "sdy.sharding");
    const shard_type *t = arg->type;
    if (!a || a->kind != SHARD_ATTR_SDY_SHARDING || !t || t->kind != SHARD_TYPE_TENSOR) continue;
    const shard_tensor_sharding *s = a->u.sharding;
    const shard_mesh *mesh = shard_module_sharding_mesh(m, s);
    if (!mesh || s->rank != t->rank) continue;
    int64_t *local = shard_xcalloc(t->rank ? t->rank : 1, sizeof *local);
    shard_sharding_local_shape(s, mesh, t->dims, local);
    shard_buf global_text, local_text;
    shard_buf_init(&global_text);
    shard_buf_init(&local_text);
    print_tensor(&global_text, t->dims, t->rank, t);
    print_tensor(&local_text, local, t->rank, t);
    long long devices = (long long)shard_mesh_num_devices(mesh);
    const cli_snippet_sharding *sh = &sn->shardings[i];
    char *sharding_text = shard_xstrndup(sn->snippet.text + sh->off, sh->len);
    if (text_out)
      printf("local shape: %s (global %s, %lld devices)\n", shard_buf_str(&local_text), shard_buf_str(&global_text),
             devices);
    cli_sink_local_shape(sink, sharding_text, shard_buf_str(&global_text), shard_buf_str(&local_text), devices);
    free(sharding_text);
    shard_buf_free(&global_text);
    shard_buf_free(&local_text);
    free(local);
  }
}

static void check_snippet(const check_config *cfg, const char *text, cli_sink *sink) {
  /* hook: an HloSharding snippet, `{devices=[2,2]<=[4]} : tensor<8x16xf32>` */
  if (cli_check_hlo_snippet(text, sink, cfg->format == CLI_FORMAT_TEXT, cfg->werror)) return;
  cli_snippet sn;
  snippet_relay relay = {&sn, sink};
  shard_diag_engine de;
  shard_diag_init(&de, relay_diag, &relay);
  de.warnings_as_errors = cfg->werror;
  if (cli_snippet_build(&sn, text, &de)) {
    shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0};
    shard_module *m = shard_parse_module(&sn.module, &popts, &de);
    if (m) {
      shard_verify_options vopts = {.extra_warnings = true};
      if (shard_verify_module(m, &vopts, &de) && de.errors == 0)
        report_local_shapes(&sn, m, sink, cfg->format == CLI_FORMAT_TEXT);
      shard_module_free(m);
    }
  }
  cli_snippet_free(&sn);
}

int cmd_check(int argc, char **argv) {
  check_config cfg = {0};
  cfg.format = CLI_FORMAT_TEXT;
  cfg.color = CLI_COLOR_AUTO;
  cfg.whole_module = getenv("SHARD_CHECK_WHOLE_MODULE") != NULL;
  int code = parse_args(argc, argv, &cfg);
  if (code < 0) {
    cli_sink sink;
    cli_sink_init(&sink, cfg.format, stderr, cli_use_color(cfg.color, stderr));
    for (uint32_t i = 0; i < cfg.snippets.len; i++) check_snippet(&cfg, cfg.snippets.items[i], &sink);
    for (uint32_t i = 0; i < cfg.files.len; i++) check_file(&cfg, cfg.files.items[i], &sink);
    if (!cli_sink_finish(&sink, stdout) || fflush(stdout) != 0) code = CLI_EXIT_INTERNAL;
    else code = sink.errors ? CLI_EXIT_INVALID : CLI_EXIT_OK;
    cli_sink_free(&sink);
  }
  SHARD_VEC_FREE(cfg.files);
  SHARD_VEC_FREE(cfg.snippets);
  return code;
}
