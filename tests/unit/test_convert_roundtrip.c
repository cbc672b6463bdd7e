/* Round trips between notations must be exact wherever the target can
 * express the sharding: the same device for every element. Checked on every
 * sharding in Shardy's lit tests (the conformance tree) and on generated
 * shardings over meshes of up to 4 axes, with sub-axes, explicit device ids,
 * replicated, unreduced and manual axes.
 *
 * For each sharding S on mesh M:
 *   1. S -> HloSharding V2 text -> parsed back; its device map computed
 *      straight from the tile assignment equals S's;
 *   2. that V2 -> Shardy on an invented mesh is equivalent to S;
 *   3. that V2 -> Shardy on M itself is equivalent to S and invents nothing;
 *   4. S -> Shardy text -> S', S -> PartitionSpec -> S', S -> DTensor -> S',
 *      S -> TF layout -> S' (where the target has the features) are
 *      equivalent to S. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>

#include "convert_testing.h"

typedef struct rt_stats {
  unsigned checked, skipped, failed;
  unsigned pspec, dtensor, tf;
  char first_failure[2048];
} rt_stats;

static void quiet(void *ctx, const shard_diag *d) {
  (void)ctx;
  (void)d;
}

static void fail(rt_stats *st, const char *what, const char *input, const char *detail) {
  if (!st->failed) snprintf(st->first_failure, sizeof st->first_failure, "%s: %s\n  %s", what, input, detail);
  st->failed++;
}

/* Parses `text` in `from` over `mesh` and compares with `want`. */
static bool reparse_equal(shard_notation from, const char *text, const shard_mesh *mesh, const shard_conv *want,
                          const int64_t *shape, uint32_t rank, int64_t n, shard_buf *why) {
  shard_arena *a = shard_arena_new();
  shard_diag_engine de;
  cv_diags diags = {{0}, 0, 0};
  shard_diag_init(&de, cv_collect, &diags);
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, a, &de);
  cx.mesh = mesh;
  cx.shape = shape;
  cx.rank = (int32_t)rank;
  shard_source src = {"<rt>", text, strlen(text), 0};
  shard_conv *c = shard_conv_parse(&cx, from, &src);
  bool ok = c && cv_equivalent(want, c, shape, rank, n, why);
  if (!c) shard_buf_printf(why, "does not parse back: %s", diags.text);
  shard_arena_free(a);
  return ok;
}

