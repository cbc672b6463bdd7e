/* `shard viz`: pictures of shardings.
 *
 *   shard viz placement   which devices hold which block of one tensor
 *   shard viz mesh        the device meshes, their axes, sub-axes and order
 *   shard viz graph       the dataflow graph after propagation and lowering
 *   shard viz plan        the communication plan's collectives on their meshes
 *   shard viz memory      live bytes per device over program order, the peak marked
 *
 * The input is a design-doc snippet (-e, as `shard check -e` reads it) or a
 * module file with a value picked by --value/--arg/--result. It is parsed
 * and verified first, so pictures are only drawn for valid shardings;
 * graph and plan then run the passes `shard lower` runs (viz_input.c) up to
 * --stage and draw the result (flow_graph.h, comm_groups.h);
 * diagnostics go to stderr as `shard check` prints them. The placement
 * model comes from src/core/placement.c; src/viz draws it as text, DOT,
 * JSON, or (through Graphviz) svg, png and pdf.
 *
 * Exit status: 0 drawn, 1 the input has errors, 2 usage error, 3 the picture
 * could not be rendered or written. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_pictures.h"
#include "cost/comm_groups.h"
#include "convert/convert.h"
#include "cost/flow_graph.h"
#include "topology_file.h"
#include "viz_input.h"

#ifdef SHARD_HAVE_VIZ
#include "viz.h"
#endif

typedef enum { FMT_TXT, FMT_DOT, FMT_SVG, FMT_PNG, FMT_PDF, FMT_JSON } viz_format;
static const char *const format_names[] = {"txt", "dot", "svg", "png", "pdf", "json"};

typedef struct viz_config {
  const char *what; /* placement | mesh | graph | plan */
  const char *snippet;
  const char *file;
  const char *value, *func;
  long arg, result; /* -1 when not given */
  viz_format format;
  const char *output;
  cli_color_mode color;
  bool fold;
  /* graph and plan */
  const char *focus, *topology;
  long depth;
  viz_stage stage;
  bool no_propagate;
  /* placement of one sharding in another notation (shard convert's) */
  const char *from, *mesh, *shape;
  /* where that notation's framework puts each device's block when it cuts
   * an uneven dimension unlike Shardy (PyTorch, OneFlow); NULL otherwise */
  shard_device_map *own_blocks;
} viz_config;

static bool is_program_picture(const viz_config *cfg) {
  return strcmp(cfg->what, "graph") == 0 || strcmp(cfg->what, "plan") == 0 || strcmp(cfg->what, "memory") == 0;
}

