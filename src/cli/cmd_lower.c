/* `shard lower`: from annotated program to explicit communication.
 *
 *   shard lower model.mlir --plan --topology tpu-v5e:4x2
 *
 * Parses and verifies FILE, then runs (verified after the steps that can
 * make valid IR invalid, or with --verify-each after every step):
 *   1. -sdy-propagation-pipeline (skipped with --no-propagate, which only
 *      turns sharding constraints into reshards and closes shardings);
 *   2. -sdy-export-pipeline with explicit collectives: explicit reshards
 *      (-sdy-insert-explicit-reshards: sdy.reshard where an operand's
 *      sharding disagrees with its op's rule, sdy.all_reduce after sharded
 *      reductions), reshards lowered to sdy collectives
 *      (-sdy-reshard-to-collectives) and the collective canonicalization
 *      (all_reduce + all_slice become reduce_scatter); meshes stay symbols;
 * and prints the lowered module. With --plan it also prints the
 * communication plan (comm_plan.h) of the lowered module: as `//` comment
 * lines after the module (the output stays valid MLIR), or with
 * --plan=json as a JSON document on stdout (the module then goes only to
 * -o, if given).
 *
 * --local prints the per-device program instead: the lowered module is
 * printed, read back and run through the last stages of Shardy's
 * partitioner: -sdy-resolve-permutation-factors, -sdy-reshard-to-collectives
 * and the collective canonicalization for the reshards it adds,
 * -sdy-pad-for-divisibility, -sdy-resolve-single-device-sharding and
 * -sdy-convert-global-to-local (local shapes, StableHLO collectives).
 * --verify runs the input program and the per-device one with the
 * reference interpreter and compares every device's results with its
 * pieces of the global results (lower_verify.h);
 * --verify-local FILE checks FILE as the per-device program instead of the
 * one shard produced (a hand-written or hand-edited partitioning). Output is
 * written only on success, atomically with -o. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost/comm_plan.h"
#include "cost/memory.h"
#include "pipeline/lower_pipeline.h"
#include "lower_verify.h"
#include "progress.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "topology_file.h"
#include "verify/verify.h"
#include "xla/xla_import.h"

void cmd_lower_usage(FILE *f);
int cmd_lower(int argc, char **argv);

typedef enum { PLAN_NONE, PLAN_TEXT, PLAN_JSON } plan_mode;

typedef struct lower_config {
  const char *input, *output, *topology, *verify_local;
  bool local, verify, no_propagate, no_progress, verify_each;
  plan_mode plan;
  plan_mode memory; /* --memory[=text|json] */
  int64_t memory_limit; /* --memory-limit; 0: none */
  long top;
  int64_t max_steps; /* --max-steps; 0: the interpreter's default */
} lower_config;

