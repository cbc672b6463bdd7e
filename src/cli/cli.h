/* What the subcommands of the `shard` executable share: exit codes, the
 * command table, reading inputs, atomic output, colour policy and the
 * diagnostic sinks (text, JSON, SARIF). Private to src/cli. */
#ifndef SHARD_CLI_H
#define SHARD_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ir/print.h"
#include "support/buf.h"
#include "support/diag.h"

/* Exit codes of every subcommand. */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_INVALID = 1, /* the input has errors (or expectations did not match) */
  CLI_EXIT_USAGE = 2, /* bad command line */
  CLI_EXIT_INTERNAL = 3 /* shard itself failed: a bug, or output could not be written */
};

/* ---- the command table (main.c) ---------------------------------------- */

typedef int (*cli_cmd_fn)(int argc, char **argv);

typedef struct cli_command {
  const char *name;
  cli_cmd_fn run;
  const char *summary;
  void (*usage)(FILE *f); /* full help text for `shard help NAME` and NAME --help */
} cli_command;

extern const cli_command cli_commands[];
extern const unsigned cli_num_commands;
const cli_command *cli_command_lookup(const char *name);

int cmd_check(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
void cmd_check_usage(FILE *f);
void cmd_opt_usage(FILE *f);
void cmd_help_usage(FILE *f);
void cmd_version_usage(FILE *f);
/* The top-level `shard --help` text. */
void cli_main_usage(FILE *f);

/* ---- command-line arguments (args.c) ------------------------------------ */

/* Matches argv[*i] against an option with a value, `NAME VALUE` or
 * `NAME=VALUE` (NAME with its dashes). On a match advances *i past a
 * separate value and sets *value, to NULL when the value is missing. */
bool cli_match_value(int argc, char **argv, int *i, const char *name, const char **value);

/* Prints "shard CMD: MESSAGE" and "See 'shard CMD --help'." to stderr and
 * returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The candidate a mistyped `word` (len bytes) most likely meant: within two
 * edits (one for words under four letters), the closest first; NULL when
 * none is that close. For "did you mean ...?" hints. */
const char *cli_did_you_mean(const char *word, size_t len, const char *const *cands, unsigned n);

/* ---- inputs and outputs (input.c, output.c) ----------------------------- */

/* Reads a whole file ("-" is stdin) into a NUL-terminated buffer (a large
 * regular file is mapped, not copied), released with cli_input_free. On
 * failure returns false and puts "cannot read: REASON" into err. */
bool cli_read_input(const char *path, char **text, size_t *len, shard_buf *err);
/* Releases a buffer of cli_read_input (NULL is fine). */
void cli_input_free(char *text);
/* The shard_parse_options.read_past of a module read by cli_read_input: the memory
 * of the text before p is given back when the input is mapped (its pages
 * are read back from the file if anything looks at them again). */
void cli_input_read_past(const char *p);
/* The text from p on is to be read again (parsed after a sniff, or a second
 * time): cli_input_read_past gives its pages back again as it is. */
void cli_input_reread(const char *p);

/* The one wording of a failed read, in every command: "FILE: error: cannot
 * read: REASON" on stderr (err as cli_read_input filled it). */
void cli_report_read_error(const char *path, shard_buf *err);

/* The input of a command that rewrites a module into -o OUTPUT (opt,
 * propagate, lower): reads it like cli_read_input, reporting a failure as
 * cli_report_read_error does, and refuses up front an OUTPUT that is the
 * input file itself (cli_write_output would refuse it at the end). Returns
 * -1 with *text set (the caller releases it with cli_input_free), or the
 * exit code to return (nothing to free). */
int cli_read_transform_input(const char *cmd, const char *input, const char *output, char **text, size_t *len);

/* Display name of an input: "<stdin>" for "-", the path otherwise. */
const char *cli_input_name(const char *path);

/* The one owner of output (output.c). Writes `data` to `path`: "-" or NULL
 * is standard output; /dev/stdout, /dev/fd/N and the like are written to
 * that descriptor; a regular file or a new path is replaced atomically (a
 * temporary file in the same directory, fsync'ed, renamed; an existing file
 * keeps its mode; on failure `path` is untouched); a symbolic link is
 * followed; a device, FIFO or socket is opened and written directly. On
 * failure err says why. */
bool cli_write_file(const char *path, const char *data, size_t len, shard_buf *err);

/* cli_write_file for a command's -o (or stdout when path is NULL or "-"):
 * refuses a path that is one of the files the command read (usage error,
 * exit 2) and reports a failure as "shard CMD: error: ..." (exit 3).
 * Returns CLI_EXIT_OK, CLI_EXIT_USAGE or CLI_EXIT_INTERNAL. */
int cli_write_output(const char *cmd, const char *path, const char *data, size_t len);

/* The same output written in pieces, for text too big to gather first (a
 * printed module: give its shard_buf the sink). Open refuses and reports
 * like cli_write_output (NULL, *code the exit code); close with keep=false
 * leaves a file destination as it was (what was written to a stream or
 * device stays written). Close reports a failure of any step and returns
 * CLI_EXIT_OK or CLI_EXIT_INTERNAL. */
typedef struct cli_output cli_output;
cli_output *cli_output_open(const char *cmd, const char *path, int *code);
const shard_buf_sink *cli_output_sink(cli_output *o);
void cli_output_write(cli_output *o, const char *data, size_t len);
int cli_output_close(cli_output *o, bool keep);

/* Prints module `m` to `path` as cli_write_output would write its text (and
 * `after`, when given, behind it), a window at a time: the module's text is
 * never all in memory. Returns what cli_write_output would. */
int cli_write_module(const char *cmd, const char *path, const shard_module *m, const shard_print_options *print,
                     const shard_buf *after);

/* Remembers the file open on `fd` as an input of this run (cli_read_input
 * calls it), so that no output replaces it. */
void cli_note_input(int fd);

/* Is `path` one of the inputs noted so far (the same file, through any
 * name or link)? */
bool cli_output_is_input(const char *path);

/* Flushes standard output when a command ends: if anything it printed
 * could not be written, says so ("shard CMD: error: cannot write to
 * standard output: ...", unless already reported) and returns
 * CLI_EXIT_INTERNAL; otherwise returns `code`. */
int cli_finish_stdout(const char *cmd, int code);

/* ---- colour ------------------------------------------------------------- */

typedef enum { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER } cli_color_mode;

/* Parses auto|always|never; false on anything else. */
bool cli_parse_color(const char *s, cli_color_mode *out);
/* always: yes; never: no; auto: only on a terminal and when NO_COLOR is unset or empty. */
bool cli_use_color(cli_color_mode mode, FILE *f);

/* ---- diagnostic sinks (diag_format.c) ----------------------------------- */

typedef enum { CLI_FORMAT_TEXT, CLI_FORMAT_JSON, CLI_FORMAT_SARIF } cli_format;

bool cli_parse_format(const char *s, cli_format *out);

typedef struct cli_collected cli_collected;

/* Receives diagnostics: text is printed at once (clang style, with source
 * line and caret); JSON and SARIF are collected and written by
 * cli_sink_finish as one document. */
typedef struct cli_sink {
  cli_format format;
  shard_diag_printer printer;
  cli_collected *items;
  unsigned num, cap;
  int last_primary; /* index of the diagnostic that following notes belong to, -1 if none */
  unsigned errors, warnings;
  /* -e results: one JSON object per snippet sharding (local shapes). */
  void *results; /* cJSON array, owned */
} cli_sink;

void cli_sink_init(cli_sink *s, cli_format format, FILE *err, bool color);
void cli_sink_free(cli_sink *s);
/* A shard_diag_fn (ctx: the sink). */
void cli_sink_diag(void *sink, const shard_diag *d);
/* A problem with a whole file (unreadable...), without a position. */
void cli_sink_file_error(cli_sink *s, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Records the local shape computed for one -e sharding. */
void cli_sink_local_shape(cli_sink *s, const char *sharding_text, const char *global_type, const char *local_type,
                          long long num_devices);
/* Writes the JSON or SARIF document to `out` (nothing for text). False when
 * writing failed. */
bool cli_sink_finish(cli_sink *s, FILE *out);

/* ---- `shard check -e` snippets (snippet.c) ------------------------------ */

/* A design-doc snippet turned into a module: mesh lines `@m = <["x"=2]>`
 * become sdy.mesh ops, each `sharding<...> : TYPE` line becomes an argument
 * of one function. Diagnostics on the generated text map back to the
 * snippet with cli_snippet_map. */
typedef struct cli_snippet_segment {
  uint32_t gen_off, snip_off, len;
  bool copied; /* text copied from the snippet (else generated around it) */
} cli_snippet_segment;

typedef struct cli_snippet_sharding {
  uint32_t off, len; /* `sharding<...>` (with any #sdy. prefix) in the snippet */
} cli_snippet_sharding;

typedef struct cli_snippet {
  shard_source snippet; /* as written, named "<snippet>" */
  shard_source module; /* generated text, same name */
  shard_buf gen;
  cli_snippet_segment *segs;
  uint32_t num_segs, cap_segs;
  cli_snippet_sharding *shardings;
  uint32_t num_shardings, cap_shardings;
} cli_snippet;

/* Builds the module text; reports malformed lines through de (positioned in
 * the snippet) and returns false then. Free with cli_snippet_free either way. */
bool cli_snippet_build(cli_snippet *s, const char *text, shard_diag_engine *de);
void cli_snippet_free(cli_snippet *s);
/* Maps a span of the generated module back into the snippet. */
shard_span cli_snippet_map(const cli_snippet *s, shard_span span);

#endif
