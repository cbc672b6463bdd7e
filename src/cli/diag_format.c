/* Diagnostic output formats for the CLI: text, JSON and SARIF 2.1.0.
 *
 * Text goes straight to the clang-style printer in core (diag.c). JSON and
 * SARIF need the whole run before they can be written, so the sink copies
 * each diagnostic (file, positions, message) while its source is still
 * alive, and cli_sink_finish serialises them with cJSON. A note belongs to
 * the error or warning just before it: JSON nests it under "notes", SARIF
 * makes it a relatedLocation of that result, the way code-review UIs expect.
 *
 * Positions are 1-based lines and byte columns; end positions point just past
 * the span (SARIF's convention for endColumn), and are omitted when a
 * diagnostic has a point location. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/arena.h"
#include "cli.h"

struct cli_collected {
  shard_severity severity;
  char *file; /* NULL: no file */
  uint32_t line, col; /* 0: no position */
  uint32_t end_line, end_col; /* 0: a point */
  char *message;
  int parent; /* for notes: index of the diagnostic they belong to, else -1 */
};

bool cli_parse_color(const char *s, cli_color_mode *out) {
  if (strcmp(s, "auto") == 0) *out = CLI_COLOR_AUTO;
  else if (strcmp(s, "always") == 0) *out = CLI_COLOR_ALWAYS;
  else if (strcmp(s, "never") == 0) *out = CLI_COLOR_NEVER;
  else return false;
  return true;
}

bool cli_use_color(cli_color_mode mode, FILE *f) {
  if (mode != CLI_COLOR_AUTO) return mode == CLI_COLOR_ALWAYS;
  /* https://no-color.org: present and not empty disables colour. */
  const char *no_color = getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char *term = getenv("TERM");
  if (term && strcmp(term, "dumb") == 0) return false;
  return isatty(fileno(f));
}

bool cli_parse_format(const char *s, cli_format *out) {
  if (strcmp(s, "text") == 0) *out = CLI_FORMAT_TEXT;
  else if (strcmp(s, "json") == 0) *out = CLI_FORMAT_JSON;
  else if (strcmp(s, "sarif") == 0) *out = CLI_FORMAT_SARIF;
  else return false;
  return true;
}

void cli_sink_init(cli_sink *s, cli_format format, FILE *err, bool color) {
  memset(s, 0, sizeof *s);
  s->format = format;
  s->printer.file = err;
  s->printer.color = color;
  s->printer.show_source = true;
  s->last_primary = -1;
  s->results = cJSON_CreateArray();
}

void cli_sink_free(cli_sink *s) {
  for (unsigned i = 0; i < s->num; i++) {
    free(s->items[i].file);
    free(s->items[i].message);
  }
  free(s->items);
  cJSON_Delete(s->results);
  s->items = NULL;
  s->num = s->cap = 0;
  s->results = NULL;
}

static void count(cli_sink *s, shard_severity sev) {
  if (sev == SHARD_ERROR) s->errors++;
  else if (sev == SHARD_WARNING) s->warnings++;
}

static cli_collected *push(cli_sink *s, shard_severity sev, const char *file, const char *message) {
  if (s->num == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->items = shard_xrealloc(s->items, sizeof *s->items * s->cap);
  }
  cli_collected *c = &s->items[s->num];
  memset(c, 0, sizeof *c);
  c->severity = sev;
  c->file = file ? shard_xstrdup(file) : NULL;
  c->message = shard_xstrdup(message);
  if (sev == SHARD_NOTE) {
    c->parent = s->last_primary;
  } else {
    c->parent = -1;
    s->last_primary = (int)s->num;
  }
  s->num++;
  return c;
}

void cli_sink_diag(void *sink, const shard_diag *d) {
  cli_sink *s = sink;
  count(s, d->severity);
  if (s->format == CLI_FORMAT_TEXT) {
    shard_diag_print_text(&s->printer, d);
    return;
  }
  cli_collected *c = push(s, d->severity, d->span.src ? d->span.src->name : NULL, d->message);
  if (d->span.src) {
    shard_span_linecol(d->span, &c->line, &c->col);
    if (d->span.len > 0) {
      shard_span end = {d->span.src, d->span.off + d->span.len, 0};
      shard_span_linecol(end, &c->end_line, &c->end_col);
    }
  }
}

