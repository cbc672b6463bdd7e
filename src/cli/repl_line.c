/* Line input for `shard repl`: libedit on a terminal (editing, history
 * kept in a file, tab completion; libedit is a build dependency), plain
 * getline otherwise, so the REPL
 * can be scripted through a pipe with no prompts or escape codes in its
 * output. Following Lua's lua.c, the rest of the REPL sees only
 * repl_line_read / repl_line_remember / repl_line_close. */
#include <setjmp.h>
#include <signal.h>
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

/* Ctrl-C at the prompt cancels the line being typed, as in a shell. libedit
 * goes on reading after an interrupted read, so the handler jumps out of
 * readline (armed only while it runs) and repl_line_read prompts again;
 * the next readline starts from an empty line. Elsewhere (a long :propagate)
 * Ctrl-C ends the program as usual. */
static sigjmp_buf S_prompt_again;
static volatile sig_atomic_t S_in_readline;

static void on_interrupt(int sig) {
  if (S_in_readline) {
    S_in_readline = 0;
    siglongjmp(S_prompt_again, 1);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void free_cands(void) {
  for (uint32_t i = 0; i < S_line.num_cands; i++) free(S_line.cands[i]);
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
    if (strncmp(c, text, strlen(text)) == 0) return strdup(c);
  }
  return NULL;
}

/* Is the word being completed the FILE of ':load FILE'? */
static bool completing_load_file(int start) {
  const char *line = rl_line_buffer;
  while (*line == ' ' || *line == '\t') line++;
  if (strncmp(line, ":load", 5) != 0 || (line[5] != ' ' && line[5] != '\t')) return false;
  return start >= (int)(line + 6 - rl_line_buffer);
}

static char **attempt(const char *text, int start, int end) {
  (void)end;
  /* No fallback to file names: every word has a known meaning — and the
   * word after ':load' is one, a file name. */
  rl_attempted_completion_over = 1;
  if (completing_load_file(start)) return rl_completion_matches(text, rl_filename_completion_function);
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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: the read must return */
    rl_attempted_completion_function = attempt;
    using_history();
    stifle_history(1000);
    if (history) read_history(history);
  }
}

bool repl_line_interactive(void) { return S_line.interactive; }

char *repl_line_read(const char *prompt) {
  if (S_line.interactive) {
    char *line;
    if (sigsetjmp(S_prompt_again, 1)) {
      /* Ctrl-C: drop the line, prompt again on a fresh line */
      fputs("^C\n", stdout);
      fflush(stdout);
    }
    S_in_readline = 1;
    line = readline(prompt);
    S_in_readline = 0;
    if (!line) {
      /* Ctrl-D: end on a fresh line, so the shell's prompt is not glued to ours */
      fputc('\n', stdout);
      fflush(stdout);
      return NULL;
    }
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
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
  return line;
}

void repl_line_remember(const char *line) {
  if (S_line.interactive && line[0]) {
    add_history(line);
    /* Written at once, so a crash or a killed terminal loses nothing. */
    if (S_line.history) write_history(S_line.history);
  }
}

void repl_line_close(void) {
  free_cands();
  if (S_line.interactive) clear_history();
}
