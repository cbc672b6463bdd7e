/* Paddle (dist attr, placements) and OneFlow (nd-SBP, both spellings)
 * round trips, on generated shardings over meshes of up to 3 dimensions
 * with and without explicit device orders and partial dimensions:
 *
 *   1. S -> each of the four notations -> S' has the same device map as S;
 *   2. the Paddle (resp. OneFlow) text T of S -> every other notation
 *      (shardy, hlo, hlo-v3, pspec, dtensor, tf) -> back to Paddle
 *      (OneFlow) gives T again, and the same device map on the way.
 *
 * Paddle gives a tensor dimension one mesh dimension; OneFlow several, in
 * hierarchy order; so the generator draws what each can say. TF layouts
 * have no partial values, HloSharding text no reductions but sum, so those
 * legs are only taken where the target can say the sharding. */
#include <criterion/criterion.h>

#include "convert_testing.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((rng_state >> 33) % n);
}

typedef struct stats {
  unsigned checked, legs, failed, refused;
  char first[2048];
} stats;

static void fail(stats *st, const char *what, const char *detail) {
  if (!st->failed) snprintf(st->first, sizeof st->first, "%s: %s", what, detail);
  st->failed++;
}

/* Parses `text` in `from` over `mesh` (NULL: none). NULL with the
 * diagnostics in `why` when it does not parse. */
static shard_conv *parse(shard_conv_ctx *cx, shard_notation from, const char *text, const shard_mesh *mesh, cv_diags *d,
                         shard_buf *why) {
  shard_source *src = SHARD_NEW(cx->arena, shard_source);
  src->name = "<rt>";
  src->text = shard_arena_strdup(cx->arena, text);
  src->len = strlen(text);
  const shard_mesh *saved = cx->mesh;
  cx->mesh = mesh;
  shard_conv *c = shard_conv_parse(cx, from, src);
  cx->mesh = saved;
  if (!c || d->errors) {
    shard_buf_printf(why, "'%s' (%s) does not parse: %s", text, shard_notation_name(from), d->text);
    return NULL;
  }
  return c;
}

/* Prints c in `to`; the mesh to read it back on goes to *mesh_back. */
static bool print(shard_conv_ctx *cx, shard_notation to, const shard_conv *c, const shard_mesh *mesh, shard_buf *out,
                  const shard_mesh **mesh_back, cv_diags *d, shard_buf *why) {
  shard_buf mout;
  shard_buf_init(&mout);
  const shard_mesh *saved = cx->mesh;
  cx->mesh = mesh;
  bool ok = shard_conv_print(cx, to, c, out, &mout) && !d->errors;
  cx->mesh = saved;
  *mesh_back = mesh;
  if (ok && to == SHARD_NOTATION_SHARDY) {
    /* the mesh definition goes with the text */
    shard_buf both;
    shard_buf_init(&both);
    shard_buf_printf(&both, "%s\n%s", shard_buf_str(&mout), shard_buf_str(out));
    shard_buf_clear(out);
    shard_buf_puts(out, shard_buf_str(&both));
    shard_buf_free(&both);
    *mesh_back = NULL;
  } else if (ok && mout.len) {
    shard_source *ms = SHARD_NEW(cx->arena, shard_source);
    ms->name = "<mesh>";
    ms->text = shard_arena_strdup(cx->arena, shard_buf_str(&mout));
    ms->len = mout.len;
    *mesh_back = shard_conv_parse_mesh(cx, ms);
    ok = *mesh_back != NULL;
  }
  if (!ok) shard_buf_printf(why, "cannot write in %s: %s", shard_notation_name(to), d->text);
  shard_buf_free(&mout);
  return ok;
}

static const shard_notation others[] = {SHARD_NOTATION_SHARDY, SHARD_NOTATION_HLO,     SHARD_NOTATION_HLO_V3,
                                        SHARD_NOTATION_PSPEC,  SHARD_NOTATION_DTENSOR, SHARD_NOTATION_TF};

