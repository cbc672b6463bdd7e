/* Reading shardings out of XLA's text dumps.
 *
 * Two sources: HLO text (`%p = f32[8,16]{1,0} parameter(0), sharding={...}`)
 * and MLIR with `mhlo.sharding = "{...}"` attributes on arguments, results
 * and ops. We do not parse either language: we find each sharding, the
 * shape it applies to (the instruction's shape in HLO; the tensor type the
 * attribute dictionary belongs to in MLIR) and the instruction's name, then
 * parse and validate the sharding with convert_hlo.c. Every entry is
 * listed; invalid ones (rank or device-count mismatches, duplicate devices,
 * syntax errors) get located errors. */
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "ir/lex.h"

/* First occurrence of needle in hay[0..n), by Horspool's skip table: the
 * sniff for HLO text runs over every input of `shard check`, and a memchr
 * for the needle's first letter stopped at every 'm' or 's' of the module. */
static const char *find_n(const char *hay, size_t n, const char *needle) {
  size_t m = strlen(needle);
  if (m == 0 || m > n) return m == 0 ? hay : NULL;
  if (n < 4096) { /* a line or an attribute: memchr, the table is not worth it */
    const char *end = hay + n - m + 1;
    for (const char *p = hay; p < end; p++) {
      p = memchr(p, needle[0], (size_t)(end - p));
      if (!p) return NULL;
      if (memcmp(p, needle, m) == 0) return p;
    }
    return NULL;
  }
  size_t skip[256];
  for (size_t i = 0; i < 256; i++) skip[i] = m;
  for (size_t i = 0; i + 1 < m; i++) skip[(unsigned char)needle[i]] = m - 1 - i;
  const unsigned char last = (unsigned char)needle[m - 1];
  for (size_t i = 0; i + m <= n;) {
    unsigned char c = (unsigned char)hay[i + m - 1];
    if (c == last && memcmp(hay + i, needle, m - 1) == 0) return hay + i;
    i += skip[c];
  }
  return NULL;
}

/* Whether hay holds "mhlo.sharding" or "sharding={", in one pass (the sniff
 * of every `shard check` input scanned the module once for each): Horspool
 * over a 10-byte window, the two needles' first ten bytes sharing one skip
 * table keyed by the window's last two bytes. Keyed by one byte, the
 * needles' common letters (s, h, a, r, d, i, n, g, m, l, o) made the mean
 * skip about half the window on MLIR text; a pair of bytes from a needle is
 * rare, so nearly every step skips 9 or 10. A window whose last pair ends
 * either needle's ten bytes is checked in full. */
static bool S_has_sharding_key(const char *hay, size_t n) {
  static const char a[] = "mhlo.sharding", b[] = "sharding={";
  enum { W = 10, A = sizeof a - 1, B = sizeof b - 1 };
  if (n < 4096) return find_n(hay, n, a) != NULL || find_n(hay, n, b) != NULL;
  /* Keyed by the pair as one 16-bit load reads it, on either byte order. */
  static unsigned char skip[1u << 16];
  static bool ready;
  if (!ready) {
    const char *needles[2] = {a, b};
    memset(skip, W, sizeof skip);
    for (int k = 0; k < 2; k++) {
      const char *x = needles[k];
      for (unsigned c = 0; c < 256; c++) { /* the window's last byte is the needle's first */
        char pair[2] = {(char)c, x[0]};
        uint16_t key;
        memcpy(&key, pair, 2);
        if (skip[key] > W - 1) skip[key] = W - 1;
      }
      for (unsigned j = 0; j + 1 < W; j++) { /* pair x[j..j+1] ends at W-1 after a shift of W-2-j */
        uint16_t key;
        memcpy(&key, x + j, 2);
        if (skip[key] > W - 2 - j) skip[key] = (unsigned char)(W - 2 - j);
      }
    }
    ready = true;
  }
  const char *p = hay, *last = hay + n - W; /* the last window's start */
  while (p <= last) {
    uint16_t key;
    memcpy(&key, p + W - 2, 2);
    unsigned s = skip[key];
    if (s == 0) {
      if ((size_t)(hay + n - p) >= A && memcmp(p, a, A) == 0) return true;
      if (memcmp(p, b, B) == 0) return true;
      s = 1;
    }
    p += s;
  }
  return false;
}

