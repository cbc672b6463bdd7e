/* Call graph order, symbol uniquing and recursive func cloning (call_graph.h).
 *
 * The order reproduces what Shardy gets from MLIR's CallGraph: every func
 * with a body is a node hanging off the external caller node in module
 * order; a node's edges go to its callees in the order their first call
 * appears in the body. Shardy iterates the reverse post-order of a DFS from
 * the external node (pre-order) or its reverse (post-order: callees before
 * callers). Calls to unknown functions and to bodiless declarations lead to
 * no node. */
#include "ir/call_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/clone.h"
#include "support/ptrmap.h"

/* The op names this file tests, compared by definition (ir.h): asked of
 * every op of a function, which then reads no name. */
static shard_op_name K_func_call = {"func.call", NULL};
static shard_op_name K_func_func = {"func.func", NULL};

static bool S_has_body(const shard_op *func) { return func->num_regions && func->regions[0].first; }

const char *shard_symbol_name(const shard_op *op) {
  shard_attr *a = shard_op_attr(op, "sym_name");
  return a && a->kind == SHARD_ATTR_STRING ? a->u.str.data : NULL;
}

const char *shard_func_original_name(const shard_op *func) {
  shard_attr *a = shard_op_attr(func, "sdy.original_func_name");
  if (a && a->kind == SHARD_ATTR_STRING) return a->u.str.data;
  return shard_symbol_name(func);
}

const char *shard_call_callee(const shard_op *call) {
  shard_attr *a = shard_op_attr(call, "callee");
  return a && a->kind == SHARD_ATTR_SYMREF && a->u.symref.num == 1 ? a->u.symref.path[0] : NULL;
}

shard_op *shard_call_callee_func(const shard_module *m, const shard_op *call) {
  const char *name = shard_call_callee(call);
  shard_op *f = name ? shard_module_lookup_symbol(m, name) : NULL;
  return f && shard_op_is(f, &K_func_func) ? f : NULL;
}

void shard_call_set_callee(shard_arena *a, shard_op *call, const char *name) {
  shard_attr *ref = shard_attr_new(a, SHARD_ATTR_SYMREF);
  ref->u.symref.path = SHARD_NEW_ARRAY(a, const char *, 1);
  ref->u.symref.path[0] = shard_arena_strdup(a, name);
  ref->u.symref.num = 1;
  shard_op_set_attr(a, call, "callee", ref, true);
}

/* ---- calls --------------------------------------------------------------- */

typedef SHARD_VEC(shard_op *) op_vec;

static bool S_collect_call(shard_op *op, void *ctx) {
  if (shard_op_is(op, &K_func_call)) SHARD_VEC_PUSH(*(op_vec *)ctx, op);
  return true;
}

uint32_t shard_func_calls(shard_op *func, shard_op ***out) {
  op_vec calls = {0};
  /* Calls have no regions, so a pre-order walk lists them in program order,
   * the same order MLIR's post-order walk gives. */
  for (uint32_t r = 0; r < func->num_regions; r++)
    for (shard_block *b = func->regions[r].first; b; b = b->next)
      for (shard_op *op = b->first; op; op = op->next) shard_walk(op, S_collect_call, &calls);
  *out = calls.items;
  return calls.len;
}

/* ---- recursion ------------------------------------------------------------ */

typedef struct S_frame {
  shard_op *func;
  shard_op **calls;
  uint32_t ncalls, next;
} S_frame;

/* Depth-first search with an explicit stack; a func on the stack
 * (state 1) reached again closes a cycle. */