/* Takes S through `home` and back, then home's text through every other notation. */
static void check(const shard_conv *s, shard_notation home, const int64_t *shape, uint32_t rank, stats *st,
                  bool multi_axis_dims) {
  int64_t n = shard_mesh_num_devices(s->mesh);
  shard_arena *a = shard_arena_new();
  cv_diags d;
  memset(&d, 0, sizeof d);
  shard_diag_engine de;
  shard_diag_init(&de, cv_collect, &d);
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, a, &de);
  cx.shape = shape;
  cx.rank = (int32_t)rank;
  shard_buf text, why, desc;
  shard_buf_init(&text);
  shard_buf_init(&why);
  shard_buf_init(&desc);
  shard_mesh_print(&desc, s->mesh);
  shard_buf_putc(&desc, ' ');
  shard_sharding_print(&desc, s->sharding);
  const shard_mesh *hm;
  bool has_partial = s->sharding->num_unreduced > 0;
  shard_conv *h = NULL;
  if (!print(&cx, home, s, s->mesh, &text, &hm, &d, &why) ||
      !(h = parse(&cx, home, shard_buf_str(&text), hm, &d, &why)) || !cv_equivalent(s, h, shape, rank, n, &why)) {
    shard_buf_printf(&why, " [%s, text %s]", shard_buf_str(&desc), shard_buf_str(&text));
    fail(st, shard_notation_name(home), shard_buf_str(&why));
    goto done;
  }
  st->legs++;
  /* home's text through every other notation and back */
  for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
    shard_notation to = others[k];
    if (to == SHARD_NOTATION_TF && has_partial) continue;
    if (s->sharding->reduction != SHARD_RED_SUM && has_partial &&
        (to == SHARD_NOTATION_HLO || to == SHARD_NOTATION_HLO_V3 || to == SHARD_NOTATION_PSPEC))
      continue;
    /* Where `to`'s framework cuts an uneven dimension differently from
     * home's (OneFlow's balanced parts against XLA's padded split), the one
     * right answer is a refusal that says so. */
    shard_conv as_to = *h;
    as_to.split = shard_notation_split(to);
    shard_buf same_why;
    shard_buf_init(&same_why);
    bool differs = !cv_equivalent(h, &as_to, shape, rank, n, &same_why);
    shard_buf_free(&same_why);
    if (differs) {
      shard_buf mid;
      shard_buf_init(&mid);
      const shard_mesh *mm;
      memset(&d, 0, sizeof d);
      bool printed = print(&cx, to, h, hm, &mid, &mm, &d, &why);
      if (printed || !strstr(d.text, "uneven sharding placed differently")) {
        shard_buf_printf(&why, " [%s -> %s: placed differently, yet not refused as such: '%s']",
                         shard_notation_name(home), shard_notation_name(to), shard_buf_str(&mid));
        fail(st, "round trip", shard_buf_str(&why));
      } else {
        st->legs++;
        st->refused++;
      }
      shard_buf_free(&mid);
      if (st->failed) break;
      continue;
    }
    shard_buf mid, back;
    shard_buf_init(&mid);
    shard_buf_init(&back);
    const shard_mesh *mm, *bm;
    shard_conv *x = NULL, *y = NULL;
    memset(&d, 0, sizeof d);
    bool ok = print(&cx, to, h, hm, &mid, &mm, &d, &why) && (x = parse(&cx, to, shard_buf_str(&mid), mm, &d, &why)) &&
              print(&cx, home, x, mm ? mm : x->mesh, &back, &bm, &d, &why) &&
              (y = parse(&cx, home, shard_buf_str(&back), bm, &d, &why));
    if (ok && !cv_equivalent(s, y, shape, rank, n, &why)) ok = false;
    /* TF rebuilds the mesh of a dimension split over several axes */
    bool same_text = !(to == SHARD_NOTATION_TF && multi_axis_dims);
    /* {unreduced} / {replicated} name no mesh: the size-1 dims come back partial/replicated alike */
    if (ok && (strcmp(shard_buf_str(&mid), "{unreduced}") == 0 || strcmp(shard_buf_str(&mid), "{replicated}") == 0))
      same_text = false;
    if (ok && same_text && strcmp(shard_buf_str(&back), shard_buf_str(&text)) != 0) {
      shard_buf_printf(&why, "back as '%s'", shard_buf_str(&back));
      ok = false;
    }
    if (!ok) {
      shard_buf_printf(&why, " [%s -> %s '%s', from %s]", shard_notation_name(home), shard_notation_name(to),
                       shard_buf_str(&mid), shard_buf_str(&text));
      fail(st, "round trip", shard_buf_str(&why));
    } else {
      st->legs++;
    }
    shard_buf_free(&mid);
    shard_buf_free(&back);
    if (!ok) break;
  }
