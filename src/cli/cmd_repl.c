/* `shard repl`: an interactive shell for meshes, shardings and their
 * placement.
 *
 * A session holds mesh definitions and named shardings, written in the
 * design-doc notation of `shard check -e`, and optionally one loaded
 * module. Every command that looks at a sharding rebuilds a snippet from
 * text (the sharding first, padded so its columns match the line the user
 * typed, then the session's and the module's meshes) and runs it through
 * the real parser and verifier, so the REPL accepts exactly what `shard
 * check` accepts. Each command gets its own arena, freed when it is done.
 *
 * `:propagate` and `:step` run Shardy's propagation pipeline on the loaded
 * module once, with two observers: explain.h, for where each value's
 * sharding came from, and a trace of every propagation step that changed
 * a sharding (the op, and each value's sharding before and after, as
 * text). `:step` then walks that trace one step at a time and `:show`
 * shows a value as of the current step; the module itself holds the final
 * result. `:reshard` plans the collectives between two shardings
 * (reshard.h) and costs them on the session's topology (cost.h).
 *
 * Everything, diagnostics included, goes to stdout: the session is one
 * transcript, in order, whether on a terminal or through a pipe. An error
 * never ends the session; the exit status says whether any command failed
 * (1) or none did (0). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_pictures.h"
#include "cost/comm_plan.h"
#include "cost/memory.h"
#include "ir/parse.h"
#include "pipeline/lower_pipeline.h"
#include "propagate/explain.h"
#include "pipeline/pass_registry.h"
#include "pass/pass_shardings.h"
#include "propagate/projection.h"
#include "propagate/propagate.h"
#include "repl.h"
#include "export/reshard.h"
#include "topology_file.h"
#include "verify/verify.h"
#include "viz_input.h"

#ifdef SHARD_HAVE_VIZ
#include "viz.h"
#endif

typedef struct named_text {
  char *name; /* without '@' or '%' */
  char *text; /* meshes: `@m = <...>`; shardings: `sharding<...> : TYPE` */
} named_text;

typedef SHARD_VEC(named_text) named_vec;

/* One sharding changed by one propagation step. */
typedef struct trace_change {
  uint32_t step; /* 1-based */
  const shard_value *value;
  char *value_name; /* "%3", or "result 0 of OP" */
  char *op; /* the op propagated through, with its location */
  char *before, *after; /* sharding text, "unsharded" when none */
} trace_change;

/* The sharding text of a value before propagation touched it. */
typedef struct first_sharding {
  const shard_value *value;
  char *text;
} first_sharding;
typedef SHARD_VEC(first_sharding) first_vec;

typedef struct session {
  named_vec meshes, shardings;
  /* The loaded module (NULL when none). On the heap: the module's spans
   * point at its source record inside. */
  viz_input *module;
  char *module_path;
  named_vec module_meshes; /* the loaded module's meshes, as mesh lines */
  SHARD_VEC(char *) value_names; /* "%3", "%arg0": the module's values with shardings */
  /* Propagation of the loaded module: ran once, then walked by :step. */
  bool propagated;
  shard_explain *explain;
  SHARD_VEC(trace_change) trace;
  first_vec firsts; /* as written, before any pass ran */
  first_vec entering; /* when the trace first met a value: the import
                                       * passes (constraints, groups) may have set it */
  uint32_t num_steps, cursor; /* steps recorded; steps shown so far */
  char *topology; /* :topology spec, NULL for the default */
  cli_sink sink;
  bool color;
  bool failed;
  shard_source line; /* the line being run, for located diagnostics */
  shard_diag_engine de;
  /* Snippet diagnostics are shown as about "<input>", with the typed line
   * in place of the padding that lined the snippet up with it. */
  shard_source shown;
  char *shown_text;
} session;

static shard_module *loaded_module(const session *s) { return s->module ? s->module->module : NULL; }

static void repl_diag(void *ctx, const shard_diag *d) {
  session *s = ctx;
  shard_diag shown = *d;
  if (d->span.src && s->shown_text && strcmp(d->span.src->name, "<snippet>") == 0 &&
      d->span.src->len == strlen(s->shown_text)) {
    s->shown.name = "<input>";
    s->shown.text = s->shown_text;
    s->shown.len = d->span.src->len;
    s->shown.line_base = 0;
    shown.span.src = &s->shown;
  }
  cli_sink_diag(&s->sink, &shown);
}

/* Remembers how to show diagnostics on snippet `text`, whose first `col`
 * characters stand for the start of the typed line. */
static void show_as_typed(session *s, const char *text, size_t col) {
  free(s->shown_text);
  s->shown_text = shard_xstrdup(text);
  if (col <= s->line.len) memcpy(s->shown_text, s->line.text, col);
}

void cmd_repl_usage(FILE *f) {
  fprintf(f, "usage: shard repl [--history FILE | --no-history] [--color=WHEN] [FILE]\n"
             "\n"
             "An interactive shell for meshes, shardings and their device placement. On a\n"
             "terminal it offers line editing, history and tab completion of commands, mesh\n"
             "names and value names; with stdin a pipe it reads commands line by line, so it\n"
             "can be scripted. FILE, when given, is loaded first (as ':load FILE').\n"
             "\n"
             "Options:\n"
             "  --history FILE   keep the history in FILE (default: $SHARD_HISTORY, else\n"
             "                   ~/.shard_history)\n"
             "  --no-history     keep no history file\n"
             "  --color=WHEN     auto (default; terminal and NO_COLOR unset), always, never\n"
             "  -h, --help       show this help\n"
             "\n"
             "Type ':help' in the shell for its commands. Exit status: 0 when every command\n"
             "succeeded, 1 when some command reported an error, 2 for a bad command line.\n");
}