void cli_sink_file_error(cli_sink *s, const char *file, const char *fmt, ...) {
  shard_buf msg;
  shard_buf_init(&msg);
  va_list ap;
  va_start(ap, fmt);
  shard_buf_vprintf(&msg, fmt, ap);
  va_end(ap);
  count(s, SHARD_ERROR);
  if (s->format == CLI_FORMAT_TEXT) {
    /* No position to show: "FILE: error: MSG", like compilers do for I/O. */
    FILE *f = s->printer.file ? (FILE *)s->printer.file : stderr;
    if (s->printer.color)
      fprintf(f, "\033[1m%s: \033[1;31merror: \033[0m\033[1m%s\033[0m\n", file, shard_buf_str(&msg));
    else fprintf(f, "%s: error: %s\n", file, shard_buf_str(&msg));
  } else {
    push(s, SHARD_ERROR, file, shard_buf_str(&msg));
  }
  shard_buf_free(&msg);
}

void cli_sink_local_shape(cli_sink *s, const char *sharding_text, const char *global_type, const char *local_type,
                          long long num_devices) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "sharding", sharding_text);
  cJSON_AddStringToObject(o, "global_type", global_type);
  cJSON_AddStringToObject(o, "local_type", local_type);
  if (num_devices >= 0) cJSON_AddNumberToObject(o, "num_devices", (double)num_devices);
  cJSON_AddItemToArray(s->results, o);
}

/* ---- JSON ---------------------------------------------------------------- */

static cJSON *json_diag(const cli_collected *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "severity", shard_severity_name(c->severity));
  cJSON_AddStringToObject(o, "message", c->message);
  if (c->file) cJSON_AddStringToObject(o, "file", c->file);
  if (c->line) {
    cJSON_AddNumberToObject(o, "line", c->line);
    cJSON_AddNumberToObject(o, "column", c->col);
  }
  if (c->end_line) {
    cJSON_AddNumberToObject(o, "end_line", c->end_line);
    cJSON_AddNumberToObject(o, "end_column", c->end_col);
  }
  return o;
}

static cJSON *build_json(cli_sink *s) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "tool", "shard");
  cJSON_AddStringToObject(root, "version", SHARD_VERSION);
  cJSON *diags = cJSON_AddArrayToObject(root, "diagnostics");
  cJSON **made = shard_xcalloc(s->num ? s->num : 1, sizeof *made);
  for (unsigned i = 0; i < s->num; i++) {
    const cli_collected *c = &s->items[i];
    made[i] = json_diag(c);
    if (c->parent >= 0) {
      cJSON *notes = cJSON_GetObjectItemCaseSensitive(made[c->parent], "notes");
      if (!notes) notes = cJSON_AddArrayToObject(made[c->parent], "notes");
      cJSON_AddItemToArray(notes, made[i]);
    } else {
      cJSON_AddItemToArray(diags, made[i]);
    }
  }
  free(made);
  if (cJSON_GetArraySize(s->results) > 0)
    cJSON_AddItemToObject(root, "local_shapes", cJSON_Duplicate(s->results, true));
  cJSON_AddNumberToObject(root, "errors", s->errors);
  cJSON_AddNumberToObject(root, "warnings", s->warnings);
  return root;
}

/* ---- SARIF 2.1.0 ------------------------------------------------------------ */

/* A relative URI reference for a path: unreserved characters and '/' stay,
 * everything else is percent-encoded (spaces, '#', '?', non-ASCII). */
static char *path_to_uri(const char *path) {
  shard_buf b;
  shard_buf_init(&b);
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
      shard_buf_putc(&b, (char)*p);
    else shard_buf_printf(&b, "%%%02X", *p);
  }
  return shard_buf_take(&b);
}

/* SARIF's levels are the severity names, but for remarks: SARIF has none,
 * they are notes there. */
static const char *sarif_level(shard_severity s) { return s == SHARD_REMARK ? "note" : shard_severity_name(s); }