static void check_one(const shard_conv *s, const char *input, rt_stats *st) {
  const shard_mesh *m = s->mesh;
  int64_t n = shard_mesh_num_devices(m);
  if (n > 1024) {
    st->skipped++;
    return;
  }
  if (m->device_ids && m->num_axes == 0 && n < m->device_ids[0] + 1) n = m->device_ids[0] + 1;
  uint32_t rank = s->sharding->rank;
  int64_t shape[16];
  if (rank > 16) {
    st->skipped++;
    return;
  }
  /* Divisible in one check, uneven (possibly empty tiles) in the other. */
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < rank; i++) shape[i] = pass == 0 ? n : 3 + (int64_t)i;
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    shard_diag_init(&de, quiet, NULL);
    shard_conv_ctx cx;
    shard_conv_ctx_init(&cx, a, &de);
    shard_buf why, text;
    shard_buf_init(&why);
    shard_buf_init(&text);
    shard_hlo_sharding *h = shard_hlo_from_conv(&cx, s, false);
    if (!h) {
      fail(st, "to HloSharding", input, "no result");
      goto next;
    }
    shard_hlo_print(&text, h);
    shard_source src = {"<v2>", shard_buf_str(&text), text.len, 0};
    shard_hlo_sharding *h2 = shard_hlo_parse(&cx, &src, 0, (uint32_t)text.len);
    if (!h2) {
      fail(st, "V2 text does not parse", input, shard_buf_str(&text));
      goto next;
    }
    shard_device_map ms, mh;
    if (!shard_device_map_build(s, shape, rank, n, &ms, &why)) {
      fail(st, "device map", input, shard_buf_str(&why));
      goto next;
    }
    if (!shard_hlo_device_map(h2, shape, rank, n, &mh, &why)) {
      fail(st, "V2 device map", input, shard_buf_str(&why));
      shard_device_map_free(&ms);
      goto next;
    }
    bool eq = shard_device_map_equal(&ms, &mh, &why);
    shard_device_map_free(&ms);
    shard_device_map_free(&mh);
    if (!eq) {
      shard_buf_printf(&why, " (V2 %s)", shard_buf_str(&text));
      fail(st, "Shardy -> V2 changes devices", input, shard_buf_str(&why));
      goto next;
    }
    /* V2 -> hub, invented mesh and the original mesh */
    for (int with_mesh = 0; with_mesh < 2; with_mesh++) {
      cx.mesh = with_mesh ? m : NULL;
      shard_conv *back = shard_hlo_to_conv(&cx, h2);
      if (!back || !cv_equivalent(s, back, shape, rank, n, &why)) {
        shard_buf_printf(&why, " (V2 %s, %s mesh)", shard_buf_str(&text), with_mesh ? "original" : "invented");
        fail(st, "V2 -> Shardy changes devices", input, shard_buf_str(&why));
        goto next;
      }
      if (with_mesh && back->kind == SHARD_CONV_NAMED && back->names_invented) {
        fail(st, "V2 -> Shardy could not use the original mesh", input, shard_buf_str(&text));
        goto next;
      }
      if (!with_mesh && back->kind == SHARD_CONV_NAMED && back->num_manual == 0) {
        /* and through Shardy text */
        shard_buf out, mout;
        shard_buf_init(&out);
        shard_buf_init(&mout);
        bool ok = shard_sdy_conv_print(&cx, back, &out, &mout);
        shard_buf both;
        shard_buf_init(&both);
        shard_buf_printf(&both, "%s\n%s", shard_buf_str(&mout), shard_buf_str(&out));
        if (!ok || !reparse_equal(SHARD_NOTATION_SHARDY, shard_buf_str(&both), NULL, s, shape, rank, n, &why)) {
          shard_buf_printf(&why, " (Shardy %s)", shard_buf_str(&both));
          fail(st, "Shardy text round trip", input, shard_buf_str(&why));
        }
        shard_buf_free(&out);
        shard_buf_free(&mout);
        shard_buf_free(&both);
      }
    }
    cx.mesh = NULL;
    if (pass == 1 || s->num_manual || (m->num_axes == 0 && m->device_ids)) goto next;
    /* PartitionSpec, DTensor, TF */
    for (int target = 0; target < 3; target++) {
      if (target == 2 && s->sharding->num_unreduced) continue;
      shard_notation to = target == 0 ? SHARD_NOTATION_PSPEC : target == 1 ? SHARD_NOTATION_DTENSOR : SHARD_NOTATION_TF;
      shard_buf out, mout;
      shard_buf_init(&out);
      shard_buf_init(&mout);
      cx.mesh = m;
      cx.rank = (int32_t)rank;
      cx.shape = shape;
      bool ok = shard_conv_print(&cx, to, s, &out, &mout);
      const shard_mesh *pm = m;
      if (ok && mout.len) {
        shard_source msrc = {"<m>", shard_buf_str(&mout), mout.len, 0};
        pm = shard_conv_parse_mesh(&cx, &msrc);
      }
      if (!ok || !pm || !reparse_equal(to, shard_buf_str(&out), pm, s, shape, rank, n, &why)) {
        shard_buf_printf(&why, " (%s: %s, mesh %s)", shard_notation_name(to), shard_buf_str(&out),
                         shard_buf_str(&mout));
        fail(st, "notation round trip", input, shard_buf_str(&why));
      } else if (target == 0) st->pspec++;
      else if (target == 1) st->dtensor++;
      else st->tf++;
      shard_buf_free(&out);
      shard_buf_free(&mout);
    }
  next:
    shard_buf_free(&why);
    shard_buf_free(&text);
    shard_arena_free(a);
  }
  st->checked++;
}

