/* `shard convert`: one sharding from one notation to another.
 *
 *   shard convert --from hlo --to shardy --shape 8x16 '{devices=[4,1,2]<=[8] last_tile_dim_replicate}'
 *
 * The input is read into the conversion hub (src/core/convert.h) and
 * written in the target notation. Errors point into the sharding text
 * (column = character in the argument); each thing the target cannot
 * express is one warning; invented mesh axis names are announced. With
 * --format json the result, the mesh and every diagnostic go to stdout as
 * one JSON object for tools.
 *
 * Exit status: 0 converted (warnings allowed unless --Werror), 1 the input
 * was invalid or cannot be written in the target, 2 bad command line. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert/convert.h"

typedef struct convert_config {
  const char *input;
  const char *from, *to, *mesh, *shape;
  bool json, werror, placement, allow_lossy;
  cli_color_mode color;
} convert_config;

void cmd_convert_usage(FILE *f);
int cmd_convert(int argc, char **argv);

void cmd_convert_usage(FILE *f) {
  fprintf(f, "usage: shard convert [options] --to NOTATION SHARDING\n"
             "       shard convert [options] --placement SHARDING\n"
             "\n"
             "Converts a sharding between notations. NOTATION is one of\n"
             "  hlo       XLA HloSharding V2 text: {devices=[2,2]<=[4]}, {replicated}, ...\n"
             "  hlo-v3    XLA HloSharding V3 text: {mesh[x=2,y=2], [{x}, {y}]}\n"
             "  shardy    #sdy.sharding<@mesh, [{\"x\"}, {}]> (with 'sdy.mesh @mesh = <...>' or --mesh)\n"
             "  pspec     JAX PartitionSpec: P('x', ('y', 'z'), None, unreduced={'w'})\n"
             "  dtensor   PyTorch DTensor placements: [Shard(0), Replicate(), Partial()]\n"
             "  tf        TF DTensor layout: sharding_specs:x,unsharded, mesh:|x=2,y=2|0,1,2,3|...\n"
             "  paddle    Paddle dist attr: mesh_shape:[2,2],process_ids:[0,1,2,3],dims_mappings:[-1,1]\n"
             "  paddle-placements  Paddle placements: [Partial(reduce_type=SUM), Shard(dim=1)]\n"
             "            (--from paddle reads both)\n"
             "  oneflow   OneFlow nd-SBP: (P, S(1)), (B, S(0))\n"
             "  oneflow-python  as tensor.sbp prints: (oneflow.sbp.split(dim=1), oneflow.sbp.broadcast)\n"
             "SHARDING '-' reads standard input. HloSharding V2 has no axis names: V3 output\n"
             "names them axis_0, axis_1, ... (XLA's V2-to-V3 conversion), the others _axis_0,\n"
             "_axis_1, ... (XLA's Shardy importer).\n"
             "\n"
             "Options:\n"
             "  --from NOTATION   the input's notation (default: guessed from the text)\n"
             "  --to NOTATION     the notation to write\n"
             "  --mesh MESH       the mesh: {'x': 2, 'y': 4}, x=2,y=4 or <[\"x\"=2, \"y\"=4]>,\n"
             "                    optionally with device_ids=[...]; or a device hierarchy: 2x2,\n"
             "                    [[0, 1], [2, 3]], ProcessMesh(...), oneflow.placement(...);\n"
             "                    needed by pspec, dtensor, paddle-placements and oneflow\n"
             "                    input, and gives real axis names to HloSharding input\n"
             "  --shape SHAPE     the tensor shape: 8x16, [8,16] or tensor<8x16xf32>\n"
             "  --format FORMAT   text (default) or json\n"
             "  --placement       print the block each device holds instead of converting\n"
             "                    (D:start,..-stop,..;... by the input framework's own rules)\n"
             "  --allow-lossy     an uneven DTensor sharding that the target places on other\n"
             "                    devices is a warning naming the first such device, not an error\n"
             "  --Werror          treat warnings as errors\n"
             "  --color=WHEN      auto (default), always, never\n"
             "  -h, --help        show this help\n"
             "\n"
             "Exit status: 0 converted, 1 invalid input or not expressible, 2 usage error.\n");
}

static int parse_args(int argc, char **argv, convert_config *cfg) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_convert_usage(stdout);
      return CLI_EXIT_OK;
    } else if (cli_match_value(argc, argv, &i, "--from", &v)) {
      if (!v) return cli_usage_error("convert", "%s needs a notation", arg);
      cfg->from = v;
    } else if (cli_match_value(argc, argv, &i, "--to", &v)) {
      if (!v) return cli_usage_error("convert", "%s needs a notation", arg);
      cfg->to = v;
    } else if (cli_match_value(argc, argv, &i, "--mesh", &v)) {
      if (!v) return cli_usage_error("convert", "%s needs a mesh", arg);
      cfg->mesh = v;
    } else if (cli_match_value(argc, argv, &i, "--shape", &v)) {
      if (!v) return cli_usage_error("convert", "%s needs a shape", arg);
      cfg->shape = v;
    } else if (cli_match_value(argc, argv, &i, "--format", &v)) {
      if (!v || (strcmp(v, "text") != 0 && strcmp(v, "json") != 0))
        return cli_usage_error("convert", "--format must be text or json (got '%s')", v ? v : "");
      cfg->json = strcmp(v, "json") == 0;
    } else if (strcmp(arg, "--Werror") == 0) {
      cfg->werror = true;
    } else if (strcmp(arg, "--placement") == 0) {
      cfg->placement = true;
    } else if (strcmp(arg, "--allow-lossy") == 0) {
      cfg->allow_lossy = true;
    } else if (strncmp(arg, "--color", 7) == 0 && (arg[7] == '\0' || arg[7] == '=')) {
      if (!arg[7]) cfg->color = CLI_COLOR_ALWAYS;
      else if (!cli_parse_color(arg + 8, &cfg->color))
        return cli_usage_error("convert", "--color must be auto, always or never (got '%s')", arg + 8);
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return cli_usage_error("convert", "unknown option '%s'", arg);
    } else {
      if (cfg->input) return cli_usage_error("convert", "more than one sharding given ('%s')", arg);
      cfg->input = arg;
    }
  }
  if (!cfg->input) return cli_usage_error("convert", "%s", "no sharding given");
  if (!cfg->to && !cfg->placement) return cli_usage_error("convert", "%s", "--to is required");
  return -1;
}

/* Diagnostics: printed at once (text) or collected (json). */
typedef struct convert_sink {
  bool json;
  shard_diag_printer printer;
  cJSON *diags;
} convert_sink;

