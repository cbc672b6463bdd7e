/* Inputs for pictures (`shard viz`, `shard repl`): snippets and module
 * files through the real parser and verifier, then the lookups both
 * commands share. Snippets reuse `shard check -e`'s module builder
 * (snippet.c); their diagnostics are mapped back into the snippet. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/lower_pipeline.h"
#include "pass/pass_shardings.h"
#include "ir/parse.h"
#include "verify/verify.h"
#include "xla/xla_import.h"
#include "viz_input.h"

void viz_relay_diag(void *relay, const shard_diag *d) {
  const viz_relay *r = relay;
  shard_span span = cli_snippet_map(r->snippet, d->span);
  /* "'func.func' op arg 1 - unknown axis name" talks about the wrapper
   * function the user never wrote: name the sharding instead. */
  static const char wrapper[] = "'func.func' op arg ";
  const char *msg = d->message;
  shard_buf b;
  shard_buf_init(&b);
  if (strncmp(msg, wrapper, sizeof wrapper - 1) == 0) {
    char *end;
    unsigned long arg = strtoul(msg + sizeof wrapper - 1, &end, 10);
    if (strncmp(end, " - ", 3) == 0) {
      if (r->snippet->num_shardings > 1) shard_buf_printf(&b, "sharding %lu: %s", arg + 1, end + 3);
      else shard_buf_puts(&b, end + 3);
      msg = shard_buf_str(&b);
      if (arg < r->snippet->num_shardings) {
        const cli_snippet_sharding *sh = &r->snippet->shardings[arg];
        if (span.src != &r->snippet->snippet || span.off < sh->off || span.off > sh->off + sh->len) {
          span.src = &r->snippet->snippet;
          span.off = sh->off;
          span.len = sh->len;
        }
      }
    }
  }
  shard_diag_emit(r->de, d->severity, span, "%s", msg);
  shard_buf_free(&b);
}

static bool parse_and_verify(viz_input *in, shard_source *src, bool extra_warnings, shard_diag_engine *de) {
  shard_parse_options popts = {.allow_unregistered = !in->is_snippet, .max_depth = 0};
  unsigned before = de->errors;
  in->module = shard_xla_read_input(src, &popts, &in->xla, de);
  if (!in->module) return false;
  shard_verify_options vopts = {.extra_warnings = extra_warnings};
  shard_verify_module(in->module, &vopts, de);
  return de->errors == before;
}

bool viz_input_snippet(viz_input *in, const char *text, bool extra_warnings, shard_diag_engine *de) {
  memset(in, 0, sizeof *in);
  in->is_snippet = true;
  viz_relay relay = {&in->snippet, de};
  shard_diag_engine inner;
  shard_diag_init(&inner, viz_relay_diag, &relay);
  bool ok = cli_snippet_build(&in->snippet, text, &inner) &&
            parse_and_verify(in, &in->snippet.module, extra_warnings, &inner);
  return ok && inner.errors == 0;
}

bool viz_input_file(viz_input *in, const char *path, shard_diag_engine *de) {
  memset(in, 0, sizeof *in);
  shard_buf err;
  shard_buf_init(&err);
  size_t len;
  if (!cli_read_input(path, &in->text, &len, &err)) {
    shard_source file_only = {cli_input_name(path), NULL, 0, 0};
    shard_span at = {&file_only, 0, 0};
    shard_error(de, at, "%s", shard_buf_str(&err));
    shard_buf_free(&err);
    return false;
  }
  shard_buf_free(&err);
  in->src.name = cli_input_name(path);
  in->src.text = in->text;
  in->src.len = len;
  return parse_and_verify(in, &in->src, false, de);
}

void viz_input_free(viz_input *in) {
  if (in->module) shard_module_free(in->module);
  shard_xla_input_release(&in->xla);
  if (in->is_snippet) cli_snippet_free(&in->snippet);
  cli_input_free(in->text);
  memset(in, 0, sizeof *in);
}

static shard_span snippet_span(const viz_input *in, uint32_t i) {
  shard_span s = {&in->snippet.snippet, in->snippet.shardings[i].off, in->snippet.shardings[i].len};
  return s;
}