/* ---- shardings from the conformance tree ------------------------------------------- */

static bool match_angle(const char *t, size_t open, size_t end, size_t *close) {
  int depth = 0;
  for (size_t i = open; i < end; i++) {
    if (t[i] == '"') {
      for (i++; i < end && t[i] != '"'; i++)
        if (t[i] == '\\') i++;
      continue;
    }
    if (t[i] == '<') depth++;
    else if (t[i] == '>' && t[i - 1] != '-' && --depth == 0) {
      *close = i;
      return true;
    }
  }
  return false;
}

static void scan_chunk(const char *t, size_t start, size_t end, rt_stats *st) {
  shard_buf meshes;
  shard_buf_init(&meshes);
  for (size_t i = start; i + 10 < end; i++) {
    if (strncmp(t + i, "sdy.mesh @", 10) != 0) continue;
    size_t eq = i;
    while (eq < end && t[eq] != '=' && t[eq] != '\n') eq++;
    size_t lt = eq;
    while (lt < end && t[lt] != '<' && t[lt] != '\n') lt++;
    size_t gt;
    if (lt >= end || t[lt] != '<' || !match_angle(t, lt, end, &gt)) continue;
    shard_buf_putn(&meshes, t + i, eq - i);
    shard_buf_puts(&meshes, "= ");
    shard_buf_putn(&meshes, t + lt, gt + 1 - lt);
    shard_buf_putc(&meshes, '\n');
  }
  for (size_t i = start; i + 2 < end; i++) {
    if (!(t[i] == '<' && (t[i + 1] == '@' || strncmp(t + i + 1, "mesh<", 5) == 0))) continue;
    size_t gt;
    if (!match_angle(t, i, end, &gt)) continue;
    char *s = strndup(t + i, gt + 1 - i);
    if (!strstr(s, ", [") || strchr(s, '\n')) {
      free(s);
      continue;
    }
    shard_buf text;
    shard_buf_init(&text);
    shard_buf_printf(&text, "%s%s", shard_buf_str(&meshes), s);
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    shard_diag_init(&de, quiet, NULL);
    shard_conv_ctx cx;
    shard_conv_ctx_init(&cx, a, &de);
    shard_source src = {"<conf>", shard_buf_str(&text), text.len, 0};
    shard_conv *c = shard_sdy_conv_parse(&cx, &src);
    if (c && c->kind == SHARD_CONV_NAMED && de.errors == 0) check_one(c, s, st);
    else st->skipped++;
    shard_arena_free(a);
    shard_buf_free(&text);
    free(s);
  }
  shard_buf_free(&meshes);
}

static void scan_file(const char *path, rt_stats *st) {
  FILE *f = fopen(path, "rb");
  if (!f) return;
  shard_buf b;
  shard_buf_init(&b);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) shard_buf_putn(&b, chunk, got);
  fclose(f);
  const char *t = shard_buf_str(&b);
  size_t n = b.len, start = 0;
  for (;;) {
    const char *sep = strstr(t + start, "\n// -----");
    size_t end = sep ? (size_t)(sep - t) : n;
    scan_chunk(t, start, end, st);
    if (!sep) break;
    start = end + 9;
  }
  shard_buf_free(&b);
}

static void scan_dir(const char *dir, rt_stats *st, unsigned *files) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) != 0) continue;
    if (S_ISDIR(sb.st_mode)) scan_dir(path, st, files);
    else if (strlen(e->d_name) > 5 && strcmp(e->d_name + strlen(e->d_name) - 5, ".mlir") == 0) {
      scan_file(path, st);
      (*files)++;
    }
  }
  closedir(d);
}