static void help(void) {
  printf("Definitions (design-doc notation, as 'shard check -e'):\n"
         "  @mesh = <[\"x\"=2, \"y\"=4]>          define or replace a mesh\n"
         "  %%a = sharding<@mesh, [{\"x\"}, {}]> : tensor<8x8xf32>\n"
         "                                     name a sharding of a tensor type\n"
         "  sharding<...> : TYPE               check it and show its local shape\n"
         "Commands (S is %%name, a value of the loaded module, or sharding<...> : TYPE):\n"
         "  :local S          local (per-device) shape\n"
         "  :map S            every block with its index ranges and devices\n"
         "  :viz S            placement picture\n"
         "  :compare S1 S2    compare two named shardings (as written and as placed)\n"
         "  :reshard S1 S2    the collectives that reshard S1 into S2 and their cost\n"
         "  :topology [T]     show or set the topology for costs (tpu-v5p by default;\n"
         "                    tpu-v5e:4x2, h100:16, ... as in 'shard plan --topology')\n"
         "  :load FILE        load a module (its meshes and values become available)\n"
         "  :propagate        propagate the loaded module's shardings (Shardy's pipeline)\n"
         "  :step [N]         walk propagation one step (or N steps) at a time\n"
         "  :memory [N]       the loaded module's memory per device once lowered, as\n"
         "                    'shard lower --memory' (N largest live values, default 5)\n"
         "  :show %%v          a module value's sharding (as of the current step) and,\n"
         "                    after propagation, where it came from\n"
         "  :why %%v           where a value's sharding came from\n"
         "  :values           the loaded module's values with shardings\n"
         "  :meshes           draw the meshes\n"
         "  :list             the session's meshes and named shardings\n"
         "  :help             this text\n"
         "  :quit             leave (so does the end of input)\n");
}

/* ---- small helpers -------------------------------------------------------- */