void cmd_lower_usage(FILE *f) {
  fprintf(f,
          "usage: shard lower [options] FILE\n"
          "\n"
          "Propagates shardings, inserts explicit reshards, lowers them to sdy collectives\n"
          "(all_gather, all_slice, all_to_all, collective_permute, all_reduce,\n"
          "reduce_scatter) and prints the module. FILE '-' reads standard input.\n"
          "\n"
          "Options:\n"
          "  -o FILE             write the module to FILE (atomically; untouched on failure)\n"
          "  --plan[=text|json]  print the communication plan: every collective with the op\n"
          "                      that needs it, why, its axes, group size and count, bytes\n"
          "                      sent and received per device and estimated time, then\n"
          "                      totals and the top offenders. text: '//' lines after the\n"
          "                      module; json: one JSON document on stdout (the module goes\n"
          "                      to -o only)\n"
          "  --memory[=text|json]\n"
          "                      print the static memory of each function per device:\n"
          "                      arguments and results at their local shapes, the peak of\n"
          "                      the values live at once, where it is and the largest\n"
          "                      values live there; then the device memory of the topology\n"
          "                      and whether the peak fits. text: '//' lines after the\n"
          "                      module; json: one JSON document on stdout (module to -o)\n"
          "  --memory-limit B    fail (exit 1, error at the peak op) when the peak needs\n"
          "                      more than B bytes per device: 17179869184, 16GiB, 80GB\n"
          "  --top N             how many top offenders (--plan) or largest live values\n"
          "                      (--memory) to list (default 5)\n"
          "  --topology T        tpu-v4p, tpu-v5p (default), tpu-v5e, tpu-v6e, h100, h200,\n"
          "                      b200, optionally :DIMS (tpu-v5e:8x4, h100:16) and\n"
          "                      ,wrap/,nowrap; or a JSON file\n"
          "  --no-propagate      use the shardings as written (no propagation)\n"
          "  --verify-each       verify the module after every step of the pipeline, not\n"
          "                      only the input and the steps that can make it invalid\n"
          "  --local             print the per-device program (local shapes, StableHLO\n"
          "                      collectives) instead of the lowered global one\n"
          "  --verify            run the global program and the per-device program on every\n"
          "                      device with the interpreter and compare the results\n"
          "  --verify-local F    like --verify, but checks the per-device program in F\n"
          "                      instead of the one shard produces\n"
          "  --max-steps N       with --verify: stop with an error after N ops on one\n"
          "                      device (default 20000000), e.g. in a loop that never ends\n"
          "  --no-progress       no status line on a terminal (shown on stderr while\n"
          "                      lowering and verifying when it is a TTY, unless TERM=dumb)\n"
          "  -h, --help          show this help\n"
          "\n"
          "%s"
          "\n"
          "Exit status: 0 success, 1 invalid input or a pass failed, 2 usage error,\n"
          "3 output could not be written.\n",
          cli_topology_json_help);
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "shard lower: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nSee 'shard lower --help'.\n");
  return CLI_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, lower_config *cfg) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_lower_usage(stdout);
      return CLI_EXIT_OK;
    } else if (strcmp(arg, "-o") == 0 || strncmp(arg, "-o=", 3) == 0) {
      const char *v = arg[2] == '=' ? arg + 3 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return usage_error("'%s' needs a file name", arg);
      cfg->output = v;
    } else if (strcmp(arg, "--plan") == 0 || strcmp(arg, "--plan=text") == 0) {
      cfg->plan = PLAN_TEXT;
    } else if (strcmp(arg, "--plan=json") == 0) {
      cfg->plan = PLAN_JSON;
    } else if (strncmp(arg, "--plan=", 7) == 0) {
      return usage_error("--plan takes text or json (got '%s')", arg + 7);
    } else if (strcmp(arg, "--memory") == 0 || strcmp(arg, "--memory=text") == 0) {
      cfg->memory = PLAN_TEXT;
    } else if (strcmp(arg, "--memory=json") == 0) {
      cfg->memory = PLAN_JSON;
    } else if (strcmp(arg, "--memory-limit") == 0 || strncmp(arg, "--memory-limit=", 15) == 0) {
      const char *v = arg[14] == '=' ? arg + 15 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !shard_memory_parse_bytes(v, &cfg->memory_limit))
        return usage_error("--memory-limit needs a byte count such as 17179869184, 16GiB or 80GB "
                           "(got '%s')",
                           v ? v : "");
    } else if (strncmp(arg, "--memory=", 9) == 0) {
      return usage_error("--memory takes text or json (got '%s')", arg + 9);
    } else if (strcmp(arg, "--topology") == 0 || strncmp(arg, "--topology=", 11) == 0) {
      const char *v = arg[10] == '=' ? arg + 11 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return usage_error("'%s' needs a topology", arg);
      cfg->topology = v;
    } else if (strcmp(arg, "--top") == 0 || strncmp(arg, "--top=", 6) == 0) {
      const char *v = arg[5] == '=' ? arg + 6 : (i + 1 < argc ? argv[++i] : NULL);
      char *end;
      long n = v ? strtol(v, &end, 10) : -1;
      if (!v || !*v || *end || n < 0 || n > 1000)
        return usage_error("--top needs a count from 0 to 1000 (got '%s')", v ? v : "");
      cfg->top = n;
    } else if (strcmp(arg, "--local") == 0) {
      cfg->local = true;
    } else if (strcmp(arg, "--verify") == 0) {
      cfg->verify = true;
    } else if (strcmp(arg, "--verify-local") == 0 || strncmp(arg, "--verify-local=", 15) == 0) {
      const char *v = arg[14] == '=' ? arg + 15 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return usage_error("'%s' needs a file name", arg);
      cfg->verify_local = v;
      cfg->verify = true;
    } else if (strcmp(arg, "--max-steps") == 0 || strncmp(arg, "--max-steps=", 12) == 0) {
      const char *v = arg[11] == '=' ? arg + 12 : (i + 1 < argc ? argv[++i] : NULL);
      char *end;
      errno = 0;
      long long n = v && *v && *v != '-' ? strtoll(v, &end, 10) : -1;
      if (!v || !*v || *v == '-' || *end || errno || n < 1 || n > 1000000000000LL)
        return usage_error("--max-steps needs a count from 1 to 1000000000000 (got '%s')", v ? v : "");
      cfg->max_steps = n;
    } else if (strcmp(arg, "--no-progress") == 0) {
      cfg->no_progress = true;
    } else if (strcmp(arg, "--no-propagate") == 0) {
      cfg->no_propagate = true;
    } else if (strcmp(arg, "--verify-each") == 0) {
      cfg->verify_each = true;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return usage_error("unknown option '%s'", arg);
    } else {
      if (cfg->input) return usage_error("more than one input file given ('%s')", arg);
      cfg->input = arg;
    }
  }
  if (!cfg->input) return usage_error("%s", "no input file given");
  if (cfg->plan != PLAN_NONE && cfg->memory != PLAN_NONE && (cfg->plan == PLAN_JSON || cfg->memory == PLAN_JSON))
    return usage_error("%s", "--plan and --memory print one JSON document each: give one of them, "
                             "or both as text");
  return -1;
}

