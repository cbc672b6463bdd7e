/* What the DOT writers (dot.c, graph.c, plan.c) share on top of libcgraph:
 * setting an attribute, Graphviz label text and writing a graph out. Private
 * to src/viz. */
#ifndef SHARD_VIZ_DOT_INTERNAL_H
#define SHARD_VIZ_DOT_INTERNAL_H

#include <graphviz/cgraph.h>

#include "support/buf.h"

/* Sets attribute `name` of a graph, node or edge, declaring it (default "")
 * when the graph does not have it yet. */
void shard_viz_dot_set(void *obj, const char *name, const char *value);

/* Appends `s` as Graphviz label text: backslashes escaped, each line
 * (the last one too) ended by a left-justified break. */
void shard_viz_dot_label(shard_buf *b, const char *s);

/* A new root graph whose objects get ids in creation order, so the DOT
 * text (subgraphs are written in id order) does not depend on where the
 * allocator put the names: cgraph's default ids are the names' addresses. */
Agraph_t *shard_viz_dot_open(const char *name);

/* Appends the DOT text of g to out and closes g. */
void shard_viz_dot_write(shard_buf *out, Agraph_t *g);

#endif