static bool S_leading_hlo_module(const char *text, size_t len) {
  size_t i = 0;
  while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) i++;
  return len - i >= 9 && memcmp(text + i, "HloModule", 9) == 0;
}

bool shard_dump_detect(const char *text, size_t len) {
  return S_leading_hlo_module(text, len) || S_has_sharding_key(text, len);
}

/* The windows of shard_dump_detect_reading: a few pages each. */
#define S_DETECT_WINDOW ((size_t)1 << 20)

bool shard_dump_detect_reading(const char *text, size_t len, void (*read_past)(const char *p)) {
  if (!read_past || len <= S_DETECT_WINDOW) return shard_dump_detect(text, len);
  if (S_leading_hlo_module(text, len)) return true;
  /* a key that starts in a window ends in it or in these bytes after it */
  enum { OVERLAP = sizeof "mhlo.sharding" - 2 };
  for (size_t off = 0; off < len; off += S_DETECT_WINDOW) {
    size_t n = len - off < S_DETECT_WINDOW + OVERLAP ? len - off : S_DETECT_WINDOW + OVERLAP;
    if (S_has_sharding_key(text + off, n)) return true;
    read_past(text + off + (n < S_DETECT_WINDOW ? n : S_DETECT_WINDOW));
  }
  return false;
}

static bool is_hlo_text(const char *text, size_t len) {
  size_t i = 0;
  while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) i++;
  return (len - i >= 9 && memcmp(text + i, "HloModule", 9) == 0) || !find_n(text, len, "mhlo.sharding");
}

/* End of the balanced {...} starting at t[i] ('{'), or 0. */
static size_t match_brace(const char *t, size_t i, size_t n) {
  int depth = 0;
  for (; i < n; i++) {
    if (t[i] == '"') {
      for (i++; i < n && t[i] != '"'; i++)
        if (t[i] == '\\') i++;
      continue;
    }
    if (t[i] == '{') depth++;
    else if (t[i] == '}' && --depth == 0) return i + 1;
  }
  return 0;
}

static size_t line_start(const char *t, size_t i) {
  while (i > 0 && t[i - 1] != '\n') i--;
  return i;
}

static size_t line_end(const char *t, size_t i, size_t n) {
  while (i < n && t[i] != '\n') i++;
  return i;
}

/* Dims of an HLO array shape f32[8,16]{1,0} starting at t[i]; rank or -1. */
static int32_t hlo_shape_dims(const char *t, size_t i, size_t n, int64_t **dims) {
  while (i < n && t[i] != '[' && t[i] != ' ' && t[i] != '(') i++;
  if (i >= n || t[i] != '[') return -1;
  i++;
  SHARD_VEC(int64_t) v = {0};
  while (i < n && t[i] != ']') {
    if (t[i] == '<' && i + 1 < n && t[i + 1] == '=') i += 2; /* dynamic bound <=8 */
    if (t[i] == '?') {
      SHARD_VEC_PUSH(v, 1);
      i++;
    } else if (t[i] >= '0' && t[i] <= '9') {
      int64_t x = 0;
      while (i < n && t[i] >= '0' && t[i] <= '9' && x < ((int64_t)1 << 40)) x = x * 10 + (t[i++] - '0');
      SHARD_VEC_PUSH(v, x);
    } else {
      SHARD_VEC_FREE(v);
      return -1;
    }
    if (i < n && t[i] == ',') i++;
  }
  *dims = v.items;
  return (int32_t)v.len;
}

