/* StableHLO's mesh-axes replica groups, typed:
 *
 *   #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "x">,
 *       #stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>]>
 *   #stablehlo.mesh<axes=[<name = "x", size = 2>, ...], device_ids=dense<[1, 0]> : tensor<2xi64>>
 *
 * (the mesh of a replica group is a symbol or an inline #stablehlo.mesh; a
 * #stablehlo.mesh is also what a mesh symbol's `mesh` attribute may hold).
 * The parser decodes them once (shard_parse_shlo_mesh_attr, with MLIR's
 * messages at their positions for malformed text) and they print from the
 * structs as StableHLO's printer spells them: mesh axes stripped
 * (`<name = "x", size = 2>`, either spelling is read), `axes=` and
 * `device_ids=` without spaces, axis refs with their #stablehlo prefix.
 * Passes and the interpreter read them only through the accessors below. */
#ifndef SHARD_ATTR_STABLEHLO_MESH_H
#define SHARD_ATTR_STABLEHLO_MESH_H

#include "ir/attr.h"
#include "ir/parse.h"

/* #stablehlo.mesh<...> (SHARD_ATTR_SHLO_MESH). */
typedef struct shard_shlo_mesh {
  shard_mesh_axis *axes;
  uint32_t num_axes;
  shard_attr *device_ids; /* a dense<...> of integers as written, or NULL (iota) */
} shard_shlo_mesh;

/* #stablehlo.replica_group_mesh_axes<...> (SHARD_ATTR_SHLO_MESH_AXES). */
typedef struct shard_shlo_mesh_axes {
  shard_attr *mesh; /* SHARD_ATTR_SYMREF (@m) or SHARD_ATTR_SHLO_MESH */
  shard_axis_ref *axes;
  uint32_t num_axes;
} shard_shlo_mesh_axes;

/* The decoded attribute; NULL when `a` is not of that kind. */
const shard_shlo_mesh *shard_attr_shlo_mesh(const shard_attr *a);
const shard_shlo_mesh_axes *shard_attr_mesh_axes(const shard_attr *a);
/* The symbol a replica group's mesh names (`m` of @m), or NULL when inline. */
const char *shard_shlo_mesh_axes_symbol(const shard_shlo_mesh_axes *g);

/* Builders (arrays are copied; device_ids and mesh are shared). */
shard_attr *shard_attr_shlo_mesh_new(shard_arena *a, const shard_mesh_axis *axes, uint32_t n, shard_attr *device_ids);
shard_attr *shard_attr_mesh_axes_new(shard_arena *a, shard_attr *mesh, const shard_axis_ref *axes, uint32_t n);
/* A flat symbol reference @name. */
shard_attr *shard_attr_symbol_ref(shard_arena *a, const char *name);

/* Whether `name` (without '#', `len` bytes) is an attribute this file parses. */
bool shard_shlo_mesh_attr_name(const char *name, uint32_t len);
/* Parses the body of #`name`<...>: the parser is at the '<'. */
bool shard_parse_shlo_mesh_attr(shard_parser *p, const char *name, uint32_t len, shard_attr **out);
void shard_shlo_mesh_attr_print(shard_buf *b, const shard_attr *a);
bool shard_shlo_mesh_attr_equal(const shard_attr *a, const shard_attr *b);

#endif
