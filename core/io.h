/*
 * io — placelab's JSON formats (docs/FORMAT.md): graphs, clusters and
 * placements, each tagged "format": "placelab-<kind>/<version>".
 *
 * Invariant: a loader either returns a complete, validated object or NULL
 * with *cause naming the file, the line and column where known, the item
 * and what was expected; it never returns something half-loaded.  Savers
 * write atomically.  load -> save -> load gives identical data.
 *
 * Ownership: returned objects belong to the caller (pl_graph_free, ...);
 * *cause strings too.
 */
#ifndef PL_IO_H
#define PL_IO_H

#include <stddef.h>

#include "cluster.h"
#include "graph.h"
#include "placement.h"

#define PL_FORMAT_GRAPH "placelab-graph/1"
#define PL_FORMAT_CLUSTER "placelab-cluster/1"
#define PL_FORMAT_PLACEMENT "placelab-placement/1"
#define PL_FORMAT_RESULT "placelab-result/1"

/* The name of a graph or cluster whose file gives none: the file's base
 * name without its extension ("nets/resnet.dot" -> "resnet").  Caller
 * frees. */
char *pl_name_from_path(const char *path);

/* Whether a file's text is a JSON object (what the loaders read) rather
 * than DOT: its first character after a UTF-8 byte-order mark and white
 * space is '{'. */
int pl_text_is_json_object(const char *text, size_t len);

/* Graphs.  `name` labels messages (usually the path). */
struct pl_graph *pl_graph_load_json(const char *path, char **cause);
struct pl_graph *pl_graph_parse_json(const char *text, size_t len,
    const char *name, char **cause);
/* Serialise (caller frees) or save atomically. */
char *pl_graph_to_json(const struct pl_graph *g);
int pl_graph_save_json(const struct pl_graph *g, const char *path, char **cause);

/* Clusters. */
struct pl_cluster *pl_cluster_load_json(const char *path, char **cause);
struct pl_cluster *pl_cluster_parse_json(const char *text, size_t len,
    const char *name, char **cause);
char *pl_cluster_to_json(const struct pl_cluster *c);
int pl_cluster_save_json(const struct pl_cluster *c, const char *path, char **cause);
/* A preset name or a cluster file (what -c takes). */
struct pl_cluster *pl_cluster_from_arg(const char *arg, char **cause);
/* The file a cluster argument names as pl_cluster_from_arg reads it: NULL
 * for a preset name, or a word that could only be one (or for NULL). */
const char *pl_cluster_arg_file(const char *arg);

/*
 * root as JSON text (to free), indented as cJSON_Print() does, with every
 * number written so that it reads back as the same double (cJSON's own
 * printing lets one unit in the last place go); its numbers become raw
 * text in root, which is then only for deleting.
 */
struct cJSON;
char *pl_json_print(struct cJSON *root);
/* A byte count as a JSON integer with every digit (cJSON's own printer
 * would write 1e+15, and round above 2^53). */
struct cJSON *pl_json_bytes(int64_t v);

/*
 * Placements: devices by op and device name, optional priorities.  The
 * loaded placement is checked against g and c.  A placement that loads but
 * may not be what was meant (saved for a graph or cluster of another name
 * whose ops and devices match) gives a warning "FILE:LINE:COL: warning:
 * ...": in *warning (to free; NULL when there is none) when warning is not
 * NULL, else on stderr after "placelab: ".
 */
struct pl_placement *pl_placement_load_json(const char *path,
    const struct pl_graph *g, const struct pl_cluster *c, char **warning,
    char **cause);
struct pl_placement *pl_placement_parse_json(const char *text, size_t len,
    const char *name, const struct pl_graph *g, const struct pl_cluster *c,
    char **warning, char **cause);
char *pl_placement_to_json(const struct pl_placement *p,
    const struct pl_graph *g, const struct pl_cluster *c);
int pl_placement_save_json(const struct pl_placement *p,
    const struct pl_graph *g, const struct pl_cluster *c, const char *path,
    char **cause);

#endif
