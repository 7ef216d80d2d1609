/*
 * fuzz-load — run fuzz inputs through the loaders and free what they make.
 */
#include "tests/fuzz/fuzz-load.h"

#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "viz/load.h"
#include "xmalloc.h"

/* A NUL-terminated copy of the input. */
static char *
terminated(const uint8_t *data, size_t size)
{
	char *t = pl_xmalloc(size + 1);
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

/* JSON: as a graph, a cluster, and a placement of a fixed graph. */
void
pl_fuzz_json(const uint8_t *data, size_t size)
{
	char *text = terminated(data, size);
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(text, size, "fuzz", &cause);
	if (g != NULL) {
		char *again = pl_graph_to_json(g);
		free(again);
		pl_graph_free(g);
	}
	free(cause);
	cause = NULL;
	struct pl_cluster *c = pl_cluster_parse_json(text, size, "fuzz", &cause);
	pl_cluster_free(c);
	free(cause);
	cause = NULL;
	static const char fixed[] = "{\"format\": \"placelab-graph/1\", \"ops\": [{\"name\": \"a\"}, {\"name\": \"b\", \"group\": \"g\"}], \"edges\": [[\"a\", \"b\", 1]]}";
	g = pl_graph_parse_json(fixed, strlen(fixed), "fixed", &cause);
	c = pl_cluster_preset("k80x2");
	if (g != NULL && c != NULL) {
		char *warning = NULL;
		struct pl_placement *p = pl_placement_parse_json(text, size, "fuzz", g, c, &warning, &cause);
		pl_placement_free(p);
		free(warning);
		free(cause);
	}
	pl_cluster_free(c);
	pl_graph_free(g);
	free(text);
}

/* DOT through cgraph. */
void
pl_fuzz_dot(const uint8_t *data, size_t size)
{
	char *text = terminated(data, size);
	char *cause = NULL;
	struct pl_graph *g = plv_graph_parse_dot(text, size, "fuzz", &cause);
	pl_graph_free(g);
	free(cause);
	free(text);
}
