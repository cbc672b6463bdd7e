/* `shard check -e SNIPPET`: the notation of Shardy's design documents,
 *
 *   @mesh_xy = <["x"=2, "y"=4]>
 *   sharding<@mesh_xy, [{"x"}, {}], replicated={"y"}> : tensor<4x8xf32>
 *
 * checked by the real parser and verifier. Rather than a second parser, we
 * write a small module around the snippet's pieces (sdy.mesh ops, and one
 * function whose arguments carry the shardings) and remember, segment by
 * segment, where each piece of generated text came from. Diagnostics on the
 * module are then mapped back so they point into the snippet the user typed.
 *
 * Lines are separated by newlines or ';' (which sharding syntax never uses),
 * so a one-line shell argument can hold a mesh and a sharding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"
#include "cli.h"

static void add_seg(cli_snippet *s, uint32_t snip_off, uint32_t len, bool copied) {
  if (s->num_segs == s->cap_segs) {
    s->cap_segs = s->cap_segs ? s->cap_segs * 2 : 16;
    s->segs = shard_xrealloc(s->segs, sizeof *s->segs * s->cap_segs);
  }
  cli_snippet_segment seg = {(uint32_t)s->gen.len, snip_off, len, copied};
  s->segs[s->num_segs++] = seg;
}

/* Appends generated text that belongs to the snippet position `anchor`. */
static void emit(cli_snippet *s, uint32_t anchor, const char *text) {
  size_t n = strlen(text);
  add_seg(s, anchor, (uint32_t)n, false);
  shard_buf_putn(&s->gen, text, n);
}