/* Prefixes every line from `start` to the end of `b` with "// " ("//" when
 * empty; a last line without '\n' gets one), in place from the back so
 * nothing is read after it is overwritten: the plan of a big module is tens
 * of megabytes, and a second copy of it was the peak of `lower --plan`. */
static void comment_lines_in_place(shard_buf *b, size_t start) {
  if (b->len == start) return;
  if (b->data[b->len - 1] != '\n') shard_buf_putc(b, '\n');
  size_t extra = 0;
  for (size_t i = start; i < b->len; i++)
    if (b->data[i] == '\n') extra += i > start && b->data[i - 1] != '\n' ? 3 : 2;
  size_t old_len = b->len;
  for (size_t k = 0; k < extra; k++) shard_buf_putc(b, ' ');
  char *d = b->data;
  size_t to = old_len + extra; /* one past where the next byte from the back goes */
  size_t end = old_len; /* one past the current line's '\n' */
  while (end > start) {
    size_t line = end - 1; /* the line is [line_start, end - 1), then '\n' */
    while (line > start && d[line - 1] != '\n') line--;
    size_t n = end - line; /* with its '\n' */
    to -= n;
    memmove(d + to, d + line, n);
    const char *prefix = n > 1 ? "// " : "//";
    size_t pn = n > 1 ? 3 : 2;
    to -= pn;
    memcpy(d + to, prefix, pn);
    end = line;
  }
}

/* A sink that comments every line it passes on (as comment_lines_in_place),
 * for a plan streamed to standard output after the module. */
typedef struct comment_sink {
  cli_output *out;
  bool line_start;
  shard_buf scratch;
} comment_sink;