uint32_t viz_snippet_placements(viz_input *in, shard_arena *a, shard_placement ***out, shard_diag_engine *de) {
  uint32_t n = in->snippet.num_shardings;
  *out = shard_xcalloc(n ? n : 1, sizeof **out);
  shard_op *fn = in->module ? shard_module_lookup_symbol(in->module, "snippet") : NULL;
  if (!fn || fn->num_regions == 0 || !fn->regions[0].first) return 0;
  const shard_block *entry = fn->regions[0].first;
  for (uint32_t i = 0; i < n && i < entry->num_args; i++) {
    const shard_value *arg = &entry->args[i];
    const shard_tensor_sharding *s = shard_value_sharding(arg);
    const shard_mesh *m = s ? shard_module_sharding_mesh(in->module, s) : NULL;
    if (!s || !m) {
      shard_error(de, snippet_span(in, i), "this sharding has no known mesh");
      continue;
    }
    (*out)[i] = shard_placement_compute(a, arg->type, s, m, s->mesh_name, de, snippet_span(in, i));
  }
  return n;
}

static bool is_func(const shard_op *op) { return strcmp(op->name, "func.func") == 0; }

static const char *func_name(const shard_op *op) {
  shard_attr *a = shard_op_attr(op, "sym_name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : "";
}

shard_op *viz_find_func(const shard_module *m, const char *func) {
  if (!m->top || m->top->num_regions == 0 || !m->top->regions[0].first) return NULL;
  shard_op *first = NULL, *main_fn = NULL;
  for (shard_op *op = m->top->regions[0].first->first; op; op = op->next) {
    if (!is_func(op)) continue;
    if (func && strcmp(func_name(op), func[0] == '@' ? func + 1 : func) == 0) return op;
    if (!first) first = op;
    if (strcmp(func_name(op), "main") == 0) main_fn = op;
  }
  if (func) return NULL;
  return main_fn ? main_fn : first;
}

typedef struct value_search {
  const char *name;
  size_t name_len;
  uint32_t number; /* the #N part */
  shard_value *found;
} value_search;

static bool name_is(const shard_value *v, const value_search *vs) {
  return v->name && strlen(v->name) == vs->name_len && memcmp(v->name, vs->name, vs->name_len) == 0;
}

static bool search_op(shard_op *op, void *ctx) {
  value_search *vs = ctx;
  uint32_t k = 0;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (name_is(&op->results[i], vs) && k++ == vs->number) {
      vs->found = &op->results[i];
      return false;
    }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++)
        if (vs->number == 0 && name_is(&b->args[i], vs)) {
          vs->found = &b->args[i];
          return false;
        }
  return true;
}

shard_value *viz_find_value(const shard_module *m, shard_op *func, const char *name) {
  value_search vs = {0};
  vs.name = name[0] == '%' ? name + 1 : name;
  const char *hash = strchr(vs.name, '#');
  vs.name_len = hash ? (size_t)(hash - vs.name) : strlen(vs.name);
  if (hash) vs.number = (uint32_t)strtoul(hash + 1, NULL, 10);
  shard_walk(func ? func : m->top, search_op, &vs);
  return vs.found;
}

shard_placement *viz_value_placement(viz_input *in, shard_arena *a, const shard_value *v, const char *what,
                                     shard_diag_engine *de) {
  const shard_tensor_sharding *s = shard_value_sharding(v);
  if (!s) {
    shard_error(de, shard_value_span(v), "%s has no sharding", what);
    return NULL;
  }
  const shard_mesh *m = shard_module_sharding_mesh(in->module, s);
  if (!m) {
    shard_error(de, s->span, "the mesh of %s's sharding is unknown", what);
    return NULL;
  }
  return shard_placement_compute(a, v->type, s, m, s->mesh_name, de, s->span);
}

shard_placement *viz_result_placement(viz_input *in, shard_arena *a, shard_op *func, uint32_t i,
                                      shard_diag_engine *de) {
  shard_attr *ft = shard_op_attr(func, "function_type");
  const shard_type *t = ft && ft->kind == SHARD_ATTR_TYPE ? ft->u.type : NULL;
  if (!t || t->kind != SHARD_TYPE_FUNCTION || i >= t->num_results) {
    shard_error(de, func->span, "@%s has no result %u", func_name(func), i);
    return NULL;
  }
  const shard_tensor_sharding *s = shard_func_result_sharding(func, i);
  if (!s) {
    shard_error(de, func->span, "result %u of @%s has no sharding", i, func_name(func));
    return NULL;
  }
  const shard_mesh *m = shard_module_sharding_mesh(in->module, s);
  if (!m) {
    shard_error(de, s->span, "the mesh of result %u's sharding is unknown", i);
    return NULL;
  }
  return shard_placement_compute(a, t->results[i], s, m, s->mesh_name, de, s->span);
}