static const char *skip_space(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

static size_t word_len(const char *p) {
  size_t n = 0;
  while (p[n] && p[n] != ' ' && p[n] != '\t') n++;
  return n;
}

static bool starts_with(const char *p, const char *w) { return strncmp(p, w, strlen(w)) == 0; }

static bool is_sharding_text(const char *p) { return starts_with(p, "sharding<") || starts_with(p, "#sdy.sharding<"); }

static void error_at(session *s, const char *at, size_t len, const char *fmt, const char *arg) {
  shard_span sp = {&s->line, (uint32_t)(at - s->line.text), (uint32_t)len};
  shard_error(&s->de, sp, fmt, arg);
}

static named_text *find_named(named_vec *v, const char *name, size_t n) {
  for (uint32_t i = 0; i < v->len; i++)
    if (strlen(v->items[i].name) == n && strncmp(v->items[i].name, name, n) == 0) return &v->items[i];
  return NULL;
}

static void set_named(named_vec *v, const char *name, size_t n, const char *text) {
  named_text *e = find_named(v, name, n);
  if (e) {
    free(e->text);
    e->text = shard_xstrdup(text);
    return;
  }
  named_text t = {shard_xstrndup(name, n), shard_xstrdup(text)};
  SHARD_VEC_PUSH(*v, t);
}

static void free_named(named_vec *v) {
  for (uint32_t i = 0; i < v->len; i++) {
    free(v->items[i].name);
    free(v->items[i].text);
  }
  SHARD_VEC_FREE(*v);
}

/* Snippet text: `first` at column `col` (so diagnostics line up with the
 * typed line), then every mesh line. */
static char *snippet_text(const session *s, const char *first, size_t col) {
  shard_buf b;
  shard_buf_init(&b);
  for (size_t i = 0; i < col; i++) shard_buf_putc(&b, ' ');
  shard_buf_puts(&b, first);
  for (uint32_t i = 0; i < s->meshes.len; i++) shard_buf_printf(&b, "\n%s", s->meshes.items[i].text);
  /* The module's meshes, unless the session redefined them. */
  for (uint32_t i = 0; i < s->module_meshes.len; i++) {
    const named_text *m = &s->module_meshes.items[i];
    bool shadowed = false;
    for (uint32_t k = 0; k < s->meshes.len; k++) shadowed |= strcmp(s->meshes.items[k].name, m->name) == 0;
    if (!shadowed) shard_buf_printf(&b, "\n%s", m->text);
  }
  return shard_buf_take(&b);
}

/* ---- subjects: what :local, :map, :viz and :compare look at --------------- */

typedef struct subject {
  viz_input in; /* a snippet, when the subject came from text */
  char *text; /* its text (must outlive `in`) */
  shard_placement *placement;
  char *label;
} subject;

static void subject_free(subject *sub) {
  viz_input_free(&sub->in);
  free(sub->text);
  free(sub->label);
  memset(sub, 0, sizeof *sub);
}

static bool placement_of_text(session *s, shard_arena *a, subject *sub, const char *text, size_t col) {
  sub->text = snippet_text(s, text, col);
  show_as_typed(s, sub->text, col);
  if (!viz_input_snippet(&sub->in, sub->text, true, &s->de)) return false;
  shard_placement **ps = NULL;
  uint32_t n = viz_snippet_placements(&sub->in, a, &ps, &s->de);
  sub->placement = n ? ps[0] : NULL;
  free(ps);
  return sub->placement != NULL;
}

/* Resolves the argument [arg, arg+len) of a command. */
static bool resolve(session *s, shard_arena *a, const char *arg, size_t len, subject *sub) {
  memset(sub, 0, sizeof *sub);
  sub->label = shard_xstrndup(arg, len);
  if (len == 0) {
    error_at(s, arg, 0, "%s", "expected %name or 'sharding<...> : TYPE'");
    return false;
  }
  if (arg[0] == '%') {
    named_text *t = find_named(&s->shardings, arg + 1, len - 1);
    if (t) return placement_of_text(s, a, sub, t->text, 0);
    if (loaded_module(s)) {
      shard_value *v = viz_find_value(loaded_module(s), NULL, sub->label);
      if (v) {
        char what[96];
        snprintf(what, sizeof what, "value %s", sub->label);
        sub->placement = viz_value_placement(s->module, a, v, what, &s->de);
        return sub->placement != NULL;
      }
    }
    error_at(s, arg, len, "unknown name '%s' (define it with '%%name = sharding<...> : TYPE')", sub->label);
    return false;
  }
  if (is_sharding_text(arg)) return placement_of_text(s, a, sub, sub->label, (size_t)(arg - s->line.text));
  error_at(s, arg, len, "expected %%name or 'sharding<...> : TYPE', got '%s'", sub->label);
  return false;
}

static void print_tensor(shard_buf *b, const shard_placement *p, const int64_t *dims) {
  shard_buf_puts(b, "tensor<");
  for (uint32_t d = 0; d < p->rank; d++) shard_buf_printf(b, "%lldx", (long long)dims[d]);
  shard_buf_printf(b, "%s>", p->type->elem ? p->type->elem : "?");
}

static void print_local(const shard_placement *p) {
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_puts(&b, "local shape: ");
  print_tensor(&b, p, p->local);
  shard_buf_printf(&b, " (global %s, %u devices", p->type->text, p->num_devices);
  if (p->copies > 1) shard_buf_printf(&b, ", %lld copies of each block", (long long)p->copies);
  if (p->num_partials > 1) shard_buf_printf(&b, ", %lld partial values of each block", (long long)p->num_partials);
  shard_buf_puts(&b, ")\n");
  fputs(shard_buf_str(&b), stdout);
  shard_buf_free(&b);
}

/* ---- commands ---------------------------------------------------------------- */

static void define_mesh(session *s, const char *line) {
  const char *name = line + 1;
  size_t n = 0;
  while (name[n] && name[n] != ' ' && name[n] != '\t' && name[n] != '=') n++;
  if (n == 0) {
    error_at(s, line, 1, "%s", "expected a mesh name after '@'");
    return;
  }
  char *nm = shard_xstrndup(name, n);
  /* Meshes stand alone: check it by itself. */
  char *text = shard_xstrdup(line);
  show_as_typed(s, text, 0);
  viz_input in;
  if (viz_input_snippet(&in, text, false, &s->de)) {
    viz_mesh_use *uses;
    uint32_t k = viz_mesh_uses(&in, &uses);
    for (uint32_t i = 0; i < k; i++)
      if (strcmp(uses[i].name, nm) == 0) {
        shard_buf b;
        shard_buf_init(&b);
        shard_mesh_print(&b, uses[i].mesh);
        int64_t devices = shard_mesh_num_devices(uses[i].mesh);
        printf("mesh @%s = %s: %lld device%s\n", nm, shard_buf_str(&b), (long long)devices, devices == 1 ? "" : "s");
        /* Stored in printed form, so ';' or comments typed after it go. */
        shard_buf_clear(&b);
        shard_buf_printf(&b, "@%s = ", nm);
        shard_mesh_print(&b, uses[i].mesh);
        set_named(&s->meshes, nm, n, shard_buf_str(&b));
        shard_buf_free(&b);
      }
    viz_mesh_uses_free(uses, k);
  }
  viz_input_free(&in);
  free(text);
  free(nm);
}

static void define_sharding(session *s, const char *line, const char *eq) {
  const char *name = line + 1;
  size_t n = (size_t)(eq - name);
  while (n && (name[n - 1] == ' ' || name[n - 1] == '\t')) n--;
  const char *rest = skip_space(eq + 1);
  if (n == 0 || !is_sharding_text(rest)) {
    error_at(s, line, strlen(line), "%s", "expected '%name = sharding<...> : TYPE'");
    return;
  }
  shard_arena *a = shard_arena_new();
  subject sub = {0};
  if (placement_of_text(s, a, &sub, rest, (size_t)(rest - line))) {
    set_named(&s->shardings, name, n, rest);
    printf("%%%.*s: ", (int)n, name);
    print_local(sub.placement);
  }
  subject_free(&sub);
  shard_arena_free(a);
}

/* :local, :map, :viz */
static void show_subject(session *s, const char *cmd, const char *arg) {
  size_t len = strlen(arg);
  while (len && (arg[len - 1] == ' ' || arg[len - 1] == '\t')) len--;
  shard_arena *a = shard_arena_new();
  subject sub;
  if (resolve(s, a, arg, len, &sub)) {
    const shard_placement *p = sub.placement;
    if (strcmp(cmd, ":local") == 0) {
      print_local(p);
    } else {
#ifdef SHARD_HAVE_VIZ
      shard_buf b;
      shard_buf_init(&b);
      shard_viz_options o = {s->color, SHARD_VIZ_SLICES};
      if (strcmp(cmd, ":map") == 0) shard_viz_term_blocks(&b, p);
      else shard_viz_term_placement(&b, p, &o);
      fputs(shard_buf_str(&b), stdout);
      shard_buf_free(&b);
#else
      printf("this shard was built without pictures\n");
#endif
    }
  }
  subject_free(&sub);
  shard_arena_free(a);
}

/* The two subjects of ':CMD %a %b'; false after reporting the problem.
 * On success the caller frees both. */
static bool resolve_pair(session *s, shard_arena *a, const char *args, const char *usage, subject *x, subject *y) {
  size_t n1 = word_len(args);
  const char *a2 = skip_space(args + n1);
  size_t n2 = word_len(a2);
  if (n1 == 0 || n2 == 0 || args[0] != '%' || a2[0] != '%' || *skip_space(a2 + n2)) {
    error_at(s, args, strlen(args), "usage: %s (name inline shardings first: %%a = sharding<...> : TYPE)", usage);
    return false;
  }
  if (!resolve(s, a, args, n1, x)) {
    subject_free(x);
    return false;
  }
  if (!resolve(s, a, a2, n2, y)) {
    subject_free(y);
    subject_free(x);
    return false;
  }
  return true;
}

static void compare(session *s, const char *args) {
  shard_arena *a = shard_arena_new();
  subject x, y;
  if (resolve_pair(s, a, args, "':compare %a %b'", &x, &y)) {
    shard_buf b;
    shard_buf_init(&b);
    const shard_placement *p = x.placement, *q = y.placement;
    for (int i = 0; i < 2; i++) {
      const shard_placement *r = i ? q : p;
      shard_buf_printf(&b, "%s: ", i ? y.label : x.label);
      shard_sharding_print(&b, r->sharding);
      shard_buf_printf(&b, " : %s\n", r->type->text);
    }
    bool written = shard_sharding_equal(p->sharding, q->sharding) && strcmp(p->type->text, q->type->text) == 0;
    shard_buf_printf(&b, "as written: %s\n", written ? "identical" : "different");
    shard_buf why;
    shard_buf_init(&why);
    if (shard_placement_same(p, q, &why)) shard_buf_puts(&b, "as placed: the same data on every device\n");
    else shard_buf_printf(&b, "as placed: different: %s\n", shard_buf_str(&why));
    shard_buf_free(&why);
    fputs(shard_buf_str(&b), stdout);
    shard_buf_free(&b);
    subject_free(&y);
    subject_free(&x);
  }
  shard_arena_free(a);
}

static bool collect_values(shard_op *op, void *ctx) {
  session *s = ctx;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++)
        if (b->args[i].name && shard_value_sharding(&b->args[i])) {
          char *name = shard_xmalloc(strlen(b->args[i].name) + 2);
          sprintf(name, "%%%s", b->args[i].name);
          SHARD_VEC_PUSH(s->value_names, name);
        }
  uint32_t k = 0;
  for (uint32_t i = 0; i < op->num_results; i++) {
    const shard_value *v = &op->results[i];
    if (!v->name) continue;
    /* Results sharing a name (%0:2) are %0#0, %0#1 in MLIR's spelling. */
    bool shared = i > 0 && op->results[i - 1].name == v->name;
    k = shared ? k + 1 : 0;
    if (!shard_value_sharding(v)) continue;
    bool group = shared || (i + 1 < op->num_results && op->results[i + 1].name == v->name);
    char *name = shard_xmalloc(strlen(v->name) + 16);
    if (group) sprintf(name, "%%%s#%u", v->name, k);
    else sprintf(name, "%%%s", v->name);
    SHARD_VEC_PUSH(s->value_names, name);
  }
  return true;
}