static void sink_diag(void *ctx, const shard_diag *d) {
  convert_sink *s = ctx;
  if (!s->json) {
    shard_diag_print_text(&s->printer, d);
    return;
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "severity", shard_severity_name(d->severity));
  cJSON_AddStringToObject(o, "message", d->message);
  if (d->span.src) {
    uint32_t line, col;
    shard_span_linecol(d->span, &line, &col);
    cJSON_AddStringToObject(o, "source", d->span.src->name);
    cJSON_AddNumberToObject(o, "line", line);
    cJSON_AddNumberToObject(o, "column", col);
  }
  cJSON_AddItemToArray(s->diags, o);
}

static bool any_invented(const shard_conv *c) {
  if (c->names_invented) return true;
  for (uint32_t i = 0; i < c->num_elems; i++)
    if (any_invented(&c->elems[i])) return true;
  return false;
}

static void describe_mesh(shard_buf *b, const shard_conv *c) {
  if (c->kind == SHARD_CONV_TUPLE) {
    for (uint32_t i = 0; i < c->num_elems; i++)
      if (c->elems[i].names_invented) {
        describe_mesh(b, &c->elems[i]);
        return;
      }
    return;
  }
  if (c->mesh) shard_mesh_print(b, c->mesh);
}

int cmd_convert(int argc, char **argv) {
  convert_config cfg = {0};
  cfg.color = CLI_COLOR_AUTO;
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;

  shard_notation from, to;
  if (cfg.placement) cfg.to = cfg.to ? cfg.to : "shardy";
  if (!shard_notation_from_name(cfg.to, &to))
    return cli_usage_error("convert", "unknown notation '%s' for --to", cfg.to);
  char *text = NULL;
  size_t len;
  if (strcmp(cfg.input, "-") == 0) {
    shard_buf err;
    shard_buf_init(&err);
    if (!cli_read_input("-", &text, &len, &err)) {
      cli_report_read_error("-", &err);
      shard_buf_free(&err);
      return CLI_EXIT_USAGE;
    }
    shard_buf_free(&err);
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = '\0';
  } else {
    text = shard_xstrdup(cfg.input);
    len = strlen(text);
  }
  if (cfg.from) {
    if (!shard_notation_from_name(cfg.from, &from)) {
      cli_input_free(text);
      return cli_usage_error("convert", "unknown notation '%s' for --from", cfg.from);
    }
  } else if (!shard_notation_guess(text, &from)) {
    cli_input_free(text);
    return cli_usage_error("convert", "%s", "cannot tell the input's notation: pass --from");
  }

  convert_sink sink = {cfg.json, {stderr, cli_use_color(cfg.color, stderr), true}, NULL};
  if (cfg.json) sink.diags = cJSON_CreateArray();
  shard_diag_engine de;
  shard_diag_init(&de, sink_diag, &sink);
  de.warnings_as_errors = cfg.werror;
  shard_arena *arena = shard_arena_new();
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, &de);
  cx.allow_lossy = cfg.allow_lossy;
  shard_source src = {"<sharding>", text, len, 0};
  shard_source mesh_src = {"<mesh>", cfg.mesh, cfg.mesh ? strlen(cfg.mesh) : 0, 0};
  int64_t *shape = NULL;
  bool ok = true;
  if (cfg.mesh) {
    cx.mesh = shard_conv_parse_mesh(&cx, &mesh_src);
    ok = cx.mesh != NULL;
  }
  if (ok && cfg.shape) {
    shard_buf err;
    shard_buf_init(&err);
    int32_t rank = shard_conv_parse_shape(cfg.shape, &shape, &err);
    if (rank < 0) {
      shard_error(&de, shard_no_span, "%s", shard_buf_str(&err));
      ok = false;
    } else {
      cx.shape = shape;
      cx.rank = rank;
    }
    shard_buf_free(&err);
  }
  shard_conv *c = ok ? shard_conv_parse(&cx, from, &src) : NULL;
  shard_buf out, mesh_out;
  shard_buf_init(&out);
  shard_buf_init(&mesh_out);
  bool invented = false;
  if (c && cfg.placement) {
    ok = shard_conv_placement(&cx, c, &out);
  } else if (c) {
    invented = any_invented(c) && to != SHARD_NOTATION_HLO;
    if (invented) {
      shard_buf m;
      shard_buf_init(&m);
      describe_mesh(&m, c);
      shard_warning(&de, c->span,
                    "HloSharding has no axis names: mesh axis names invented, mesh %s (pass --mesh "
                    "to use yours)",
                    shard_buf_str(&m));
      shard_buf_free(&m);
    }
    ok = shard_conv_print(&cx, to, c, &out, &mesh_out);
  } else {
    ok = false;
  }
  if (de.errors) ok = false;

  if (cfg.json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "from", shard_notation_name(from));
    cJSON_AddStringToObject(o, "to", shard_notation_name(to));
    cJSON_AddStringToObject(o, "input", text);
    if (ok) {
      cJSON_AddStringToObject(o, "output", shard_buf_str(&out));
      if (mesh_out.len) cJSON_AddStringToObject(o, "mesh", shard_buf_str(&mesh_out));
      else cJSON_AddNullToObject(o, "mesh");
    } else {
      cJSON_AddNullToObject(o, "output");
      cJSON_AddNullToObject(o, "mesh");
    }
    cJSON_AddBoolToObject(o, "names_invented", invented);
    cJSON_AddBoolToObject(o, "ok", ok);
    cJSON_AddItemToObject(o, "diagnostics", sink.diags);
    char *doc = cJSON_Print(o);
    printf("%s\n", doc);
    free(doc);
    cJSON_Delete(o);
  } else if (ok) {
    if (mesh_out.len) {
      bool is_line = to == SHARD_NOTATION_SHARDY;
      printf("%s%s\n", is_line ? "" : "mesh: ", shard_buf_str(&mesh_out));
    }
    printf("%s\n", shard_buf_str(&out));
  }
  code = fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : ok ? CLI_EXIT_OK : CLI_EXIT_INVALID;
  shard_buf_free(&out);
  shard_buf_free(&mesh_out);
  shard_arena_free(arena);
  free(shape);
  cli_input_free(text);
  return code;
}
