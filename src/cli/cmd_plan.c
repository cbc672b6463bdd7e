/* `shard plan`: the collectives that take a tensor from one sharding to
 * another, with bytes per device and time on a topology.
 *
 *   shard plan '<@mesh, [{"x"}, {"y"}]>' '<@mesh, [{"y"}, {"x"}]>' \
 *       --shape 8x16xf32 --mesh '<["x"=4, "y"=2]>'
 *   shard plan '{devices=[2,1,4]<=[4,2]T(1,0)}' '{devices=[8,1]<=[8]}' --shape f32[64,32]
 *
 * Each side is any notation shard convert reads (src/core/convert.h), so
 * both halves of XLA's "Involuntary full rematerialization" warning can be
 * pasted as they are. The plan is Shardy's (reshard.c, the algorithm of
 * -sdy-reshard-to-collectives); axes unreduced on the source but not on the
 * target are first reduced (all_reduce, or reduce_scatter when the plan
 * slices on those axes right away). For comparison the cost of the full
 * rematerialization (gather everything, then slice) is printed too. When no
 * plan exists the reason is printed and the exit status is 1. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost/comm_plan.h"
#include "convert/convert.h"
#include "export/reshard.h"
#include "topology_file.h"

void cmd_plan_usage(FILE *f);
int cmd_plan(int argc, char **argv);

typedef struct plan_config {
  const char *src, *dst;
  const char *mesh, *shape, *topology, *notation;
  bool json;
  bool allow_lossy;
} plan_config;

void cmd_plan_usage(FILE *f) {
  fprintf(f,
          "usage: shard plan [options] --shape SHAPE SRC DST\n"
          "\n"
          "Prints the collectives that reshard a tensor from sharding SRC to sharding DST\n"
          "(Shardy's algorithm, as -sdy-reshard-to-collectives lowers a reshard), with the\n"
          "bytes each device sends and receives and the estimated time on a topology, or\n"
          "why no plan exists. SRC and DST may be written in any notation shard convert\n"
          "reads, e.g. Shardy '<@mesh, [{\"x\"}, {}]>' or HloSharding '{devices=[4,2]<=[8]}'.\n"
          "\n"
          "Options:\n"
          "  --shape SHAPE       the global shape with its element type: 8x16xf32,\n"
          "                      tensor<8x16xbf16> or bf16[8,16] (f32 when omitted)\n"
          "  --mesh MESH         the mesh: <[\"x\"=4, \"y\"=2]>, x=4,y=2 or {'x': 4, 'y': 2};\n"
          "                      needed for Shardy shardings without a mesh definition\n"
          "  --notation N        the notation of SRC and DST (default: guessed from the text)\n"
          "  --topology T        tpu-v4p, tpu-v5p (default), tpu-v5e, tpu-v6e, h100, h200,\n"
          "                      b200, optionally :DIMS (tpu-v5e:8x4, h100:16) and\n"
          "                      ,wrap/,nowrap; or a JSON file\n"
          "  --format FORMAT     text (default) or json\n"
          "  --allow-lossy       plan an uneven DTensor sharding that Shardy places on other\n"
          "                      devices anyway, with a warning (an error otherwise)\n"
          "  -h, --help          show this help\n"
          "\n"
          "%s"
          "\n"
          "Exit status: 0 a plan was found (possibly empty), 1 invalid input or no plan\n"
          "exists, 2 usage error.\n",
          cli_topology_json_help);
}

static int parse_args(int argc, char **argv, plan_config *cfg) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_plan_usage(stdout);
      return CLI_EXIT_OK;
    } else if (cli_match_value(argc, argv, &i, "--shape", &v)) {
      if (!v) return cli_usage_error("plan", "%s needs a shape", arg);
      cfg->shape = v;
    } else if (cli_match_value(argc, argv, &i, "--mesh", &v)) {
      if (!v) return cli_usage_error("plan", "%s needs a mesh", arg);
      cfg->mesh = v;
    } else if (cli_match_value(argc, argv, &i, "--topology", &v)) {
      if (!v) return cli_usage_error("plan", "%s needs a topology", arg);
      cfg->topology = v;
    } else if (cli_match_value(argc, argv, &i, "--notation", &v)) {
      if (!v) return cli_usage_error("plan", "%s needs a notation", arg);
      cfg->notation = v;
    } else if (cli_match_value(argc, argv, &i, "--format", &v)) {
      if (!v || (strcmp(v, "text") != 0 && strcmp(v, "json") != 0))
        return cli_usage_error("plan", "--format must be text or json (got '%s')", v ? v : "");
      cfg->json = strcmp(v, "json") == 0;
    } else if (strcmp(arg, "--allow-lossy") == 0) {
      cfg->allow_lossy = true;
    } else if (arg[0] == '-' && arg[1] != '\0' && arg[1] != '[' && arg[1] != '{') {
      return cli_usage_error("plan", "unknown option '%s'", arg);
    } else if (!cfg->src) {
      cfg->src = arg;
    } else if (!cfg->dst) {
      cfg->dst = arg;
    } else {
      return cli_usage_error("plan", "more than two shardings given ('%s')", arg);
    }
  }
  if (!cfg->src || !cfg->dst) return cli_usage_error("plan", "%s", "give two shardings: SRC and DST");
  if (!cfg->shape) return cli_usage_error("plan", "%s", "--shape is required (e.g. --shape 8x16xf32)");
  return -1;
}

/* Splits the element type off a shape: 8x16xf32 -> "8x16" + "f32",
 * tensor<8x16xbf16> and bf16[8,16] keep their text for
 * shard_conv_parse_shape and give their element type. */
