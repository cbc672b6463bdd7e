/* The public API (include/shard/shard.h): thin wrappers over the parser,
 * verifier and printer for tools that link libshard.
 *
 * Two things happen here beyond forwarding. Diagnostics are relayed from the
 * internal shard_diag (a span into a shard_source) to the flat public
 * shard_diagnostic (file, line, column, source line). And a public module
 * owns its source text: the parser's modules only point at text their caller
 * keeps alive, which an embedding tool should not have to know about.
 *
 * Design-doc snippets become a small module (sdy.mesh ops and one function
 * whose argument carries the sharding), as `shard check -e` does, so the one
 * real parser and verifier judge them; a segment table maps positions in
 * that module back into the snippet the caller wrote. */
#include "shard/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "ir/attr.h"
#include "support/buf.h"
#include "support/diag.h"
#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "sdy/sharding.h"
#include "ir/type.h"
#include "verify/verify.h"

const char *shard_version(void) { return SHARD_VERSION; }

const char *shard_diagnostic_level_name(shard_diagnostic_level level) {
  switch (level) {
  case SHARD_DIAGNOSTIC_ERROR: return "error";
  case SHARD_DIAGNOSTIC_WARNING: return "warning";
  case SHARD_DIAGNOSTIC_NOTE: return "note";
  case SHARD_DIAGNOSTIC_REMARK: return "remark";
  }
  return "error";
}

/* ---- snippet position map ------------------------------------------------- */

/* A run of generated module text [gen_off, gen_off+len) that either is a
 * verbatim copy of snippet text at snip_off, or was written around the
 * snippet piece at snip_off. */
typedef struct snippet_segment {
  uint32_t gen_off, snip_off, len;
  bool copied;
} snippet_segment;

typedef struct snippet_map {
  const shard_source *generated, *snippet;
  SHARD_VEC(snippet_segment) segs;
} snippet_map;

static shard_span S_map_span(const snippet_map *map, shard_span span) {
  if (!map || span.src != map->generated) return span;
  /* A position just past copied text (where "expected X" errors point) stays
   * in that text rather than moving to whatever was generated after it. */
  const snippet_segment *at = NULL;
  for (uint32_t i = 0; i < map->segs.len && !at; i++) {
    const snippet_segment *g = &map->segs.items[i];
    if (g->copied && span.off >= g->gen_off && span.off <= g->gen_off + g->len) at = g;
  }
  for (uint32_t i = 0; i < map->segs.len && !at; i++) {
    const snippet_segment *g = &map->segs.items[i];
    if (span.off >= g->gen_off && (span.off < g->gen_off + g->len || i + 1 == map->segs.len)) at = g;
  }
  shard_span out = {map->snippet, 0, 0};
  if (!at) return out;
  out.off = at->snip_off;
  if (at->copied) {
    uint32_t rel = span.off - at->gen_off;
    out.off += rel;
    uint32_t room = at->len - rel;
    out.len = span.len < room ? span.len : room;
  }
  return out;
}

/* ---- diagnostics ---------------------------------------------------------- */

typedef struct relay {
  shard_diagnostic_fn fn;
  void *ctx;
  const snippet_map *map; /* NULL for files */
} relay;

static void S_relay(void *ctx, const shard_diag *d) {
  const relay *r = ctx;
  shard_diag mapped = *d;
  mapped.span = S_map_span(r->map, d->span);
  if (!r->fn) {
    shard_diag_printer pr = {stderr, false, true};
    shard_diag_print_text(&pr, &mapped);
    return;
  }
  shard_diagnostic out = {0};
  switch (d->severity) {
  case SHARD_ERROR: out.level = SHARD_DIAGNOSTIC_ERROR; break;
  case SHARD_WARNING: out.level = SHARD_DIAGNOSTIC_WARNING; break;
  case SHARD_NOTE: out.level = SHARD_DIAGNOSTIC_NOTE; break;
  case SHARD_REMARK: out.level = SHARD_DIAGNOSTIC_REMARK; break;
  }
  out.message = d->message;
  if (mapped.span.src) {
    uint32_t line, col;
    shard_span_linecol(mapped.span, &line, &col);
    out.file = mapped.span.src->name ? mapped.span.src->name : "<input>";
    out.line = line;
    out.column = col;
    out.source_line = shard_span_line_text(mapped.span, &out.source_line_len);
  }
  r->fn(r->ctx, &out);
}