/* Shardy's lit tests where tests/suites.py looks for them: $SHARD_CONFORMANCE_DIR
 * (a shardy checkout, its shardy/dialect/sdy, or a directory laid out like
 * ../shared), else ../shared beside the repository (found from this file's
 * path, which CMake gives absolute). Walking any of these reaches the same
 * files, except a ../shared-like directory, which also holds other suites. */
static const char *conformance_root(char *buf, size_t size) {
  struct stat sb;
  const char *env = getenv("SHARD_CONFORMANCE_DIR");
  char base[4096];
  int n;
  if (env && *env) {
    n = snprintf(base, sizeof base, "%s", env);
  } else {
    char repo[4096];
    n = snprintf(repo, sizeof repo, "%s", __FILE__);
    for (int up = 0; up < 3 && n >= 0; up++) {
      char *slash = strrchr(repo, '/');
      if (slash) *slash = '\0';
      else n = snprintf(repo, sizeof repo, ".");
    }
    if (n >= 0) n = snprintf(base, sizeof base, "%s/../shared", repo);
  }
  cr_assert(n >= 0 && (size_t)n < sizeof base, "conformance path too long");
  n = snprintf(buf, size, "%s/conformance/shardy", base);
  cr_assert(n >= 0 && (size_t)n < size, "conformance path too long");
  if (stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode)) return buf;
  if (env && *env && stat(base, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    n = snprintf(buf, size, "%s", base);
    cr_assert(n >= 0 && (size_t)n < size, "conformance path too long");
    return buf;
  }
  return NULL;
}

Test(roundtrip, conformance_shardings, .timeout = 600) {
  char buf[4096];
  const char *root = conformance_root(buf, sizeof buf);
  const char *env = getenv("SHARD_CONFORMANCE_DIR");
  if (!root && env && *env)
    cr_assert_fail("SHARD_CONFORMANCE_DIR=%s holds no Shardy lit tests (python3 tests/suites.py)", env);
  if (!root)
    cr_skip_test("Shardy's lit tests not found (SHARD_CONFORMANCE_DIR unset, no ../shared beside the "
                 "repository): python3 tests/suites.py says how to get them");
  rt_stats st;
  memset(&st, 0, sizeof st);
  unsigned files = 0;
  scan_dir(root, &st, &files);
  cr_log_info("conformance: %u files, %u shardings checked, %u skipped (invalid or too large), "
              "%u PartitionSpec, %u DTensor, %u TF round trips",
              files, st.checked, st.skipped, st.pspec, st.dtensor, st.tf);
  fprintf(stderr, "conformance: %u files, %u shardings checked, %u skipped, %u pspec, %u dtensor, %u tf\n", files,
          st.checked, st.skipped, st.pspec, st.dtensor, st.tf);
  cr_assert(st.checked >= 500, "only %u shardings found", st.checked);
  cr_assert_eq(st.failed, 0, "%u failures; first: %s", st.failed, st.first_failure);
}

