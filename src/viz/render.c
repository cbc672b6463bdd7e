/* Rendering DOT text to svg, png or pdf with libgvc.
 *
 * Graphviz reports problems by writing fragments of a message to stderr;
 * we collect them through agseterrf into one string so the CLI can show them
 * as its own error. Rendering goes to memory (gvRenderData): the CLI writes
 * the bytes atomically, and gvRenderFilename would report an unwritable
 * file only on stderr while returning success.
 *
 * libgvc keeps some allocations until exit (plugin configuration, fonts),
 * which is why leak checks exclude this file's callers (see scripts/lsan.supp). */
#include <graphviz/gvc.h>
#include <string.h>

#include "viz.h"

static shard_buf *gv_errors;

static int collect_error(char *msg) {
  if (gv_errors) shard_buf_puts(gv_errors, msg);
  return 0;
}

bool shard_viz_render(const char *dot_text, const char *format, char **data, size_t *len, shard_buf *err) {
  *data = NULL;
  *len = 0;
  if (strcmp(format, "svg") != 0 && strcmp(format, "png") != 0 && strcmp(format, "pdf") != 0) {
    shard_buf_printf(err, "cannot render format '%s' (svg, png or pdf)", format);
    return false;
  }
  shard_buf msgs;
  shard_buf_init(&msgs);
  gv_errors = &msgs;
  agseterrf(collect_error);
  bool ok = false;
  GVC_t *gvc = gvContext();
  Agraph_t *g = agmemread(dot_text);
  if (!g) {
    shard_buf_printf(err, "Graphviz could not read the generated DOT text");
  } else if (gvLayout(gvc, g, "dot") != 0) {
    shard_buf_printf(err, "Graphviz layout failed");
    agclose(g);
    g = NULL;
  } else {
    char *out = NULL;
    unsigned int n = 0;
    if (gvRenderData(gvc, g, format, &out, &n) != 0 || !out) {
      shard_buf_printf(err, "Graphviz could not render %s (is its plugin installed?)", format);
    } else {
      *data = shard_xmalloc(n ? n : 1);
      memcpy(*data, out, n);
      *len = n;
      ok = true;
    }
    if (out) gvFreeRenderData(out);
    gvFreeLayout(gvc, g);
    agclose(g);
  }
  gvFreeContext(gvc);
  agseterrf(NULL);
  gv_errors = NULL;
  if (!ok && msgs.len) {
    shard_buf_puts(err, ": ");
    /* Trim the trailing newline Graphviz ends its messages with. */
    while (msgs.len && msgs.data[msgs.len - 1] == '\n') msgs.data[--msgs.len] = '\0';
    shard_buf_puts(err, shard_buf_str(&msgs));
  }
  shard_buf_free(&msgs);
  return ok;
}