/* An unreadable file: the CLI's one wording, "FILE: error: cannot read:
 * REASON" — the file is named, but there is no line to point at. */
static void S_report_unreadable(const relay *r, const char *path, const char *why) {
  shard_buf msg;
  shard_buf_init(&msg);
  shard_buf_printf(&msg, "cannot read: %s", why);
  if (r->fn) {
    shard_diagnostic out = {SHARD_DIAGNOSTIC_ERROR, shard_buf_str(&msg), path, 0, 0, NULL, 0};
    r->fn(r->ctx, &out);
  } else {
    fprintf(stderr, "%s: error: %s\n", path, shard_buf_str(&msg));
  }
  shard_buf_free(&msg);
}

/* ---- modules -------------------------------------------------------------- */

/* A public module is the parser's module moved into one block together with
 * the source it points at, so that shard_module_free (which frees the
 * module's arena and then the module's own block) releases the text too.
 * This relies on nothing keeping the address of the parser's shard_module
 * once parsing is over, which holds: IR nodes have no back-pointer to it. */
typedef struct owned_module {
  shard_module module; /* first: &owned->module is the block free() gets */
  shard_source src;
  char text[]; /* the text, NUL, then the name and its NUL */
} owned_module;

/* A copy of the text, ready for S_owned_parse (which frees it on failure). */
static owned_module *S_owned_new(const char *name, const char *text, size_t len) {
  size_t name_len = strlen(name);
  owned_module *om = shard_xmalloc(sizeof *om + len + 1 + name_len + 1);
  memcpy(om->text, text, len);
  om->text[len] = '\0'; /* the lexer may look one byte past the end */
  memcpy(om->text + len + 1, name, name_len + 1);
  om->src.name = om->text + len + 1;
  om->src.text = om->text;
  om->src.len = len;
  om->src.line_base = 0;
  return om;
}

static shard_module *S_owned_parse(owned_module *om, shard_diag_engine *de) {
  unsigned errors_before = de->errors;
  shard_module *parsed = shard_parse_module(&om->src, NULL, de);
  if (!parsed || de->errors != errors_before) {
    shard_module_free(parsed);
    free(om);
    return NULL;
  }
  om->module = *parsed;
  free(parsed); /* only the block: its arena now belongs to om->module */
  return &om->module;
}

shard_module *shard_module_parse(const char *name, const char *text, size_t len, shard_diagnostic_fn fn, void *ctx) {
  relay r = {fn, ctx, NULL};
  shard_diag_engine de;
  shard_diag_init(&de, S_relay, &r);
  return S_owned_parse(S_owned_new(name ? name : "<input>", text, len), &de);
}

/* Reads all of f; NULL (errno set) when reading fails. */
static char *S_slurp(FILE *f, size_t *len) {
  shard_buf b;
  shard_buf_init(&b);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) shard_buf_putn(&b, chunk, n);
  if (ferror(f)) {
    int saved = errno ? errno : EIO;
    shard_buf_free(&b);
    errno = saved;
    return NULL;
  }
  *len = b.len;
  char *text = shard_buf_take(&b);
  return text ? text : shard_xstrdup("");
}

shard_module *shard_module_parse_file(const char *path, shard_diagnostic_fn fn, void *ctx) {
  relay r = {fn, ctx, NULL};
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  size_t len = 0;
  char *text = f ? S_slurp(f, &len) : NULL;
  if (!text) {
    S_report_unreadable(&r, path, strerror(errno));
    if (f && !is_stdin) fclose(f);
    return NULL;
  }
  if (!is_stdin) fclose(f);
  shard_diag_engine de;
  shard_diag_init(&de, S_relay, &r);
  shard_module *m = S_owned_parse(S_owned_new(is_stdin ? "<stdin>" : path, text, len), &de);
  free(text);
  return m;
}

unsigned shard_module_verify(const shard_module *m, unsigned flags, shard_diagnostic_fn fn, void *ctx) {
  relay r = {fn, ctx, NULL};
  shard_diag_engine de;
  shard_diag_init(&de, S_relay, &r);
  de.warnings_as_errors = (flags & SHARD_VERIFY_WERROR) != 0;
  shard_verify_options opts = {(flags & SHARD_VERIFY_EXTRA_WARNINGS) != 0};
  shard_verify_module(m, &opts, &de);
  return de.errors;
}

