/* --topology: built-in names or JSON files.
 *
 * A JSON topology is one object:
 *   {"name": "pod", "kind": "torus", "dims": [8, 8], "wraparound": [true, false],
 *    "link_bandwidth": 9e10, "hop_latency": 1e-6}
 *   {"name": "cluster", "kind": "switched", "devices": 32, "devices_per_node": 8,
 *    "device_bandwidth": 4.5e11, "node_bandwidth": 4e11,
 *    "intra_node_latency": 6e-7, "inter_node_latency": 2.7e-6}
 * Bandwidths are bytes per second (link_bandwidth bidirectional per link
 * axis), latencies seconds. "wraparound" may be one boolean for every dim;
 * latencies default to the built-in models' values; "memory_bytes" (either
 * kind, optional) is one device's memory for `lower --memory`. Unknown keys are errors
 * so that a misspelt key is not silently ignored. */
#include "topology_file.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_topology_json_help[] =
    "  A JSON topology file holds one object, either\n"
    "    {\"name\": \"pod\", \"kind\": \"torus\", \"dims\": [8, 8], \"wraparound\": true,\n"
    "     \"link_bandwidth\": 9e10, \"hop_latency\": 1e-6}\n"
    "  or\n"
    "    {\"name\": \"cluster\", \"kind\": \"switched\", \"devices\": 32, \"devices_per_node\": 8,\n"
    "     \"device_bandwidth\": 4.5e11, \"node_bandwidth\": 4e11,\n"
    "     \"intra_node_latency\": 6e-7, \"inter_node_latency\": 2.7e-6}\n"
    "  (bytes per second, bidirectional per link axis for a torus; seconds), and\n"
    "  optionally \"memory_bytes\": the memory of one device (for --memory).\n";

static bool is_file_spec(const char *spec) {
  size_t n = strlen(spec);
  return strchr(spec, '/') || (n > 5 && strcmp(spec + n - 5, ".json") == 0);
}

static bool get_number(const cJSON *o, const char *key, bool required, double *out, const char *path, shard_buf *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) {
    if (required) shard_buf_printf(err, "%s: missing \"%s\"", path, key);
    return !required;
  }
  if (!cJSON_IsNumber(v)) {
    shard_buf_printf(err, "%s: \"%s\" must be a number", path, key);
    return false;
  }
  *out = v->valuedouble;
  return true;
}

static bool check_keys(const cJSON *o, const char *const *known, const char *path, shard_buf *err) {
  for (const cJSON *item = o->child; item; item = item->next) {
    bool ok = false;
    for (size_t i = 0; known[i]; i++)
      if (item->string && strcmp(item->string, known[i]) == 0) ok = true;
    if (!ok) {
      shard_buf_printf(err, "%s: unknown key \"%s\"", path, item->string ? item->string : "");
      return false;
    }
  }
  return true;
}

static bool read_torus(const cJSON *o, shard_topology *t, const char *path, shard_buf *err) {
  static const char *const known[] = {"name",           "kind",        "dims",         "wraparound",
                                      "link_bandwidth", "hop_latency", "memory_bytes", NULL};
  if (!check_keys(o, known, path, err)) return false;
  const cJSON *dims = cJSON_GetObjectItemCaseSensitive(o, "dims");
  int n = cJSON_IsArray(dims) ? cJSON_GetArraySize(dims) : 0;
  if (n < 1 || n > SHARD_TOPO_MAX_DIMS) {
    shard_buf_printf(err, "%s: \"dims\" must be an array of 1 to %d sizes", path, SHARD_TOPO_MAX_DIMS);
    return false;
  }
  t->num_dims = (uint32_t)n;
  for (int i = 0; i < n; i++) {
    const cJSON *d = cJSON_GetArrayItem(dims, i);
    if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > 1e9 ||
        d->valuedouble != (double)(int64_t)d->valuedouble) {
      shard_buf_printf(err, "%s: \"dims\"[%d] must be a positive integer", path, i);
      return false;
    }
    t->dims[i] = (int64_t)d->valuedouble;
  }
  const cJSON *wrap = cJSON_GetObjectItemCaseSensitive(o, "wraparound");
  for (int i = 0; i < n; i++) {
    const cJSON *w = cJSON_IsArray(wrap) ? cJSON_GetArrayItem(wrap, i) : wrap;
    if (wrap && !cJSON_IsBool(w)) {
      shard_buf_printf(err, "%s: \"wraparound\" must be a boolean or one boolean per dim", path);
      return false;
    }
    t->wrap[i] = w && cJSON_IsTrue(w);
  }
  if (cJSON_IsArray(wrap) && cJSON_GetArraySize(wrap) != n) {
    shard_buf_printf(err, "%s: \"wraparound\" has %d entries for %d dims", path, cJSON_GetArraySize(wrap), n);
    return false;
  }
  t->hop_latency = 1e-6;
  return get_number(o, "link_bandwidth", true, &t->link_bw, path, err) &&
         get_number(o, "hop_latency", false, &t->hop_latency, path, err);
}