/* ---- generated shardings ------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((rng_state >> 33) % n);
}

Test(roundtrip, generated_meshes_up_to_4_axes, .timeout = 600) {
  static const int64_t sizes[] = {1, 2, 2, 3, 4, 4, 8};
  static const char *const names[] = {"a", "b", "c", "d"};
  rt_stats st;
  memset(&st, 0, sizeof st);
  for (int mesh_i = 0; mesh_i < 120; mesh_i++) {
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    shard_diag_init(&de, quiet, NULL);
    shard_conv_ctx cx;
    shard_conv_ctx_init(&cx, a, &de);
    uint32_t na = 1 + rnd(4);
    int64_t sz[4], total = 1;
    for (uint32_t i = 0; i < na; i++) {
      sz[i] = sizes[rnd(sizeof sizes / sizeof sizes[0])];
      total *= sz[i];
    }
    int64_t *ids = NULL;
    if (rnd(3) == 0 && total > 1) {
      ids = shard_xmalloc(sizeof(int64_t) * (size_t)total);
      for (int64_t i = 0; i < total; i++) ids[i] = i;
      for (int64_t i = total - 1; i > 0; i--) {
        int64_t j = rnd((uint32_t)i + 1), t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
      }
    }
    shard_mesh *m = shard_conv_mesh_new(&cx, na, names, sz, ids);
    free(ids);
    for (int k = 0; k < 25; k++) {
      uint32_t rank = 1 + rnd(3);
      shard_conv *c = shard_conv_new_named(&cx, m, rank, shard_no_span);
      SHARD_VEC(shard_axis_ref) dims[3] = {{0}, {0}, {0}};
      SHARD_VEC(shard_axis_ref) repl = {0}, unred = {0}, man = {0};
      for (uint32_t ax = 0; ax < na; ax++) {
        shard_axis_ref parts[2];
        uint32_t np = 1;
        memset(parts, 0, sizeof parts);
        parts[0].name = m->axes[ax].name;
        if (sz[ax] >= 4 && rnd(3) == 0) {
          /* two sub-axes: major 2, minor size/2 */
          np = 2;
          parts[0].is_sub = true;
          parts[0].pre_size = 1;
          parts[0].size = 2;
          parts[1].name = m->axes[ax].name;
          parts[1].is_sub = true;
          parts[1].pre_size = 2;
          parts[1].size = sz[ax] / 2;
        }
        for (uint32_t p = 0; p < np; p++) {
          uint32_t where = rnd(8);
          if (where < 4 && where < rank + 1) {
            uint32_t d = where % rank;
            SHARD_VEC_PUSH(dims[d], parts[p]);
            /* shuffle it into a random position */
            uint32_t pos = rnd(dims[d].len);
            shard_axis_ref t = dims[d].items[pos];
            dims[d].items[pos] = dims[d].items[dims[d].len - 1];
            dims[d].items[dims[d].len - 1] = t;
          } else if (where == 5) {
            SHARD_VEC_PUSH(repl, parts[p]);
          } else if (where == 6) {
            SHARD_VEC_PUSH(unred, parts[p]);
          } else if (where == 7 && rnd(2) == 0) {
            SHARD_VEC_PUSH(man, parts[p]);
          }
        }
      }
      for (uint32_t d = 0; d < rank; d++) {
        c->sharding->dims[d].num_axes = dims[d].len;
        c->sharding->dims[d].is_open = rnd(4) == 0;
        SHARD_VEC_FREEZE(a, dims[d], c->sharding->dims[d].axes);
      }
      c->sharding->num_replicated = repl.len;
      SHARD_VEC_FREEZE(a, repl, c->sharding->replicated);
      c->sharding->num_unreduced = unred.len;
      SHARD_VEC_FREEZE(a, unred, c->sharding->unreduced);
      c->num_manual = man.len;
      SHARD_VEC_FREEZE(a, man, c->manual);
      if (!shard_conv_validate(&cx, c)) {
        st.skipped++;
        continue;
      }
      shard_buf desc;
      shard_buf_init(&desc);
      shard_mesh_print(&desc, m);
      shard_buf_puts(&desc, " ");
      c->sharding->mesh_name = "m";
      shard_sharding_print(&desc, c->sharding);
      if (c->num_manual) {
        shard_buf_puts(&desc, " manual=");
        shard_axis_list_print(&desc, c->manual, c->num_manual);
      }
      check_one(c, shard_buf_str(&desc), &st);
      shard_buf_free(&desc);
    }
    shard_arena_free(a);
  }
  fprintf(stderr, "generated: %u shardings checked, %u skipped, %u pspec, %u dtensor, %u tf\n", st.checked, st.skipped,
          st.pspec, st.dtensor, st.tf);
  cr_assert(st.checked >= 2000, "only %u generated shardings were valid", st.checked);
  cr_assert_eq(st.failed, 0, "%u failures; first: %s", st.failed, st.first_failure);
}