void cmd_viz_usage(FILE *f) {
  fprintf(f, "usage: shard viz placement -e SNIPPET [options]\n"
             "       shard viz placement FILE (--value %%NAME | --arg N | --result N) [--func NAME] [options]\n"
             "       shard viz placement --from NOTATION --shape SHAPE [--mesh MESH] SHARDING [options]\n"
             "       shard viz mesh (-e SNIPPET | FILE) [options]\n"
             "       shard viz graph FILE [--focus %%VALUE [--depth N]] [--stage STAGE] [options]\n"
             "       shard viz plan FILE [--topology T] [--stage STAGE] [options]\n"
             "       shard viz memory FILE [--func NAME] [--stage STAGE] [options]\n"
             "\n"
             "Draws which devices hold which block of a sharded tensor (placement), the\n"
             "device meshes of a snippet or module (mesh), the dataflow graph of a module\n"
             "after propagation with every value's sharding and local shape and the\n"
             "reshards and collectives it needs with their bytes (graph), or each\n"
             "collective of the communication plan on its mesh: groups, direction, bytes\n"
             "(plan), or the bytes live per device over program order with the peak marked\n"
             "(memory, as 'shard lower --memory' counts them: the worst devices of the\n"
             "function with the largest peak, or of --func). A snippet uses the design-doc\n"
             "notation of 'shard check -e': '@mesh = <[\"x\"=2, \"y\"=4]>' lines and\n"
             "'sharding<@mesh, [{\"x\"}, {\"y\"}]> : tensor<8x16xf32>' lines (or ';' between them).\n"
             "\n"
             "Options:\n"
             "  -e SNIPPET          draw the snippet's shardings (placement) or meshes (mesh)\n"
             "  --value %%NAME       the value of FILE to draw ('%%3', '%%arg0', '%%0#1')\n"
             "  --arg N, --result N argument or result N of the function\n"
             "  --func NAME         the function for --arg/--result/--value (default: main, else the first)\n"
             "  --from NOTATION     placement: SHARDING is written in NOTATION (any of 'shard convert':\n"
             "                      hlo, shardy, pspec, dtensor, tf, paddle, oneflow, ...), with\n"
             "                      --shape SHAPE (8x16) and --mesh MESH as 'shard convert' takes them\n"
             "  --format FORMAT     txt (default), dot, svg, png, pdf or json\n"
             "  -o FILE             write to FILE (atomically) instead of standard output\n"
             "  --layout LAYOUT     ranks above 2: slices (default; a grid of the last two dims per\n"
             "                      shard of the others) or fold (all dims but the last as rows)\n"
             "  --color=WHEN        txt colours: auto (default; terminal and NO_COLOR unset),\n"
             "                      always, never\n"
             "  -h, --help          show this help\n"
             "\n"
             "graph, plan and memory:\n"
             "  --stage STAGE       how far to take the module: propagated (propagation only),\n"
             "                      reshards (plus explicit sdy.reshard and sdy.all_reduce ops)\n"
             "                      or lowered (default; reshards lowered to collectives, as\n"
             "                      'shard lower' does)\n"
             "  --no-propagate      use the shardings as written\n"
             "  --topology T        for times: tpu-v4p, tpu-v5p (default), tpu-v5e, tpu-v6e,\n"
             "                      h100, h200, b200, optionally :DIMS and ,wrap/,nowrap; or a JSON\n"
             "                      file\n"
             "  --focus %%VALUE      graph: only the ops around the op producing VALUE\n"
             "  --depth N           graph: how many edges away from it (default 2)\n"
             "  --func NAME         graph: the function of --focus's value\n"
             "\n"
             "Exit status: 0 drawn, 1 errors in the input, 2 usage error, 3 rendering or\n"
             "writing failed.\n");
}

/* --name VALUE, --name=VALUE, -name VALUE. */
static bool opt_value(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  const char *p = arg + (arg[1] == '-' ? 2 : 1);
  size_t n = strlen(name);
  if (strncmp(p, name, n) != 0) return false;
  if (p[n] == '=') {
    *value = p + n + 1;
    return true;
  }
  if (p[n] != '\0') return false;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return true;
}

static bool parse_count(const char *s, long *out) {
  if (!s || !*s) return false;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < 0) return false;
  *out = v;
  return true;
}

