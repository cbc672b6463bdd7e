/* IR construction and mutation: attribute lists kept sorted, use lists kept
 * in sync with operands, op lists doubly linked. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

#include "ir/opdef.h"
#include "support/ptrmap.h"
#include "support/strmap.h"

/* The symbol index (see "symbols" below). */
struct shard_symbol_index {
  shard_strmap ops;
};

void shard_module_release_index(shard_module *m) {
  if (m && m->symbols) shard_strmap_release(&m->symbols->ops);
  if (m) m->symbols = NULL;
}

void shard_module_free(shard_module *m) {
  if (!m) return;
  shard_module_release_index(m);
  shard_arena_free(m->arena);
  free(m);
}

/* ---- attributes ----------------------------------------------------- */

static void S_set(shard_arena *a, shard_named_attr **list, uint32_t *n, const char *name, shard_attr *value,
                  bool inherent) {
  bool found;
  uint32_t i = shard_named_attr_find(*list, *n, name, &found);
  if (found) {
    (*list)[i].value = value;
    (*list)[i].inherent = inherent;
    return;
  }
  shard_named_attr *nl = SHARD_NEW_ARRAY(a, shard_named_attr, *n + 1);
  if (i) memcpy(nl, *list, sizeof(*nl) * (size_t)i);
  /* a name shard looks up is kept as its literal (attr.c), the pointer
   * lookups pass; any other is copied */
  const char *known = shard_attr_known_name(name);
  nl[i].name = known ? known : shard_arena_strdup(a, name);
  nl[i].value = value;
  nl[i].inherent = inherent;
  if (*n > i) memcpy(nl + i + 1, *list + i, sizeof(*nl) * (*n - i));
  *list = nl;
  (*n)++;
}

static bool S_remove(shard_named_attr *list, uint32_t *n, const char *name) {
  bool found;
  uint32_t i = shard_named_attr_find(list, *n, name, &found);
  if (!found) return false;
  memmove(list + i, list + i + 1, sizeof(*list) * (*n - i - 1));
  (*n)--;
  return true;
}

shard_attr *shard_op_attr(const shard_op *op, const char *name) {
  return shard_named_attr_get(op->attrs, op->num_attrs, name);
}

const shard_dot_dims *shard_op_dot_dims(const shard_op *op) {
  return shard_attr_dot_dims(shard_op_attr(op, "dot_dimension_numbers"));
}
const shard_conv_dims *shard_op_conv_dims(const shard_op *op) {
  return shard_attr_conv_dims(shard_op_attr(op, "dimension_numbers"));
}
const shard_gather_dims *shard_op_gather_dims(const shard_op *op) {
  return shard_attr_gather_dims(shard_op_attr(op, "dimension_numbers"));
}
const shard_gather_dims *shard_op_scatter_dims(const shard_op *op) {
  return shard_attr_scatter_dims(shard_op_attr(op, "scatter_dimension_numbers"));
}
bool shard_op_i64_list(const shard_op *op, const char *name, shard_i64s *out) {
  return shard_attr_i64_list(shard_op_attr(op, name), out);
}
uint32_t shard_op_i64_list_copy(const shard_op *op, const char *name, int64_t *out, uint32_t max) {
  shard_i64s l;
  if (!shard_op_i64_list(op, name, &l) || l.n > max) return 0;
  if (l.n) memcpy(out, l.v, sizeof(int64_t) * l.n);
  return l.n;
}
int shard_op_enum(const shard_op *op, const char *name, shard_shlo_enum_kind kind) {
  return shard_attr_enum(shard_op_attr(op, name), kind);
}

void shard_op_set_attr(shard_arena *a, shard_op *op, const char *name, shard_attr *value, bool inherent) {
  S_set(a, &op->attrs, &op->num_attrs, name, value, inherent);
}

bool shard_op_remove_attr(shard_op *op, const char *name) { return S_remove(op->attrs, &op->num_attrs, name); }

shard_attr *shard_value_attr(const shard_value *v, const char *name) {
  const shard_block_arg_info *info = shard_value_arg_info(v);
  return info ? shard_named_attr_get(info->attrs, info->num_attrs, name) : NULL;
}

void shard_value_set_attr(shard_arena *a, shard_value *v, const char *name, shard_attr *value) {
  shard_block_arg_info *info = shard_value_arg_info(v);
  if (info) S_set(a, &info->attrs, &info->num_attrs, name, value, false);
}

bool shard_value_remove_attr(shard_value *v, const char *name) {
  shard_block_arg_info *info = shard_value_arg_info(v);
  return info && S_remove(info->attrs, &info->num_attrs, name);
}