static char *split_elem(const char *shape, char *elem, size_t elem_cap) {
  snprintf(elem, elem_cap, "f32");
  char *dims = shard_xstrdup(shape);
  char *br = strchr(dims, '[');
  if (br && br != dims) {
    snprintf(elem, elem_cap, "%.*s", (int)(br - dims), dims);
    return dims;
  }
  char *end = strchr(dims, '>');
  size_t n = end ? (size_t)(end - dims) : strlen(dims);
  /* the element type starts after the last 'x' that is followed by a letter */
  for (size_t i = n; i-- > 0;) {
    if (dims[i] == 'x' && i + 1 < n && dims[i + 1] >= 'a' && dims[i + 1] <= 'z') {
      snprintf(elem, elem_cap, "%.*s", (int)(n - i - 1), dims + i + 1);
      if (!end) dims[i] = '\0';
      break;
    }
    if (dims[i] >= '0' && dims[i] <= '9' && (i == 0 || dims[i - 1] == 'x' || dims[i - 1] == '<')) break;
  }
  return dims;
}

typedef struct plan_side {
  const char *label;
  const char *text;
  shard_source src;
  shard_conv *conv;
  shard_tensor_sharding *sharding;
  const shard_mesh *mesh;
} plan_side;

/* Reads one side into a Shardy sharding. Mesh-less kinds become fully
 * replicated ({replicated}) or are rejected with the reason. */
