/* `shard viz memory`: live bytes over program order for one function on
 * one class of devices (memory.h), the peak marked and labelled with its
 * op. Text: one line per program point with a bar; DOT: a bar chart of
 * pinned boxes (neato) that Graphviz renders to svg, png or pdf with
 * cairo; JSON: the points and the peak. */
#include <stdio.h>
#include <string.h>

#include "dot_internal.h"
#include "viz.h"

/* Bars in a DOT chart; longer programs are shown as the maximum over runs
 * of consecutive points. */
#define CHART_MAX_BARS 240
#define CHART_HEIGHT 3.0 /* inches */
#define CHART_BAR_WIDTH 0.1
#define TERM_BAR 40 /* characters for the largest value */

static void point_where(shard_buf *b, const shard_memory_function *f, uint32_t p) {
  shard_span sp = shard_memory_point_span(f, p);
  if (!sp.src) {
    shard_buf_puts(b, "-");
    return;
  }
  uint32_t line, col;
  shard_span_linecol(sp, &line, &col);
  shard_buf_printf(b, "%u:%u", line, col);
}

static void point_op(shard_buf *b, const shard_memory_function *f, uint32_t p) {
  if (p == 0) {
    shard_buf_printf(b, "(arguments of @%s)", f->name);
    return;
  }
  shard_buf_printf(b, "%s%s", f->points[p].end ? "end of " : "", f->points[p].op->name);
}

/* Where bars start: 0, or the least live bytes when everything stays above
 * half the peak (arguments dominate), so that the changes show. */
static int64_t baseline(const shard_memory_function *f, const shard_memory_class *c) {
  int64_t least = c->peak_bytes;
  for (uint32_t p = 0; p < f->num_points; p++)
    if (c->curve[p] < least) least = c->curve[p];
  return least > c->peak_bytes / 2 && least < c->peak_bytes ? least : 0;
}

static void devices_text(shard_buf *b, const shard_viz_memory *m) {
  const shard_memory_class *c = &m->function->classes[m->cls];
  if (c->num_devices == m->report->num_devices) {
    shard_buf_printf(b, "each of the %lld devices", (long long)c->num_devices);
    return;
  }
  shard_buf_puts(b, c->num_devices == 1 ? "device " : "devices ");
  shard_memory_print_devices(b, c->devices, c->num_devices);
}

void shard_viz_term_memory(shard_buf *out, const shard_viz_memory *m, const shard_viz_options *o) {
  const shard_memory_function *f = m->function;
  const shard_memory_class *c = &f->classes[m->cls];
  shard_buf_printf(out, "%s\n@%s on ", m->title, f->name);
  devices_text(out, m);
  shard_buf_puts(out, ": peak ");
  shard_memory_format_bytes(out, c->peak_bytes);
  int64_t base = baseline(f, c);
  if (base) shard_buf_printf(out, "; bars from %lld bytes", (long long)base);
  shard_buf_puts(out, "\n");
  size_t wwhere = 5, wop = 2, wbytes = 10;
  shard_buf cell;
  shard_buf_init(&cell);
  for (uint32_t p = 0; p < f->num_points; p++) {
    shard_buf_clear(&cell);
    point_where(&cell, f, p);
    if (cell.len > wwhere) wwhere = cell.len;
    shard_buf_clear(&cell);
    point_op(&cell, f, p);
    if (cell.len > wop) wop = cell.len;
    shard_buf_clear(&cell);
    shard_buf_printf(&cell, "%lld", (long long)c->curve[p]);
    if (cell.len > wbytes) wbytes = cell.len;
  }
  shard_buf_printf(out, "%-*s  %-*s  %*s\n", (int)wwhere, "where", (int)wop, "op", (int)wbytes, "live bytes");
  for (uint32_t p = 0; p < f->num_points; p++) {
    shard_buf_clear(&cell);
    point_where(&cell, f, p);
    shard_buf_printf(out, "%-*s  ", (int)wwhere, shard_buf_str(&cell));
    shard_buf_clear(&cell);
    point_op(&cell, f, p);
    shard_buf_printf(out, "%-*s  %*lld ", (int)wop, shard_buf_str(&cell), (int)wbytes, (long long)c->curve[p]);
    int n = c->peak_bytes > base ? (int)((double)(c->curve[p] - base) * TERM_BAR / (double)(c->peak_bytes - base) + 0.5)
                                 : 0;
    bool peak = p == c->peak_point;
    if (o->color && peak) shard_buf_puts(out, "\x1b[31m");
    for (int k = 0; k < n; k++) shard_buf_puts(out, "\xe2\x96\x88"); /* full block */
    if (o->color && peak) shard_buf_puts(out, "\x1b[0m");
    if (peak) shard_buf_puts(out, " <- peak");
    shard_buf_putc(out, '\n');
  }
  shard_buf_free(&cell);
}

static void set_num(void *obj, const char *name, double v) {
  char text[64];
  snprintf(text, sizeof text, "%.4f", v);
  shard_viz_dot_set(obj, name, text);
}

static Agnode_t *text_node(Agraph_t *g, const char *name, const char *label, double x, double y, const char *size) {
  Agnode_t *n = agnode(g, (char *)name, 1);
  shard_viz_dot_set(n, "shape", "plaintext");
  shard_viz_dot_set(n, "label", label);
  shard_viz_dot_set(n, "fontsize", size);
  char pos[80];
  snprintf(pos, sizeof pos, "%.4f,%.4f!", x, y);
  shard_viz_dot_set(n, "pos", pos);
  return n;
}

