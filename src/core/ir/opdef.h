/* Op definitions: what shard knows about an op name — its custom syntax
 * (parse/print), which attributes are inherent, and a few traits. Tables live
 * in ops_builtin.c (module, func), ops_sdy.c and ops_stablehlo.c. */
#ifndef SHARD_OPDEF_H
#define SHARD_OPDEF_H

#include <stdbool.h>

#include "ir/ir.h"
#include "ir/parse.h"
#include "ir/print.h"

enum {
  SHARD_TRAIT_TERMINATOR = 1u << 0,
  SHARD_TRAIT_ISOLATED = 1u << 1, /* IsolatedFromAbove: fresh SSA scope */
  SHARD_TRAIT_NO_TERMINATOR = 1u << 2, /* single block without terminator (module) */
  SHARD_TRAIT_SYMBOL = 1u << 3,
  SHARD_TRAIT_SDY = 1u << 4, /* op of the sdy dialect */
  SHARD_TRAIT_ELEMENTWISE = 1u << 5,
  SHARD_TRAIT_COLLECTIVE = 1u << 6, /* sdy's CollectiveOpInterface: the result sharding is `out_sharding` */
};

/* What an op's attribute must be, as its ODS definition demands
 * (verify_required.c checks it before any custom printer relies on it). */
typedef enum shard_attr_need {
  SHARD_NEED_PRESENT, /* any attribute */
  SHARD_NEED_DIMS, /* i64 dense array */
  SHARD_NEED_INT, /* 64-bit signless integer */
  SHARD_NEED_ENUM, /* a case of the StableHLO enum `enum_kind` */
  SHARD_NEED_STRING,
  SHARD_NEED_SYMREF, /* flat symbol reference */
  SHARD_NEED_FUNCTION_TYPE, /* type attribute of function type */
  SHARD_NEED_DENSE, /* constant vector/tensor */
  SHARD_NEED_SDY, /* an sdy attribute of kind `sdy_kind` */
  SHARD_NEED_SHLO, /* a typed StableHLO attribute of kind `sdy_kind` (dimension numbers) */
} shard_attr_need;

/* A required attribute of an op (or an optional one, checked when present);
 * lists end with a NULL name. */
typedef struct shard_attr_req {
  const char *name;
  shard_attr_need need;
  const char *enum_kind;
  shard_attr_kind sdy_kind; /* SHARD_NEED_SDY and SHARD_NEED_SHLO: the attribute's kind */
  bool optional;
} shard_attr_req;

/* Operand, result and region counts and type equalities an op's traits
 * demand (NOperands, OneResult, AllTypesMatch, ...; verify_arity.c). */
enum { SHARD_ARITY_ANY = -1 };
enum {
  SHARD_SIG_SAME_OPERANDS = 1u << 0, /* every operand has the first operand's type */
  SHARD_SIG_OPERANDS_ARE_RESULTS = 1u << 1, /* operand i and result i have one type */
  SHARD_SIG_TUPLE_OF_OPERANDS = 1u << 2, /* the result is tuple<operand types> */
  SHARD_SIG_BLOCKS_TAKE_OPERANDS = 1u << 3, /* each region is one block whose arguments
                                               have the operand types */
  SHARD_SIG_SAME_OPERANDS_AND_RESULTS = 1u << 4, /* SameOperandsAndResultType */
};
typedef struct shard_op_signature {
  int operands, results, regions; /* a count or SHARD_ARITY_ANY */
  unsigned flags; /* SHARD_SIG_* */
} shard_op_signature;

struct shard_op_def {
  const char *name;
  /* Custom syntax; NULL: generic only. parse is called after the op name. */
  bool (*parse)(shard_parser *p, shard_op_state *st);
  void (*print)(shard_printer *pr, const shard_op *op);
  const char *const *inherent; /* NULL-terminated inherent attribute names, or NULL */
  unsigned traits;
  /* SSA name hint for the first result ("cst", "c", "iota"), or NULL. */
  const char *(*result_name)(const shard_op *op);
  /* Per-result SSA names for multi-result ops that name each result
   * (rng_bit_generator: %output_state, %output), or NULL. */
  const char *(*result_names)(const shard_op *op, uint32_t result);
  /* SSA name hint for the arguments of region `region` ("iterArg"), or NULL. */
  const char *(*block_arg_name)(const shard_op *op, uint32_t region);
  /* What a custom printer assumes and the generic form may lack: the
   * required attributes and the signature, or NULL when nothing is demanded.
   * An op printed with a custom syntax that drops a type or an attribute
   * name needs them, so that what it prints parses back. */
  const shard_attr_req *required;
  const shard_op_signature *signature;
};

/* Longest op name an alias is looked up under. */
enum { SHARD_OP_DEF_MAX_NAME = 128 };

/* NULL when shard does not know the op. `mhlo.X` (XLA's dialect) finds the
 * definition of its StableHLO twin `stablehlo.X`, when there is one: such an
 * op is read with the twin's syntax, rules and verification; the few mhlo
 * ops without a twin (mhlo.copy) have definitions of their own. */
const shard_op_def *shard_op_def_lookup(const char *name, size_t len);
/* The op flags (SHARD_OP_MHLO) an op written as `name` gets when it is built
 * with definition `def`: its name is then def->name and the flag remembers
 * the spelling, for the printer and for messages. */
unsigned shard_op_def_alias_flags(const char *name, size_t len, const shard_op_def *def);
/* Marks a just-built op as written in mhlo: SHARD_OP_MHLO, and its typed
 * StableHLO attributes spelled #mhlo (#mhlo<comparison_direction LT>). */
void shard_op_mark_mhlo(shard_op *op);
/* Does the op print in generic form though its definition has a custom
 * syntax (mhlo.rng, mhlo.rng_bit_generator: mhlo has none)? */
bool shard_op_prints_generic(const shard_op *op);
/* An sdy collective (all_gather, all_reduce, all_slice, all_to_all,
 * collective_permute, reduce_scatter, replicated_to_unreduced,
 * sharded_to_unreduced): SHARD_TRAIT_COLLECTIVE of its definition. */
bool shard_op_is_sdy_collective(const shard_op *op);
bool shard_op_def_is_inherent(const shard_op_def *def, const char *attr_name);
/* Is this one of StableHLO's test-dialect ops (check.*, interpreter.*)?
 * stablehlo-opt registers those dialects; sdy_opt and mlir-opt do not. */
bool shard_op_def_is_test_dialect(const shard_op_def *def);

/* The tables, each sorted by name. */
extern const shard_op_def shard_builtin_ops[];
extern const unsigned shard_num_builtin_ops;
extern const shard_op_def shard_sdy_ops[];
extern const unsigned shard_num_sdy_ops;
extern const shard_op_def shard_stablehlo_ops[];
extern const unsigned shard_num_stablehlo_ops;
/* check.* and interpreter.* (ops_check.c): StableHLO's interpreter test ops */
extern const shard_op_def shard_check_ops[];
extern const unsigned shard_num_check_ops;
/* chlo.* (ops_chlo.c): the client HLO ops JAX and XLA emit */
extern const shard_op_def shard_chlo_ops[];
extern const unsigned shard_num_chlo_ops;
/* mhlo.* ops without a StableHLO twin (ops_stablehlo.c: mhlo.copy) */
extern const shard_op_def shard_mhlo_ops[];
extern const unsigned shard_num_mhlo_ops;

#endif