static bool read_side(shard_conv_ctx *cx, plan_side *side, const char *notation, shard_diag_engine *de,
                      shard_buf *why) {
  shard_notation n;
  if (notation) {
    if (!shard_notation_from_name(notation, &n)) {
      shard_buf_printf(why, "unknown notation '%s'", notation);
      return false;
    }
  } else if (!shard_notation_guess(side->text, &n)) {
    shard_buf_printf(why, "cannot tell the notation of the %s sharding: pass --notation", side->label);
    return false;
  }
  side->src = (shard_source){side->label, side->text, strlen(side->text), 0};
  side->conv = shard_conv_parse(cx, n, &side->src);
  if (!side->conv || de->errors) return false;
  shard_conv *c = side->conv;
  switch (c->kind) {
  case SHARD_CONV_NAMED:
    if (!shard_conv_validate(cx, c)) return false;
    /* the plan is Shardy's: an uneven DTensor split that Shardy places on
     * other devices is refused (a warning with --allow-lossy) */
    if (!shard_conv_check_exact(cx, c, SHARD_NOTATION_SHARDY)) return false;
    break;
  case SHARD_CONV_REPLICATED:
    if (!cx->mesh) {
      shard_buf_printf(why, "the %s sharding is {replicated}: pass --mesh to say on which devices", side->label);
      return false;
    }
    c = shard_conv_new_named(cx, (shard_mesh *)cx->mesh, (uint32_t)cx->rank, c->span);
    side->conv = c;
    break;
  case SHARD_CONV_MAXIMAL:
    shard_buf_printf(why,
                     "the %s sharding puts the whole tensor on device %lld; Shardy does not "
                     "reshard single-device values with collectives",
                     side->label, (long long)c->device);
    return false;
  case SHARD_CONV_MANUAL:
    shard_buf_printf(why,
                     "the %s sharding is manual: each device holds its own value, there is "
                     "nothing to reshard",
                     side->label);
    return false;
  case SHARD_CONV_UNKNOWN:
    shard_buf_printf(why, "the %s sharding is {unknown}: nothing is decided yet", side->label);
    return false;
  case SHARD_CONV_UNREDUCED:
    if (!cx->mesh) {
      shard_buf_printf(why, "the %s sharding is {unreduced}: pass --mesh to say over which axes", side->label);
      return false;
    }
    c = shard_conv_new_named(cx, (shard_mesh *)cx->mesh, (uint32_t)cx->rank, c->span);
    c->sharding->num_unreduced = cx->mesh->num_axes;
    c->sharding->unreduced = SHARD_NEW_ARRAY(cx->arena, shard_axis_ref, cx->mesh->num_axes);
    for (uint32_t i = 0; i < cx->mesh->num_axes; i++)
      c->sharding->unreduced[i] = (shard_axis_ref){cx->mesh->axes[i].name, false, 0, 0};
    side->conv = c;
    break;
  case SHARD_CONV_TUPLE:
    shard_buf_printf(why, "the %s sharding is a tuple: give the sharding of one array", side->label);
    return false;
  }
  if (c->num_manual) {
    shard_buf_printf(why,
                     "the %s sharding has manual axes: reshard inside the manual computation "
                     "instead",
                     side->label);
    return false;
  }
  side->mesh = shard_conv_mesh_of(cx, c);
  side->sharding = SHARD_NEW(cx->arena, shard_tensor_sharding);
  *side->sharding = *c->sharding;
  side->sharding->mesh_name = c->mesh_name ? c->mesh_name : "mesh";
  side->sharding->inline_mesh = NULL;
  return side->mesh != NULL;
}

static bool has_axis(const shard_axis_ref *list, uint32_t n, const shard_axis_ref *a) {
  for (uint32_t i = 0; i < n; i++)
    if (shard_axis_equal(&list[i], a)) return true;
  return false;
}

/* The axes in `in`'s unreduced set that `out` does not keep. False (with
 * the reason) when `out` is unreduced over something `in` is not. */
static bool extra_unreduced(shard_arena *a, const shard_tensor_sharding *in, const shard_tensor_sharding *out,
                            shard_axis_ref **extra, uint32_t *num_extra, shard_buf *why) {
  for (uint32_t i = 0; i < out->num_unreduced; i++)
    if (!has_axis(in->unreduced, in->num_unreduced, &out->unreduced[i])) {
      shard_buf_puts(why, "the target is unreduced over ");
      shard_axis_print(why, &out->unreduced[i]);
      shard_buf_puts(why, " but the source is not: collectives cannot turn a value back into "
                          "partial sums");
      return false;
    }
  *extra = SHARD_NEW_ARRAY(a, shard_axis_ref, in->num_unreduced + 1);
  *num_extra = 0;
  for (uint32_t i = 0; i < in->num_unreduced; i++)
    if (!has_axis(out->unreduced, out->num_unreduced, &in->unreduced[i])) (*extra)[(*num_extra)++] = in->unreduced[i];
  return true;
}

static const char *outcome_reason(shard_reshard_outcome o) {
  switch (o) {
  case SHARD_RESHARD_INCOMPATIBLE_MESHES:
    return "the two shardings are on meshes that differ in more than device order (different "
           "axes or sizes); pass --mesh so both are read on the same mesh";
  case SHARD_RESHARD_RANK_MISMATCH: return "the shardings have different ranks";
  case SHARD_RESHARD_INCOMPLETE:
    return "Shardy's algorithm cannot reach the target with collectives (axis sizes that are not "
           "powers of two, or an unknown axis size)";
  case SHARD_RESHARD_MAXIMAL_MESH: return "a single-device mesh is involved: nothing to communicate";
  default: return NULL;
  }
}