static int parse_args(int argc, char **argv, viz_config *cfg) {
  if (argc < 2) return cli_usage_error("viz", "%s", "missing what to draw: placement, mesh, graph, plan or memory");
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    cmd_viz_usage(stdout);
    return CLI_EXIT_OK;
  }
  cfg->what = argv[1];
  if (strcmp(cfg->what, "placement") != 0 && strcmp(cfg->what, "mesh") != 0 && !is_program_picture(cfg))
    return cli_usage_error("viz", "unknown picture '%s' (placement, mesh, graph, plan or memory)", cfg->what);
  bool depth_given = false;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    const char *value;
    if (arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (cfg->file) return cli_usage_error("viz", "more than one input file ('%s')", arg);
      cfg->file = arg;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_viz_usage(stdout);
      return CLI_EXIT_OK;
    } else if (strncmp(arg, "-e", 2) == 0 && arg[1] != '-') {
      cfg->snippet = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!cfg->snippet) return cli_usage_error("viz", "'%s' needs a snippet", arg);
    } else if (strncmp(arg, "-o", 2) == 0 && arg[1] != '-') {
      cfg->output = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!cfg->output) return cli_usage_error("viz", "'%s' needs a file name", arg);
    } else if (opt_value(argc, argv, &i, "value", &value)) {
      if (!value) return cli_usage_error("viz", "%s", "--value needs a value name such as %3");
      cfg->value = value;
    } else if (opt_value(argc, argv, &i, "from", &value)) {
      if (!value) return cli_usage_error("viz", "%s", "--from needs a notation");
      cfg->from = value;
    } else if (opt_value(argc, argv, &i, "mesh", &value)) {
      if (!value) return cli_usage_error("viz", "%s", "--mesh needs a mesh");
      cfg->mesh = value;
    } else if (opt_value(argc, argv, &i, "shape", &value)) {
      if (!value) return cli_usage_error("viz", "%s", "--shape needs a shape");
      cfg->shape = value;
    } else if (opt_value(argc, argv, &i, "func", &value)) {
      if (!value) return cli_usage_error("viz", "%s", "--func needs a function name");
      cfg->func = value;
    } else if (opt_value(argc, argv, &i, "arg", &value)) {
      if (!parse_count(value, &cfg->arg))
        return cli_usage_error("viz", "--arg needs an argument number (got '%s')", value ? value : "");
    } else if (opt_value(argc, argv, &i, "result", &value)) {
      if (!parse_count(value, &cfg->result))
        return cli_usage_error("viz", "--result needs a result number (got '%s')", value ? value : "");
    } else if (opt_value(argc, argv, &i, "format", &value)) {
      bool known = false;
      for (unsigned k = 0; k < sizeof format_names / sizeof *format_names && value; k++)
        if (strcmp(value, format_names[k]) == 0) {
          cfg->format = (viz_format)k;
          known = true;
        }
      if (!known)
        return cli_usage_error("viz", "--format must be txt, dot, svg, png, pdf or json (got '%s')",
                               value ? value : "");
    } else if (opt_value(argc, argv, &i, "layout", &value)) {
      if (value && strcmp(value, "fold") == 0) cfg->fold = true;
      else if (!value || strcmp(value, "slices") != 0)
        return cli_usage_error("viz", "--layout must be slices or fold (got '%s')", value ? value : "");
    } else if (opt_value(argc, argv, &i, "focus", &value)) {
      if (!value || !*value) return cli_usage_error("viz", "%s", "--focus needs a value name such as %3");
      cfg->focus = value;
    } else if (opt_value(argc, argv, &i, "depth", &value)) {
      if (!parse_count(value, &cfg->depth) || cfg->depth > 1000)
        return cli_usage_error("viz", "--depth needs a count from 0 to 1000 (got '%s')", value ? value : "");
      depth_given = true;
    } else if (opt_value(argc, argv, &i, "topology", &value)) {
      if (!value || !*value) return cli_usage_error("viz", "%s", "--topology needs a topology");
      cfg->topology = value;
    } else if (opt_value(argc, argv, &i, "stage", &value)) {
      bool known = false;
      for (int k = 0; k < 3 && value; k++)
        if (strcmp(value, viz_stage_names[k]) == 0) {
          cfg->stage = (viz_stage)k;
          known = true;
        }
      if (!known)
        return cli_usage_error("viz", "--stage must be propagated, reshards or lowered (got '%s')", value ? value : "");
    } else if (strcmp(arg, "--no-propagate") == 0) {
      cfg->no_propagate = true;
    } else if (strncmp(arg, "--color", 7) == 0 && (arg[7] == '\0' || arg[7] == '=')) {
      if (arg[7] == '\0') cfg->color = CLI_COLOR_ALWAYS;
      else if (!cli_parse_color(arg + 8, &cfg->color))
        return cli_usage_error("viz", "--color must be auto, always or never (got '%s')", arg + 8);
    } else {
      return cli_usage_error("viz", "unknown option '%s'", arg);
    }
  }
  if (is_program_picture(cfg)) {
    if (cfg->snippet) return cli_usage_error("viz", "'viz %s' draws a module: give a FILE, not -e", cfg->what);
    if (!cfg->file) return cli_usage_error("viz", "'viz %s' needs a module FILE ('-' for standard input)", cfg->what);
    if (cfg->value || cfg->arg >= 0 || cfg->result >= 0 || cfg->fold)
      return cli_usage_error("viz", "'viz %s' takes no --value, --arg, --result or --layout", cfg->what);
    if (strcmp(cfg->what, "memory") == 0 && (cfg->focus || depth_given))
      return cli_usage_error("viz", "%s", "--focus and --depth cut down 'viz graph', not 'viz memory'");
    if (strcmp(cfg->what, "plan") == 0 && (cfg->focus || depth_given || cfg->func))
      return cli_usage_error("viz", "%s", "--focus, --depth and --func cut down 'viz graph', not 'viz plan'");
    if (depth_given && !cfg->focus) return cli_usage_error("viz", "%s", "--depth goes with --focus");
    return -1;
  }
  if (cfg->focus || depth_given || cfg->topology || cfg->no_propagate || cfg->stage != VIZ_STAGE_LOWERED)
    return cli_usage_error("viz", "%s",
                           "--focus, --depth, --topology, --stage and --no-propagate are for "
                           "'viz graph' and 'viz plan'");
  if (cfg->from || cfg->mesh || cfg->shape) {
    if (strcmp(cfg->what, "placement") != 0 || !cfg->from || !cfg->shape)
      return cli_usage_error("viz", "%s",
                             "--from, --mesh and --shape go together: 'viz placement --from "
                             "NOTATION --shape SHAPE [--mesh MESH] SHARDING'");
    if (cfg->snippet || !cfg->file || cfg->value || cfg->arg >= 0 || cfg->result >= 0 || cfg->func)
      return cli_usage_error("viz", "%s",
                             "with --from, give the SHARDING text only (no -e, --value, --arg, "
                             "--result or --func)");
    return -1;
  }
  if (cfg->snippet && cfg->file) return cli_usage_error("viz", "%s", "give either -e SNIPPET or a FILE, not both");
  if (!cfg->snippet && !cfg->file)
    return cli_usage_error("viz", "%s", "no input: give -e SNIPPET or a FILE ('-' for standard input)");
  int picks = (cfg->value != NULL) + (cfg->arg >= 0) + (cfg->result >= 0);
  if (strcmp(cfg->what, "placement") == 0 && cfg->file && picks != 1)
    return cli_usage_error("viz", "%s", "with a FILE, pick exactly one of --value, --arg and --result");
  if ((cfg->snippet || strcmp(cfg->what, "mesh") == 0) && (picks || cfg->func))
    return cli_usage_error("viz", "%s", "--value, --arg, --result and --func pick a value of a FILE's placement");
  return -1;
}

