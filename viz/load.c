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
#include "viz/export.h"
#include "xmalloc.h"

/* Load JSON or DOT. */
struct pl_graph *
plv_graph_load(const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_graph *g = plv_graph_parse(text, len, path, cause);
	free(text);
	return g;
}

/* Parse a graph file's text (see load.h). */
struct pl_graph *
plv_graph_parse(const char *text, size_t len, const char *path, char **cause)
{
	static const char expected[] = "a graph (expected a placelab JSON graph or a DOT file)";
	if ((*cause = pl_text_foreign(text, len, path, expected)) != NULL)
		return NULL;
	if (len == 0) {
		*cause = pl_xasprintf("%s: an empty file, not %s", path, expected);
		return NULL;
	}
	const char *suffix = plv_path_suffix(path);
	if (pl_text_is_json_object(text, len) || (suffix != NULL && strcasecmp(suffix, "json") == 0))
		return pl_graph_parse_json(text, len, path, cause);
	return plv_graph_parse_dot(text, len, path, cause);
}
