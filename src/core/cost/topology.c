/* Built-in hardware topologies and their constants.
 *
 * Every number below comes from jax-ml/scaling-book (tpus.md, its Feb-2025
 * ICI table; gpus.md) unless a comment says otherwise. Wraparound follows scaling-book tpus.md: training
 * chips (v*p) get wraparound links when the slice is made of full 4-chip
 * axes ("a 2x2x4 won't have any wraparounds"), inference chips (v5e, v6e)
 * only on a full 16-chip axis. */
#include "cost/topology.h"

#include <stdio.h>
#include <string.h>

typedef struct builtin_model {
  const char *name;
  const char *summary;
  shard_topology_kind kind;
  uint32_t num_dims; /* torus: 2 or 3 */
  bool training; /* torus: v*p wraparound rule */
  double bw; /* torus: bidirectional per link axis; switched: GPU egress */
  double node_bw; /* switched */
  double memory; /* HBM per device, bytes */
} builtin_model;

/* HBM per device. TPUs: Cloud TPU documentation (v4 32 GiB, v5p 95 GiB,
 * v5e 16 GiB, v6e 32 GiB per chip). GPUs: NVIDIA's data sheets (H100 SXM
 * 80 GB, H200 141 GB, B200 192 GB; GB as the vendor writes it, 1e9). */
#define GIB (1024.0 * 1024.0 * 1024.0)

static const builtin_model models[] = {
    {"tpu-v4p", "TPU v4p, 3D torus, 9e10 B/s bidirectional ICI per axis", SHARD_TOPO_TORUS, 3, true, 9.0e10, 0,
     32 * GIB},
    {"tpu-v5p", "TPU v5p, 3D torus, 1.8e11 B/s bidirectional ICI per axis", SHARD_TOPO_TORUS, 3, true, 1.8e11, 0,
     95 * GIB},
    {"tpu-v5e", "TPU v5e, 2D torus, 9e10 B/s bidirectional ICI per axis", SHARD_TOPO_TORUS, 2, false, 9.0e10, 0,
     16 * GIB},
    {"tpu-v6e", "TPU v6e, 2D torus, 1.8e11 B/s bidirectional ICI per axis", SHARD_TOPO_TORUS, 2, false, 1.8e11, 0,
     32 * GIB},
    {"h100", "8x H100 per node (NVLink 450e9 B/s per GPU), InfiniBand 400e9 B/s per node", SHARD_TOPO_SWITCHED, 0,
     false, 450e9, 400e9, 80e9},
    {"h200", "8x H200 per node (NVLink 450e9 B/s per GPU), InfiniBand 400e9 B/s per node", SHARD_TOPO_SWITCHED, 0,
     false, 450e9, 400e9, 141e9},
    {"b200", "8x B200 per node (NVLink 900e9 B/s per GPU), InfiniBand 400e9 B/s per node", SHARD_TOPO_SWITCHED, 0,
     false, 900e9, 400e9, 192e9},
};

const char *const shard_topology_builtin_names[] = {"tpu-v4p", "tpu-v5p", "tpu-v5e", "tpu-v6e",
                                                    "h100",    "h200",    "b200",    NULL};

/* T_min: "typically around 1us" (scaling-book sharding.md). */
#define TPU_HOP_LATENCY 1e-6
/* Per ring step: PyTorch DTensor's alpha-beta defaults (0.6 us inside a
 * host, 2.7 us across hosts). */
#define GPU_INTRA_LATENCY 0.6e-6
#define GPU_INTER_LATENCY 2.7e-6
#define GPUS_PER_NODE 8

static const builtin_model *find_model(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
    if (strlen(models[i].name) == len && memcmp(models[i].name, name, len) == 0) return &models[i];
  return NULL;
}

int64_t shard_topology_num_devices(const shard_topology *t) {
  if (t->kind == SHARD_TOPO_SWITCHED) return t->num_devices;
  int64_t n = 1;
  for (uint32_t i = 0; i < t->num_dims; i++) n *= t->dims[i];
  return n;
}

/* Splits n into `num_dims` factors, as even as powers of two allow, larger
 * ones major. Not a power of two: everything on the first dim. */
static void even_dims(int64_t n, uint32_t num_dims, int64_t *dims) {
  for (uint32_t i = 0; i < num_dims; i++) dims[i] = 1;
  if (n <= 0 || (n & (n - 1)) != 0) {
    dims[0] = n > 0 ? n : 1;
    return;
  }
  for (uint32_t i = 0; n > 1; i = (i + 1) % num_dims) {
    dims[i] *= 2;
    n /= 2;
  }
}

static void apply_wrap_rule(shard_topology *t, bool training) {
  bool all_full = true;
  for (uint32_t i = 0; i < t->num_dims; i++)
    if (t->dims[i] % 4 != 0) all_full = false;
  for (uint32_t i = 0; i < t->num_dims; i++) t->wrap[i] = training ? all_full : t->dims[i] == 16;
}

/* dims ::= int ('x' int)* */
static bool parse_dims(const char *s, size_t len, int64_t *dims, uint32_t *num, shard_buf *err) {
  *num = 0;
  size_t i = 0;
  while (i < len) {
    if (s[i] < '0' || s[i] > '9') goto bad;
    int64_t v = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
      if (v > (INT64_C(1) << 40)) goto bad;
      v = v * 10 + (s[i++] - '0');
    }
    if (v <= 0 || *num == SHARD_TOPO_MAX_DIMS) goto bad;
    dims[(*num)++] = v;
    if (i < len) {
      if (s[i] != 'x' || i + 1 == len) goto bad;
      i++;
    }
  }
  if (*num) return true;