shard_span shard_value_span(const shard_value *v) {
  if (!v->def) return v->block->arg_info[v->index].span;
  return v->def->flags & SHARD_OP_RESULT_SPANS ? v->def->span : shard_no_span;
}

/* ---- use lists -------------------------------------------------------- */

static void S_unlink_use(shard_operand *use) {
  if (!use->prev_use_link) return;
  *use->prev_use_link = use->next_use;
  if (use->next_use) use->next_use->prev_use_link = use->prev_use_link;
  use->next_use = NULL;
  use->prev_use_link = NULL;
}

void shard_operand_set(shard_operand *use, shard_value *v) {
  S_unlink_use(use);
  use->value = v;
  if (!v) return;
  use->next_use = v->first_use;
  if (v->first_use) v->first_use->prev_use_link = &use->next_use;
  v->first_use = use;
  use->prev_use_link = &v->first_use;
}

void shard_value_replace_all_uses(shard_value *from, shard_value *to) {
  while (from->first_use) shard_operand_set(from->first_use, to);
}

uint32_t shard_value_num_uses(const shard_value *v) {
  uint32_t n = 0;
  for (const shard_operand *u = v->first_use; u; u = u->next_use) n++;
  return n;
}

/* ---- structure -------------------------------------------------------- */

/* The arena lanes of the IR's structure (arena.h): ops side by side, their
 * operands and results side by side. */
enum { S_LANE_OPS, S_LANE_USES };

shard_op *shard_op_create(shard_arena *a, const char *name, uint32_t num_operands, shard_value *const *operands,
                          uint32_t num_results, shard_type *const *result_types, uint32_t num_regions) {
  shard_op *op = SHARD_NEW(shard_arena_lane(a, S_LANE_OPS), shard_op);
  op->name = name;
  op->num_operands = num_operands;
  op->operands = num_operands ? SHARD_NEW_ARRAY(shard_arena_lane(a, S_LANE_USES), shard_operand, num_operands) : NULL;
  for (uint32_t i = 0; i < num_operands; i++) {
    op->operands[i].owner = op;
    if (operands) shard_operand_set(&op->operands[i], operands[i]);
  }
  op->num_results = num_results;
  op->results = num_results ? SHARD_NEW_ARRAY(shard_arena_lane(a, S_LANE_USES), shard_value, num_results) : NULL;
  for (uint32_t i = 0; i < num_results; i++) {
    op->results[i].def = op;
    op->results[i].index = i;
    op->results[i].type = result_types ? result_types[i] : NULL;
  }
  op->num_regions = num_regions;
  op->regions = num_regions ? SHARD_NEW_ARRAY(a, shard_region, num_regions) : NULL;
  for (uint32_t i = 0; i < num_regions; i++) op->regions[i].parent = op;
  return op;
}

/* Links op into block b between prev and next (either NULL at an end). */
static void S_link(shard_block *b, shard_op *op, shard_op *prev, shard_op *next) {
  op->parent = b;
  op->prev = prev;
  op->next = next;
  if (prev) prev->next = op;
  else b->first = op;
  if (next) next->prev = op;
  else b->last = op;
}

void shard_block_append(shard_block *b, shard_op *op) { S_link(b, op, b->last, NULL); }

void shard_op_insert_before(shard_op *pos, shard_op *op) { S_link(pos->parent, op, pos->prev, pos); }

void shard_op_insert_after(shard_op *pos, shard_op *op) { S_link(pos->parent, op, pos, pos->next); }

void shard_op_insert_after_value(shard_value *v, shard_op *op) {
  if (v->def) shard_op_insert_after(v->def, op);
  else if (v->block->first) shard_op_insert_before(v->block->first, op);
  else shard_block_append(v->block, op);
}

static bool S_drop_uses(shard_op *op, void *ctx) {
  (void)ctx;
  for (uint32_t i = 0; i < op->num_operands; i++) shard_operand_set(&op->operands[i], NULL);
  return true;
}

void shard_op_unlink(shard_op *op) {
  shard_block *b = op->parent;
  if (!b) return;
  if (op->prev) op->prev->next = op->next;
  else b->first = op->next;
  if (op->next) op->next->prev = op->prev;
  else b->last = op->prev;
  op->parent = NULL;
  op->prev = op->next = NULL;
}

void shard_op_erase(shard_op *op) {
  shard_walk(op, S_drop_uses, NULL);
  shard_op_unlink(op);
}

shard_block *shard_region_add_block(shard_arena *a, shard_region *r) {
  shard_block *b = SHARD_NEW(a, shard_block);
  b->parent = r;
  b->prev = r->last;
  if (r->last) r->last->next = b;
  else r->first = b;
  r->last = b;
  return b;
}

