/* Deep IR cloning (clone.h).
 *
 * Cloning runs in two phases, as MLIR's Region::cloneInto does: first every
 * op, block and block argument of the subtree is created and its results and
 * arguments are recorded in the value map; only then are operands and
 * successors filled in. That way an operand may refer to a value defined
 * later in the subtree (a use in an earlier block of a CFG region, or a
 * graph region), and still finds its copy. */
#include "ir/clone.h"

#include <stdlib.h>
#include <string.h>

#include "support/ptrmap.h"

/* ---- value map ------------------------------------------------------- */

struct shard_value_map {
  shard_ptrmap values;
};

shard_value_map *shard_value_map_new(void) { return shard_xcalloc(1, sizeof(shard_value_map)); }

void shard_value_map_free(shard_value_map *map) {
  if (!map) return;
  shard_ptrmap_release(&map->values);
  free(map);
}

void shard_value_map_set(shard_value_map *map, const shard_value *from, shard_value *to) {
  shard_ptrmap_put_ptr(&map->values, from, to);
}

shard_value *shard_value_map_get(const shard_value_map *map, const shard_value *from) {
  return map ? shard_ptrmap_get_ptr(&map->values, from) : NULL;
}

shard_value *shard_value_map_lookup(const shard_value_map *map, shard_value *from) {
  shard_value *to = shard_value_map_get(map, from);
  return to ? to : from;
}

uint32_t shard_value_map_size(const shard_value_map *map) { return map ? map->values.len : 0; }

/* ---- cloning ----------------------------------------------------------- */

typedef struct op_pair {
  shard_op *copy;
  const shard_op *orig;
} op_pair;

typedef struct cloner {
  shard_arena *arena;
  shard_value_map *map;
  shard_ptrmap blocks; /* original block -> copy, for successors */
  SHARD_VEC(op_pair) pending; /* ops whose operands are still unset */
} cloner;

static void S_clone_region(cloner *c, const shard_region *from, shard_region *to);

/* Phase one for one op: structure, attributes, results, regions. */
static shard_op *S_clone_structure(cloner *c, const shard_op *op) {
  shard_type **types = op->num_results ? SHARD_NEW_ARRAY(c->arena, shard_type *, op->num_results) : NULL;
  for (uint32_t i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
  shard_op *copy = shard_op_create(c->arena, op->name, op->num_operands, NULL, op->num_results, types, op->num_regions);
  copy->def = op->def;
  /* The attribute list is copied so that setting an attribute on one op
   * never shows on the other; the attribute values themselves are shared,
   * as MLIR's uniqued attributes are. */
  if (op->num_attrs) copy->attrs = shard_arena_dup(c->arena, op->attrs, sizeof *op->attrs * op->num_attrs);
  copy->num_attrs = op->num_attrs;
  copy->loc = op->loc;
  copy->span = op->span;
  copy->flags = op->flags;
  for (uint32_t i = 0; i < op->num_results; i++) {
    copy->results[i].name = op->results[i].name;
    shard_value_map_set(c->map, &op->results[i], &copy->results[i]);
  }
  op_pair p = {copy, op};
  SHARD_VEC_PUSH(c->pending, p);
  for (uint32_t r = 0; r < op->num_regions; r++) S_clone_region(c, &op->regions[r], &copy->regions[r]);
  return copy;
}

static void S_clone_region(cloner *c, const shard_region *from, shard_region *to) {
  /* Blocks and their arguments first, so that ops can name any of them. */
  for (const shard_block *b = from->first; b; b = b->next) {
    shard_block *nb = shard_region_add_block(c->arena, to);
    nb->label = b->label;
    if (b->num_args) {
      nb->args = SHARD_NEW_ARRAY(c->arena, shard_value, b->num_args);
      /* loc, span and argument attributes (the lists shared) */
      nb->arg_info = shard_arena_dup(c->arena, b->arg_info, sizeof *b->arg_info * b->num_args);
      nb->num_args = b->num_args;
      for (uint32_t i = 0; i < b->num_args; i++) {
        nb->args[i].type = b->args[i].type;
        nb->args[i].block = nb;
        nb->args[i].index = i;
        nb->args[i].name = b->args[i].name;
        shard_value_map_set(c->map, &b->args[i], &nb->args[i]);
      }
    }
    shard_ptrmap_put_ptr(&c->blocks, b, nb);
  }
  for (const shard_block *b = from->first; b; b = b->next) {
    shard_block *nb = shard_ptrmap_get_ptr(&c->blocks, b);
    for (const shard_op *op = b->first; op; op = op->next) shard_block_append(nb, S_clone_structure(c, op));
  }
}

/* Phase two: operands and successors, now that every copy exists. */
static void S_wire(cloner *c) {
  for (uint32_t k = 0; k < c->pending.len; k++) {
    shard_op *copy = c->pending.items[k].copy;
    const shard_op *orig = c->pending.items[k].orig;
    for (uint32_t i = 0; i < orig->num_operands; i++)
      shard_operand_set(&copy->operands[i], shard_value_map_lookup(c->map, orig->operands[i].value));
    if (orig->num_successors) {
      copy->successors = SHARD_NEW_ARRAY(c->arena, shard_block *, orig->num_successors);
      copy->num_successors = orig->num_successors;
      for (uint32_t i = 0; i < orig->num_successors; i++) {
        shard_block *nb = shard_ptrmap_get_ptr(&c->blocks, orig->successors[i]);
        copy->successors[i] = nb ? nb : orig->successors[i];
      }
    }
  }
}

static void S_cloner_init(cloner *c, shard_arena *a, shard_value_map *map) {
  memset(c, 0, sizeof *c);
  c->arena = a;
  c->map = map ? map : shard_value_map_new();
}

static void S_cloner_finish(cloner *c, const shard_value_map *callers_map) {
  S_wire(c);
  SHARD_VEC_FREE(c->pending);
  shard_ptrmap_release(&c->blocks);
  if (c->map != callers_map) shard_value_map_free(c->map);
}

shard_op *shard_op_clone(shard_arena *a, const shard_op *op, shard_value_map *map) {
  cloner c;
  S_cloner_init(&c, a, map);
  shard_op *copy = S_clone_structure(&c, op);
  S_cloner_finish(&c, map);
  return copy;
}

void shard_region_clone_into(shard_arena *a, const shard_region *from, shard_region *to, shard_value_map *map) {
  cloner c;
  S_cloner_init(&c, a, map);
  S_clone_region(&c, from, to);
  S_cloner_finish(&c, map);
}