bad:
  shard_buf_printf(err, "cannot read the topology dimensions '%.*s' (write them as 4x4x4)", (int)len, s);
  return false;
}

/* spec ::= name (':' dims)? (',' ('wrap' | 'nowrap'))? */
bool shard_topology_builtin(const char *spec, int64_t num_devices, shard_topology *out, shard_buf *err) {
  memset(out, 0, sizeof *out);
  const char *comma = strchr(spec, ',');
  const char *end = comma ? comma : spec + strlen(spec);
  const char *colon = memchr(spec, ':', (size_t)(end - spec));
  const char *name_end = colon ? colon : end;
  const builtin_model *m = find_model(spec, (size_t)(name_end - spec));
  if (!m) {
    shard_buf_printf(err, "unknown topology '%.*s' (built-in: ", (int)(name_end - spec), spec);
    for (size_t i = 0; shard_topology_builtin_names[i]; i++)
      shard_buf_printf(err, "%s%s", i ? ", " : "", shard_topology_builtin_names[i]);
    shard_buf_puts(err, "; or a JSON file)");
    return false;
  }
  snprintf(out->name, sizeof out->name, "%s", m->name);
  out->kind = m->kind;
  out->memory_bytes = m->memory;
  int64_t dims[SHARD_TOPO_MAX_DIMS];
  uint32_t num = 0;
  if (colon && !parse_dims(colon + 1, (size_t)(end - colon - 1), dims, &num, err)) return false;
  if (m->kind == SHARD_TOPO_TORUS) {
    if (num && num != m->num_dims) {
      shard_buf_printf(err, "%s is a %uD torus: give %u dimensions, not %u", m->name, m->num_dims, m->num_dims, num);
      return false;
    }
    out->num_dims = m->num_dims;
    if (num) memcpy(out->dims, dims, sizeof(int64_t) * num);
    else even_dims(num_devices, m->num_dims, out->dims);
    apply_wrap_rule(out, m->training);
    out->link_bw = m->bw;
    out->hop_latency = TPU_HOP_LATENCY;
  } else {
    if (num > 1) {
      shard_buf_printf(err, "%s takes a GPU count (h100:16), not dimensions", m->name);
      return false;
    }
    out->num_devices = num ? dims[0] : (num_devices > 0 ? num_devices : GPUS_PER_NODE);
    out->devices_per_node = GPUS_PER_NODE;
    out->gpu_bw = m->bw;
    out->node_bw = m->node_bw;
    out->intra_latency = GPU_INTRA_LATENCY;
    out->inter_latency = GPU_INTER_LATENCY;
  }
  if (comma) {
    bool wrap = strcmp(comma + 1, "wrap") == 0;
    if ((!wrap && strcmp(comma + 1, "nowrap") != 0) || m->kind != SHARD_TOPO_TORUS) {
      shard_buf_printf(err, "unknown topology option '%s' (a torus takes ,wrap or ,nowrap)", comma + 1);
      return false;
    }
    for (uint32_t i = 0; i < out->num_dims; i++) out->wrap[i] = wrap;
  }
  return true;
}

bool shard_topology_validate(const shard_topology *t, int64_t num_devices, shard_buf *err) {
  if (t->kind == SHARD_TOPO_TORUS) {
    if (t->num_dims == 0 || t->num_dims > SHARD_TOPO_MAX_DIMS) {
      shard_buf_printf(err, "topology %s: a torus needs 1 to %d dimensions", t->name, SHARD_TOPO_MAX_DIMS);
      return false;
    }
    for (uint32_t i = 0; i < t->num_dims; i++)
      if (t->dims[i] <= 0) {
        shard_buf_printf(err, "topology %s: dimension %u must be positive", t->name, i);
        return false;
      }
    if (!(t->link_bw > 0) || !(t->hop_latency >= 0)) {
      shard_buf_printf(err, "topology %s: link bandwidth must be positive and latency not negative", t->name);
      return false;
    }
  } else {
    if (t->num_devices <= 0 || t->devices_per_node <= 0) {
      shard_buf_printf(err, "topology %s: device and per-node counts must be positive", t->name);
      return false;
    }
    if (!(t->gpu_bw > 0) || !(t->node_bw > 0) || !(t->intra_latency >= 0) || !(t->inter_latency >= 0)) {
      shard_buf_printf(err, "topology %s: bandwidths must be positive and latencies not negative", t->name);
      return false;
    }
  }
  int64_t have = shard_topology_num_devices(t);
  if (num_devices > have) {
    shard_buf_printf(err, "the mesh has %lld devices but topology %s has only %lld", (long long)num_devices, t->name,
                     (long long)have);
    return false;
  }
  return true;
}

void shard_topology_describe(shard_buf *b, const shard_topology *t) {
  shard_buf_printf(b, "%s ", t->name);
  if (t->kind == SHARD_TOPO_TORUS) {
    bool any = false, all = true;
    for (uint32_t i = 0; i < t->num_dims; i++) {
      shard_buf_printf(b, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
      any |= t->wrap[i];
      all &= t->wrap[i];
    }
    shard_buf_printf(b, " %uD torus, %s, %g B/s per link axis, %g us/hop", t->num_dims,
                     all   ? "wraparound"
                     : any ? "partial wraparound"
                           : "no wraparound",
                     t->link_bw, t->hop_latency * 1e6);
  } else {
    shard_buf_printf(b,
                     "%lld devices, %lld per node, %g B/s per device in a node, %g B/s per node "
                     "across nodes",
                     (long long)t->num_devices, (long long)t->devices_per_node, t->gpu_bw, t->node_bw);
  }
}
