/* Topologies named on the command line (--topology): a built-in model
 * (topology.h) or a JSON file describing any other machine. The JSON reader
 * lives in the CLI so that the core library needs no JSON library. */
#ifndef SHARD_CLI_TOPOLOGY_FILE_H
#define SHARD_CLI_TOPOLOGY_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "support/buf.h"
#include "cost/topology.h"

/* `spec` is a built-in spec (tpu-v5e:8x4,nowrap, h100:16, ...) or the path
 * of a JSON file (anything containing '/' or ending in .json). NULL means
 * the default, tpu-v5p sized for the mesh. `num_devices` is the mesh's
 * device count. False with a message in err. */
bool cli_topology_resolve(const char *spec, int64_t num_devices, shard_topology *out, shard_buf *err);

/* The JSON format, for --help texts. */
extern const char cli_topology_json_help[];

#endif
