/* The `shard` executable: a git-style dispatcher over the command table.
 * Everything else lives in the library (src/core) and in one file per
 * subcommand, each parsing its own options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "support/arena.h"
#include "cmd_pictures.h"

/* shard convert (cmd_convert.c) */
int cmd_convert(int argc, char **argv);
void cmd_convert_usage(FILE *f);
/* shard propagate (cmd_propagate.c) */
int cmd_propagate(int argc, char **argv);
void cmd_propagate_usage(FILE *f);
/* shard plan (cmd_plan.c), shard lower (cmd_lower.c) */
int cmd_plan(int argc, char **argv);
void cmd_plan_usage(FILE *f);
int cmd_lower(int argc, char **argv);
void cmd_lower_usage(FILE *f);
/* shard interpret (cmd_interpret.c) */
int cmd_interpret(int argc, char **argv);
void cmd_interpret_usage(FILE *f);

const cli_command cli_commands[] = {
    {"check", cmd_check, "verify sharding invariants", cmd_check_usage},
    {"opt", cmd_opt, "parse, verify, transform and print MLIR (drop-in for sdy_opt)", cmd_opt_usage},
    {"viz", cmd_viz, "draw shardings: device placement of a tensor, device meshes", cmd_viz_usage},
    {"repl", cmd_repl, "interactive shell for meshes, shardings and their placement", cmd_repl_usage},
    {"propagate", cmd_propagate, "propagate shardings (Shardy's pipeline) and explain where each came from",
     cmd_propagate_usage},
    {"convert", cmd_convert, "convert a sharding between HloSharding, Shardy, PartitionSpec, DTensor and TF layouts",
     cmd_convert_usage},
    {"interpret", cmd_interpret, "run func.func @main with the reference interpreter (stablehlo-translate --interpret)",
     cmd_interpret_usage},
    {"plan", cmd_plan, "the collectives between two shardings of a tensor, with bytes and time", cmd_plan_usage},
    {"lower", cmd_lower, "propagate, insert reshards, lower them to collectives; print the communication plan",
     cmd_lower_usage},
    {"help", cmd_help, "show help for shard or one of its commands", cmd_help_usage},
    {"version", cmd_version, "print the version", cmd_version_usage},
};
const unsigned cli_num_commands = sizeof cli_commands / sizeof cli_commands[0];

const cli_command *cli_command_lookup(const char *name) {
  for (unsigned i = 0; i < cli_num_commands; i++)
    if (strcmp(cli_commands[i].name, name) == 0) return &cli_commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_main_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    cli_main_usage(stdout);
    return cli_finish_stdout("help", CLI_EXIT_OK);
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0)
    return cli_finish_stdout("version", cmd_version(1, argv + 1));
  const cli_command *cmd = cli_command_lookup(first);
  if (!cmd) {
    const char **names = shard_xcalloc(cli_num_commands + 1, sizeof *names);
    for (unsigned i = 0; i < cli_num_commands; i++) names[i] = cli_commands[i].name;
    const char *guess = cli_did_you_mean(first, strlen(first), names, cli_num_commands);
    if (guess)
      fprintf(stderr, "shard: '%s' is not a shard command; did you mean '%s'? See 'shard --help'.\n", first, guess);
    else fprintf(stderr, "shard: '%s' is not a shard command. See 'shard --help'.\n", first);
    free(names);
    return CLI_EXIT_USAGE;
  }
  /* Each command sees its own name as argv[0], like git's builtins. */
  return cli_finish_stdout(cmd->name, cmd->run(argc - 1, argv + 1));
}
