/*
 * dot-load — read a graph written in DOT with cgraph.
 *
 * Node attributes: type, scope, flops, param_bytes, out_bytes, temp_bytes,
 * measured_cpu_us / measured_gpu_us / measured_tpu_us, group, device; edge
 * attributes: bytes, output.  Everything a DOT user writes by hand (quoted
 * names with spaces, subgraphs and clusters, default attribute statements,
 * undirected graphs as a mistake) is handled: subgraph members are ordinary
 * nodes, defaults apply through cgraph's attribute lookup.  Nodes keep their
 * order of first appearance; edges keep the order they were written.
 *
 * Invariant: the result is built through core's graph builder, so DOT input
 * gets exactly the same validation as JSON.
 */
#include "viz/load.h"

#include <graphviz/cgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static char dot_err[1024];

/* cgraph's error callback: messages arrive in pieces ("Error", ": ",
 * "syntax error in line 3 near ','\n"); keep the first whole message. */
static int
capture_error(char *msg)
{
	size_t n = strlen(dot_err);
	if (n > 0 && dot_err[n - 1] == '\n')
		return 0;
	snprintf(dot_err + n, sizeof dot_err - n, "%s", msg);
	return 0;
}

/* The captured message without its "Error: " prefix and newline. */
static const char *
error_text(void)
{
	size_t n = strlen(dot_err);
	while (n > 0 && (dot_err[n - 1] == '\n' || dot_err[n - 1] == ' '))
		dot_err[--n] = '\0';
	const char *p = dot_err;
	if (strncmp(p, "Error: ", 7) == 0)
		p += 7;
	return p;
}

/* Attribute text of an object, or NULL when unset or empty. */
static const char *
attr(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);
	return v != NULL && *v ? v : NULL;
}

/* Parse a number attribute; 0 ok (absent keeps *out), -1 malformed. */
static int
num_attr(void *obj, const char *name, double *out)
{
	const char *v = attr(obj, name);
	if (v == NULL)
		return 0;
	char *end;
	double d = strtod(v, &end);
	while (*end == ' ')
		end++;
	if (*end != '\0' || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

struct edge_ref {
	Agedge_t *e;
	IDTYPE seq;
};

/* Order edges as written. */
static int
edge_cmp(const void *a, const void *b)
{
	const struct edge_ref *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse DOT text into a graph. */
struct pl_graph *
plv_graph_parse_dot(const char *text, size_t len, const char *name, char **cause)
{
	(void)len;
	dot_err[0] = '\0';
	agseterr(AGERR);
	agseterrf(capture_error);
	Agraph_t *dg = agmemread(text);
	agseterrf(NULL);
	if (dg == NULL) {
		if (dot_err[0])
			*cause = pl_xasprintf("%s: DOT %s", name, error_text());
		else
			*cause = pl_xasprintf("%s: not a DOT graph (expected 'digraph NAME { ... }' or a placelab JSON file)", name);
		return NULL;
	}
	char *err = NULL;
	struct pl_graph_builder *b = pl_graph_builder_new(agnameof(dg));
	pl_graph_builder_set_source(b, name);
	if (!agisdirected(dg)) {
		err = pl_xasprintf("%s: graph '%s' is undirected (expected 'digraph')", name, agnameof(dg));
		goto out;
	}
	static const char *const kinds[] = { "measured_cpu_us", "measured_gpu_us", "measured_tpu_us" };
	int n_edges = 0;
	for (Agnode_t *n = agfstnode(dg); n != NULL; n = agnxtnode(dg, n)) {
		struct pl_op op;
		memset(&op, 0, sizeof op);
		const char *nn = agnameof(n);
		double pb = 0, ob = 0, tb = 0;
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++) {
			op.measured_us[k] = -1;
			if (num_attr(n, kinds[k], &op.measured_us[k]) != 0 || (op.measured_us[k] < 0 && op.measured_us[k] != -1)) {
				err = pl_xasprintf("%s: node '%s': attribute '%s' (expected a time >= 0 in us)", name, nn, kinds[k]);
				goto out;
			}
		}
		if (num_attr(n, "flops", &op.flops) != 0 || num_attr(n, "param_bytes", &pb) != 0 ||
		    num_attr(n, "out_bytes", &ob) != 0 || num_attr(n, "temp_bytes", &tb) != 0) {
			err = pl_xasprintf("%s: node '%s': flops, param_bytes, out_bytes and temp_bytes must be numbers", name, nn);
			goto out;
		}
		if (pb != floor(pb) || ob != floor(ob) || tb != floor(tb) || pb < 0 || ob < 0 || tb < 0 ||
		    pb > (double)PL_MAX_BYTES || ob > (double)PL_MAX_BYTES || tb > (double)PL_MAX_BYTES) {
			err = pl_xasprintf("%s: node '%s': byte counts must be whole numbers in [0, 2^50]", name, nn);
			goto out;
		}
		op.param_bytes = (int64_t)pb;
		op.out_bytes = (int64_t)ob;
		op.temp_bytes = (int64_t)tb;
		op.name = (char *)nn;
		op.type = (char *)attr(n, "type");
		op.scope = (char *)attr(n, "scope");
		const char *dev = attr(n, "device");
		if (dev != NULL && strcmp(dev, "any") != 0) {
			int k = pl_dev_kind_parse(dev);
			op.cons.kind = k >= 0 ? PL_CONS_KIND : PL_CONS_DEVICE;
			op.cons.dev_kind = k >= 0 ? k : 0;
			op.cons.device = k >= 0 ? NULL : (char *)dev;
		}
		pl_graph_add_op(b, &op, attr(n, "group"));
		for (Agedge_t *e = agfstout(dg, n); e != NULL; e = agnxtout(dg, e))
			n_edges++;
	}
	struct edge_ref *refs = pl_xmalloc(sizeof *refs * (n_edges ? n_edges : 1));
	int k = 0;
	for (Agnode_t *n = agfstnode(dg); n != NULL; n = agnxtnode(dg, n))
		for (Agedge_t *e = agfstout(dg, n); e != NULL; e = agnxtout(dg, e))
			refs[k++] = (struct edge_ref){ e, AGSEQ(e) };
	qsort(refs, n_edges, sizeof *refs, edge_cmp);
	for (int i = 0; i < n_edges; i++) {
		Agedge_t *e = refs[i].e;
		double bytes = 0, out = 0;
		const char *s = agnameof(agtail(e)), *d = agnameof(aghead(e));
		if (num_attr(e, "bytes", &bytes) != 0 || num_attr(e, "output", &out) != 0 ||
		    bytes < 0 || bytes != floor(bytes) || bytes > (double)PL_MAX_BYTES ||
		    out < 0 || out != floor(out) || out >= PL_MAX_OUTPUTS) {
			err = pl_xasprintf("%s: edge '%s' -> '%s': 'bytes' and 'output' must be whole numbers >= 0", name, s, d);
			free(refs);
			goto out;
		}
		pl_graph_add_edge(b, pl_graph_builder_find(b, s), pl_graph_builder_find(b, d), (int)out, (int64_t)bytes);
	}
	free(refs);
out:
	agclose(dg);
	if (err != NULL) {
		pl_graph_builder_free(b);
		*cause = err;
		return NULL;
	}
	return pl_graph_build(b, cause);
}
