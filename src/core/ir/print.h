/* The MLIR printer: writes a module the way sdy_opt prints it (sorted
 * attribute dictionaries, SSA values renumbered per region scope, custom
 * syntax for known ops), or in generic form. */
#ifndef SHARD_PRINT_H
#define SHARD_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "support/buf.h"
#include "ir/ir.h"

typedef struct shard_print_options {
  bool generic; /* --mlir-print-op-generic */
  bool debug_info; /* --mlir-print-debuginfo: print loc(...) */
  /* With `generic`, put inherent attributes in <{...}> as MLIR >= 17 does.
   * Off by default: they go into the attribute dictionary, which every MLIR
   * version (mlir-opt-16 included) reads back as the same op. Ops without
   * custom syntax in a pretty print always use <{...}>, like sdy_opt. */
  bool properties_syntax;
  /* Print check.* and interpreter.* (StableHLO's test dialects) in their
   * custom syntax, as stablehlo-opt does, which registers them. Off by
   * default: sdy_opt and mlir-opt do not register them, so these ops print
   * in generic form, the only form those tools read back. */
  bool test_dialects;
} shard_print_options;

/* Prints the whole module into b. */
void shard_print_module(shard_buf *b, const shard_module *m, const shard_print_options *opts);

typedef struct shard_printer shard_printer;

/* For custom op printers (opdef.h). The printer has already written the
 * result names and " = " and the op name; the custom printer writes the rest
 * of the op (no trailing newline). */
shard_buf *shard_printer_buf(shard_printer *pr);
void shard_printer_putn(shard_printer *pr, const char *s, size_t n);
/* Inline so that a literal's length is known where it is written. */
static inline void shard_printer_puts(shard_printer *pr, const char *s) { shard_printer_putn(pr, s, strlen(s)); }
void shard_printer_printf(shard_printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void shard_printer_value(shard_printer *pr, const shard_value *v);
/* Operands [from, to) separated by ", ". */
void shard_printer_operands(shard_printer *pr, const shard_op *op, uint32_t from, uint32_t to);
void shard_printer_type(shard_printer *pr, const shard_type *t);
/* The operands' types separated by ", ". */
void shard_printer_operand_types(shard_printer *pr, const shard_op *op);
/* attr-dict (' ' operands ' : ' types)?: func.return's and sdy.return's form. */
void shard_printer_return_form(shard_printer *pr, const shard_op *op);
void shard_printer_attr(shard_printer *pr, const shard_attr *a);
/* <@mesh, [...]>: shard_sharding_print, the text of a sharding printed
 * lately copied rather than made again. */
void shard_printer_sharding(shard_printer *pr, const shard_tensor_sharding *s);
/* " {a = b, ...}" of the op's attributes except inherent ones and `elided`
 * (NULL-terminated list); prints nothing when empty. */
void shard_printer_attr_dict(shard_printer *pr, const shard_op *op, const char *const *elided);
/* " {...}" variant that also prints inherent attributes not in `elided`. */
void shard_printer_attr_dict_all(shard_printer *pr, const shard_op *op, const char *const *elided);
/* shard_printer_attr_dict_all that also leaves out the attributes `skip`
 * says to (an ODS printer's default-valued properties): a test per
 * attribute instead of a list of their names built for every op. */
typedef bool (*shard_printer_attr_skip_fn)(const shard_named_attr *a);
void shard_printer_attr_dict_all_except(shard_printer *pr, const shard_op *op, const char *const *elided,
                                        shard_printer_attr_skip_fn skip);
/* ": T" if all operand and result types are equal, else ": (ins) -> outs". */
void shard_printer_same_or_functional_type(shard_printer *pr, const shard_op *op);
/* "(ins) -> outs" (outs parenthesised unless exactly one non-function type). */
void shard_printer_functional_type(shard_printer *pr, const shard_op *op);
/* Prints a region: " {" newline, blocks, indented ops, "}" .
 * print_entry_args: whether the entry block header is printed (^bb0(...)). */
void shard_printer_region(shard_printer *pr, const shard_region *r, bool print_entry_args, bool print_empty_block);
/* "(%a: T, %b: T)" for region entry arguments (with arg attributes when present). */
void shard_printer_arg_decls(shard_printer *pr, const shard_block *b, bool with_attrs);
void shard_printer_newline(shard_printer *pr);
/* Prints an op in generic form (used for unknown ops and under --mlir-print-op-generic). */
void shard_printer_generic_op(shard_printer *pr, const shard_op *op);

#endif
