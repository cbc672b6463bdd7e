/* Line input for `shard repl`: libedit on a terminal (editing, history
 * kept in a file, tab completion; libedit is a build dependency), plain
 * getline otherwise, so the REPL
 * can be scripted through a pipe with no prompts or escape codes in its
 * output. Following Lua's lua.c, the rest of the REPL sees only
 * repl_line_read / repl_line_remember / repl_line_close. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "support/arena.h"
#include "repl.h"

static struct {
  bool interactive;
  const char *history; /* file, or NULL */
  repl_complete_fn complete;
  void *ctx;
  /* Candidates of the completion in progress. */
  char **cands;
  uint32_t num_cands, next;
} S_line;

static void free_cands(void) {
  for (uint32_t i = 0; i < S_line.num_cands; i++)
    free(S_line.cands[i]);
  free(S_line.cands);
  S_line.cands = NULL;
  S_line.num_cands = S_line.next = 0;
}

/* readline's generator protocol: state 0 starts a new completion; each call
 * returns the next match (malloc'ed, readline frees it) or NULL. */
static char *generate(const char *text, int state) {
  if (state == 0) {
    free_cands();
    S_line.num_cands = S_line.complete(S_line.ctx, text, &S_line.cands);
  }
  while (S_line.next < S_line.num_cands) {
    const char *c = S_line.cands[S_line.next++];
    if (strncmp(c, text, strlen(text)) == 0)
      return strdup(c);
  }
  return NULL;
}

static char **attempt(const char *text, int start, int end) {
  (void)start;
  (void)end;
  /* No fallback to file names: every word has a known meaning. */
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, generate);
}

void repl_line_open(const char *history, repl_complete_fn complete, void *ctx) {
  S_line.interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  S_line.history = history;
  S_line.complete = complete;
  S_line.ctx = ctx;
  if (S_line.interactive) {
    rl_readline_name = "shard";
    /* '@', '%' and ':' start words (mesh names, values, commands). */
    rl_basic_word_break_characters = " \t\n,;()[]{}<>=";
    rl_attempted_completion_function = attempt;
    using_history();
    stifle_history(1000);
    if (history)
      read_history(history);
  }
}

bool repl_line_interactive(void) { return S_line.interactive; }

char *repl_line_read(const char *prompt) {
  if (S_line.interactive) {
    char *line = readline(prompt);
    if (!line)
      return NULL;
    /* Hand out our own allocation: libedit's may use another allocator. */
    char *copy = shard_xstrdup(line);
    free(line);
    return copy;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  if (n < 0) {
    free(line);
    return NULL;
  }
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = '\0';
  return line;
}

void repl_line_remember(const char *line) {
  if (S_line.interactive && line[0]) {
    add_history(line);
    /* Written at once, so a crash or a killed terminal loses nothing. */
    if (S_line.history)
      write_history(S_line.history);
  }
}

void repl_line_close(void) {
  free_cands();
  if (S_line.interactive)
    clear_history();
}