static cJSON *sarif_location(const cli_collected *c) {
  cJSON *loc = cJSON_CreateObject();
  if (c->file) {
    cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
    cJSON *art = cJSON_AddObjectToObject(phys, "artifactLocation");
    char *uri = path_to_uri(c->file);
    cJSON_AddStringToObject(art, "uri", uri);
    free(uri);
    if (c->line) {
      cJSON *region = cJSON_AddObjectToObject(phys, "region");
      cJSON_AddNumberToObject(region, "startLine", c->line);
      cJSON_AddNumberToObject(region, "startColumn", c->col);
      if (c->end_line) {
        cJSON_AddNumberToObject(region, "endLine", c->end_line);
        cJSON_AddNumberToObject(region, "endColumn", c->end_col);
      }
    }
  }
  return loc;
}

static cJSON *sarif_message(const char *text) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "text", text);
  return m;
}

/* SARIF results want a ruleId; shard's diagnostics have no rule catalogue,
 * so the rule is the kind of finding. */
static const char *sarif_rule(shard_severity s) {
  switch (s) {
  case SHARD_ERROR: return "shard.error";
  case SHARD_WARNING: return "shard.warning";
  case SHARD_NOTE:
  case SHARD_REMARK: return "shard.note";
  }
  return "shard.error";
}

static cJSON *build_sarif(cli_sink *s) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  cJSON_AddStringToObject(root, "version", "2.1.0");
  cJSON *runs = cJSON_AddArrayToObject(root, "runs");
  cJSON *run = cJSON_CreateObject();
  cJSON_AddItemToArray(runs, run);
  cJSON *tool = cJSON_AddObjectToObject(run, "tool");
  cJSON *driver = cJSON_AddObjectToObject(tool, "driver");
  cJSON_AddStringToObject(driver, "name", "shard");
  cJSON_AddStringToObject(driver, "version", SHARD_VERSION);
  /* the project's own page when the build names one (SHARD_HOMEPAGE_URL);
   * never another project's */
  if (SHARD_HOMEPAGE_URL[0]) cJSON_AddStringToObject(driver, "informationUri", SHARD_HOMEPAGE_URL);
  cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
  static const struct {
    const char *id, *text;
    shard_severity sev;
  } rule_defs[] = {{"shard.error", "Invalid Shardy IR or sharding", SHARD_ERROR},
                   {"shard.warning", "Suspicious sharding", SHARD_WARNING},
                   {"shard.note", "Information", SHARD_NOTE}};
  for (size_t i = 0; i < sizeof rule_defs / sizeof rule_defs[0]; i++) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", rule_defs[i].id);
    cJSON_AddItemToObject(r, "shortDescription", sarif_message(rule_defs[i].text));
    cJSON *conf = cJSON_AddObjectToObject(r, "defaultConfiguration");
    cJSON_AddStringToObject(conf, "level", sarif_level(rule_defs[i].sev));
    cJSON_AddItemToArray(rules, r);
  }
  cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");

  cJSON *results = cJSON_AddArrayToObject(run, "results");
  cJSON **made = shard_xcalloc(s->num ? s->num : 1, sizeof *made);
  for (unsigned i = 0; i < s->num; i++) {
    const cli_collected *c = &s->items[i];
    if (c->parent >= 0 && made[c->parent]) {
      cJSON *related = cJSON_GetObjectItemCaseSensitive(made[c->parent], "relatedLocations");
      if (!related) related = cJSON_AddArrayToObject(made[c->parent], "relatedLocations");
      cJSON *loc = sarif_location(c);
      cJSON_AddNumberToObject(loc, "id", cJSON_GetArraySize(related));
      cJSON_AddItemToObject(loc, "message", sarif_message(c->message));
      cJSON_AddItemToArray(related, loc);
      continue;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "ruleId", sarif_rule(c->severity));
    cJSON_AddStringToObject(r, "level", sarif_level(c->severity));
    cJSON_AddItemToObject(r, "message", sarif_message(c->message));
    cJSON *locs = cJSON_AddArrayToObject(r, "locations");
    if (c->file) cJSON_AddItemToArray(locs, sarif_location(c));
    cJSON_AddItemToArray(results, r);
    made[i] = r;
  }
  free(made);
  return root;
}

bool cli_sink_finish(cli_sink *s, FILE *out) {
  if (s->format == CLI_FORMAT_TEXT) return true;
  cJSON *doc = s->format == CLI_FORMAT_JSON ? build_json(s) : build_sarif(s);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  bool ok = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF && fflush(out) == 0;
  cJSON_free(text);
  return ok;
}