done:
  st->checked++;
  shard_buf_free(&text);
  shard_buf_free(&why);
  shard_buf_free(&desc);
  shard_arena_free(a);
}

static void generated(shard_notation home, bool one_axis_per_dim, bool sum_only, stats *st) {
  static const int64_t sizes[] = {1, 2, 2, 3, 4};
  static const char *const names[] = {"x", "y", "z"};
  for (int mesh_i = 0; mesh_i < 60; mesh_i++) {
    shard_arena *a = shard_arena_new();
    shard_diag_engine de;
    cv_diags d;
    memset(&d, 0, sizeof d);
    shard_diag_init(&de, cv_collect, &d);
    shard_conv_ctx cx;
    shard_conv_ctx_init(&cx, a, &de);
    uint32_t na = 1 + rnd(3);
    int64_t sz[3], total = 1;
    for (uint32_t i = 0; i < na; i++) {
      sz[i] = sizes[rnd(sizeof sizes / sizeof sizes[0])];
      total *= sz[i];
    }
    int64_t *ids = NULL;
    if (rnd(2) == 0 && total > 1) {
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
    for (int k = 0; k < 12; k++) {
      uint32_t rank = 1 + rnd(3);
      shard_conv *c = shard_conv_new_named(&cx, m, rank, shard_no_span);
      SHARD_VEC(shard_axis_ref) dims[3] = {{0}, {0}, {0}};
      SHARD_VEC(shard_axis_ref) unred = {0};
      bool multi = false;
      for (uint32_t ax = 0; ax < na; ax++) {
        shard_axis_ref r;
        memset(&r, 0, sizeof r);
        r.name = m->axes[ax].name;
        uint32_t where = rnd(5);
        if (sz[ax] == 1) continue; /* a size-1 axis says nothing HloSharding keeps */
        if (where < rank && where < 3) {
          if (one_axis_per_dim && dims[where].len) continue;
          multi |= dims[where].len > 0;
          SHARD_VEC_PUSH(dims[where], r); /* mesh order: major first */
        } else if (where == 4) {
          SHARD_VEC_PUSH(unred, r);
        }
      }
      for (uint32_t dd = 0; dd < rank; dd++) {
        c->sharding->dims[dd].num_axes = dims[dd].len;
        SHARD_VEC_FREEZE(a, dims[dd], c->sharding->dims[dd].axes);
      }
      c->sharding->num_unreduced = unred.len;
      SHARD_VEC_FREEZE(a, unred, c->sharding->unreduced);
      if (!sum_only && c->sharding->num_unreduced) c->sharding->reduction = (shard_reduction)rnd(3);
      c->sharding->mesh_name = "m";
      c->split = shard_notation_split(home); /* the sharding as home's framework places it */
      int64_t shape[3];
      for (uint32_t dd = 0; dd < rank; dd++) shape[dd] = rnd(2) ? 12 : 5 + dd; /* even and uneven */
      check(c, home, shape, rank, st, multi);
    }
    shard_arena_free(a);
  }
}

Test(paddle_oneflow, paddle_dist_attr_round_trips) {
  stats st = {0};
  generated(SHARD_NOTATION_PADDLE, true, false, &st);
  fprintf(stderr, "paddle: %u shardings, %u legs\n", st.checked, st.legs);
  cr_assert(st.checked >= 600);
  cr_assert(st.legs >= 3000, "only %u legs", st.legs);
  cr_assert_eq(st.failed, 0, "%u failures; first: %s", st.failed, st.first);
}

Test(paddle_oneflow, paddle_placements_round_trip) {
  stats st = {0};
  generated(SHARD_NOTATION_PADDLE_PLACEMENTS, true, false, &st);
  cr_assert(st.legs >= 3000, "only %u legs", st.legs);
  cr_assert_eq(st.failed, 0, "%u failures; first: %s", st.failed, st.first);
}

Test(paddle_oneflow, oneflow_round_trips) {
  stats st = {0};
  generated(SHARD_NOTATION_ONEFLOW, false, true, &st);
  generated(SHARD_NOTATION_ONEFLOW_PYTHON, false, true, &st);
  fprintf(stderr, "oneflow: %u shardings, %u legs (%u refused: placed differently)\n", st.checked, st.legs, st.refused);
  cr_assert(st.legs >= 6000, "only %u legs", st.legs);
  /* the generator's uneven shapes (5, 6, 7 over 3 or 4 parts) do reach the refusal */
  cr_assert(st.refused > 0, "no uneven OneFlow sharding was refused");
  cr_assert_eq(st.failed, 0, "%u failures; first: %s", st.failed, st.first);
}

/* The issue's example, read both ways, and what each target says about it. */
Test(paddle_oneflow, issue_example) {
  cv_run r;
  const char *attr = "mesh_shape:[2,2],process_ids:[2,3,6,7],dims_mappings:[-1,1], partial(0,SUM)";
  cr_assert(cv_convert(&r, SHARD_NOTATION_PADDLE, SHARD_NOTATION_DTENSOR, NULL, NULL, attr), "%s", r.diags.text);
  cr_assert_str_eq(shard_buf_str(&r.out), "[Partial(), Shard(1)]");
  cr_assert_eq(cv_count(&r.diags, "process ids are not 0..3"), 1, "%s", r.diags.text);
  cv_free(&r);
  cr_assert(cv_convert(&r, SHARD_NOTATION_PADDLE, SHARD_NOTATION_SHARDY, NULL, NULL, attr), "%s", r.diags.text);
  cr_assert_str_eq(shard_buf_str(&r.out), "#sdy.sharding<@mesh, [{}, {\"d1\"}], unreduced={\"d0\"}>");
  cv_free(&r);
  /* a non-iota process order is the mesh's device order */
  cr_assert(cv_convert(&r, SHARD_NOTATION_PADDLE, SHARD_NOTATION_HLO, NULL, NULL,
                       "mesh_shape:[2,2],process_ids:[3,2,1,0],dims_mappings:[0,-1]"),
            "%s", r.diags.text);
  /* (the devices of each replication group in ascending order, as XLA's
   * HloSharding::PartialTile writes them) */
  cr_assert_str_eq(shard_buf_str(&r.out), "{devices=[2,1,2]2,3,0,1 last_tile_dim_replicate}");
  cv_free(&r);
  /* Paddle's MAX in a PartitionSpec: JAX's unreduced_kind carries it */
  cr_assert(cv_convert(&r, SHARD_NOTATION_PADDLE, SHARD_NOTATION_PSPEC, "x=2,y=2", NULL,
                       "mesh_shape:[2,2],process_ids:[0,1,2,3],dims_mappings:[1], partial(0,MAX)"),
            "%s", r.diags.text);
  cr_assert_str_eq(shard_buf_str(&r.out), "P('y', unreduced={'x'}, unreduced_kind=max)");
  cr_assert_eq(r.diags.warnings, 0, "%s", r.diags.text);
  cv_free(&r);
  /* OneFlow has no partial max */
  cr_assert(cv_convert(&r, SHARD_NOTATION_PADDLE_PLACEMENTS, SHARD_NOTATION_ONEFLOW, "2x2", NULL,
                       "[Partial(reduce_type=MAX), Shard(dim=0)]"),
            "%s", r.diags.text);
  cr_assert_str_eq(shard_buf_str(&r.out), "(P, S(0))");
  cr_assert_eq(cv_count(&r.diags, "only partial_sum"), 1, "%s", r.diags.text);
  cv_free(&r);
}