shard_value *shard_block_add_args(shard_arena *a, shard_block *b, uint32_t n, shard_type *const *types) {
  uint32_t old = b->num_args;
  shard_value *args = SHARD_NEW_ARRAY(a, shard_value, old + n);
  shard_block_arg_info *info = SHARD_NEW_ARRAY(a, shard_block_arg_info, old + n);
  if (old) memcpy(args, b->args, sizeof(*args) * old);
  if (old) memcpy(info, b->arg_info, sizeof(*info) * old);
  /* Values moved: re-point their uses' back links. */
  for (uint32_t i = 0; i < old; i++) {
    if (args[i].first_use) args[i].first_use->prev_use_link = &args[i].first_use;
  }
  for (uint32_t i = old; i < old + n; i++) {
    args[i].type = types[i - old];
    args[i].block = b;
    args[i].index = i;
  }
  b->args = args;
  b->arg_info = info;
  b->num_args = old + n;
  return &args[old];
}

shard_value *shard_block_add_arg(shard_arena *a, shard_block *b, shard_type *type) {
  return shard_block_add_args(a, b, 1, &type);
}

shard_op *shard_block_terminator(const shard_block *b) { return b ? b->last : NULL; }

shard_op *shard_op_parent_op(const shard_op *op) {
  if (!op->parent || !op->parent->parent) return NULL;
  return op->parent->parent->parent;
}

shard_op *shard_op_ancestor(const shard_op *op, const char *name) {
  for (shard_op *p = shard_op_parent_op(op); p; p = shard_op_parent_op(p))
    if (strcmp(p->name, name) == 0) return p;
  return NULL;
}

/* The first op of op's regions (in region and block order), NULL when all
 * are empty. */
static shard_op *S_first_child(const shard_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (shard_block *b = op->regions[r].first; b; b = b->next)
      if (b->first) return b->first;
  return NULL;
}

/* The op after op within its parent op: its sibling, else the first op of a
 * following non-empty block of the same region, then of a following region.
 * NULL when op is the last op of its parent. */
static shard_op *S_next_in_parent(const shard_op *op) {
  if (op->next) return op->next;
  shard_block *b = op->parent;
  shard_op *next = NULL;
  for (shard_block *nb = b ? b->next : NULL; nb && !next; nb = nb->next) next = nb->first;
  if (!next && b && b->parent) {
    shard_op *owner = b->parent->parent;
    uint32_t ri = (uint32_t)(b->parent - owner->regions);
    for (uint32_t r = ri + 1; r < owner->num_regions && !next; r++)
      for (shard_block *nb = owner->regions[r].first; nb && !next; nb = nb->next) next = nb->first;
  }
  return next;
}

bool shard_walk(shard_op *root, shard_walk_fn fn, void *ctx) {
  /* Iterative pre-order walk: deep nesting must not overflow the C stack. */
  shard_op *op = root;
  while (op) {
    if (!fn(op, ctx)) return false;
    /* descend into the first non-empty region */
    shard_op *child = S_first_child(op);
    if (child) {
      op = child;
      continue;
    }
    /* otherwise the next op: sibling, or the next in an enclosing op */
    for (;;) {
      if (op == root) return true;
      shard_op *next = S_next_in_parent(op);
      if (next) {
        op = next;
        break;
      }
      op = shard_op_parent_op(op);
      if (!op) return true;
    }
  }
  return true;
}

bool shard_walk_post(shard_op *root, shard_walk_fn fn, void *ctx) {
  /* Iterative too: down to the deepest first op, then each op after the ops
   * of its regions. */
  shard_op *op = root, *child;
  while ((child = S_first_child(op))) op = child;
  for (;;) {
    if (!fn(op, ctx)) return false;
    if (op == root) return true;
    shard_op *next = S_next_in_parent(op);
    if (next) {
      op = next;
      while ((child = S_first_child(op))) op = child;
    } else {
      op = shard_op_parent_op(op);
      if (!op) return true;
    }
  }
}

/* Stands for "no op has this name's definition" once a name is resolved:
 * no op's def points at it. */
static const shard_op_def S_no_def;

bool shard_op_is_slow(const shard_op *op, shard_op_name *k) {
  const shard_op_def *d = atomic_load_explicit(&k->def, memory_order_relaxed);
  if (!d) {
    d = shard_op_def_lookup(k->name, strlen(k->name));
    if (!d) d = &S_no_def;
    atomic_store_explicit(&k->def, d, memory_order_relaxed);
  }
  if (op->def) return op->def == d;
  return strcmp(op->name, k->name) == 0;
}