/* Appends snippet text [off, off+len) verbatim. */
static void copy(cli_snippet *s, uint32_t off, uint32_t len) {
  add_seg(s, off, len, true);
  shard_buf_putn(&s->gen, s->snippet.text + off, len);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Finds the '>' closing the '<' at text[open], skipping quoted strings. */
static bool match_angle(const char *text, uint32_t open, uint32_t end, uint32_t *close) {
  int depth = 0;
  for (uint32_t i = open; i < end; i++) {
    char c = text[i];
    if (c == '"') {
      for (i++; i < end && text[i] != '"'; i++)
        if (text[i] == '\\') i++;
      continue;
    }
    if (c == '<') depth++;
    else if (c == '>' && --depth == 0) {
      *close = i;
      return true;
    }
  }
  return false;
}

static bool starts_with(const char *p, uint32_t n, const char *word) {
  size_t w = strlen(word);
  return n >= w && memcmp(p, word, w) == 0;
}

bool cli_snippet_build(cli_snippet *s, const char *text, shard_diag_engine *de) {
  memset(s, 0, sizeof *s);
  s->snippet.name = "<snippet>";
  s->snippet.text = text;
  s->snippet.len = strlen(text);
  shard_buf_init(&s->gen);
  bool ok = true;

  /* Pass 1: mesh lines become sdy.mesh ops; sharding lines are remembered
   * as (sharding body, type) for the function written in pass 2. */
  typedef struct {
    uint32_t body_off, body_len, type_off, type_len, line_off;
  } pending;
  SHARD_VEC(pending) args = {0};
  uint32_t n = (uint32_t)s->snippet.len, pos = 0;
  while (pos <= n) {
    uint32_t end = pos;
    while (end < n && text[end] != '\n' && text[end] != ';') end++;
    uint32_t a = pos, b = end;
    while (a < b && is_space(text[a])) a++;
    while (b > a && is_space(text[b - 1])) b--;
    const char *line = text + a;
    uint32_t len = b - a;
    if (len == 0 || starts_with(line, len, "//")) {
      /* blank or comment */
    } else if (line[0] == '@') {
      // mesh-line ::= '@' name '=' mesh-body
      emit(s, a, "sdy.mesh ");
      copy(s, a, len);
      emit(s, b, "\n");
    } else if (starts_with(line, len, "sdy.mesh") || starts_with(line, len, "mesh @")) {
      if (line[0] == 'm') emit(s, a, "sdy.");
      copy(s, a, len);
      emit(s, b, "\n");
    } else {
      // sharding-line ::= ('#sdy.')? 'sharding' '<' ... '>' ':' type
      uint32_t p = a;
      if (starts_with(text + p, b - p, "#sdy.")) p += 5;
      uint32_t close;
      if (!starts_with(text + p, b - p, "sharding<") || !match_angle(text, p + 8, b, &close)) {
        shard_span sp = {&s->snippet, a, len};
        shard_error(de, sp, "expected '@MESH = <[...]>' or 'sharding<...> : TYPE'");
        ok = false;
      } else {
        uint32_t q = close + 1;
        while (q < b && is_space(text[q])) q++;
        if (q >= b || text[q] != ':') {
          shard_span sp = {&s->snippet, q < b ? q : b, 0};
          shard_error(de, sp, "expected ': TYPE' after the sharding");
          ok = false;
        } else {
          q++;
          while (q < b && is_space(text[q])) q++;
          if (q >= b) {
            shard_span sp = {&s->snippet, b, 0};
            shard_error(de, sp, "expected a tensor type after ':'");
            ok = false;
          } else {
            pending pa = {p + 8, close + 1 - (p + 8), q, b - q, a};
            SHARD_VEC_PUSH(args, pa);
            if (s->num_shardings == s->cap_shardings) {
              s->cap_shardings = s->cap_shardings ? s->cap_shardings * 2 : 4;
              s->shardings = shard_xrealloc(s->shardings, sizeof *s->shardings * s->cap_shardings);
            }
            cli_snippet_sharding sh = {a, close + 1 - a};
            s->shardings[s->num_shardings++] = sh;
          }
        }
      }
    }
    if (end >= n) break;
    pos = end + 1;
  }

  /* Pass 2: func.func @snippet(%arg0: TYPE {sdy.sharding = #sdy.sharding<...>}, ...) */
  if (args.len > 0) {
    emit(s, args.items[0].line_off, "func.func @snippet(");
    for (uint32_t i = 0; i < args.len; i++) {
      const pending *pa = &args.items[i];
      char name[32];
      snprintf(name, sizeof name, "%s%%arg%u: ", i ? ", " : "", i);
      emit(s, pa->line_off, name);
      copy(s, pa->type_off, pa->type_len);
      emit(s, pa->line_off, " {sdy.sharding = #sdy.sharding");
      copy(s, pa->body_off, pa->body_len);
      emit(s, pa->line_off, "}");
    }
    emit(s, args.items[args.len - 1].line_off, ") {\n  func.return\n}\n");
  }
  SHARD_VEC_FREE(args);

  s->module.name = s->snippet.name;
  s->module.text = shard_buf_str(&s->gen);
  s->module.len = s->gen.len;
  return ok;
}

void cli_snippet_free(cli_snippet *s) {
  shard_buf_free(&s->gen);
  free(s->segs);
  free(s->shardings);
  memset(s, 0, sizeof *s);
}

shard_span cli_snippet_map(const cli_snippet *s, shard_span span) {
  if (span.src != &s->module || s->num_segs == 0) return span;
  /* The last segment starting at or before the offset. */
  uint32_t lo = 0, hi = s->num_segs;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (s->segs[mid].gen_off <= span.off) lo = mid;
    else hi = mid;
  }
  const cli_snippet_segment *seg = &s->segs[lo];
  shard_span out = {&s->snippet, seg->snip_off, 0};
  uint32_t delta = span.off >= seg->gen_off ? span.off - seg->gen_off : 0;
  if (seg->copied && delta <= seg->len) {
    out.off = seg->snip_off + delta;
    uint32_t room = seg->len - delta;
    out.len = span.len < room ? span.len : room;
  }
  return out;
}