static void push_entry(shard_dump *d, shard_dump_entry *e, uint32_t *cap) {
  if (d->num_entries == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    d->entries = shard_xrealloc(d->entries, sizeof *d->entries * *cap);
  }
  d->entries[d->num_entries++] = *e;
}

static void scan_hlo(const shard_source *src, shard_dump *d) {
  const char *t = src->text;
  size_t n = src->len;
  uint32_t cap = 0;
  const char *np = find_n(t, n, "num_partitions=");
  if (np) d->num_partitions = strtoll(np + 15, NULL, 10);
  for (size_t i = 0; i + 10 <= n; i++) {
    if (memcmp(t + i, "sharding={", 10) != 0 || (i > 0 && t[i - 1] != ' ' && t[i - 1] != ',')) continue;
    size_t open = i + 9, close = match_brace(t, open, n);
    if (!close) close = line_end(t, open, n);
    shard_dump_entry e;
    memset(&e, 0, sizeof e);
    e.rank = -1;
    shard_span sp = {src, (uint32_t)open, (uint32_t)(close - open)};
    e.sharding = sp;
    e.sharding_text = shard_xstrndup(t + open, close - open);
    /* the instruction: [ROOT] %name = SHAPE opcode(...) */
    size_t ls = line_start(t, i), p = ls;
    while (p < i && (t[p] == ' ' || t[p] == '\t')) p++;
    if (i - p >= 5 && memcmp(t + p, "ROOT ", 5) == 0) p += 5;
    size_t name_end = p;
    while (name_end < i && t[name_end] != ' ' && t[name_end] != '=') name_end++;
    e.name = shard_xstrndup(t + p, name_end - p);
    size_t eq = name_end;
    while (eq < i && t[eq] == ' ') eq++;
    if (eq < i && t[eq] == '=') {
      size_t s = eq + 1;
      while (s < i && t[s] == ' ') s++;
      if (s < i && t[s] == '(') {
        /* a tuple shape: count its array leaves */
        int depth = 0;
        size_t q = s;
        for (; q < i; q++) {
          if (t[q] == '(') depth++;
          else if (t[q] == ')' && --depth == 0) break;
          else if (t[q] == '[') e.num_leaves++;
        }
        e.shape_text = shard_xstrndup(t + s, q + 1 - s);
      } else {
        size_t q = s;
        while (q < i && t[q] != ' ') q++;
        e.shape_text = shard_xstrndup(t + s, q - s);
        e.rank = hlo_shape_dims(t, s, q, &e.shape);
      }
    }
    push_entry(d, &e, &cap);
    i = close > i ? close - 1 : i;
  }
}

/* The tensor type just before offset `i` (ignoring spaces): tensor<...>. */
static bool type_before(const char *t, size_t i, size_t *ts, size_t *te) {
  while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
  if (i == 0 || t[i - 1] != '>') return false;
  int depth = 0;
  size_t j = i;
  while (j > 0) {
    j--;
    if (t[j] == '>') depth++;
    else if (t[j] == '<' && --depth == 0) break;
  }
  if (j < 6 || memcmp(t + j - 6, "tensor", 6) != 0) return false;
  *ts = j - 6;
  *te = i;
  return true;
}

/* Is t[i] inside a `//` comment (one outside a string literal on its line)? */
static bool in_line_comment(const char *t, size_t i) {
  bool in_string = false;
  for (size_t k = line_start(t, i); k < i; k++) {
    if (in_string) {
      if (t[k] == '\\') k++;
      else if (t[k] == '"') in_string = false;
    } else if (t[k] == '"') {
      in_string = true;
    } else if (t[k] == '/' && t[k + 1] == '/') {
      return true;
    }
  }
  return false;
}

/* How many results the op on the line starting at t[p] binds: `%0:2 =`,
 * `%a, %b =`, `%0 =` (1), or 0 when it binds none. */