char *shard_module_print(const shard_module *m, unsigned flags) {
  shard_print_options opts = {0};
  opts.generic = (flags & SHARD_PRINT_GENERIC) != 0;
  opts.debug_info = (flags & SHARD_PRINT_DEBUG_INFO) != 0;
  shard_buf b;
  shard_buf_init(&b);
  shard_print_module(&b, m, &opts);
  char *text = shard_buf_take(&b);
  return text ? text : shard_xstrdup("");
}

/* ---- shardings in design-doc notation ------------------------------------- */

struct shard_sharding {
  shard_module *module;
  const shard_tensor_sharding *sharding; /* in module's arena */
  const shard_mesh *mesh;
  const shard_type *type;
};

/* Builds the generated module text and its segment table. */
typedef struct snippet_builder {
  const char *text; /* the snippet */
  shard_buf gen;
  snippet_map map;
} snippet_builder;

static void S_segment(snippet_builder *sb, uint32_t snip_off, uint32_t len, bool copied) {
  snippet_segment g = {(uint32_t)sb->gen.len, snip_off, len, copied};
  SHARD_VEC_PUSH(sb->map.segs, g);
}

/* Generated text that belongs to the snippet position `anchor`. */
static void S_emit(snippet_builder *sb, uint32_t anchor, const char *s) {
  uint32_t n = (uint32_t)strlen(s);
  S_segment(sb, anchor, n, false);
  shard_buf_putn(&sb->gen, s, n);
}

static void S_copy(snippet_builder *sb, uint32_t off, uint32_t len) {
  S_segment(sb, off, len, true);
  shard_buf_putn(&sb->gen, sb->text + off, len);
}

static bool S_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static bool S_starts(const char *p, uint32_t n, const char *word) {
  size_t w = strlen(word);
  return n >= w && memcmp(p, word, w) == 0;
}

/* The '>' closing the '<' at text[open] (quoted strings skipped), or `end`. */
static uint32_t S_close_angle(const char *text, uint32_t open, uint32_t end) {
  int depth = 0;
  for (uint32_t i = open; i < end; i++) {
    if (text[i] == '"') {
      for (i++; i < end && text[i] != '"'; i++)
        if (text[i] == '\\') i++;
    } else if (text[i] == '<') {
      depth++;
    } else if (text[i] == '>' && --depth == 0) {
      return i;
    }
  }
  return end;
}

// snippet       ::= line ((';' | '\n') line)*
// line          ::= mesh-line | sharding-line | '//' comment | empty
// mesh-line     ::= ('sdy.mesh' | 'mesh')? '@' name '=' mesh-body
// sharding-line ::= '#sdy.'? 'sharding' '<' ... '>' ':' tensor-type
static bool S_build(snippet_builder *sb, const shard_source *snip, shard_diag_engine *de) {
  const char *text = sb->text;
  uint32_t n = (uint32_t)snip->len, pos = 0;
  uint32_t body_off = 0, body_len = 0, type_off = 0, type_len = 0, line_off = 0, shardings = 0;
  bool ok = true;
  for (;;) {
    uint32_t end = pos;
    while (end < n && text[end] != '\n' && text[end] != ';') end++;
    uint32_t a = pos, b = end;
    while (a < b && S_space(text[a])) a++;
    while (b > a && S_space(text[b - 1])) b--;
    const char *line = text + a;
    uint32_t len = b - a;
    if (len == 0 || S_starts(line, len, "//")) {
      /* nothing */
    } else if (line[0] == '@' || S_starts(line, len, "mesh @") || S_starts(line, len, "sdy.mesh")) {
      if (line[0] == '@') S_emit(sb, a, "sdy.mesh ");
      else if (line[0] == 'm') S_emit(sb, a, "sdy.");
      S_copy(sb, a, len);
      S_emit(sb, b, "\n");
    } else {
      uint32_t p = a;
      if (S_starts(text + p, b - p, "#sdy.")) p += 5;
      uint32_t close = S_starts(text + p, b - p, "sharding<") ? S_close_angle(text, p + 8, b) : b;
      uint32_t q = close + 1;
      while (q < b && S_space(text[q])) q++;
      shard_span at = {snip, a, len};
      if (close >= b) {
        shard_error(de, at, "expected '@MESH = <[...]>' or 'sharding<...> : TYPE'");
        ok = false;
      } else if (q >= b || text[q] != ':') {
        shard_error(de, at, "expected ': TYPE' after the sharding");
        ok = false;
      } else if (++shardings > 1) {
        shard_error(de, at, "expected exactly one sharding in the snippet");
        ok = false;
      } else {
        for (q++; q < b && S_space(text[q]); q++)
          ;
        body_off = p + 8;
        body_len = close + 1 - body_off;
        type_off = q;
        type_len = b - q;
        line_off = a;
      }
    }
    if (end >= n) break;
    pos = end + 1;
  }
  if (ok && shardings == 0) {
    shard_span at = {snip, 0, 0};
    shard_error(de, at, "expected a sharding line 'sharding<...> : TYPE'");
    ok = false;
  }
  if (!ok) return false;
  if (type_len == 0) {
    shard_span at = {snip, line_off, 0};
    shard_error(de, at, "expected a tensor type after ':'");
    return false;
  }
  S_emit(sb, line_off, "func.func @snippet(%arg0: ");
  S_copy(sb, type_off, type_len);
  S_emit(sb, line_off, " {sdy.sharding = #sdy.sharding");
  S_copy(sb, body_off, body_len);
  S_emit(sb, line_off, "}) {\n  func.return\n}\n");
  return true;
}