#ifdef SHARD_HAVE_VIZ

/* Writes the picture; binary formats never go to a terminal. */
static int emit(const viz_config *cfg, const shard_buf *dot_or_text) {
  const char *path = cfg->output ? cfg->output : "-";
  shard_buf err;
  shard_buf_init(&err);
  int code = CLI_EXIT_OK;
  const char *data = dot_or_text->data ? dot_or_text->data : "";
  size_t len = dot_or_text->len;
  char *rendered = NULL;
  if (cfg->format == FMT_SVG || cfg->format == FMT_PNG || cfg->format == FMT_PDF) {
    if (!cfg->output && cfg->format != FMT_SVG && isatty(STDOUT_FILENO)) {
      fprintf(stderr, "shard viz: not writing %s to a terminal; use -o FILE\n", format_names[cfg->format]);
      shard_buf_free(&err);
      return CLI_EXIT_USAGE;
    }
    if (!shard_viz_render(data, format_names[cfg->format], &rendered, &len, &err)) {
      fprintf(stderr, "shard viz: %s\n", shard_buf_str(&err));
      shard_buf_free(&err);
      return CLI_EXIT_INTERNAL;
    }
    data = rendered;
  }
  code = cli_write_output("viz", path, data, len);
  free(rendered);
  shard_buf_free(&err);
  return code;
}

static bool text_color(const viz_config *cfg) {
  if (cfg->output) return cfg->color == CLI_COLOR_ALWAYS;
  return cli_use_color(cfg->color, stdout);
}

/* Moves each block of a placement to where the framework's own device map
 * puts it: the same devices hold the same tile (Shardy's tiling and the
 * framework's agree on who holds what), only the extents differ. */