/* Reduction rows for the extra unreduced axes, fused into a reduce_scatter
 * with the first step when that step slices every reduced axis (as
 * Shardy's canonicalizer fuses all_reduce + all_slice). Returns how many
 * leading steps were consumed. */
static uint32_t add_reduction(shard_comm_plan *plan, const shard_tensor_sharding *in, const shard_mesh *mesh,
                              const int64_t *shape, uint32_t rank, const char *elem, const shard_axis_ref *extra,
                              uint32_t num_extra, const shard_reshard_step *steps, uint32_t num_steps) {
  int64_t *local = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  int64_t *scattered = shard_xmalloc(sizeof(int64_t) * (rank ? rank : 1));
  shard_sharding_local_shape(in, mesh, shape, local);
  memcpy(scattered, local, sizeof(int64_t) * (rank ? rank : 1));
  bool fuse = num_steps > 0 && steps[0].kind == SHARD_RESHARD_ALL_SLICE;
  for (uint32_t k = 0; fuse && k < num_extra; k++) {
    bool found = false;
    for (uint32_t d = 0; d < steps[0].rank && !found; d++)
      if (has_axis(steps[0].axes_per_dim[d].axes, steps[0].axes_per_dim[d].num, &extra[k])) {
        found = true;
        int64_t size = shard_axis_size(&extra[k], mesh);
        if (size > 0) scattered[d] = (scattered[d] + size - 1) / size;
      }
    fuse = found;
  }
  shard_buf why;
  shard_buf_init(&why);
  shard_buf_puts(&why, "the source holds partial sums over ");
  shard_axis_list_print(&why, extra, num_extra);
  uint32_t used = 0;
  if (fuse) {
    shard_buf_puts(&why, "; reduced and scattered at once (all_reduce + all_slice)");
    shard_comm_plan_add(plan, SHARD_COLL_REDUCE_SCATTER, mesh, extra, num_extra, local, scattered, rank, elem,
                        shard_no_span, NULL, shard_buf_str(&why));
    used = 1;
  } else {
    shard_comm_plan_add(plan, SHARD_COLL_ALL_REDUCE, mesh, extra, num_extra, local, local, rank, elem, shard_no_span,
                        NULL, shard_buf_str(&why));
  }
  shard_buf_free(&why);
  free(local);
  free(scattered);
  return used;
}

/* Adds a plan (comm_plan's JSON) under `key`, or null. */
static void add_plan_json(cJSON *o, const char *key, const shard_comm_plan *p, uint32_t top) {
  if (!p) {
    cJSON_AddNullToObject(o, key);
    return;
  }
  shard_buf b;
  shard_buf_init(&b);
  shard_comm_plan_print_json(&b, p, top);
  cJSON *item = cJSON_Parse(shard_buf_str(&b));
  shard_buf_free(&b);
  if (item) cJSON_AddItemToObject(o, key, item);
  else cJSON_AddNullToObject(o, key);
}