/* The argument of func @snippet and its sharding, type and mesh. */
static bool S_find_sharding(shard_sharding *out) {
  shard_op *fn = shard_module_lookup_symbol(out->module, "snippet");
  if (!fn || fn->num_regions == 0 || !fn->regions[0].first || fn->regions[0].first->num_args != 1) return false;
  const shard_value *arg = &fn->regions[0].first->args[0];
  const shard_attr *a = shard_value_attr(arg, "sdy.sharding");
  if (!a || a->kind != SHARD_ATTR_SDY_SHARDING || !arg->type || arg->type->kind != SHARD_TYPE_TENSOR) return false;
  out->sharding = a->u.sharding;
  out->type = arg->type;
  out->mesh = shard_module_sharding_mesh(out->module, out->sharding);
  return out->mesh && out->sharding->rank == out->type->rank;
}

shard_sharding *shard_sharding_parse(const char *snippet, shard_diagnostic_fn fn, void *ctx) {
  shard_source snip = {"<snippet>", snippet, strlen(snippet), 0};
  snippet_builder sb = {snippet, {0}, {0}};
  shard_buf_init(&sb.gen);
  sb.map.snippet = &snip;
  relay r = {fn, ctx, &sb.map};
  shard_diag_engine de;
  shard_diag_init(&de, S_relay, &r);

  shard_sharding *s = NULL;
  if (S_build(&sb, &snip, &de)) {
    owned_module *om = S_owned_new("<snippet>", shard_buf_str(&sb.gen), sb.gen.len);
    sb.map.generated = &om->src; /* stays put: the module is moved into om */
    shard_module *m = S_owned_parse(om, &de);
    if (m) {
      shard_verify_options opts = {true};
      shard_verify_module(m, &opts, &de);
    }
    if (m && de.errors == 0) {
      s = shard_xcalloc(1, sizeof *s);
      s->module = m;
      if (!S_find_sharding(s)) {
        /* The verifier has checked that the mesh exists and the ranks agree. */
        shard_error(&de, shard_no_span, "internal error: the snippet's sharding went missing");
        shard_sharding_free(s);
        s = NULL;
      }
    } else {
      shard_module_free(m);
    }
  }
  shard_buf_free(&sb.gen);
  SHARD_VEC_FREE(sb.map.segs);
  return s;
}

void shard_sharding_free(shard_sharding *s) {
  if (!s) return;
  shard_module_free(s->module);
  free(s);
}

unsigned shard_sharding_rank(const shard_sharding *s) { return s->type->rank; }

int64_t shard_sharding_num_devices(const shard_sharding *s) {
  return shard_mesh_is_maximal(s->mesh) ? 1 : shard_mesh_num_devices(s->mesh);
}

void shard_sharding_global_dims(const shard_sharding *s, int64_t *dims) {
  for (uint32_t d = 0; d < s->type->rank; d++)
    dims[d] = s->type->dims[d] == SHARD_DYNAMIC_DIM ? SHARD_DIM_DYNAMIC : s->type->dims[d];
}

void shard_sharding_local_dims(const shard_sharding *s, int64_t *dims) {
  shard_sharding_local_shape(s->sharding, s->mesh, s->type->dims, dims);
  for (uint32_t d = 0; d < s->type->rank; d++)
    if (s->type->dims[d] == SHARD_DYNAMIC_DIM) dims[d] = SHARD_DIM_DYNAMIC;
}
