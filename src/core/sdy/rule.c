/* Op sharding rules: which factors each operand and result dimension is made
 * of, how big the factors are, and which factors need special handling.
 *
 * Printing follows Shardy: factor k prints as the letter 'i'+k up to 'z'
 * (k = 17) and as z_1, z_2, ... beyond; a dim made of several factors is
 * their symbols glued together (`ij`, `zz_1`); tensors are separated by ", "
 * and the optional blocks (sizes, reduction, need_replication, permutation,
 * blocked_propagation, custom) follow in that fixed order. */
#include "sdy/sharding.h"

/* kStartAtZ in Shardy: index of 'z', after which symbols become z_<n>. */
#define START_AT_Z ('z' - 'i')

void shard_rule_factor_symbol(shard_buf *b, int64_t factor) {
  if (factor < 0) {
    /* Not representable; only reachable from a rule built wrongly in code. */
    shard_buf_printf(b, "<factor %lld>", (long long)factor);
  } else if (factor <= START_AT_Z) {
    shard_buf_putc(b, (char)('i' + factor));
  } else {
    shard_buf_printf(b, "z_%lld", (long long)(factor - START_AT_Z));
  }
}

static void print_tensor_mappings(shard_buf *b, const shard_tensor_mapping *t, uint32_t n) {
  shard_buf_putc(b, '(');
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_buf_putc(b, '[');
    for (uint32_t d = 0; d < t[i].rank; d++) {
      if (d) shard_buf_puts(b, ", ");
      const shard_dim_mapping *dm = &t[i].dims[d];
      for (uint32_t f = 0; f < dm->num_factors; f++) shard_rule_factor_symbol(b, dm->factors[f]);
    }
    shard_buf_putc(b, ']');
  }
  shard_buf_putc(b, ')');
}

static void print_factor_list(shard_buf *b, const char *kind, const int64_t *factors, uint32_t n) {
  if (!n) return;
  shard_buf_printf(b, " %s={", kind);
  for (uint32_t i = 0; i < n; i++) {
    if (i) shard_buf_puts(b, ", ");
    shard_rule_factor_symbol(b, factors[i]);
  }
  shard_buf_putc(b, '}');
}

void shard_rule_print(shard_buf *b, const shard_op_sharding_rule *r) {
  shard_buf_putc(b, '<');
  print_tensor_mappings(b, r->operands, r->num_operands);
  shard_buf_puts(b, "->");
  print_tensor_mappings(b, r->results, r->num_results);
  if (r->num_factors) {
    shard_buf_puts(b, " {");
    for (uint32_t i = 0; i < r->num_factors; i++) {
      if (i) shard_buf_puts(b, ", ");
      shard_rule_factor_symbol(b, i);
      shard_buf_printf(b, "=%lld", (long long)r->factor_sizes[i]);
    }
    shard_buf_putc(b, '}');
  }
  print_factor_list(b, "reduction", r->reduction, r->num_reduction);
  print_factor_list(b, "need_replication", r->need_replication, r->num_need_replication);
  print_factor_list(b, "permutation", r->permutation, r->num_permutation);
  print_factor_list(b, "blocked_propagation", r->blocked_propagation, r->num_blocked_propagation);
  if (r->is_custom) shard_buf_puts(b, ", custom");
  shard_buf_putc(b, '>');
}
