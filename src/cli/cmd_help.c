/* `shard help [COMMAND]`, `shard --help` and `shard version`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_main_usage(FILE *f) {
  fprintf(f, "usage: shard [--version] [--help] <command> [<args>]\n"
             "\n"
             "shard checks, transforms and explains Shardy (sdy dialect) sharding annotations.\n"
             "\n"
             "Commands:\n");
  for (unsigned i = 0; i < cli_num_commands; i++)
    fprintf(f, "   %-10s  %s\n", cli_commands[i].name, cli_commands[i].summary);
  fprintf(f, "\n"
             "See 'shard help <command>' or 'shard <command> --help' for a command's options.\n"
             "Exit status: 0 success, 1 invalid input, 2 usage error, 3 internal error.\n");
}

void cmd_help_usage(FILE *f) {
  fprintf(f, "usage: shard help [<command>]\n\nShows help for shard or for one command.\n");
}

void cmd_version_usage(FILE *f) {
  fprintf(f, "usage: shard version\n       shard --version\n\nPrints shard's version.\n");
}

int cmd_help(int argc, char **argv) {
  if (argc < 2) {
    cli_main_usage(stdout);
    return CLI_EXIT_OK;
  }
  if (argc > 2) {
    cmd_help_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
    cmd_help_usage(stdout);
    return CLI_EXIT_OK;
  }
  const cli_command *cmd = cli_command_lookup(name);
  if (!cmd) {
    fprintf(stderr, "shard help: no command named '%s'. See 'shard --help'.\n", name);
    return CLI_EXIT_USAGE;
  }
  cmd->usage(stdout);
  return CLI_EXIT_OK;
}

int cmd_version(int argc, char **argv) {
  if (argc > 1) {
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
      cmd_version_usage(stdout);
      return CLI_EXIT_OK;
    }
    cmd_version_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  printf("shard %s\n", SHARD_VERSION);
  return CLI_EXIT_OK;
}