void shard_viz_dot_memory(shard_buf *out, const shard_viz_memory *m) {
  const shard_memory_function *f = m->function;
  const shard_memory_class *c = &f->classes[m->cls];
  uint32_t per = (f->num_points + CHART_MAX_BARS - 1) / CHART_MAX_BARS;
  if (per == 0) per = 1;
  uint32_t bars = (f->num_points + per - 1) / per;
  Agraph_t *g = shard_viz_dot_open("memory");
  shard_viz_dot_set(g, "layout", "neato");
  shard_viz_dot_set(g, "notranslate", "true");
  shard_viz_dot_set(g, "fontname", "Helvetica");
  int64_t base = baseline(f, c);
  double span = c->peak_bytes > base ? (double)(c->peak_bytes - base) : 1;
  double width = bars * CHART_BAR_WIDTH;
  shard_buf label, name;
  shard_buf_init(&label);
  shard_buf_init(&name);
  shard_buf_printf(&label, "%s\n@%s on ", m->title, f->name);
  devices_text(&label, m);
  text_node(g, "title", shard_buf_str(&label), width / 2, CHART_HEIGHT + 0.7, "12");
  shard_buf_clear(&label);
  shard_memory_format_bytes(&label, c->peak_bytes);
  text_node(g, "ymax", shard_buf_str(&label), -0.8, CHART_HEIGHT, "9");
  shard_buf_clear(&label);
  shard_memory_format_bytes(&label, base);
  text_node(g, "ymin", shard_buf_str(&label), -0.8, 0, "9");
  text_node(g, "xaxis", "program order (one bar per op)", width / 2, -0.35, "10");
  for (uint32_t i = 0; i < bars; i++) {
    uint32_t first = i * per, last = first + per < f->num_points ? first + per : f->num_points;
    int64_t v = 0;
    uint32_t at = first;
    bool has_peak = false;
    for (uint32_t p = first; p < last; p++) {
      if (c->curve[p] > v) {
        v = c->curve[p];
        at = p;
      }
      has_peak |= p == c->peak_point;
    }
    double h = (double)(v - base) / span * CHART_HEIGHT;
    if (h < 0.01) h = 0.01;
    shard_buf_clear(&name);
    shard_buf_printf(&name, "bar%u", i);
    Agnode_t *n = agnode(g, (char *)shard_buf_str(&name), 1);
    shard_viz_dot_set(n, "shape", "box");
    shard_viz_dot_set(n, "style", "filled");
    shard_viz_dot_set(n, "fixedsize", "true");
    shard_viz_dot_set(n, "label", " "); /* "" is the default: the name would show */
    shard_viz_dot_set(n, "penwidth", "0");
    shard_viz_dot_set(n, "fillcolor", has_peak ? "firebrick" : "steelblue");
    set_num(n, "width", CHART_BAR_WIDTH * 0.9);
    set_num(n, "height", h);
    char pos[80];
    snprintf(pos, sizeof pos, "%.4f,%.4f!", (i + 0.5) * CHART_BAR_WIDTH, h / 2);
    shard_viz_dot_set(n, "pos", pos);
    shard_buf_clear(&label);
    point_op(&label, f, at);
    shard_buf_puts(&label, " at ");
    point_where(&label, f, at);
    shard_buf_printf(&label, ": %lld bytes", (long long)v);
    shard_viz_dot_set(n, "tooltip", shard_buf_str(&label));
    if (has_peak) {
      shard_buf_clear(&label);
      shard_buf_puts(&label, "peak ");
      shard_memory_format_bytes(&label, c->peak_bytes);
      shard_buf_puts(&label, "\n");
      point_op(&label, f, c->peak_point);
      shard_buf_puts(&label, " at ");
      shard_span sp = shard_memory_point_span(f, c->peak_point);
      if (sp.src) {
        uint32_t line, col;
        shard_span_linecol(sp, &line, &col);
        shard_buf_printf(&label, "%s:%u:%u", sp.src->name, line, col);
      } else {
        shard_buf_puts(&label, "-");
      }
      Agnode_t *t = text_node(g, "peak", shard_buf_str(&label), (i + 0.5) * CHART_BAR_WIDTH, CHART_HEIGHT + 0.25, "10");
      shard_viz_dot_set(t, "fontcolor", "firebrick");
    }
  }
  shard_buf_free(&label);
  shard_buf_free(&name);
  shard_viz_dot_write(out, g);
}

void shard_viz_json_memory(shard_buf *out, const shard_viz_memory *m) {
  const shard_memory_function *f = m->function;
  const shard_memory_class *c = &f->classes[m->cls];
  shard_buf t;
  shard_buf_init(&t);
  shard_buf_puts(out, "{\"title\": ");
  shard_buf_put_json_string(out, m->title);
  shard_buf_puts(out, ", \"function\": ");
  shard_buf_put_json_string(out, f->name);
  shard_memory_print_devices(&t, c->devices, c->num_devices);
  shard_buf_puts(out, ", \"devices\": ");
  shard_buf_put_json_string(out, shard_buf_str(&t));
  shard_buf_printf(out, ", \"peak_bytes\": %lld, \"peak_point\": %u, \"points\": [", (long long)c->peak_bytes,
                   c->peak_point);
  for (uint32_t p = 0; p < f->num_points; p++) {
    shard_buf_clear(&t);
    point_op(&t, f, p);
    shard_buf_printf(out, "%s\n  {\"op\": ", p ? "," : "");
    shard_buf_put_json_string(out, shard_buf_str(&t));
    shard_buf_clear(&t);
    point_where(&t, f, p);
    shard_buf_puts(out, ", \"at\": ");
    shard_buf_put_json_string(out, shard_buf_str(&t));
    shard_buf_printf(out, ", \"live_bytes\": %lld}", (long long)c->curve[p]);
  }
  shard_buf_puts(out, "\n]}\n");
  shard_buf_free(&t);
}
