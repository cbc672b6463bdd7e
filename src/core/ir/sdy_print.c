/* Printing of sdy attributes as sdy_opt shows them.
 *
 * Attributes that can stand alone in an attribute dictionary get their
 * `#sdy.<mnemonic>` prefix (mesh, sharding, sharding_per_value,
 * op_sharding_rule, propagation_edges); the kinds that only occur as op
 * parameters (axis lists, all-to-all params, reduction, direction, manual
 * axes) print bare, exactly as the op's assembly format writes them. The
 * model printers in mesh.c, sharding.c and rule.c do the real work. */
#include <string.h>

#include "ir/attr.h"

static void print_value_ref(shard_buf *b, const shard_value_ref *v) {
  shard_buf_puts(b, v->is_result ? "result-" : "operand-");
  shard_buf_put_i64(b, (int64_t)v->index);
}

/* {step-2 = [{"y" = operand-1 -> [operand-0, result-0]}]} */
static void print_edge_step(shard_buf *b, const shard_edge_step *s) {
  shard_buf_puts(b, "{step-");
  shard_buf_put_i64(b, (int64_t)s->step);
  shard_buf_puts(b, " = [");
  for (uint32_t i = 0; i < s->num_edges; i++) {
    const shard_axis_edge *e = &s->edges[i];
    if (i) shard_buf_puts(b, ", ");
    shard_buf_putc(b, '{');
    shard_axis_print(b, &e->axis);
    shard_buf_puts(b, " = ");
    print_value_ref(b, &e->source);
    shard_buf_puts(b, " -> [");
    for (uint32_t t = 0; t < e->num_targets; t++) {
      if (t) shard_buf_puts(b, ", ");
      print_value_ref(b, &e->targets[t]);
    }
    shard_buf_puts(b, "]}");
  }
  shard_buf_puts(b, "]}");
}

static const char *direction_name(shard_direction d) {
  switch (d) {
  case SHARD_DIR_FORWARD: return "FORWARD";
  case SHARD_DIR_BACKWARD: return "BACKWARD";
  case SHARD_DIR_NONE: return "NONE";
  case SHARD_DIR_BOTH: return "BOTH";
  }
  return "BOTH";
}

void shard_sdy_attr_print(shard_buf *b, const shard_attr *a) {
  switch (a->kind) {
  case SHARD_ATTR_SDY_MESH:
    shard_buf_puts(b, "#sdy.mesh");
    shard_mesh_print(b, a->u.mesh);
    break;
  case SHARD_ATTR_SDY_SHARDING:
    shard_buf_puts(b, "#sdy.sharding");
    shard_sharding_print(b, a->u.sharding);
    break;
  case SHARD_ATTR_SDY_PER_VALUE:
    shard_buf_puts(b, "#sdy.sharding_per_value<");
    shard_sharding_list_print(b, a->u.per_value->shardings, a->u.per_value->num);
    shard_buf_putc(b, '>');
    break;
  case SHARD_ATTR_SDY_RULE:
    shard_buf_puts(b, "#sdy.op_sharding_rule");
    shard_rule_print(b, a->u.rule);
    break;
  case SHARD_ATTR_SDY_MANUAL_AXES:
    shard_buf_putc(b, '{');
    for (uint32_t i = 0; i < a->u.manual_axes.num; i++) {
      if (i) shard_buf_puts(b, ", ");
      const char *n = a->u.manual_axes.names[i];
      shard_buf_put_escaped(b, n, strlen(n));
    }
    shard_buf_putc(b, '}');
    break;
  case SHARD_ATTR_SDY_AXIS_LIST: shard_axis_list_print(b, a->u.axis_list.axes, a->u.axis_list.num); break;
  case SHARD_ATTR_SDY_AXIS_LISTS:
    shard_buf_putc(b, '[');
    for (uint32_t i = 0; i < a->u.axis_lists.num; i++) {
      if (i) shard_buf_puts(b, ", ");
      shard_axis_list_print(b, a->u.axis_lists.dims[i].axes, a->u.axis_lists.dims[i].num);
    }
    shard_buf_putc(b, ']');
    break;
  case SHARD_ATTR_SDY_ALL_TO_ALL:
    shard_buf_putc(b, '[');
    for (uint32_t i = 0; i < a->u.all_to_all.num; i++) {
      const shard_all_to_all_param *q = &a->u.all_to_all.params[i];
      if (i) shard_buf_puts(b, ", ");
      shard_axis_list_print(b, q->axes.axes, q->axes.num);
      shard_buf_puts(b, ": ");
      shard_buf_put_i64(b, (int64_t)q->src_dim);
      shard_buf_puts(b, "->");
      shard_buf_put_i64(b, (int64_t)q->tgt_dim);
    }
    shard_buf_putc(b, ']');
    break;
  case SHARD_ATTR_SDY_REDUCTION: shard_buf_puts(b, shard_reduction_name(a->u.reduction)); break;
  case SHARD_ATTR_SDY_EDGES:
    shard_buf_puts(b, "#sdy.propagation_edges<[");
    for (uint32_t i = 0; i < a->u.edges.num; i++) {
      if (i) shard_buf_puts(b, ", ");
      print_edge_step(b, &a->u.edges.steps[i]);
    }
    shard_buf_puts(b, "]>");
    break;
  case SHARD_ATTR_SDY_DIRECTION: shard_buf_puts(b, direction_name(a->u.direction)); break;
  default:
    /* Not an sdy attribute: the generic printer owns it. Print nothing
     * rather than guess. */
    break;
  }
}