static uint32_t op_results(const char *t, size_t p, size_t le) {
  uint32_t n = 0;
  while (p < le && t[p] == '%') {
    while (p < le && t[p] != ':' && t[p] != ',' && t[p] != ' ' && t[p] != '=') p++;
    if (p < le && t[p] == ':') {
      uint32_t k = 0;
      for (p++; p < le && t[p] >= '0' && t[p] <= '9' && k < 1000000; p++) k = k * 10 + (uint32_t)(t[p] - '0');
      n += k;
    } else {
      n++;
    }
    while (p < le && (t[p] == ' ' || t[p] == ',')) p++;
  }
  return p < le && t[p] == '=' ? n : 0;
}

/* The types of a result list `(T1, T2, ...)` starting at t[i] ('('), split at
 * its top-level commas, into e->leaf_text; the list's text into shape_text. */
static void result_list(const char *t, size_t i, size_t le, shard_dump_entry *e) {
  SHARD_VEC(char *) leaves = {0};
  int depth = 0;
  size_t from = i + 1, k = i;
  for (; k < le; k++) {
    char c = t[k];
    if (c == '(' || c == '<' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == '>' || c == ']' || c == '}') && --depth == 0) break;
    if ((c == ',' && depth == 1) || (c == ')' && depth == 0)) {
      size_t a = from, b = k;
      while (a < b && t[a] == ' ') a++;
      while (b > a && t[b - 1] == ' ') b--;
      SHARD_VEC_PUSH(leaves, shard_xstrndup(t + a, b - a));
      from = k + 1;
    }
  }
  if (k >= le) { /* unbalanced: the shapes are unknown */
    for (uint32_t j = 0; j < leaves.len; j++) free(leaves.items[j]);
    SHARD_VEC_FREE(leaves);
    return;
  }
  size_t a = from, b = k;
  while (a < b && t[a] == ' ') a++;
  while (b > a && t[b - 1] == ' ') b--;
  SHARD_VEC_PUSH(leaves, shard_xstrndup(t + a, b - a));
  e->shape_text = shard_xstrndup(t + i, k + 1 - i);
  e->num_leaves = leaves.len;
  e->leaf_text = leaves.items;
}

