/*
 * load — open a graph file of any supported format.
 *
 * JSON (placelab-graph/1) through core/io, DOT through cgraph (dot-load.c).
 * The format is chosen by content: a file whose first non-blank character
 * is '{' is JSON, anything else is DOT.
 */
#ifndef PLV_LOAD_H
#define PLV_LOAD_H

#include <stddef.h>

#include "graph.h"

/* Load a graph file.  NULL + *cause (file, line, what was expected). */
struct pl_graph *plv_graph_load(const char *path, char **cause);
/* Parse the text of the graph file at path (read once: a pipe can be
 * read only once), in the format plv_graph_load() chooses.  NULL +
 * *cause. */
struct pl_graph *plv_graph_parse(const char *text, size_t len, const char *path,
    char **cause);
/* Parse DOT text (cgraph).  NULL + *cause. */
struct pl_graph *plv_graph_parse_dot(const char *text, size_t len,
    const char *name, char **cause);

#endif