static void refresh_values(session *s) {
  for (uint32_t i = 0; i < s->value_names.len; i++) free(s->value_names.items[i]);
  SHARD_VEC_FREE(s->value_names);
  if (loaded_module(s)) shard_walk(loaded_module(s)->top, collect_values, s);
}

static void forget_propagation(session *s) {
  for (uint32_t i = 0; i < s->trace.len; i++) {
    trace_change *c = &s->trace.items[i];
    free(c->value_name);
    free(c->op);
    free(c->before);
    free(c->after);
  }
  SHARD_VEC_FREE(s->trace);
  for (uint32_t i = 0; i < s->firsts.len; i++) free(s->firsts.items[i].text);
  SHARD_VEC_FREE(s->firsts);
  for (uint32_t i = 0; i < s->entering.len; i++) free(s->entering.items[i].text);
  SHARD_VEC_FREE(s->entering);
  shard_explain_free(s->explain);
  s->explain = NULL;
  s->propagated = false;
  s->num_steps = s->cursor = 0;
}

static void unload(session *s) {
  forget_propagation(s);
  if (s->module) viz_input_free(s->module);
  free(s->module);
  s->module = NULL;
  free(s->module_path);
  s->module_path = NULL;
  free_named(&s->module_meshes);
  for (uint32_t i = 0; i < s->value_names.len; i++) free(s->value_names.items[i]);
  SHARD_VEC_FREE(s->value_names);
}

static void load(session *s, const char *arg) {
  size_t len = strlen(arg);
  while (len && (arg[len - 1] == ' ' || arg[len - 1] == '\t')) len--;
  if (len == 0) {
    error_at(s, arg, 0, "%s", "usage: ':load FILE'");
    return;
  }
  char *path = shard_xstrndup(arg, len);
  viz_input *in = shard_xmalloc(sizeof *in);
  if (!viz_input_file(in, path, &s->de)) {
    viz_input_free(in);
    free(in);
    free(path);
    return;
  }
  unload(s);
  s->module = in;
  viz_mesh_use *uses;
  uint32_t n = viz_mesh_uses(s->module, &uses);
  shard_buf b;
  shard_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) {
    shard_buf_clear(&b);
    shard_buf_printf(&b, "@%s = ", uses[i].name);
    shard_mesh_print(&b, uses[i].mesh);
    set_named(&s->module_meshes, uses[i].name, strlen(uses[i].name), shard_buf_str(&b));
  }
  shard_buf_free(&b);
  viz_mesh_uses_free(uses, n);
  shard_walk(loaded_module(s)->top, collect_values, s);
  printf("loaded %s: %u mesh%s, %u value%s with shardings\n", path, n, n == 1 ? "" : "es", s->value_names.len,
         s->value_names.len == 1 ? "" : "s");
  /* Diagnostics about the module name it by this path: keep it. */
  s->module_path = path;
}

static const char *sharding_at(const session *s, const shard_value *v, uint32_t step);
static char *explanation_of(const session *s, const char *name);

/* The loaded module's value named by the word at arg, with *name its name
 * (to free); NULL, after an error, when there is none. */
static shard_value *named_value(session *s, const char *arg, char **name) {
  size_t len = word_len(arg);
  *name = shard_xstrndup(arg, len);
  shard_value *v = len ? viz_find_value(loaded_module(s), NULL, *name) : NULL;
  if (!v) {
    error_at(s, arg, len, "no value '%s' in the loaded module", *name);
    free(*name);
    *name = NULL;
  }
  return v;
}

static void show_value(session *s, const char *arg) {
  size_t len = word_len(arg);
  if (!loaded_module(s)) {
    error_at(s, arg, len, "%s", "no module loaded (use ':load FILE')");
    return;
  }
  char *name;
  shard_value *v = named_value(s, arg, &name);
  if (!v) return;
  if (s->propagated && s->cursor < s->num_steps) {
    /* Walking propagation: the value as of the current step. */
    const shard_value *held = shard_propagation_shardable_value(v);
    const char *text = sharding_at(s, held ? held : v, s->cursor);
    printf("%s : %s %s%s (after step %u of %u)\n", name, v->type ? v->type->text : "?",
           strcmp(text, "unsharded") == 0 ? "" : "sharding", text, s->cursor, s->num_steps);
    free(name);
    return;
  }
  const shard_tensor_sharding *sh = shard_value_sharding(v);
  shard_buf b;
  shard_buf_init(&b);
  shard_buf_printf(&b, "%s : %s", name, v->type ? v->type->text : "?");
  if (sh) {
    shard_buf_puts(&b, " sharding");
    shard_sharding_print(&b, sh);
  } else {
    shard_buf_puts(&b, " (no sharding)");
  }
  printf("%s\n", shard_buf_str(&b));
  shard_buf_free(&b);
  if (sh) {
    shard_arena *a = shard_arena_new();
    shard_placement *p = viz_value_placement(s->module, a, v, name, &s->de);
    if (p) print_local(p);
    shard_arena_free(a);
  }
  if (s->explain) {
    char *text = explanation_of(s, name);
    /* The paragraph's first line repeats the sharding: show where it came from. */
    const char *nl = text ? strchr(text, '\n') : NULL;
    if (nl) printf("where it came from:\n%s\n", nl + 1);
    else printf("as written (propagation did not change it)\n");
    free(text);
  }
  free(name);
}