static void S_own_blocks(shard_arena *a, shard_placement *p, const shard_device_map *m) {
  p->tile_start = SHARD_NEW_ARRAY(a, int64_t *, p->rank + 1);
  p->tile_end = SHARD_NEW_ARRAY(a, int64_t *, p->rank + 1);
  for (uint32_t d = 0; d < p->rank; d++) {
    p->tile_start[d] = SHARD_NEW_ARRAY(a, int64_t, p->shards[d] + 1);
    p->tile_end[d] = SHARD_NEW_ARRAY(a, int64_t, p->shards[d] + 1);
    for (int64_t t = 0; t < p->shards[d]; t++)
      shard_placement_tile_range(&(shard_placement){.local = p->local, .dims = p->dims}, d, t, &p->tile_start[d][t],
                                 &p->tile_end[d][t]);
  }
  for (uint32_t b = 0; b < p->num_blocks; b++) {
    shard_placement_block *blk = &p->blocks[b];
    if (!blk->num_devices) continue;
    int64_t dev = p->devices[blk->devices[0]].id;
    if (dev < 0 || dev >= m->num_devices || m->rank != p->rank) continue;
    blk->padded = blk->empty = false;
    for (uint32_t d = 0; d < p->rank; d++) {
      blk->start[d] = m->offset[dev * m->rank + d];
      blk->end[d] = m->limit[dev * m->rank + d];
      if (blk->end[d] - blk->start[d] < p->local[d]) blk->padded = true;
      if (blk->end[d] <= blk->start[d]) {
        blk->empty = true;
        blk->start[d] = blk->end[d]; /* PyTorch writes an empty shard's offset as the dim size */
      }
      /* a tile's extent depends on its own coordinate only: any block says it */
      p->tile_start[d][blk->tile[d]] = blk->start[d];
      p->tile_end[d][blk->tile[d]] = blk->end[d];
    }
  }
}

static int draw_placements(const viz_config *cfg, viz_input *in, shard_diag_engine *de) {
  shard_arena *a = shard_arena_new();
  shard_placement **ps = NULL;
  uint32_t n = 0;
  if (cfg->snippet) {
    n = viz_snippet_placements(in, a, &ps, de);
    if (n == 0) shard_error(de, shard_no_span, "the snippet has no 'sharding<...> : TYPE' line to draw");
  } else {
    ps = shard_xcalloc(1, sizeof *ps);
    shard_op *func = viz_find_func(in->module, cfg->func);
    if (!func && (cfg->func || !cfg->value)) {
      if (cfg->func) shard_error(de, shard_no_span, "no function @%s in '%s'", cfg->func, in->src.name);
      else shard_error(de, shard_no_span, "no function in '%s'", in->src.name);
    } else if (cfg->value) {
      shard_value *v = viz_find_value(in->module, cfg->func ? func : NULL, cfg->value);
      if (!v)
        shard_error(de, shard_no_span, "no value %s%s in '%s'", cfg->value[0] == '%' ? "" : "%", cfg->value,
                    in->src.name);
      else {
        char what[128];
        snprintf(what, sizeof what, "value %s%s", cfg->value[0] == '%' ? "" : "%", cfg->value);
        ps[0] = viz_value_placement(in, a, v, what, de);
      }
    } else if (cfg->arg >= 0) {
      const shard_block *entry = func->num_regions ? func->regions[0].first : NULL;
      if (!entry || (unsigned long)cfg->arg >= entry->num_args)
        shard_error(de, func->span, "the function has no argument %ld", cfg->arg);
      else ps[0] = viz_value_placement(in, a, &entry->args[cfg->arg], "the argument", de);
    } else {
      ps[0] = viz_result_placement(in, a, func, (uint32_t)cfg->result, de);
    }
    n = ps[0] ? 1 : 0;
  }
  int code = CLI_EXIT_OK;
  for (uint32_t i = 0; i < n; i++)
    if (!ps[i]) code = CLI_EXIT_INVALID;
  if (code == CLI_EXIT_OK && n == 1 && cfg->own_blocks) S_own_blocks(a, ps[0], cfg->own_blocks);
  if (n == 0) code = CLI_EXIT_INVALID;
  if (code == CLI_EXIT_OK) {
    shard_viz_options o = {text_color(cfg), cfg->fold ? SHARD_VIZ_FOLD : SHARD_VIZ_SLICES};
    shard_buf out;
    shard_buf_init(&out);
    if (cfg->format == FMT_TXT) {
      for (uint32_t i = 0; i < n; i++) {
        if (i) shard_buf_putc(&out, '\n');
        shard_viz_term_placement(&out, ps[i], &o);
      }
    } else if (cfg->format == FMT_JSON) {
      shard_viz_json_placements(&out, ps, n);
    } else {
      shard_viz_dot_placements(&out, ps, n, &o);
    }
    code = emit(cfg, &out);
    shard_buf_free(&out);
  }
  free(ps);
  shard_arena_free(a);
  return code;
}