static void comment_write(void *ctx, const char *data, size_t len) {
  comment_sink *c = ctx;
  shard_buf_clear(&c->scratch);
  for (size_t i = 0; i < len;) {
    if (c->line_start) shard_buf_puts(&c->scratch, data[i] == '\n' ? "//" : "// ");
    const char *nl = memchr(data + i, '\n', len - i);
    size_t end = nl ? (size_t)(nl - data) + 1 : len;
    shard_buf_putn(&c->scratch, data + i, end - i);
    c->line_start = nl != NULL;
    i = end;
  }
  cli_output_write(c->out, c->scratch.data, c->scratch.len);
}

/* Prints the plan to standard output through a window (buf.h): text as
 * `//` lines, json as it is. The plan's text is as long as the module's,
 * and whole it was a tenth of `lower --plan`'s peak. */
static int stream_plan(const shard_comm_plan *plan, plan_mode mode, uint32_t top) {
  int code;
  cli_output *o = cli_output_open("lower", NULL, &code);
  if (!o) return code;
  comment_sink c = {o, true, {0}};
  shard_buf_init(&c.scratch);
  shard_buf_sink commented = {comment_write, &c};
  shard_buf window;
  shard_buf_init(&window);
  window.sink = mode == PLAN_JSON ? cli_output_sink(o) : &commented;
  if (mode == PLAN_JSON) {
    shard_comm_plan_print_json(&window, plan, top);
  } else {
    shard_buf_puts(&window, "communication plan\n");
    shard_comm_plan_print_text(&window, plan, top);
    if (window.len && window.data[window.len - 1] != '\n') shard_buf_putc(&window, '\n');
  }
  shard_buf_drain_all(&window);
  shard_buf_free(&window);
  shard_buf_free(&c.scratch);
  return cli_output_close(o, true);
}

static int64_t module_num_devices(const shard_module *m) {
  int64_t most = 1;
  for (shard_op *op = m->top->regions[0].first ? m->top->regions[0].first->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "sdy.mesh") != 0) continue;
    shard_attr *mesh = shard_op_attr(op, "mesh");
    if (mesh && mesh->kind == SHARD_ATTR_SDY_MESH) {
      int64_t n = shard_mesh_num_devices(mesh->u.mesh);
      if (n > most) most = n;
    }
  }
  return most;
}

/* Reads a module from text that must stay alive as long as the module. */
static shard_module *parse_text(const char *name, const char *text, size_t len, shard_diag_engine *de) {
  shard_source *src = shard_xmalloc(sizeof *src);
  *src = (shard_source){name, text, len, 0};
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_parse_module(src, &popts, de);
  if (m && de->errors) {
    shard_module_free(m);
    m = NULL;
  }
  if (!m) free(src);
  return m;
}

static void free_parsed(shard_module *m) {
  if (!m) return;
  shard_source *src = m->src;
  shard_module_free(m);
  free(src);
}

/* The reference program of --verify read the way the input was: an HLO
 * dump or a module in XLA's round-trip form imported first (its note was
 * already given once). */
static void drop_notes(void *ctx, const shard_diag *d) {
  if (d->severity != SHARD_NOTE) shard_diag_emit(ctx, d->severity, d->span, "%s", d->message);
}

static shard_module *read_reference(shard_source *src, shard_xla_input *keep, shard_diag_engine *de) {
  shard_diag_engine quiet;
  shard_diag_init(&quiet, drop_notes, de);
  shard_parse_options popts = {.allow_unregistered = true, .max_depth = 0};
  shard_module *m = shard_xla_read_input(src, &popts, keep, &quiet);
  if (m && quiet.errors) {
    shard_module_free(m);
    m = NULL;
  }
  return m;
}

/* --local and --verify: the per-device program is the lowered module read
 * back and converted to local shapes (or the --verify-local file). With
 * --local it replaces `module_text`. With --verify both programs run. */