static void list_values(session *s) {
  if (!loaded_module(s)) {
    printf("no module loaded\n");
    return;
  }
  for (uint32_t i = 0; i < s->value_names.len; i++) {
    shard_value *v = viz_find_value(loaded_module(s), NULL, s->value_names.items[i]);
    const shard_tensor_sharding *sh = v ? shard_value_sharding(v) : NULL;
    shard_buf b;
    shard_buf_init(&b);
    shard_buf_printf(&b, "%s : %s", s->value_names.items[i], v && v->type ? v->type->text : "?");
    if (sh) {
      shard_buf_puts(&b, " sharding");
      shard_sharding_print(&b, sh);
    }
    printf("%s\n", shard_buf_str(&b));
    shard_buf_free(&b);
  }
}

static void draw_meshes(session *s) {
  if (s->meshes.len == 0 && s->module_meshes.len == 0) {
    printf("no meshes yet (define one: @mesh = <[\"x\"=2]>)\n");
    return;
  }
  char *text = snippet_text(s, "", 0);
  viz_input in;
  if (viz_input_snippet(&in, text, false, &s->de)) {
#ifdef SHARD_HAVE_VIZ
    viz_mesh_use *uses;
    uint32_t n = viz_mesh_uses(&in, &uses);
    shard_viz_mesh *ms = shard_xcalloc(n ? n : 1, sizeof *ms);
    for (uint32_t i = 0; i < n; i++) {
      shard_viz_mesh m = {uses[i].name, uses[i].mesh, uses[i].sub_axes, uses[i].num_sub_axes};
      ms[i] = m;
    }
    shard_buf b;
    shard_buf_init(&b);
    shard_viz_options o = {s->color, SHARD_VIZ_SLICES};
    shard_viz_term_meshes(&b, ms, n, &o);
    fputs(shard_buf_str(&b), stdout);
    shard_buf_free(&b);
    free(ms);
    viz_mesh_uses_free(uses, n);
#endif
  }
  viz_input_free(&in);
  free(text);
}

static void list_session(session *s) {
  for (uint32_t i = 0; i < s->meshes.len; i++) printf("%s\n", s->meshes.items[i].text);
  for (uint32_t i = 0; i < s->module_meshes.len; i++) printf("%s  (from the module)\n", s->module_meshes.items[i].text);
  for (uint32_t i = 0; i < s->shardings.len; i++)
    printf("%%%s = %s\n", s->shardings.items[i].name, s->shardings.items[i].text);
  if (!s->meshes.len && !s->module_meshes.len && !s->shardings.len) printf("nothing defined yet\n");
}

/* ---- resharding --------------------------------------------------------------- */

static bool resolve_topology(session *s, int64_t devices, shard_topology *topo, const char *at) {
  shard_buf err;
  shard_buf_init(&err);
  bool ok = cli_topology_resolve(s->topology, devices, topo, &err);
  if (!ok) error_at(s, at, strlen(at), "%s", shard_buf_str(&err));
  shard_buf_free(&err);
  return ok;
}

static void set_topology(session *s, const char *arg) {
  size_t len = word_len(arg);
  shard_topology topo;
  if (len) {
    char *spec = shard_xstrndup(arg, len);
    shard_buf err;
    shard_buf_init(&err);
    /* Checked for a mesh of one device: the size is only known per question. */
    if (!cli_topology_resolve(spec, 1, &topo, &err)) {
      error_at(s, arg, len, "%s", shard_buf_str(&err));
      free(spec);
      shard_buf_free(&err);
      return;
    }
    shard_buf_free(&err);
    free(s->topology);
    s->topology = spec;
  }
  printf("topology: %s%s\n", s->topology ? s->topology : "tpu-v5p",
         s->topology ? "" : " (default, sized for each mesh)");
}

/* :memory [N]: the loaded module lowered again from its text (so that
 * locations stay in its file) and its static memory (memory.h) on the
 * session's topology. */
static void memory(session *s, const char *arg) {
  size_t len = word_len(arg);
  if (!loaded_module(s)) {
    error_at(s, arg, len, "%s", "no module loaded (use ':load FILE')");
    return;
  }
  long top = 5;
  if (len) {
    char *end;
    top = strtol(arg, &end, 10);
    if (end != arg + len || top < 0 || top > 1000) {
      error_at(s, arg, len, "%s", "usage: ':memory [N]' (N from 0 to 1000)");
      return;
    }
  }
  shard_parse_options popts = {.allow_unregistered = false, .max_depth = 0};
  unsigned errors = s->de.errors;
  shard_module *m = shard_parse_module(&s->module->src, &popts, &s->de);
  shard_memory_report rep;
  shard_topology topo;
  shard_buf err, out;
  shard_buf_init(&err);
  shard_buf_init(&out);
  if (m && s->de.errors == errors && shard_lower_pipeline_run(m, true, true, &s->de) &&
      shard_memory_analyze(&rep, m->arena, m, NULL, &s->de)) {
    if (!cli_topology_resolve(s->topology, rep.num_devices, &topo, &err)) {
      error_at(s, arg, len, "%s", shard_buf_str(&err));
    } else {
      char source[128];
      snprintf(source, sizeof source, "%s device memory", topo.name);
      shard_memory_print_text(&out, &rep, (uint32_t)top, (int64_t)topo.memory_bytes,
                              topo.memory_bytes >= 1 ? source : topo.name);
      fputs(shard_buf_str(&out), stdout);
    }
  }
  shard_buf_free(&err);
  shard_buf_free(&out);
  if (m) shard_module_free(m);
}

static const char *no_plan_reason(shard_reshard_outcome o) {
  switch (o) {
  case SHARD_RESHARD_INCOMPATIBLE_MESHES: return "the meshes differ in more than device order";
  case SHARD_RESHARD_RANK_MISMATCH: return "the shardings have different ranks";
  case SHARD_RESHARD_INCOMPLETE:
    return "Shardy's algorithm cannot reach the target with collectives (axis sizes that are not "
           "powers of two?)";
  case SHARD_RESHARD_MAXIMAL_MESH: return "a single-device mesh is involved: nothing to move";
  default: return NULL;
  }
}