static int draw_meshes(const viz_config *cfg, viz_input *in, shard_diag_engine *de) {
  viz_mesh_use *uses;
  uint32_t n = viz_mesh_uses(in, &uses);
  if (n == 0) {
    shard_error(de, shard_no_span, "no sdy.mesh to draw");
    viz_mesh_uses_free(uses, n);
    return CLI_EXIT_INVALID;
  }
  shard_viz_mesh *ms = shard_xcalloc(n, sizeof *ms);
  for (uint32_t i = 0; i < n; i++) {
    shard_viz_mesh m = {uses[i].name, uses[i].mesh, uses[i].sub_axes, uses[i].num_sub_axes};
    ms[i] = m;
  }
  shard_viz_options o = {text_color(cfg), SHARD_VIZ_SLICES};
  shard_buf out;
  shard_buf_init(&out);
  if (cfg->format == FMT_TXT) shard_viz_term_meshes(&out, ms, n, &o);
  else if (cfg->format == FMT_JSON) shard_viz_json_meshes(&out, ms, n);
  else shard_viz_dot_meshes(&out, ms, n);
  int code = emit(cfg, &out);
  shard_buf_free(&out);
  free(ms);
  viz_mesh_uses_free(uses, n);
  return code;
}

static int64_t module_devices(const viz_input *in) {
  viz_mesh_use *uses;
  uint32_t n = viz_mesh_uses(in, &uses);
  int64_t most = 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t d = shard_mesh_num_devices(uses[i].mesh);
    if (d > most) most = d;
  }
  viz_mesh_uses_free(uses, n);
  return most;
}

/* "after propagation and lowering to collectives" */
static const char *stage_text(const viz_config *cfg) {
  static const char *const with[] = {"after propagation", "after propagation and explicit reshards",
                                     "after propagation and lowering to collectives"};
  static const char *const without[] = {"as written", "as written, with explicit reshards",
                                        "as written, lowered to collectives"};
  return (cfg->no_propagate ? without : with)[cfg->stage];
}