static bool per_device(const lower_config *cfg, shard_module *lowered, shard_buf *module_text, const char *input_text,
                       size_t input_len, shard_diag_engine *de) {
  char *local_text = NULL, *given = NULL;
  size_t given_len = 0;
  shard_module *local = NULL, *given_m = NULL, *ref = NULL;
  shard_xla_input ref_keep = {0};
  shard_source ref_src = {cli_input_name(cfg->input), input_text, input_len, 0};
  bool ok = false;
  local_text = shard_xmalloc(module_text->len + 1);
  memcpy(local_text, shard_buf_str(module_text), module_text->len + 1);
  local = parse_text("<lowered module>", local_text, module_text->len, de);
  if (!local || !shard_lower_to_local(local, de)) goto out;
  if (cfg->local) {
    shard_buf_clear(module_text);
    shard_print_options print = {0};
    shard_print_module(module_text, local, &print);
    if (module_text->len && module_text->data[module_text->len - 1] != '\n') shard_buf_putc(module_text, '\n');
  }
  if (!cfg->verify) {
    ok = true;
    goto out;
  }
  if (cfg->verify_local) {
    shard_buf err;
    shard_buf_init(&err);
    if (!cli_read_input(cfg->verify_local, &given, &given_len, &err)) {
      cli_report_read_error(cfg->verify_local, &err);
      shard_buf_free(&err);
      goto out;
    }
    shard_buf_free(&err);
    given_m = parse_text(cli_input_name(cfg->verify_local), given, given_len, de);
    if (!given_m) goto out;
  }
  ref = read_reference(&ref_src, &ref_keep, de);
  if (!ref) goto out;
  shard_buf notes;
  shard_buf_init(&notes);
  unsigned verified = 0;
  ok = cli_lower_verify(ref, lowered, given_m ? given_m : local, cfg->max_steps, de, &notes, &verified);
  cli_progress_finish();
  fputs(shard_buf_str(&notes), stderr);
  if (ok)
    fprintf(stderr, "shard lower: --verify: %u function%s of %s gave the same results on every device\n", verified,
            verified == 1 ? "" : "s", cli_input_name(cfg->input));
  if (ok && verified == 0) {
    fprintf(stderr, "shard lower: --verify: no function could be verified\n");
    ok = false;
  }
  shard_buf_free(&notes);
out:
  if (ref) shard_module_free(ref);
  shard_xla_input_release(&ref_keep);
  free_parsed(given_m);
  free_parsed(local);
  free(local_text);
  cli_input_free(given);
  return ok;
}

/* --memory and --memory-limit: the static memory report of the lowered
 * module (memory.h), appended to `out` as '//' lines or as JSON; exit 1
 * with an error at the peak op when the peak exceeds --memory-limit. */
static int lower_memory(const lower_config *cfg, const shard_module *m, shard_diag_engine *de, shard_buf *out) {
  shard_memory_report rep;
  shard_memory_options mopts = {.types_are_local = false};
  if (!shard_memory_analyze(&rep, m->arena, m, &mopts, de)) return CLI_EXIT_INVALID;
  int64_t device_memory = cfg->memory_limit;
  char source[128] = "--memory-limit";
  if (cfg->memory != PLAN_NONE || cfg->topology) {
    shard_topology topo;
    shard_buf err;
    shard_buf_init(&err);
    if (!cli_topology_resolve(cfg->topology, module_num_devices(m), &topo, &err)) {
      fprintf(stderr, "shard lower: %s\n", shard_buf_str(&err));
      shard_buf_free(&err);
      return CLI_EXIT_USAGE;
    }
    shard_buf_free(&err);
    if (!device_memory) {
      device_memory = topo.memory_bytes >= 1 ? (int64_t)topo.memory_bytes : 0;
      snprintf(source, sizeof source, "%s%s", topo.name, device_memory ? " device memory" : ": no \"memory_bytes\"");
    }
  }
  uint32_t top = (uint32_t)cfg->top;
  if (cfg->memory == PLAN_JSON) {
    shard_memory_print_json(out, &rep, top, device_memory, source);
  } else if (cfg->memory == PLAN_TEXT) {
    size_t start = out->len;
    shard_memory_print_text(out, &rep, top, device_memory, source);
    comment_lines_in_place(out, start);
  }
  if (!cfg->memory_limit || rep.peak_bytes <= cfg->memory_limit || !rep.num_functions) return CLI_EXIT_OK;
  const shard_memory_function *f = &rep.functions[rep.worst_function];
  const shard_memory_class *c = &f->classes[f->worst];
  shard_buf devs;
  shard_buf_init(&devs);
  shard_memory_print_devices(&devs, c->devices, c->num_devices);
  shard_error(de, shard_memory_point_span(f, c->peak_point),
              "'%s' needs %lld bytes per device at the memory peak of @%s, more than --memory-limit "
              "%lld bytes (device%s %s)",
              f->points[c->peak_point].op->name, (long long)c->peak_bytes, f->name, (long long)cfg->memory_limit,
              c->num_devices == 1 ? "" : "s", shard_buf_str(&devs));
  shard_buf_free(&devs);
  uint32_t n = c->num_live < top ? c->num_live : top;
  for (uint32_t i = 0; i < n; i++) {
    const shard_memory_buffer *b = &f->buffers[c->live[i]];
    shard_note(de, b->value ? b->at : shard_memory_point_span(f, b->def), "%lld bytes live there: %s%s%s",
               (long long)c->live_bytes[i], b->name, *b->shape ? " of type " : "", b->shape);
  }
  return CLI_EXIT_INVALID;
}