int cmd_plan(int argc, char **argv) {
  plan_config cfg = {0};
  int code = parse_args(argc, argv, &cfg);
  if (code >= 0) return code;

  shard_diag_printer printer = {stderr, cli_use_color(CLI_COLOR_AUTO, stderr), true};
  shard_diag_engine de;
  shard_diag_init(&de, shard_diag_print_text, &printer);
  shard_arena *arena = shard_arena_new();
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, &de);
  cx.allow_lossy = cfg.allow_lossy;
  shard_buf why, out, err;
  shard_buf_init(&why);
  shard_buf_init(&out);
  shard_buf_init(&err);
  shard_comm_plan plan, remat;
  shard_topology topo;
  bool have_topo = false, planned = false;
  char elem[32];
  int64_t *shape = NULL;
  char *dims_text = split_elem(cfg.shape, elem, sizeof elem);
  int32_t rank = shard_conv_parse_shape(dims_text, &shape, &err);
  free(dims_text);
  code = CLI_EXIT_INVALID;
  shard_comm_plan_init(&plan, arena, NULL);
  shard_comm_plan_init(&remat, arena, NULL);
  if (rank < 0) {
    fprintf(stderr, "shard plan: %s\n", shard_buf_str(&err));
    code = CLI_EXIT_USAGE;
    goto done;
  }
  if (!shard_elem_bits(elem)) {
    fprintf(stderr, "shard plan: unknown element type '%s' in --shape\n", elem);
    code = CLI_EXIT_USAGE;
    goto done;
  }
  cx.shape = shape;
  cx.rank = rank;
  if (cfg.mesh) {
    shard_source mesh_src = {"<mesh>", cfg.mesh, strlen(cfg.mesh), 0};
    cx.mesh = shard_conv_parse_mesh(&cx, &mesh_src);
    if (!cx.mesh) goto done;
  }
  plan_side src = {"<src>", cfg.src, {0}, NULL, NULL, NULL};
  plan_side dst = {"<dst>", cfg.dst, {0}, NULL, NULL, NULL};
  if (!read_side(&cx, &src, cfg.notation, &de, &why)) goto report;
  /* Without --mesh the target is read on the source's mesh (invented for
   * HloSharding), so that both sides of an XLA warning land on one mesh. */
  if (!cx.mesh) cx.mesh = src.mesh;
  if (!read_side(&cx, &dst, cfg.notation, &de, &why)) goto report;
  if (src.conv->names_invented || dst.conv->names_invented) {
    shard_buf m;
    shard_buf_init(&m);
    shard_mesh_print(&m, (shard_mesh *)(src.conv->names_invented ? src.mesh : dst.mesh));
    shard_warning(&de, src.conv->names_invented ? src.conv->span : dst.conv->span,
                  "HloSharding has no axis names: mesh axis names invented, mesh %s (pass --mesh "
                  "to use yours)",
                  shard_buf_str(&m));
    shard_buf_free(&m);
  }
  if (!cli_topology_resolve(cfg.topology, shard_mesh_num_devices(src.mesh), &topo, &err)) {
    fprintf(stderr, "shard plan: %s\n", shard_buf_str(&err));
    goto done;
  }
  have_topo = true;
  plan.topology = &topo;
  remat.topology = &topo;

  shard_axis_ref *extra;
  uint32_t num_extra;
  if (!extra_unreduced(arena, src.sharding, dst.sharding, &extra, &num_extra, &why)) goto report;
  /* The reshard itself starts once the extra axes are reduced. */
  shard_tensor_sharding *start = SHARD_NEW(arena, shard_tensor_sharding);
  *start = *src.sharding;
  start->unreduced = dst.sharding->unreduced;
  start->num_unreduced = dst.sharding->num_unreduced;
  shard_reshard_step *steps = NULL;
  uint32_t num_steps = 0;
  /* Both are named "mesh" here, so the planner cannot tell them apart by name. */
  if (!shard_mesh_same_axes(src.mesh, dst.mesh)) {
    shard_buf_puts(&why, outcome_reason(SHARD_RESHARD_INCOMPATIBLE_MESHES));
    goto report;
  }
  shard_reshard_outcome o =
      shard_reshard_plan(arena, start, src.mesh, dst.sharding, dst.mesh, shape, &steps, &num_steps);
  if (outcome_reason(o)) {
    shard_buf_puts(&why, outcome_reason(o));
    goto report;
  }
  uint32_t used = 0;
  if (num_extra)
    used =
        add_reduction(&plan, src.sharding, src.mesh, shape, (uint32_t)rank, elem, extra, num_extra, steps, num_steps);
  if (o == SHARD_RESHARD_STEPS && num_steps > used)
    shard_comm_plan_add_reshard(&plan, used ? steps[used - 1].sharding : start, src.mesh, shape, (uint32_t)rank, elem,
                                steps + used, num_steps - used, shard_no_span, NULL);
  /* Full rematerialization: gather to replicated, then slice to the target. */
  if (plan.num_rows) {
    if (num_extra)
      add_reduction(&remat, src.sharding, src.mesh, shape, (uint32_t)rank, elem, extra, num_extra, NULL, 0);
    shard_tensor_sharding *repl = SHARD_NEW(arena, shard_tensor_sharding);
    *repl = *start;
    repl->dims = SHARD_NEW_ARRAY(arena, shard_dim_sharding, rank ? rank : 1);
    for (int32_t d = 0; d < rank; d++) repl->dims[d].priority = SHARD_NO_PRIORITY;
    repl->num_replicated = 0;
    shard_reshard_step *g = NULL, *s = NULL;
    uint32_t ng = 0, ns = 0;
    if (shard_reshard_plan(arena, start, src.mesh, repl, src.mesh, shape, &g, &ng) == SHARD_RESHARD_STEPS &&
        shard_reshard_plan(arena, repl, src.mesh, dst.sharding, dst.mesh, shape, &s, &ns) == SHARD_RESHARD_STEPS) {
      shard_comm_plan_add_reshard(&remat, start, src.mesh, shape, (uint32_t)rank, elem, g, ng, shard_no_span, NULL);
      shard_comm_plan_add_reshard(&remat, repl, src.mesh, shape, (uint32_t)rank, elem, s, ns, shard_no_span, NULL);
    }
  }
  planned = true;