static int draw_program(const viz_config *cfg, viz_input *in, shard_diag_engine *de) {
  if (!viz_lower_module(in->module, cfg->stage, !cfg->no_propagate, de)) return CLI_EXIT_INVALID;
  shard_topology topo;
  shard_buf err;
  shard_buf_init(&err);
  if (!cli_topology_resolve(cfg->topology, module_devices(in), &topo, &err)) {
    fprintf(stderr, "shard viz: %s\n", shard_buf_str(&err));
    shard_buf_free(&err);
    return CLI_EXIT_USAGE;
  }
  shard_buf_free(&err);
  shard_arena *a = shard_arena_new();
  shard_buf title, out;
  shard_buf_init(&title);
  shard_buf_init(&out);
  shard_viz_options o = {text_color(cfg), SHARD_VIZ_SLICES};
  int code = CLI_EXIT_OK;
  if (strcmp(cfg->what, "graph") == 0) {
    shard_flow_graph *g = shard_flow_graph_build(a, in->module, &topo);
    shard_buf_printf(&title, "dataflow graph of %s %s", in->src.name, stage_text(cfg));
    if (cfg->focus) {
      int32_t center = shard_flow_graph_find_value(g, cfg->focus, cfg->func);
      if (center < 0) {
        shard_error(de, shard_no_span, "no value %s%s%s%s in '%s' after propagation", cfg->focus[0] == '%' ? "" : "%",
                    cfg->focus, cfg->func ? " in @" : "", cfg->func ? cfg->func : "", in->src.name);
        code = CLI_EXIT_INVALID;
      } else {
        long depth = cfg->depth >= 0 ? cfg->depth : 2;
        g = shard_flow_graph_focus(a, g, (uint32_t)center, (uint32_t)depth);
        shard_buf_printf(&title, ", within %ld edge%s of %s%s", depth, depth == 1 ? "" : "s",
                         cfg->focus[0] == '%' ? "" : "%", cfg->focus);
      }
    }
    if (code == CLI_EXIT_OK) {
      if (cfg->format == FMT_TXT) shard_viz_term_graph(&out, g, shard_buf_str(&title), &o);
      else if (cfg->format == FMT_JSON) shard_viz_json_graph(&out, g, shard_buf_str(&title));
      else shard_viz_dot_graph(&out, g, shard_buf_str(&title));
    }
  } else if (strcmp(cfg->what, "memory") == 0) {
    shard_memory_report rep;
    const shard_memory_function *f = NULL;
    if (!shard_memory_analyze(&rep, a, in->module, NULL, de)) {
      code = CLI_EXIT_INVALID;
    } else {
      for (uint32_t i = 0; i < rep.num_functions && cfg->func; i++)
        if (strcmp(rep.functions[i].name, cfg->func[0] == '@' ? cfg->func + 1 : cfg->func) == 0) f = &rep.functions[i];
      if (!cfg->func && rep.num_functions) f = &rep.functions[rep.worst_function];
      if (!f || !f->num_classes) {
        shard_error(de, shard_no_span, "no function %s%s in '%s'", cfg->func ? "@" : "", cfg->func ? cfg->func : "",
                    in->src.name);
        code = CLI_EXIT_INVALID;
      }
    }
    if (code == CLI_EXIT_OK) {
      shard_buf_printf(&title, "memory per device of %s %s", in->src.name, stage_text(cfg));
      shard_viz_memory vm = {shard_buf_str(&title), &rep, f, f->worst};
      if (cfg->format == FMT_TXT) shard_viz_term_memory(&out, &vm, &o);
      else if (cfg->format == FMT_JSON) shard_viz_json_memory(&out, &vm);
      else shard_viz_dot_memory(&out, &vm);
    }
  } else {
    shard_comm_plan plan;
    shard_comm_plan_init(&plan, a, &topo);
    shard_comm_plan_module(&plan, in->module, de);
    const shard_op **ops = NULL;
    shard_comm_groups **groups = shard_arena_alloc(a, sizeof *groups * (plan.num_rows + 1));
    bool matched = shard_comm_plan_row_ops(a, &plan, in->module, &ops);
    for (uint32_t i = 0; i < plan.num_rows; i++)
      groups[i] = matched ? shard_comm_groups_compute(a, in->module, ops[i], &plan.rows[i]) : NULL;
    shard_buf_printf(&title, "communication plan of %s %s", in->src.name, stage_text(cfg));
    shard_viz_plan vp = {shard_buf_str(&title), &plan, groups};
    if (cfg->format == FMT_TXT) shard_viz_term_plan(&out, &vp, &o);
    else if (cfg->format == FMT_JSON) shard_viz_json_plan(&out, &vp);
    else shard_viz_dot_plan(&out, &vp);
    shard_comm_plan_free(&plan);
  }
  if (code == CLI_EXIT_OK) code = emit(cfg, &out);
  shard_buf_free(&title);
  shard_buf_free(&out);
  shard_arena_free(a);
  return code;
}

/* A sharding in another notation as a design-doc snippet: its Shardy mesh
 * and sharding, typed with --shape. Diagnostics on the sharding point into
 * it. NULL after an error; heap text otherwise. */