int cmd_lower(int argc, char **argv) {
  lower_config cfg = {0};
  cfg.top = 5;
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;

  shard_buf err;
  shard_buf_init(&err);
  char *text = NULL;
  size_t len = 0;
  if (!cli_read_input(cfg.input, &text, &len, &err)) {
    cli_report_read_error(cfg.input, &err);
    shard_buf_free(&err);
    return CLI_EXIT_INVALID;
  }
  if (cli_output_is_input(cfg.output)) {
    cli_input_free(text);
    shard_buf_free(&err);
    return usage_error("refusing to overwrite the input file '%s' with -o", cfg.output);
  }
  shard_diag_printer printer = {stderr, cli_use_color(CLI_COLOR_AUTO, stderr), true};
  shard_diag_engine de;
  shard_diag_init(&de, cli_progress_diag, &printer);
  cli_progress_start("lower", !cfg.no_progress);
  shard_source src = {cli_input_name(cfg.input), text, len, 0};
  shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0, .read_past = cli_input_read_past};
  shard_verify_options vopts = {.extra_warnings = false};
  shard_buf module_text, plan_text;
  shard_xla_input xin = {0};
  shard_buf_init(&module_text);
  shard_buf_init(&plan_text);
  code = CLI_EXIT_INVALID;
  cli_progress_update("parsing %s", src.name);
  shard_module *m = shard_xla_read_input(&src, &popts, &xin, &de);
  if (!m || de.errors || !shard_verify_module(m, &vopts, &de) || de.errors) goto done;
  cli_progress_update("%s", cfg.no_propagate ? "lowering" : "propagating and lowering");
  if (!shard_lower_pipeline_run(m, !cfg.no_propagate, cfg.verify_each, &de)) goto done;
  /* The per-device program is built from the module's text; otherwise the
   * module is printed last, straight to its destination (cli_write_module). */
  bool stream = !(cfg.local || cfg.verify);
  if (!stream) {
    shard_print_options print = {0};
    shard_print_module(&module_text, m, &print);
    if (module_text.len && module_text.data[module_text.len - 1] != '\n') shard_buf_putc(&module_text, '\n');
  }
  if ((cfg.local || cfg.verify) && !shard_lower_to_local_device_limit(m, &de)) goto done;
  if (cfg.local || cfg.verify) {
    cli_progress_update("%s", "building the per-device program");
    if (!per_device(&cfg, m, &module_text, text, len, &de)) goto done;
  }

  /* Where things go: the module to -o or stdout; the plan and the memory
   * report to stdout after it (text) or alone (json). A streamed module
   * is printed last; a gathered one (--local, --verify) has text reports
   * going to stdout with it printed after it in its buffer, not copied
   * there, and with -o and nothing left that can fail (no memory report) it
   * is written and freed before the plan is made: the module text and the
   * plan of a big module are tens of megabytes each. */
  bool to_file = cfg.output && strcmp(cfg.output, "-") != 0;
  shard_buf *report =
      !stream && !to_file && cfg.plan != PLAN_JSON && cfg.memory != PLAN_JSON ? &module_text : &plan_text;
  if (cfg.plan != PLAN_NONE) {
    shard_topology topo;
    if (!cli_topology_resolve(cfg.topology, module_num_devices(m), &topo, &err)) {
      fprintf(stderr, "shard lower: %s\n", shard_buf_str(&err));
      code = CLI_EXIT_USAGE;
      goto done;
    }
    if (!stream && to_file && cfg.memory == PLAN_NONE && !cfg.memory_limit) {
      cli_progress_finish();
      code = cli_write_output("lower", cfg.output, module_text.data, module_text.len);
      if (code != CLI_EXIT_OK) goto done;
      shard_buf_free(&module_text);
      to_file = false; /* written */
    }
    shard_comm_plan plan;
    shard_comm_plan_init(&plan, m->arena, &topo);
    /* Streamed after the module when nothing else goes to standard output
     * with it: the rows keep their collectives, the module is printed, then
     * the plan from them. */
    if (stream && cfg.memory == PLAN_NONE && !cfg.memory_limit) {
      plan.lazy_reasons = true;
      shard_comm_plan_module(&plan, m, &de);
      cli_progress_finish();
      code = cfg.plan == PLAN_JSON && !to_file
                 ? CLI_EXIT_OK
                 : cli_write_module("lower", to_file ? cfg.output : NULL, m, &(shard_print_options){0}, NULL);
      if (code == CLI_EXIT_OK) code = stream_plan(&plan, cfg.plan, (uint32_t)cfg.top);
      shard_comm_plan_free(&plan);
      goto done;
    }
    shard_comm_plan_module(&plan, m, &de);
    if (cfg.plan == PLAN_JSON) {
      shard_comm_plan_print_json(report, &plan, (uint32_t)cfg.top);
    } else {
      size_t start = report->len;
      shard_buf_puts(report, "communication plan\n");
      shard_comm_plan_print_text(report, &plan, (uint32_t)cfg.top);
      comment_lines_in_place(report, start);
    }
    shard_comm_plan_free(&plan);
  }

  if (cfg.memory != PLAN_NONE || cfg.memory_limit) {
    code = lower_memory(&cfg, m, &de, report);
    if (code != CLI_EXIT_OK) goto done;
  }

  code = CLI_EXIT_OK;
  cli_progress_finish();
  if (stream) {
    if (to_file) {
      code = cli_write_module("lower", cfg.output, m, &(shard_print_options){0}, NULL);
      if (code == CLI_EXIT_OK) code = cli_write_output("lower", NULL, plan_text.data, plan_text.len);
    } else if (cfg.plan != PLAN_JSON && cfg.memory != PLAN_JSON) {
      code = cli_write_module("lower", NULL, m, &(shard_print_options){0}, &plan_text);
    } else {
      code = cli_write_output("lower", NULL, plan_text.data, plan_text.len);
    }
  } else {
    if (to_file) code = cli_write_output("lower", cfg.output, module_text.data, module_text.len);
    if (code == CLI_EXIT_OK)
      code = report == &module_text ? cli_write_output("lower", NULL, module_text.data, module_text.len)
                                    : cli_write_output("lower", NULL, plan_text.data, plan_text.len);
  }
done:
  cli_progress_finish();
  if (m) shard_module_free(m);
  shard_xla_input_release(&xin);
  shard_buf_free(&module_text);
  shard_buf_free(&plan_text);
  shard_buf_free(&err);
  cli_input_free(text);
  return code;
}