const shard_op *shard_call_graph_find_recursion(const shard_module *m, char **message) {
  *message = NULL;
  if (!m || !m->top || !m->top->num_regions) return NULL;
  shard_ptrmap state = {0}; /* func -> 1 on the stack, 2 done */
  SHARD_VEC(S_frame) stack = {0};
  const shard_op *found = NULL;
  for (shard_block *b = m->top->regions[0].first; b && !found; b = b->next)
    for (shard_op *root = b->first; root && !found; root = root->next) {
      if (!shard_op_is(root, &K_func_func) || shard_ptrmap_get(&state, root)) continue;
      S_frame f0 = {root, NULL, 0, 0};
      f0.ncalls = shard_func_calls(root, &f0.calls);
      shard_ptrmap_put(&state, root, 1);
      SHARD_VEC_PUSH(stack, f0);
      while (stack.len && !found) {
        S_frame *top = &stack.items[stack.len - 1];
        if (top->next == top->ncalls) {
          shard_ptrmap_put(&state, top->func, 2);
          free(top->calls);
          stack.len--;
          continue;
        }
        shard_op *call = top->calls[top->next++];
        shard_op *callee = shard_call_callee_func(m, call);
        if (!callee) continue;
        uint64_t st = shard_ptrmap_get(&state, callee);
        if (st == 2) continue;
        if (st == 1) {
          uint32_t first = 0;
          while (stack.items[first].func != callee) first++;
          shard_buf msg;
          shard_buf_init(&msg);
          shard_buf_printf(&msg, "recursive call graph is not supported: @%s calls itself", shard_symbol_name(callee));
          enum { LISTED = 8 }; /* a cycle through thousands of functions names a few */
          for (uint32_t i = first + 1; i < stack.len && i <= first + LISTED; i++)
            shard_buf_printf(&msg, "%s@%s", i == first + 1 ? " through " : ", ",
                             shard_symbol_name(stack.items[i].func));
          if (stack.len - first - 1 > LISTED) shard_buf_printf(&msg, " and %u more", stack.len - first - 1 - LISTED);
          *message = shard_xstrdup(shard_buf_str(&msg));
          shard_buf_free(&msg);
          found = stack.items[first].calls[stack.items[first].next - 1];
          break;
        }
        S_frame f = {callee, NULL, 0, 0};
        f.ncalls = shard_func_calls(callee, &f.calls);
        shard_ptrmap_put(&state, callee, 1);
        SHARD_VEC_PUSH(stack, f);
      }
    }
  for (uint32_t i = 0; i < stack.len; i++) free(stack.items[i].calls);
  SHARD_VEC_FREE(stack);
  shard_ptrmap_release(&state);
  return found;
}

/* ---- call graph order --------------------------------------------------- */

typedef struct func_calls {
  shard_op **calls;
  uint32_t n;
} func_calls;

typedef struct graph {
  const shard_module *m;
  shard_ptrmap visited; /* func -> 1 while its callees are visited, 2 after */
  op_vec order; /* post-order */
  SHARD_VEC(func_calls) calls; /* the calls of order.items[i], when kept */
  bool keep_calls, recursive;
} graph;

static void S_visit(graph *g, shard_op *func) {
  shard_ptrmap_put(&g->visited, func, 1);
  shard_op **calls;
  uint32_t n = shard_func_calls(func, &calls);
  for (uint32_t i = 0; i < n; i++) {
    shard_op *callee = shard_call_callee_func(g->m, calls[i]);
    if (!callee || !S_has_body(callee)) continue;
    uint64_t st = shard_ptrmap_get(&g->visited, callee);
    if (!st) S_visit(g, callee);
    else if (st == 1) g->recursive = true;
  }
  shard_ptrmap_put(&g->visited, func, 2);
  if (g->keep_calls) SHARD_VEC_PUSH(g->calls, ((func_calls){calls, n}));
  else free(calls);
  SHARD_VEC_PUSH(g->order, func);
}

static void S_build(graph *g, bool pre_order) {
  const shard_module *m = g->m;
  if (m->top && m->top->num_regions)
    for (shard_block *b = m->top->regions[0].first; b; b = b->next)
      for (shard_op *op = b->first; op; op = op->next)
        if (shard_op_is(op, &K_func_func) && S_has_body(op) && !shard_ptrmap_get(&g->visited, op)) S_visit(g, op);
  shard_ptrmap_release(&g->visited);
  if (pre_order)
    for (uint32_t i = 0, j = g->order.len; i + 1 < j--; i++) {
      shard_op *t = g->order.items[i];
      g->order.items[i] = g->order.items[j];
      g->order.items[j] = t;
      if (!g->keep_calls) continue;
      func_calls c = g->calls.items[i];
      g->calls.items[i] = g->calls.items[j];
      g->calls.items[j] = c;
    }
}

uint32_t shard_call_graph_funcs(const shard_module *m, bool pre_order, shard_op ***out) {
  graph g = {.m = m};
  S_build(&g, pre_order);
  *out = g.order.items;
  return g.order.len;
}

