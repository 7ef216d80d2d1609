/*
 * load — open a graph file, JSON or DOT, chosen by content.
 */
#include "viz/load.h"

#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "io.h"

/* Load JSON or DOT. */
struct pl_graph *
plv_graph_load(const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_graph *g;
	if (pl_text_is_json_object(text, len))
		g = pl_graph_parse_json(text, len, path, cause);
	else
		g = plv_graph_parse_dot(text, len, path, cause);
	free(text);
	return g;
}