/* :reshard S1 S2 */
static void reshard(session *s, const char *args) {
  const char *a1 = args;
  shard_arena *a = shard_arena_new();
  subject x, y;
  if (resolve_pair(s, a, args, "':reshard %from %to'", &x, &y)) {
    const shard_placement *p = x.placement, *q = y.placement;
    shard_topology topo;
    if (strcmp(p->type->text, q->type->text) != 0) {
      shard_buf m;
      shard_buf_init(&m);
      shard_buf_printf(&m, "%s is a %s but %s is a %s: a reshard keeps the type", x.label, p->type->text, y.label,
                       q->type->text);
      error_at(s, a1, strlen(a1), "%s", shard_buf_str(&m));
      shard_buf_free(&m);
    } else if (p->sharding->num_unreduced != q->sharding->num_unreduced) {
      error_at(s, a1, strlen(a1), "%s",
               "the shardings differ in unreduced axes: reductions are not planned here (see "
               "'shard plan')");
    } else if (resolve_topology(s, shard_mesh_num_devices(p->mesh), &topo, a1)) {
      shard_reshard_step *steps = NULL;
      uint32_t num_steps = 0;
      shard_reshard_outcome o =
          shard_reshard_plan(a, p->sharding, p->mesh, q->sharding, q->mesh, p->dims, &steps, &num_steps);
      shard_buf b;
      shard_buf_init(&b);
      shard_buf_printf(&b, "%s -> %s : %s\n", x.label, y.label, p->type->text);
      if (no_plan_reason(o)) {
        shard_buf_printf(&b, "no plan: %s\n", no_plan_reason(o));
      } else if (o == SHARD_RESHARD_FORWARD || num_steps == 0) {
        shard_buf_puts(&b, "nothing to move: the shardings already place the same data\n");
      } else {
        for (uint32_t i = 0; i < num_steps; i++) {
          shard_buf_printf(&b, "step %u: %s to ", i + 1, shard_reshard_kind_name(steps[i].kind));
          shard_sharding_print(&b, steps[i].sharding);
          shard_buf_putc(&b, '\n');
        }
        shard_comm_plan plan;
        shard_comm_plan_init(&plan, a, &topo);
        shard_comm_plan_add_reshard(&plan, p->sharding, p->mesh, p->dims, p->rank, p->type->elem, steps, num_steps,
                                    shard_no_span, NULL);
        shard_comm_plan_print_text(&b, &plan, 0);
        shard_comm_plan_free(&plan);
      }
      fputs(shard_buf_str(&b), stdout);
      shard_buf_free(&b);
    }
    subject_free(&y);
    subject_free(&x);
  }
  shard_arena_free(a);
}

/* ---- propagation: run once, then walk the trace -------------------------------- */

static char *sharding_text(shard_arena *a, const shard_value *v) {
  const shard_tensor_sharding *sh = shard_propagation_value_sharding(a, v);
  if (!sh) return shard_xstrdup("unsharded");
  shard_buf b;
  shard_buf_init(&b);
  shard_sharding_print(&b, sh);
  return shard_buf_take(&b);
}

static char *describe_value(const shard_value *v) {
  shard_buf b;
  shard_buf_init(&b);
  if (v->name) shard_buf_printf(&b, "%%%s", v->name);
  else if (v->def) shard_buf_printf(&b, "result %u of %s", v->index, v->def->name);
  else shard_buf_printf(&b, "block argument %u", v->index);
  return shard_buf_take(&b);
}

static void describe_op(shard_buf *b, const shard_op *op) {
  shard_buf_puts(b, op->name);
  if (op->span.src) {
    uint32_t line, col;
    shard_span_linecol(op->span, &line, &col);
    shard_buf_printf(b, " at %u:%u", line, col);
  }
}

static bool record_first(shard_op *op, void *ctx) {
  session *s = ctx;
  shard_arena *a = loaded_module(s)->arena;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t i = 0; i < b->num_args; i++) {
        first_sharding f = {&b->args[i], sharding_text(a, &b->args[i])};
        SHARD_VEC_PUSH(s->firsts, f);
      }
  for (uint32_t i = 0; i < op->num_results; i++) {
    first_sharding f = {&op->results[i], sharding_text(a, &op->results[i])};
    SHARD_VEC_PUSH(s->firsts, f);
  }
  return true;
}

static const char *find_first(const first_vec *v, const shard_value *value);

/* The sharding text of v after `step` steps (0: as written). Linear
 * searches: REPL modules are small, and this runs once per command. */
static const char *sharding_at(const session *s, const shard_value *v, uint32_t step) {
  for (uint32_t i = s->trace.len; i-- > 0;)
    if (s->trace.items[i].value == v && s->trace.items[i].step <= step) return s->trace.items[i].after;
  const char *t = step ? find_first(&s->entering, v) : NULL;
  if (!t) t = find_first(&s->firsts, v);
  return t ? t : "unsharded";
}

static const char *find_first(const first_vec *v, const shard_value *value) {
  for (uint32_t i = 0; i < v->len; i++)
    if (v->items[i].value == value) return v->items[i].text;
  return NULL;
}

/* What tensor t of a step held before it: what the trace last wrote, else
 * the step's own projection before the update (factor shardings projected
 * back to dims, so open/closed marks may differ from the annotation). */
static char *before_step(session *s, const shard_propagation_step *st, uint32_t t, const shard_value *v) {
  for (uint32_t i = s->trace.len; i-- > 0;)
    if (s->trace.items[i].value == v) return shard_xstrdup(s->trace.items[i].after);
  shard_arena *a = loaded_module(s)->arena;
  if (st->rule && st->before && t < shard_projection_num_tensors(st->before)) {
    const shard_tensor_mapping *map =
        t < st->rule->num_operands ? &st->rule->operands[t] : &st->rule->results[t - st->rule->num_operands];
    const shard_tensor_sharding *now = shard_propagation_value_sharding(a, v);
    shard_tensor_sharding *was =
        shard_projection_to_sharding(a, st->before, t, map, now ? now->mesh_name : NULL, now ? now->inline_mesh : NULL);
    bool any = false;
    for (uint32_t d = 0; was && d < was->rank; d++) any |= was->dims[d].num_axes > 0;
    if (was && any) {
      shard_buf b;
      shard_buf_init(&b);
      shard_sharding_print(&b, was);
      return shard_buf_take(&b);
    }
  }
  const char *first = find_first(&s->firsts, v);
  return shard_xstrdup(first ? first : "unsharded");
}