static bool read_switched(const cJSON *o, shard_topology *t, const char *path, shard_buf *err) {
  static const char *const known[] = {"name",
                                      "kind",
                                      "devices",
                                      "devices_per_node",
                                      "device_bandwidth",
                                      "node_bandwidth",
                                      "intra_node_latency",
                                      "inter_node_latency",
                                      "memory_bytes",
                                      NULL};
  if (!check_keys(o, known, path, err)) return false;
  double devices = 0, per_node = 0;
  t->intra_latency = 0.6e-6;
  t->inter_latency = 2.7e-6;
  if (!get_number(o, "devices", true, &devices, path, err) ||
      !get_number(o, "devices_per_node", true, &per_node, path, err) ||
      !get_number(o, "device_bandwidth", true, &t->gpu_bw, path, err) ||
      !get_number(o, "node_bandwidth", true, &t->node_bw, path, err) ||
      !get_number(o, "intra_node_latency", false, &t->intra_latency, path, err) ||
      !get_number(o, "inter_node_latency", false, &t->inter_latency, path, err))
    return false;
  if (devices < 1 || devices > 1e9 || per_node < 1 || per_node > 1e9) {
    shard_buf_printf(err, "%s: \"devices\" and \"devices_per_node\" must be positive", path);
    return false;
  }
  t->num_devices = (int64_t)devices;
  t->devices_per_node = (int64_t)per_node;
  return true;
}

static bool load_file(const char *path, shard_topology *t, shard_buf *err) {
  char *text;
  size_t len;
  shard_buf rd;
  shard_buf_init(&rd);
  bool read = cli_read_input(path, &text, &len, &rd);
  if (!read) shard_buf_printf(err, "%s: %s", path, shard_buf_str(&rd));
  shard_buf_free(&rd);
  if (!read) return false;
  cJSON *root = cJSON_ParseWithLength(text, len);
  cli_input_free(text);
  bool ok = false;
  if (!root || !cJSON_IsObject(root)) {
    shard_buf_printf(err, "%s: not a JSON object", path);
    goto done;
  }
  memset(t, 0, sizeof *t);
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
  snprintf(t->name, sizeof t->name, "%s", cJSON_IsString(name) ? name->valuestring : path);
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
  if (cJSON_IsString(kind) && strcmp(kind->valuestring, "torus") == 0) {
    t->kind = SHARD_TOPO_TORUS;
    ok = read_torus(root, t, path, err);
  } else if (cJSON_IsString(kind) && strcmp(kind->valuestring, "switched") == 0) {
    t->kind = SHARD_TOPO_SWITCHED;
    ok = read_switched(root, t, path, err);
  } else {
    shard_buf_printf(err, "%s: \"kind\" must be \"torus\" or \"switched\"", path);
  }
  /* optional: memory of one device, bytes (shard lower --memory) */
  if (ok && !get_number(root, "memory_bytes", false, &t->memory_bytes, path, err)) ok = false;
  if (ok && (!(t->memory_bytes >= 0) || t->memory_bytes > 1e18)) {
    shard_buf_printf(err, "%s: \"memory_bytes\" must be a byte count from 0 to 1e18", path);
    ok = false;
  }
done:
  cJSON_Delete(root);
  return ok;
}

bool cli_topology_resolve(const char *spec, int64_t num_devices, shard_topology *out, shard_buf *err) {
  bool ok = spec && is_file_spec(spec) ? load_file(spec, out, err)
                                       : shard_topology_builtin(spec ? spec : "tpu-v5p", num_devices, out, err);
  return ok && shard_topology_validate(out, num_devices, err);
}