report:
  if (de.errors) goto done;
  {
    shard_buf head;
    shard_buf_init(&head);
    shard_buf_puts(&head, "tensor<");
    for (int32_t i = 0; i < rank; i++) shard_buf_printf(&head, "%lldx", (long long)shape[i]);
    shard_buf_printf(&head, "%s>", elem);
    shard_buf from_s, to_s, mesh_s;
    shard_buf_init(&from_s);
    shard_buf_init(&to_s);
    shard_buf_init(&mesh_s);
    if (src.sharding) shard_sharding_print(&from_s, src.sharding);
    if (dst.sharding) shard_sharding_print(&to_s, dst.sharding);
    if (src.mesh) shard_mesh_print(&mesh_s, (shard_mesh *)src.mesh);
    if (cfg.json) {
      cJSON *doc_obj = cJSON_CreateObject();
      cJSON_AddStringToObject(doc_obj, "tensor", shard_buf_str(&head));
      cJSON_AddStringToObject(doc_obj, "mesh", shard_buf_str(&mesh_s));
      cJSON_AddStringToObject(doc_obj, "from", shard_buf_str(&from_s));
      cJSON_AddStringToObject(doc_obj, "to", shard_buf_str(&to_s));
      cJSON_AddBoolToObject(doc_obj, "possible", planned);
      if (planned) cJSON_AddNullToObject(doc_obj, "why_not");
      else cJSON_AddStringToObject(doc_obj, "why_not", shard_buf_str(&why));
      add_plan_json(doc_obj, "plan", planned ? &plan : NULL, 3);
      add_plan_json(doc_obj, "full_rematerialization", planned && remat.num_rows ? &remat : NULL, 0);
      char *doc = cJSON_Print(doc_obj);
      shard_buf_printf(&out, "%s\n", doc);
      free(doc);
      cJSON_Delete(doc_obj);
    } else {
      shard_buf_printf(&out, "reshard %s", shard_buf_str(&head));
      if (mesh_s.len) shard_buf_printf(&out, " on mesh %s", shard_buf_str(&mesh_s));
      shard_buf_printf(&out, "\n  from %s\n  to   %s\n", src.sharding ? shard_buf_str(&from_s) : cfg.src,
                       dst.sharding ? shard_buf_str(&to_s) : cfg.dst);
      if (!planned) {
        shard_buf_printf(&out, "no plan: %s\n", shard_buf_str(&why));
      } else {
        shard_comm_plan_print_text(&out, &plan, 3);
        if (remat.num_rows) {
          shard_buf_printf(&out,
                           "full rematerialization instead (gather to replicated, then slice): "
                           "%lld bytes sent per device",
                           (long long)(remat.total_sent + 0.5));
          if (have_topo) {
            shard_buf_puts(&out, ", ");
            shard_comm_format_seconds(&out, remat.total_seconds);
          }
          shard_buf_putc(&out, '\n');
        }
      }
    }
    shard_buf_free(&head);
    shard_buf_free(&from_s);
    shard_buf_free(&to_s);
    shard_buf_free(&mesh_s);
    fputs(shard_buf_str(&out), stdout);
    code = fflush(stdout) != 0 ? CLI_EXIT_INTERNAL : planned ? CLI_EXIT_OK : CLI_EXIT_INVALID;
  }
done:
  shard_comm_plan_free(&plan);
  shard_comm_plan_free(&remat);
  shard_buf_free(&why);
  shard_buf_free(&out);
  shard_buf_free(&err);
  shard_arena_free(arena);
  free(shape);
  return code;
}