static void on_step(void *ctx, const shard_propagation_step *st) {
  session *s = ctx;
  shard_propagation_observer explain = shard_explain_observer(s->explain);
  explain.on_step(explain.ctx, st);
  uint32_t step = ++s->num_steps;
  shard_arena *a = loaded_module(s)->arena;
  shard_buf op;
  shard_buf_init(&op);
  if (st->func_result) shard_buf_printf(&op, "result %u of ", st->func_result_index);
  describe_op(&op, st->op);
  for (uint32_t t = 0; t < st->num_operands + st->num_results; t++) {
    const shard_value *v = st->values[t];
    if (!v) continue;
    char *before = st->updated[t] ? before_step(s, st, t, v) : sharding_text(a, v);
    if (!find_first(&s->entering, v)) {
      first_sharding f = {v, shard_xstrdup(before)};
      SHARD_VEC_PUSH(s->entering, f);
    }
    if (!st->updated[t]) {
      free(before);
      continue;
    }
    trace_change c = {step, v, describe_value(v), shard_xstrdup(shard_buf_str(&op)), before, sharding_text(a, v)};
    SHARD_VEC_PUSH(s->trace, c);
  }
  shard_buf_free(&op);
}

static void refresh_values(session *s);

/* Propagates the loaded module once; false when there is none or it failed. */
static bool ensure_propagated(session *s, const char *at) {
  if (!loaded_module(s)) {
    error_at(s, at, strlen(at), "%s", "no module loaded (use ':load FILE')");
    return false;
  }
  if (s->propagated) return true;
  shard_module *m = loaded_module(s);
  shard_walk(m->top, record_first, s);
  s->explain = shard_explain_new(m, NULL);
  shard_propagation_observer mine = {on_step, s};
  shard_pass_context cx = {.de = &s->de, .observer = &mine};
  unsigned before = s->de.errors;
  bool ok = shard_pass_run("sdy-propagation-pipeline", m, NULL, &cx) && s->de.errors == before;
  shard_verify_options vopts = {.extra_warnings = false};
  if (ok) ok = shard_verify_module(m, &vopts, &s->de) && s->de.errors == before;
  /* A failed run leaves the module half done: don't run it again. */
  s->propagated = true;
  if (ok) shard_explain_finish(s->explain);
  else {
    shard_explain_free(s->explain);
    s->explain = NULL;
  }
  refresh_values(s);
  return ok;
}

static void propagate_module(session *s, const char *arg) {
  bool again = s->propagated;
  if (!ensure_propagated(s, arg)) return;
  s->cursor = s->num_steps;
  if (again && s->explain) {
    printf("already propagated: %u steps (':step reset' walks them again)\n", s->num_steps);
    return;
  }
  if (!s->explain) return;
  printf("propagated %s: %u step%s changed shardings; %u value%s changed, %u conflict%s, %u "
         "barrier%s\n",
         s->module_path, s->num_steps, s->num_steps == 1 ? "" : "s", shard_explain_num_changed(s->explain),
         shard_explain_num_changed(s->explain) == 1 ? "" : "s", shard_explain_num_conflicts(s->explain),
         shard_explain_num_conflicts(s->explain) == 1 ? "" : "s", shard_explain_num_barriers(s->explain),
         shard_explain_num_barriers(s->explain) == 1 ? "" : "s");
}

static void print_step(const session *s, uint32_t step) {
  bool head = false;
  for (uint32_t i = 0; i < s->trace.len; i++) {
    const trace_change *c = &s->trace.items[i];
    if (c->step != step) continue;
    if (!head) printf("step %u of %u: %s\n", step, s->num_steps, c->op);
    head = true;
    printf("  %s: %s -> %s\n", c->value_name, c->before, c->after);
  }
}

/* :step [N | reset] */
static void step(session *s, const char *arg) {
  size_t len = word_len(arg);
  long n = 1;
  bool reset = len == 5 && strncmp(arg, "reset", 5) == 0;
  if (len && !reset) {
    char *end;
    n = strtol(arg, &end, 10);
    if (end != arg + len || n < 1) {
      error_at(s, arg, len, "%s", "usage: ':step [N | reset]' (N a positive count)");
      return;
    }
  }
  bool fresh = !s->propagated;
  if (!ensure_propagated(s, arg)) return;
  if (fresh) printf("propagation recorded: %u step%s changed shardings\n", s->num_steps, s->num_steps == 1 ? "" : "s");
  if (reset) {
    s->cursor = 0;
    printf("back to the shardings as written (step 0 of %u)\n", s->num_steps);
    return;
  }
  if (s->cursor >= s->num_steps) {
    printf("propagation is done (%u step%s); ':step reset' to walk it again\n", s->num_steps,
           s->num_steps == 1 ? "" : "s");
    return;
  }
  for (long i = 0; i < n && s->cursor < s->num_steps; i++) print_step(s, ++s->cursor);
  if (s->cursor == s->num_steps) printf("propagation is done\n");
}

/* The paragraph of `shard propagate --explain` about `name`, or NULL. */
static char *explanation_of(const session *s, const char *name) {
  if (!s->explain) return NULL;
  shard_buf b;
  shard_buf_init(&b);
  shard_explain_render_text(s->explain, &b);
  const char *text = shard_buf_str(&b);
  size_t n = strlen(name);
  char *found = NULL;
  for (const char *p = text; p && *p;) {
    if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == ':')) {
      const char *end = strstr(p, "\n\n");
      found = shard_xstrndup(p, end ? (size_t)(end - p) : strlen(p));
      break;
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
  shard_buf_free(&b);
  return found;
}

/* :why %v */
static void why(session *s, const char *arg) {
  if (!ensure_propagated(s, arg)) return;
  char *name;
  shard_value *v = named_value(s, arg, &name);
  if (!v) return;
  char *text = explanation_of(s, name);
  if (text) printf("%s\n", text);
  else printf("%s: not changed by propagation (%s as written)\n", name, sharding_at(s, v, 0));
  free(text);
  free(name);
}

/* The commands, in the order completion offers them: the first five are
 * run by run_line itself (help, quit and the subject views, which have
 * aliases or need the command's name), the others by their function, given
 * the rest of the line (with_arg) or not (plain). */
static const struct {
  const char *name;
  void (*with_arg)(session *s, const char *arg);
  void (*plain)(session *s);
} commands[] = {
    {":help", NULL, NULL},
    {":quit", NULL, NULL},
    {":local", NULL, NULL},
    {":map", NULL, NULL},
    {":viz", NULL, NULL},
    {":compare", compare, NULL},
    {":load", load, NULL},
    {":show", show_value, NULL},
    {":why", why, NULL},
    {":values", NULL, list_values},
    {":meshes", NULL, draw_meshes},
    {":list", NULL, list_session},
    {":reshard", reshard, NULL},
    {":topology", set_topology, NULL},
    {":propagate", propagate_module, NULL},
    {":step", step, NULL},
    {":memory", memory, NULL},
};
#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