static void scan_mlir(const shard_source *src, shard_dump *d) {
  const char *t = src->text;
  size_t n = src->len;
  uint32_t cap = 0;
  static const char key[] = "mhlo.sharding";
  for (size_t i = 0; i + sizeof key < n; i++) {
    if (memcmp(t + i, key, sizeof key - 1) != 0 || in_line_comment(t, i)) continue;
    size_t q = i + sizeof key - 1;
    while (q < n && (t[q] == ' ' || t[q] == '=')) q++;
    if (q >= n || t[q] != '"') continue;
    size_t s = q + 1, e_ = s;
    bool escapes = false;
    while (e_ < n && t[e_] != '"') {
      if (t[e_] == '\\') {
        escapes = true;
        e_++;
      }
      e_++;
    }
    shard_dump_entry e;
    memset(&e, 0, sizeof e);
    e.rank = -1;
    shard_span sp = {src, (uint32_t)s, (uint32_t)(e_ - s)};
    e.sharding = sp;
    if (escapes) {
      uint32_t len;
      e.sharding_text = shard_unescape_string(t + q, (uint32_t)(e_ + 1 - q), &len);
    } else {
      e.sharding_text = shard_xstrndup(t + s, e_ - s);
    }
    /* The attribute dictionary's '{' and what precedes it. */
    size_t b = i;
    int depth = 0;
    while (b > 0) {
      b--;
      if (t[b] == '}') depth++;
      else if (t[b] == '{') {
        if (depth == 0) break;
        depth--;
      }
    }
    size_t ts, te;
    if (type_before(t, b, &ts, &te)) {
      e.shape_text = shard_xstrndup(t + ts, te - ts);
      /* %arg0: tensor<...> */
      size_t k = ts;
      while (k > 0 && (t[k - 1] == ' ' || t[k - 1] == ':')) k--;
      size_t ne = k;
      while (k > 0 && t[k - 1] != '%' && t[k - 1] != ' ' && t[k - 1] != '(' && t[k - 1] != ',') k--;
      if (k > 0 && t[k - 1] == '%') k--;
      e.name = t[k] == '%' ? shard_xstrndup(t + k, ne - k) : shard_xstrdup("result");
    } else {
      /* an op: %0 = op ... {mhlo.sharding = ...} : (...) -> tensor<...> */
      size_t ls = line_start(t, i), le = line_end(t, i, n), p = ls;
      while (p < le && (t[p] == ' ' || t[p] == '\t')) p++;
      size_t ne = p;
      while (ne < le && t[ne] != ' ') ne++;
      e.name = t[p] == '%' ? shard_xstrndup(t + p, ne - p) : shard_xstrdup("");
      const char *arrow = NULL;
      for (size_t k = e_; k + 2 <= le; k++)
        if (t[k] == '-' && t[k + 1] == '>') arrow = t + k;
      const char *from = arrow ? arrow : t + e_;
      uint32_t results = op_results(t, p, le);
      size_t r = arrow ? (size_t)(arrow - t) + 2 : le;
      while (r < le && t[r] == ' ') r++;
      const char *tt = find_n(from, (size_t)(t + le - from), "tensor<");
      if (results > 1 && r < le && t[r] == '(') {
        /* several results: a tuple sharding has one element per result */
        result_list(t, r, le, &e);
      } else if (results > 1) {
        e.num_leaves = results; /* their types are elsewhere (mhlo.while) */
      } else if (tt) {
        size_t te2 = (size_t)(tt - t) + 6;
        int dd = 0;
        for (; te2 < le; te2++) {
          if (t[te2] == '<') dd++;
          else if (t[te2] == '>' && --dd == 0) break;
        }
        e.shape_text = shard_xstrndup(tt, te2 + 1 - (size_t)(tt - t));
      }
    }
    if (e.shape_text) {
      shard_buf err;
      shard_buf_init(&err);
      e.rank = shard_conv_parse_shape(e.shape_text, &e.shape, &err);
      shard_buf_free(&err);
    }
    push_entry(d, &e, &cap);
    i = e_;
  }
}

void shard_dump_scan(const shard_source *src, shard_dump *out) {
  memset(out, 0, sizeof *out);
  out->is_mlir = !is_hlo_text(src->text, src->len);
  if (out->is_mlir) scan_mlir(src, out);
  else scan_hlo(src, out);
}

void shard_dump_free(shard_dump *d) {
  for (uint32_t i = 0; i < d->num_entries; i++) {
    free((char *)d->entries[i].name);
    free(d->entries[i].shape_text);
    free(d->entries[i].shape);
    free(d->entries[i].sharding_text);
    if (d->entries[i].leaf_text)
      for (uint32_t k = 0; k < d->entries[i].num_leaves; k++) free(d->entries[i].leaf_text[k]);
    free(d->entries[i].leaf_text);
  }
  free(d->entries);
  memset(d, 0, sizeof *d);
}

/* An empty sharding string, or one with bytes that are not text: a
 * serialized OpSharding proto, which XLA's attribute also accepts. */
static bool S_binary(const char *s) {
  const char *p = s;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p) return true;
  for (; *p; p++)
    if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r') return true;
  return (unsigned char)*s >= 0x80;
}

/* A tiled sharding over one device: XLA reads an mhlo.sharding through its
 * OpSharding proto, and HloSharding::FromProto makes that replicated. */
static bool S_one_device_tile(const shard_hlo_sharding *h) {
  return h->kind == SHARD_HLO_TILED && shard_hlo_num_devices(h) == 1;
}