void shard_call_graph_build(const shard_module *m, bool pre_order, shard_call_graph *out) {
  graph g = {.m = m, .keep_calls = true};
  S_build(&g, pre_order);
  out->num_funcs = g.order.len;
  out->funcs = g.order.items;
  out->calls = g.order.len ? shard_xmalloc(sizeof(shard_op **) * g.order.len) : NULL;
  out->num_calls = g.order.len ? shard_xmalloc(sizeof(uint32_t) * g.order.len) : NULL;
  for (uint32_t i = 0; i < g.order.len; i++) {
    out->calls[i] = g.calls.items[i].calls;
    out->num_calls[i] = g.calls.items[i].n;
  }
  SHARD_VEC_FREE(g.calls);
  out->recursive = g.recursive;
}

void shard_call_graph_release(shard_call_graph *g) {
  for (uint32_t i = 0; i < g->num_funcs; i++) free(g->calls[i]);
  free(g->calls);
  free(g->num_calls);
  free(g->funcs);
  *g = (shard_call_graph){0};
}

/* ---- symbol table ------------------------------------------------------- */

void shard_symbol_table_init(shard_symbol_table *t, shard_module *m) {
  t->m = m;
  t->uniquing_counter = 0;
  t->names = (shard_strmap){0};
  t->has_names = false;
}

void shard_symbol_table_release(shard_symbol_table *t) {
  shard_strmap_release(&t->names);
  t->has_names = false;
}

static bool S_name_taken(shard_symbol_table *t, const char *name) {
  if (!t->has_names) {
    shard_region *top = &t->m->top->regions[0];
    for (shard_block *b = top->first; b; b = b->next)
      for (shard_op *op = b->first; op; op = op->next) {
        const char *n = shard_symbol_name(op);
        if (n) shard_strmap_put_cstr(&t->names, n, op);
      }
    t->has_names = true;
  }
  return shard_strmap_get_cstr(&t->names, name) != NULL;
}

const char *shard_symbol_table_insert(shard_symbol_table *t, shard_op *op) {
  shard_module *m = t->m;
  shard_block *body = m->top->regions[0].last;
  if (!body) body = shard_region_add_block(m->arena, &m->top->regions[0]);
  const char *name = shard_symbol_name(op);
  /* The op is not in the module yet, so any symbol found is another one. */
  if (name && S_name_taken(t, name)) {
    char *candidate;
    do {
      candidate = shard_arena_printf(m->arena, "%s_%u", name, t->uniquing_counter++);
    } while (S_name_taken(t, candidate));
    shard_op_set_attr(m->arena, op, "sym_name", shard_attr_string(m->arena, candidate, (uint32_t)strlen(candidate)),
                      true);
    name = candidate;
  }
  shard_block_append(body, op);
  if (name) {
    S_name_taken(t, name); /* gathers the names before adding this one */
    shard_strmap_put_cstr(&t->names, shard_symbol_name(op), op);
  }
  shard_module_note_symbol(m, op);
  return name;
}

shard_op *shard_func_clone_recursively(shard_symbol_table *t, const shard_op *func) {
  shard_arena *a = t->m->arena;
  shard_op *copy = shard_op_clone(a, func, NULL);
  const char *original = shard_func_original_name(func);
  if (original)
    shard_op_set_attr(a, copy, "sdy.original_func_name", shard_attr_string(a, original, (uint32_t)strlen(original)),
                      false);
  shard_op **calls;
  uint32_t n = shard_func_calls(copy, &calls);
  for (uint32_t i = 0; i < n; i++) {
    shard_op *callee = shard_call_callee_func(t->m, calls[i]);
    if (!callee) continue;
    shard_op *callee_copy = shard_func_clone_recursively(t, callee);
    shard_call_set_callee(a, calls[i], shard_symbol_table_insert(t, callee_copy));
  }
  free(calls);
  return copy;
}

shard_op *shard_module_main_func(const shard_module *m) {
  shard_op *only = NULL;
  uint32_t n = 0;
  for (shard_block *b = m->top->num_regions ? m->top->regions[0].first : NULL; b; b = b->next)
    for (shard_op *op = b->first; op; op = op->next)
      if (shard_op_is(op, &K_func_func)) {
        only = op;
        n++;
      }
  if (n == 1) return only;
  shard_op *main_func = shard_module_lookup_symbol(m, "main");
  return main_func && shard_op_is(main_func, &K_func_func) ? main_func : NULL;
}