static char *foreign_snippet(viz_config *cfg, shard_diag_engine *de) {
  shard_notation from;
  if (!shard_notation_from_name(cfg->from, &from)) {
    shard_error(de, shard_no_span, "unknown notation '%s' for --from", cfg->from);
    return NULL;
  }
  shard_arena *arena = shard_arena_new();
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, de);
  shard_source src = {"<sharding>", cfg->file, strlen(cfg->file), 0};
  shard_source mesh_src = {"<mesh>", cfg->mesh, cfg->mesh ? strlen(cfg->mesh) : 0, 0};
  int64_t *shape = NULL;
  shard_buf err, out, mesh_out, text;
  shard_buf_init(&err);
  shard_buf_init(&out);
  shard_buf_init(&mesh_out);
  shard_buf_init(&text);
  bool ok = true;
  if (cfg->mesh) {
    cx.mesh = shard_conv_parse_mesh(&cx, &mesh_src);
    ok = cx.mesh != NULL;
  }
  int32_t rank = shard_conv_parse_shape(cfg->shape, &shape, &err);
  if (rank < 0) {
    shard_error(de, shard_no_span, "%s", shard_buf_str(&err));
    ok = false;
  }
  cx.shape = shape;
  cx.rank = rank;
  shard_conv *c = ok ? shard_conv_parse(&cx, from, &src) : NULL;
  ok = c && !de->errors;
  if (ok && c->kind != SHARD_CONV_NAMED) {
    shard_error(de, c->span, "only a sharding over a mesh can be drawn (give --mesh for {replicated} and the like)");
    ok = false;
  }
  /* The picture is drawn from the Shardy form; where the framework cuts an
   * uneven dimension otherwise (PyTorch's torch.chunk per mesh dimension,
   * OneFlow's balanced parts), each block is then drawn where the framework
   * puts it (draw_placements), with a warning naming the first device that
   * Shardy would place elsewhere. */
  if (ok) {
    cx.allow_lossy = true;
    unsigned warnings = de->warnings;
    shard_conv_check_exact(&cx, c, SHARD_NOTATION_SHARDY);
    cx.allow_lossy = false;
    if (de->warnings != warnings) {
      cfg->own_blocks = shard_xcalloc(1, sizeof *cfg->own_blocks);
      if (!shard_device_map_build(c, shape, (uint32_t)rank, shard_mesh_num_devices(c->mesh), cfg->own_blocks, &err)) {
        free(cfg->own_blocks);
        cfg->own_blocks = NULL;
        shard_error(de, c->span, "%s", shard_buf_str(&err));
        ok = false;
      } else {
        shard_note(de, c->span, "drawn as %s places it", shard_notation_name(from));
        c->split = SHARD_SPLIT_PADDED; /* the Shardy form only tiles the picture now */
      }
    }
  }
  ok = ok && shard_conv_print(&cx, SHARD_NOTATION_SHARDY, c, &out, &mesh_out) && !de->errors;
  char *result = NULL;
  if (ok) {
    shard_buf_printf(&text, "%s\n%s : tensor<", shard_buf_str(&mesh_out), shard_buf_str(&out));
    for (int32_t d = 0; d < rank; d++) shard_buf_printf(&text, "%lldx", (long long)shape[d]);
    shard_buf_puts(&text, "f32>");
    result = shard_buf_take(&text);
  }
  shard_buf_free(&err);
  shard_buf_free(&out);
  shard_buf_free(&mesh_out);
  shard_buf_free(&text);
  free(shape);
  shard_arena_free(arena);
  return result;
}

int cmd_viz(int argc, char **argv) {
  viz_config cfg = {0};
  cfg.arg = cfg.result = cfg.depth = -1;
  cfg.stage = VIZ_STAGE_LOWERED;
  cfg.color = CLI_COLOR_AUTO;
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;
  cli_sink sink;
  cli_sink_init(&sink, CLI_FORMAT_TEXT, stderr, cli_use_color(cfg.color, stderr));
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, &sink);
  viz_input in;
  char *foreign = NULL;
  if (cfg.from) {
    foreign = foreign_snippet(&cfg, &de);
    if (!foreign) {
      if (cfg.own_blocks) {
        shard_device_map_free(cfg.own_blocks);
        free(cfg.own_blocks);
      }
      cli_sink_free(&sink);
      return CLI_EXIT_INVALID;
    }
    cfg.snippet = foreign;
  }
  bool ok = cfg.snippet ? viz_input_snippet(&in, cfg.snippet, false, &de) : viz_input_file(&in, cfg.file, &de);
  if (!ok) code = CLI_EXIT_INVALID;
  else if (strcmp(cfg.what, "placement") == 0) code = draw_placements(&cfg, &in, &de);
  else if (is_program_picture(&cfg)) code = draw_program(&cfg, &in, &de);
  else code = draw_meshes(&cfg, &in, &de);
  if (code == CLI_EXIT_OK && de.errors) code = CLI_EXIT_INVALID;
  viz_input_free(&in);
  free(foreign);
  if (cfg.own_blocks) {
    shard_device_map_free(cfg.own_blocks);
    free(cfg.own_blocks);
  }
  cli_sink_free(&sink);
  return code;
}

#else

int cmd_viz(int argc, char **argv) {
  viz_config cfg = {0};
  cfg.arg = cfg.result = cfg.depth = -1;
  cfg.stage = VIZ_STAGE_LOWERED;
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;
  fprintf(stderr, "shard viz: this shard was built without pictures (src/viz)\n");
  return CLI_EXIT_INTERNAL;
}

#endif