/* Runs one line; false to end the session. */
static bool run_line(session *s, const char *line) {
  const char *p = skip_space(line);
  if (!*p || starts_with(p, "//") || (p[0] == '#' && !is_sharding_text(p))) return true;
  if (p[0] == '@') {
    define_mesh(s, p);
    return true;
  }
  if (p[0] == '%') {
    const char *eq = strchr(p, '=');
    if (eq && is_sharding_text(skip_space(eq + 1))) {
      define_sharding(s, p, eq);
      return true;
    }
    error_at(s, p, strlen(p), "%s", "expected '%name = sharding<...> : TYPE'");
    return true;
  }
  if (is_sharding_text(p)) {
    show_subject(s, ":local", p);
    return true;
  }
  if (p[0] != ':') {
    error_at(s, p, word_len(p), "%s", "expected a command (':help'), a mesh '@m = <[...]>' or a sharding");
    return true;
  }
  size_t n = word_len(p);
  const char *arg = skip_space(p + n);
  char *cmd = shard_xstrndup(p, n);
  if (strcmp(cmd, ":quit") == 0 || strcmp(cmd, ":q") == 0 || strcmp(cmd, ":exit") == 0) {
    free(cmd);
    return false;
  }
  size_t i = 0;
  while (i < NUM_COMMANDS && strcmp(cmd, commands[i].name) != 0) i++;
  if (strcmp(cmd, ":help") == 0 || strcmp(cmd, ":h") == 0 || strcmp(cmd, ":?") == 0) help();
  else if (strcmp(cmd, ":local") == 0 || strcmp(cmd, ":map") == 0 || strcmp(cmd, ":viz") == 0)
    show_subject(s, cmd, arg);
  else if (i < NUM_COMMANDS && commands[i].with_arg) commands[i].with_arg(s, arg);
  else if (i < NUM_COMMANDS && commands[i].plain) commands[i].plain(s);
  else error_at(s, p, n, "unknown command '%s' (try ':help')", cmd);
  free(cmd);
  return true;
}

/* ---- completion ------------------------------------------------------------- */

static uint32_t complete(void *ctx, const char *text, char ***out) {
  session *s = ctx;
  SHARD_VEC(char *) c = {0};
  if (text[0] == ':' || text[0] == '\0')
    for (size_t i = 0; i < NUM_COMMANDS; i++) SHARD_VEC_PUSH(c, shard_xstrdup(commands[i].name));
  if (text[0] == '@' || text[0] == '\0') {
    named_vec *lists[] = {&s->meshes, &s->module_meshes};
    for (int l = 0; l < 2; l++)
      for (uint32_t i = 0; i < lists[l]->len; i++) {
        char *m = shard_xmalloc(strlen(lists[l]->items[i].name) + 2);
        sprintf(m, "@%s", lists[l]->items[i].name);
        SHARD_VEC_PUSH(c, m);
      }
  }
  if (text[0] == '%' || text[0] == '\0') {
    for (uint32_t i = 0; i < s->shardings.len; i++) {
      char *m = shard_xmalloc(strlen(s->shardings.items[i].name) + 2);
      sprintf(m, "%%%s", s->shardings.items[i].name);
      SHARD_VEC_PUSH(c, m);
    }
    for (uint32_t i = 0; i < s->value_names.len; i++) SHARD_VEC_PUSH(c, shard_xstrdup(s->value_names.items[i]));
  }
  *out = c.items;
  return c.len;
}

/* ---- the loop ---------------------------------------------------------------- */

static char *default_history(void) {
  const char *env = getenv("SHARD_HISTORY");
  if (env && *env) return shard_xstrdup(env);
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  char *path = shard_xmalloc(strlen(home) + 32);
  sprintf(path, "%s/.shard_history", home);
  return path;
}

int cmd_repl(int argc, char **argv) {
  const char *history = NULL, *file = NULL;
  bool no_history = false;
  cli_color_mode color = CLI_COLOR_AUTO;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cmd_repl_usage(stdout);
      return CLI_EXIT_OK;
    } else if (strcmp(arg, "--history") == 0) {
      if (i + 1 >= argc) return cli_usage_error("repl", "%s", "--history needs a file name");
      history = argv[++i];
    } else if (starts_with(arg, "--history=")) {
      history = arg + 10;
    } else if (strcmp(arg, "--no-history") == 0) {
      no_history = true;
    } else if (strcmp(arg, "--color") == 0) {
      color = CLI_COLOR_ALWAYS;
    } else if (starts_with(arg, "--color=")) {
      if (!cli_parse_color(arg + 8, &color))
        return cli_usage_error("repl", "--color must be auto, always or never (got '%s')", arg + 8);
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error("repl", "unknown option '%s'", arg);
    } else if (file) {
      return cli_usage_error("repl", "more than one file ('%s')", arg);
    } else {
      file = arg;
    }
  }
  session s;
  memset(&s, 0, sizeof s);
  s.color = cli_use_color(color, stdout);
  cli_sink_init(&s.sink, CLI_FORMAT_TEXT, stdout, s.color);
  shard_diag_init(&s.de, repl_diag, &s);
  char *hist = no_history ? NULL : history ? shard_xstrdup(history) : default_history();
  repl_line_open(hist, complete, &s);
  if (repl_line_interactive()) printf("shard %s repl: ':help' for commands, ':quit' to leave\n", SHARD_VERSION);
  if (file) {
    char *cmd = shard_xmalloc(strlen(file) + 8);
    sprintf(cmd, ":load %s", file);
    s.line.name = "<command line>";
    s.line.text = cmd;
    s.line.len = strlen(cmd);
    unsigned before = s.de.errors;
    run_line(&s, cmd);
    s.failed |= s.de.errors != before;
    free(cmd);
  }
  for (;;) {
    char *line = repl_line_read("shard> ");
    if (!line) break;
    repl_line_remember(line);
    s.line.name = "<input>";
    s.line.text = line;
    s.line.len = strlen(line);
    unsigned before = s.de.errors;
    bool go_on = run_line(&s, line);
    s.failed |= s.de.errors != before;
    fflush(stdout);
    free(line);
    if (!go_on) break;
  }
  repl_line_close();
  free(hist);
  unload(&s);
  free(s.topology);
  free_named(&s.meshes);
  free_named(&s.shardings);
  cli_sink_free(&s.sink);
  free(s.shown_text);
  return s.failed ? CLI_EXIT_INVALID : CLI_EXIT_OK;
}