/* ---- symbols ---------------------------------------------------------- */

/* Symbol name -> op. Passes add, erase and rename top-level ops directly,
 * so the index cannot be kept exact: an entry is a hint, used only after
 * checking that its op is still a top-level op of that name; anything else
 * falls back to the scan, whose answer then updates the entry. Names are
 * unique in a valid module, so the hint and the scan agree. Keys are the
 * ops' sym_name strings, which live in the module arena. */
/* The op's sym_name. The scan below runs this on every top-level op for a
 * name the index does not have, so the few attribute names are scanned in
 * place (first byte, then the rest) rather than binary searched with strcmp;
 * names are unique, so both find the same attribute. */
static const char *S_symbol_name(const shard_op *op) {
  for (uint32_t i = 0; i < op->num_attrs; i++) {
    const char *n = op->attrs[i].name;
    if (n[0] != 's' || strcmp(n, "sym_name") != 0) continue;
    shard_attr *sym = op->attrs[i].value;
    return sym && sym->kind == SHARD_ATTR_STRING ? sym->u.str.data : NULL;
  }
  return NULL;
}

static bool S_is_top_level(const shard_module *m, const shard_op *op) {
  return op->parent && op->parent->parent == &m->top->regions[0];
}

/* A fresh index holding the first op of each name. */
static void S_index_build(shard_module *m) {
  struct shard_symbol_index *ix = SHARD_NEW(m->arena, struct shard_symbol_index);
  for (shard_block *b = m->top->regions[0].first; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next) {
      const char *name = S_symbol_name(op);
      if (!name) continue;
      void **slot = shard_strmap_slot(&ix->ops, name, strlen(name));
      if (!*slot) *slot = op;
    }
  m->symbols = ix;
}

static shard_op *S_scan_symbol(const shard_module *m, const char *name) {
  for (shard_block *b = m->top->regions[0].first; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next) {
      const char *sym = S_symbol_name(op);
      if (sym && sym[0] == name[0] && strcmp(sym, name) == 0) return op;
    }
  return NULL;
}

shard_op *shard_module_lookup_symbol(const shard_module *cm, const char *name) {
  if (!cm || !cm->top || !cm->top->num_regions) return NULL;
  if (!cm->arena) return S_scan_symbol(cm, name);
  /* The index is a cache: building or updating it changes no answer. */
  shard_module *m = (shard_module *)cm;
  if (!m->symbols) S_index_build(m);
  shard_op *hint = shard_strmap_get_cstr(&m->symbols->ops, name);
  if (hint && S_is_top_level(m, hint)) {
    const char *sym = S_symbol_name(hint);
    if (sym && strcmp(sym, name) == 0) return hint;
  }
  shard_op *op = S_scan_symbol(m, name);
  if (op) shard_strmap_put_cstr(&m->symbols->ops, S_symbol_name(op), op);
  return op;
}

void shard_module_note_symbol(shard_module *m, shard_op *op) {
  const char *name = S_symbol_name(op);
  if (m && m->symbols && name && S_is_top_level(m, op)) shard_strmap_put_cstr(&m->symbols->ops, name, op);
}

const shard_mesh *shard_module_sharding_mesh(const shard_module *m, const shard_tensor_sharding *s) {
  if (s->inline_mesh) return s->inline_mesh;
  if (!s->mesh_name) return NULL;
  shard_op *op = shard_module_lookup_symbol(m, s->mesh_name);
  if (!op || strcmp(op->name, "sdy.mesh") != 0) return NULL;
  shard_attr *mesh = shard_op_attr(op, "mesh");
  return mesh && mesh->kind == SHARD_ATTR_SDY_MESH ? mesh->u.mesh : NULL;
}

const shard_mesh *shard_mesh_memo_get(shard_mesh_memo *memo, const shard_module *m, const shard_tensor_sharding *s) {
  if (s->inline_mesh || !s->mesh_name) return shard_module_sharding_mesh(m, s);
  /* Names are interned: another pointer with the same text only costs a
   * lookup. A full list that never replaced an entry looked up nearly every
   * mesh of a module with many (and compared its text with each entry). */
  uint32_t slot = shard_ptrmap_hash(s->mesh_name) & (SHARD_MESH_MEMO_SLOTS - 1);
  if (memo->names[slot] == s->mesh_name) return memo->meshes[slot];
  const shard_mesh *mesh = shard_module_sharding_mesh(m, s);
  memo->names[slot] = s->mesh_name;
  memo->meshes[slot] = mesh;
  return mesh;
}
