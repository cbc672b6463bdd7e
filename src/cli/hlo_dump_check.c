/* `shard check` on HloSharding: XLA text dumps (HloModule ... sharding={...}),
 * MLIR with mhlo.sharding attributes, and -e snippets that are HloSharding
 * text (`{devices=[2,2]<=[4]} : tensor<8x16xf32>`). Called from cmd_check.c;
 * the reading and validating is src/core/hlo_dump.c and convert_hlo.c. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert/convert.h"

bool cli_check_hlo_dump(const shard_source *src, cli_sink *sink, bool text_out);
bool cli_check_hlo_snippet(const char *text, cli_sink *sink, bool text_out, bool werror);

/* Lists and validates every sharding of a dump. Returns true when the file
 * is HLO text (nothing more to check), false for MLIR, which the MLIR
 * checker then verifies as usual. */
bool cli_check_hlo_dump(const shard_source *src, cli_sink *sink, bool text_out) {
  shard_dump d;
  shard_dump_scan(src, &d);
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, sink);
  shard_buf listing;
  shard_buf_init(&listing);
  uint32_t invalid = shard_dump_check(src, &d, &de, &listing);
  if (text_out) {
    printf("%s: %u sharding%s, %u invalid\n", src->name, d.num_entries, d.num_entries == 1 ? "" : "s", invalid);
    fputs(shard_buf_str(&listing), stdout);
  }
  bool handled = !d.is_mlir;
  shard_buf_free(&listing);
  shard_dump_free(&d);
  return handled;
}

/* snippet ::= hlo-sharding (':' shape)? */
bool cli_check_hlo_snippet(const char *text, cli_sink *sink, bool text_out, bool werror) {
  const char *s = text;
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  if (*s != '{') return false;
  size_t n = strlen(text), open = (size_t)(s - text), close = open;
  int depth = 0;
  for (size_t i = open; i < n; i++) {
    if (text[i] == '{') depth++;
    else if (text[i] == '}' && --depth == 0) {
      close = i + 1;
      break;
    }
  }
  if (close == open) close = n;
  shard_source src = {"<snippet>", text, n, 0};
  shard_diag_engine de;
  shard_diag_init(&de, cli_sink_diag, sink);
  de.warnings_as_errors = werror;
  shard_arena *arena = shard_arena_new();
  shard_conv_ctx cx;
  shard_conv_ctx_init(&cx, arena, &de);
  int64_t *shape = NULL;
  int32_t rank = -1;
  const char *rest = text + close;
  while (*rest == ' ' || *rest == '\t') rest++;
  if (*rest == ':') {
    shard_buf err;
    shard_buf_init(&err);
    rank = shard_conv_parse_shape(rest + 1, &shape, &err);
    if (rank < 0) {
      shard_span sp = {&src, (uint32_t)(rest - text), (uint32_t)strlen(rest)};
      shard_error(&de, sp, "%s", shard_buf_str(&err));
    }
    shard_buf_free(&err);
  } else if (*rest) {
    shard_span sp = {&src, (uint32_t)(rest - text), 1};
    shard_error(&de, sp, "expected ': SHAPE' after the sharding");
  }
  if (de.errors == 0) {
    shard_hlo_sharding *h = shard_hlo_parse(&cx, &src, (uint32_t)open, (uint32_t)close);
    if (h && shard_hlo_validate(&cx, h, shape, rank, 0) && text_out) {
      int64_t devices = shard_hlo_num_devices(h);
      printf("%.*s: %lld device%s", (int)(close - open), text + open, (long long)devices, devices == 1 ? "" : "s");
      if (rank >= 0 && h->kind == SHARD_HLO_TILED) {
        printf(", local shape [");
        for (int32_t i = 0; i < rank; i++)
          printf("%s%lld", i ? "," : "", (long long)((shape[i] + h->dims[i] - 1) / h->dims[i]));
        printf("]");
      }
      printf("\n");
    }
  }
  free(shape);
  shard_arena_free(arena);
  return true;
}