/* One element of a tuple sharding against its result's type. */
static void S_validate_leaf(shard_conv_ctx *cx, const shard_hlo_sharding *h, const char *type, int64_t devices) {
  if (S_one_device_tile(h)) return;
  shard_buf err;
  shard_buf_init(&err);
  int64_t *shape = NULL;
  int32_t rank = shard_conv_parse_shape(type, &shape, &err);
  shard_hlo_validate(cx, h, shape, rank, devices);
  free(shape);
  shard_buf_free(&err);
}

uint32_t shard_dump_check(const shard_source *src, const shard_dump *d, shard_diag_engine *de, shard_buf *listing) {
  uint32_t invalid = 0;
  /* The device count: num_partitions, else the first tiled sharding's. */
  int64_t devices = d->num_partitions;
  shard_arena *arena = shard_arena_new();
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, de);
  for (uint32_t i = 0; i < d->num_entries; i++) {
    const shard_dump_entry *e = &d->entries[i];
    unsigned before = de->errors;
    if (S_binary(e->sharding_text)) {
      /* XLA also reads a serialized OpSharding proto here; shard reads text */
      shard_span at = e->sharding;
      if (at.off > 0 && d->is_mlir) at.off--, at.len += 2; /* the string with its quotes */
      shard_error(de, at, "binary OpSharding is not supported; use the text form");
      invalid++;
      shard_buf_printf(listing, "%s %s \"\" invalid\n", e->name && *e->name ? e->name : "-",
                       e->shape_text ? e->shape_text : "?");
      continue;
    }
    /* Parse in place when the text was not escaped, so errors point into the file. */
    shard_source own = {src->name, e->sharding_text, strlen(e->sharding_text), 0};
    bool in_place = e->sharding.len == own.len && memcmp(src->text + e->sharding.off, own.text, own.len) == 0;
    shard_hlo_sharding *h = in_place ? shard_hlo_parse(&cx, src, e->sharding.off, e->sharding.off + e->sharding.len)
                                     : shard_hlo_parse(&cx, &own, 0, (uint32_t)own.len);
    if (h) {
      int64_t n = shard_hlo_num_devices(h);
      if (h->kind == SHARD_HLO_TUPLE)
        for (uint32_t k = 0; k < h->num_elems && !n; k++) n = shard_hlo_num_devices(&h->elems[k]);
      if (!devices && n && !(d->is_mlir && S_one_device_tile(h))) devices = n;
      if (h->kind == SHARD_HLO_TUPLE && e->num_leaves && h->num_elems != e->num_leaves)
        shard_error(de, h->span, "Shape %s has %u leaf nodes while this sharding has %u", e->shape_text, e->num_leaves,
                    h->num_elems);
      else if (h->kind == SHARD_HLO_TUPLE && !e->num_leaves && e->shape_text)
        shard_error(de, h->span, "a tuple sharding on the non-tuple shape %s", e->shape_text);
      else if (h->kind == SHARD_HLO_TUPLE && e->leaf_text)
        for (uint32_t k = 0; k < h->num_elems; k++) S_validate_leaf(&cx, &h->elems[k], e->leaf_text[k], devices);
      else if (h->kind != SHARD_HLO_TUPLE && e->leaf_text) /* one sharding for every result */
        for (uint32_t k = 0; k < e->num_leaves; k++) S_validate_leaf(&cx, h, e->leaf_text[k], devices);
      else if (!(d->is_mlir && S_one_device_tile(h)))
        shard_hlo_validate(&cx, h, e->shape, e->num_leaves ? -1 : e->rank, devices);
    }
    bool ok = h && de->errors == before;
    if (!ok) invalid++;
    shard_buf_printf(listing, "%s %s %s %s\n", e->name && *e->name ? e->name : "-", e->shape_text ? e->shape_text : "?",
                     e->sharding_text, ok ? "ok" : "invalid");
  }
  shard_arena_free(arena);
  return invalid;
}