typedef struct sub_axis_collect {
  viz_mesh_use *uses;
  uint32_t n;
  const shard_module *module;
} sub_axis_collect;

static void note_sub_axes(sub_axis_collect *c, const shard_mesh *m, const shard_axis_ref *axes, uint32_t n) {
  for (uint32_t u = 0; u < c->n; u++) {
    viz_mesh_use *use = &c->uses[u];
    if (use->mesh != m) continue;
    for (uint32_t k = 0; k < n; k++) {
      if (!axes[k].is_sub) continue;
      bool seen = false;
      for (uint32_t j = 0; j < use->num_sub_axes && !seen; j++) seen = shard_axis_equal(&use->sub_axes[j], &axes[k]);
      if (seen) continue;
      use->sub_axes = shard_xrealloc(use->sub_axes, sizeof *use->sub_axes * (use->num_sub_axes + 1));
      use->sub_axes[use->num_sub_axes++] = axes[k];
    }
  }
}

static shard_tensor_sharding *collect_sharding(shard_tensor_sharding *s, void *ctx) {
  sub_axis_collect *c = ctx;
  const shard_mesh *m = shard_module_sharding_mesh(c->module, s);
  if (!m) return s;
  for (uint32_t d = 0; d < s->rank; d++) note_sub_axes(c, m, s->dims[d].axes, s->dims[d].num_axes);
  note_sub_axes(c, m, s->replicated, s->num_replicated);
  note_sub_axes(c, m, s->unreduced, s->num_unreduced);
  return s;
}

uint32_t viz_mesh_uses(const viz_input *in, viz_mesh_use **out) {
  SHARD_VEC(viz_mesh_use) uses = {0};
  const shard_module *m = in->module;
  if (m && m->top && m->top->num_regions && m->top->regions[0].first)
    for (shard_op *op = m->top->regions[0].first->first; op; op = op->next) {
      if (strcmp(op->name, "sdy.mesh") != 0) continue;
      shard_attr *mesh = shard_op_attr(op, "mesh");
      shard_attr *name = shard_op_attr(op, "sym_name");
      if (!mesh || mesh->kind != SHARD_ATTR_SDY_MESH || !name || name->kind != SHARD_ATTR_STRING) continue;
      viz_mesh_use u = {name->u.str.data, mesh->u.mesh, NULL, 0};
      SHARD_VEC_PUSH(uses, u);
    }
  if (m && uses.len) {
    sub_axis_collect c = {uses.items, uses.len, m};
    shard_map_shardings(in->module, collect_sharding, &c);
    /* Sub-axes in mesh order, as Shardy sorts them. */
    for (uint32_t u = 0; u < uses.len; u++) {
      viz_mesh_use *use = &uses.items[u];
      for (uint32_t i = 1; i < use->num_sub_axes; i++)
        for (uint32_t j = i; j > 0 && shard_axis_compare(&use->sub_axes[j - 1], &use->sub_axes[j], use->mesh) > 0;
             j--) {
          shard_axis_ref t = use->sub_axes[j];
          use->sub_axes[j] = use->sub_axes[j - 1];
          use->sub_axes[j - 1] = t;
        }
    }
  }
  *out = uses.items;
  return uses.len;
}

void viz_mesh_uses_free(viz_mesh_use *uses, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(uses[i].sub_axes);
  free(uses);
}

/* ---- propagation and lowering ------------------------------------------------ */

const char *const viz_stage_names[] = {"propagated", "reshards", "lowered"};

bool viz_lower_module(shard_module *m, viz_stage stage, bool propagate, shard_diag_engine *de) {
  shard_lower_stage to = stage == VIZ_STAGE_LOWERED    ? SHARD_STAGE_LOWERED
                         : stage == VIZ_STAGE_RESHARDS ? SHARD_STAGE_RESHARDS
                                                       : SHARD_STAGE_PROPAGATED;
  return shard_lower_pipeline_run_to(m, to, propagate, de);
}
