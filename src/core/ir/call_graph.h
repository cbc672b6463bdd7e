/* Functions and calls of a module, as Shardy's func-level passes see them:
 * the call graph order of the funcs (MLIR's CallGraph walked from its
 * external node), a symbol table that uniques names the way MLIR's
 * SymbolTable::insert does, and recursive function cloning that records
 * `sdy.original_func_name`. Used by the constant splitter and by the
 * func-call passes (pass_func_calls.c). */
#ifndef SHARD_CALL_GRAPH_H
#define SHARD_CALL_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "support/strmap.h"

/* The func.func ops directly in the module, in call-graph order: post-order
 * (callees before callers) or, with pre_order, its reverse. Every func
 * appears once. Returns the count; the caller frees *out. */
uint32_t shard_call_graph_funcs(const shard_module *m, bool pre_order, shard_op ***out);

/* shard_call_graph_funcs with each func's calls (shard_func_calls, as
 * listed while the graph is built): a pass that visits the funcs in this
 * order and reads their calls walks each func once, not twice. `recursive`:
 * some func reaches itself, so that visiting a func may change one not
 * visited yet (its calls are then better listed again). */
typedef struct shard_call_graph {
  uint32_t num_funcs;
  shard_op **funcs;
  shard_op ***calls; /* calls[i]: the func.call ops in funcs[i] */
  uint32_t *num_calls;
  bool recursive;
} shard_call_graph;
void shard_call_graph_build(const shard_module *m, bool pre_order, shard_call_graph *g);
void shard_call_graph_release(shard_call_graph *g);

/* The func.call ops inside `func` (any depth), in program order. Returns the
 * count; the caller frees *out. */
uint32_t shard_func_calls(shard_op *func, shard_op ***out);

/* The callee name of a func.call (NULL when malformed) and the func.func it
 * names (NULL when there is none). */
const char *shard_call_callee(const shard_op *call);
shard_op *shard_call_callee_func(const shard_module *m, const shard_op *call);
void shard_call_set_callee(shard_arena *a, shard_op *call, const char *name);

/* A cycle of calls (a func.func that calls itself, directly or through
 * others), which no pass, explanation or interpretation supports: NULL when
 * there is none, else the call that starts the cycle and, in *message (heap,
 * caller frees), "recursive call graph is not supported: @f calls itself"
 * (or "... @f calls itself through @g, @h"). Iterative: the depth of the
 * call graph is unbounded. */
const shard_op *shard_call_graph_find_recursion(const shard_module *m, char **message);

/* Shardy's getMainFuncOrDie with useSingleFunc: the only func.func of the
 * module, else the one named @main; NULL when there is neither. */
shard_op *shard_module_main_func(const shard_module *m);

/* sym_name of a symbol op (NULL when none). */
const char *shard_symbol_name(const shard_op *op);
/* `sdy.original_func_name` of a func, or its sym_name when it has none. */
const char *shard_func_original_name(const shard_op *func);

/* MLIR's SymbolTable over the module: insertion appends the op to the module
 * and, when its name is taken, renames it name_N with N drawn from one
 * counter shared by every insertion into this table. */
typedef struct shard_symbol_table {
  shard_module *m;
  uint32_t uniquing_counter;
  /* every top-level symbol name, gathered at the first insertion and kept up
   * to date by the insertions (renaming probes it, not the module) */
  shard_strmap names;
  bool has_names;
} shard_symbol_table;

void shard_symbol_table_init(shard_symbol_table *t, shard_module *m);
void shard_symbol_table_release(shard_symbol_table *t);
/* Returns the (possibly new) name of `op`. */
const char *shard_symbol_table_insert(shard_symbol_table *t, shard_op *op);

/* Shardy's cloneFuncRecursively: a copy of `func` (not yet in the module)
 * with `sdy.original_func_name` set, whose calls each name a fresh recursive
 * copy of their callee inserted into `t`. */
shard_op *shard_func_clone_recursively(shard_symbol_table *t, const shard_op *func);

#endif
