/*
 * load — open a graph file, JSON or DOT: JSON when it holds a JSON object
 * or is named .json (so that a broken .json file gets JSON's error, not
 * DOT's), else DOT.
 */
#include "viz/load.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fileio.h"
#include "io.h"

/* Whether path ends in .suffix (any case). */
static int
has_suffix(const char *path, const char *suffix)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	return dot != NULL && (slash == NULL || dot > slash) && strcasecmp(dot + 1, suffix) == 0;
}

/* Load JSON or DOT. */
struct pl_graph *
plv_graph_load(const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_graph *g;
	if (pl_text_is_json_object(text, len) || has_suffix(path, "json"))
		g = pl_graph_parse_json(text, len, path, cause);
	else
		g = plv_graph_parse_dot(text, len, path, cause);
	free(text);
	return g;
}
