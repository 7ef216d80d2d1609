/*
 * test-io — clusters and placements in JSON, the DOT loader, atomic saves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cJSON.h>
#include <math.h>

#include "fileio.h"
#include "io.h"
#include "strbuf.h"
#include "viz/load.h"
#include "xmalloc.h"

/* Assert that msg contains frag. */
static void
assert_has(const char *msg, const char *frag)
{
	if (msg == NULL || strstr(msg, frag) == NULL)
		fail_msg("'%s' lacks '%s'", msg ? msg : "(null)", frag);
}

/* Every preset validates and survives a JSON round trip unchanged. */
static void
test_cluster_presets_round_trip(void **state)
{
	(void)state;
	int n = 0;
	for (const struct pl_cluster_preset *p = pl_cluster_presets; p->name != NULL; p++, n++) {
		struct pl_cluster *c = p->make();
		char *cause = NULL;
		if (pl_cluster_validate(c, &cause) != 0)
			fail_msg("preset %s: %s", p->name, cause);
		char *t1 = pl_cluster_to_json(c);
		struct pl_cluster *d = pl_cluster_parse_json(t1, strlen(t1), p->name, &cause);
		if (d == NULL)
			fail_msg("preset %s: %s", p->name, cause);
		char *t2 = pl_cluster_to_json(d);
		assert_string_equal(t1, t2);
		assert_int_equal(c->n_dev, d->n_dev);
		assert_int_equal(c->shared_bus, d->shared_bus);
		for (int i = 0; i < c->n_dev * c->n_dev; i++)
			assert_true(c->bw[i] == d->bw[i] && c->lat_us[i] == d->lat_us[i]);
		free(t1);
		free(t2);
		pl_cluster_free(c);
		pl_cluster_free(d);
	}
	assert_true(n >= 7);
	/* the presets the papers need */
	const char *need[] = { "k80x2", "k80x4", "k80x8", "k40x2", "k40x4", "k40x8", "h100x8" };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		struct pl_cluster *c = pl_cluster_preset(need[i]);
		assert_non_null(c);
		pl_cluster_free(c);
	}
}

/* The fewest digits (6 to 17; whole numbers below 1e15 as integers) that
 * read back as v, every precision tried in turn: what pl_json_print()
 * must write. */
static void
shortest_ref(char buf[static 40], double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, 40, "%.0f", v == 0 ? 0.0 : v);
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, 40, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Numbers are written in their shortest exact form: every power of two
 * (where fewer digits can read back than one more), its neighbours, and
 * random doubles, against trying every precision in turn. */
static void
test_json_shortest(void **state)
{
	(void)state;
	cJSON *root = cJSON_CreateArray();
	int n = 0;
	for (int k = -1074; k <= 1023; k++) {
		double p = ldexp(1, k);
		cJSON_AddItemToArray(root, cJSON_CreateNumber(p));
		cJSON_AddItemToArray(root, cJSON_CreateNumber(nextafter(p, 0)));
		cJSON_AddItemToArray(root, cJSON_CreateNumber(-nextafter(p, INFINITY)));
		n += 3;
	}
	uint64_t x = 88172645463325252u;
	while (n < 3 * 2098 + 20000) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		if (n % 2)
			memcpy(&v, &x, sizeof v);
		else	/* a float as a double, as BRKGA's genes are */
			v = (float)((x >> 40) * 0x1.0p-24);
		if (!isfinite(v))
			continue;
		cJSON_AddItemToArray(root, cJSON_CreateNumber(v));
		n++;
	}
	double *want = malloc(sizeof *want * (size_t)n);
	assert_non_null(want);
	int i = 0;
	for (const cJSON *it = root->child; it != NULL; it = it->next)
		want[i++] = it->valuedouble;
	char *s = pl_json_print(root);
	cJSON_Delete(root);
	const char *q = strchr(s, '[') + 1;
	for (i = 0; i < n; i++) {
		q += strspn(q, " \t\n,");
		size_t len = strcspn(q, " \t\n,]");
		char ref[40];
		shortest_ref(ref, want[i]);
		if (strlen(ref) != len || memcmp(ref, q, len) != 0)
			fail_msg("%a written as %.*s, not %s", want[i], (int)len, q, ref);
		q += len;
	}
	free(s);
	free(want);
}

/* Cluster files: uniform links, matrices and bad input. */
static void
test_cluster_parse(void **state)
{
	(void)state;
	const char *ok = "{\"format\": \"placelab-cluster/1\", \"name\": \"two\",\n"
	    "\"devices\": [{\"name\": \"/cpu:0\", \"kind\": \"cpu\", \"peak_flops\": 1e12, \"mem_bytes\": 1e10, \"mem_bw\": 5e10, \"launch_us\": 1},\n"
	    "  {\"name\": \"/gpu:0\", \"kind\": \"gpu\", \"peak_flops\": 1e13, \"mem_bytes\": 8e9, \"mem_bw\": 3e11}],\n"
	    "\"links\": {\"bandwidth\": [[0, 1e9], [2e9, 0]], \"latency_us\": 7},\n"
	    "\"placeto\": {\"delta1\": 1, \"delta2\": 2, \"transfer_speed\": 3}}";
	char *cause = NULL;
	struct pl_cluster *c = pl_cluster_parse_json(ok, strlen(ok), "c.json", &cause);
	if (c == NULL)
		fail_msg("%s", cause);
	assert_int_equal(c->n_dev, 2);
	assert_true(c->bw[1] == 1e9 && c->bw[2] == 2e9);
	assert_true(c->lat_us[1] == 7 && c->lat_us[2] == 7);
	assert_true(c->placeto.delta1 == 1 && c->placeto.transfer_speed == 3 && c->placeto.init_offset == 0);
	pl_cluster_free(c);

#define CL "{\"format\": \"placelab-cluster/1\", \"devices\": [\n"
#define DEV(n) "{\"name\": \"" n "\", \"peak_flops\": 1e12, \"mem_bytes\": 1e9, \"mem_bw\": 1e11}"
	const char *bad[][2] = {
		{ CL "]}", "c.json:1:45: 'devices' is empty (expected an array of 1 to 64 devices)" },
		{ "{\"format\": \"placelab-cluster/1\"}", "c.json: missing 'devices' array" },
		{ CL "{\"name\": \"a\", \"kind\": \"fpga\"}]}", "c.json:2:23: device 'a': field 'kind' (expected cpu, gpu or tpu)" },
		{ CL "{\"name\": \"a\", \"peak_flops\": 0, \"mem_bytes\": 1, \"mem_bw\": 1e6}]}",
		  "c.json:2:29: device 'a': peak_flops 0 (expected FLOP/s in [1e6, 1e18])" },
		/* near-zero figures made every simulated time infinite */
		{ CL "{\"name\": \"a\", \"peak_flops\": 1e-300, \"mem_bytes\": 1, \"mem_bw\": 1e6}]}", "peak_flops 1e-300 (expected FLOP/s in [1e6, 1e18])" },
		{ CL "{\"name\": \"a\", \"peak_flops\": 1e6, \"mem_bytes\": 1, \"mem_bw\": 1e-300}]}", "c.json:2:60: device 'a': mem_bw 1e-300 (expected bytes/s in [1e6, 1e16])" },
		{ CL "{\"name\": \"a\", \"peak_flops\": 1e6, \"mem_bytes\": 0, \"mem_bw\": 1e6}]}", "c.json:2:47: device 'a': mem_bytes 0 (expected a whole number of bytes in [1, 2^50])" },
		{ CL "{\"name\": \"a\", \"mem_bytes\": 1, \"mem_bw\": 1e6}]}", "c.json:2:1: device 'a': missing field 'peak_flops'" },
		{ CL DEV("a") ",\n" DEV("a") "]}", "c.json:3:10: device 'a': duplicate name" },
		{ CL DEV("a") ",\n" DEV("b") "], \"links\": {\"bandwidth\": [[1]]}}", "c.json:3:94: links.bandwidth has 1 rows (expected a number or a 2x2 matrix" },
		{ CL DEV("a") ",\n" DEV("b") "], \"links\": {\"bandwidth\": -4}}", "c.json:3:94: links: bandwidth -4 (expected bytes/s in [1e3, 1e16])" },
		{ CL DEV("a") ",\n" DEV("b") "], \"links\": {\"bandwidth\": 1e-300}}", "links: bandwidth 1e-300" },
		{ CL DEV("a") ",\n" DEV("b") "], \"links\": {\"bandwidth\": [[0, 1e9],\n [-5, 0]]}}",
		  "c.json:4:3: link 'b' -> 'a' (links.bandwidth[1][0]): bandwidth -5 (expected bytes/s in [1e3, 1e16])" },
		{ CL DEV("a") ",\n" DEV("b") "], \"links\": {\"latency_us\": [[0, 1], [2]]}}", "c.json:3:104: links.latency_us[1] (expected a row of 2 numbers)" },
		{ CL DEV("a") "], \"placeto\": {\"delta1\": -1}}", "c.json:2:93: placeto: delta1 -1 (expected us in [0, 1e9])" },
		{ CL DEV("a") "], \"placeto\": {\"transfer_speed\": 0}}", "c.json:2:101: placeto: transfer_speed 0 (expected bytes/us in [1e-3, 1e15])" },
		{ "{\"format\": \"placelab-graph/1\"}", "c.json:1:12: format \"placelab-graph/1\" (expected \"placelab-cluster/1\")" },
		{ "{\"name\": \"x\",\n \"format\": \"placelab-cluster/2\"}", "c.json:2:12: format version \"placelab-cluster/2\" is not supported" },
		{ "{\"format\": 1, \"devices\": []}", "c.json:1:12: field 'format' (expected the string \"placelab-cluster/1\")" },
		{ "{\"devices\": []}", "c.json:1:1: missing \"format\" field" },
		/* where the top level is (it said 1:1) */
		{ "\n\n   [1]", "c.json:3:4: expected a JSON object at the top level" },
		{ CL DEV("a") "]}\n{\"format\": \"placelab-cluster/1\"}", "c.json:3:1: '{\"format\": \"' after the JSON object (expected the end of the file)" },
		/* unknown and repeated fields, in every object */
		{ CL DEV("a") "], \"link\": {}}", "c.json:2:71: unknown field 'link' (expected format, name, description, devices, links, placeto)" },
		{ CL "{\"name\": \"a\", \"peak_flops\": 1e12, \"mem\": 1e9}]}", "c.json:2:35: device 'a': unknown field 'mem' (expected name, kind, peak_flops, mem_bytes, mem_bw, launch_us)" },
		{ CL "{\"name\": \"a\", \"peak_flops\": 1e12, \"peak_flops\": 1e9}]}", "c.json:2:35: device 'a': field 'peak_flops' given a second time" },
		{ CL DEV("a") "], \"links\": {\"bw\": 1}}", "c.json:2:81: links: unknown field 'bw' (expected shared_bus, bandwidth, latency_us)" },
		{ CL DEV("a") "], \"placeto\": {\"delta\": 1}}", "c.json:2:83: placeto: unknown field 'delta' (expected delta1, delta2, transfer_speed, init_offset)" },
		{ CL DEV("a") "], \"name\": \"x\", \"name\": \"y\"}", "c.json:2:84: field 'name' given a second time" },
		/* a device name a graph would read as a kind */
		{ CL "{\"name\": \"gpu\", \"peak_flops\": 1e12, \"mem_bytes\": 1e9, \"mem_bw\": 1e11}]}",
		  "c.json:2:10: device 'gpu': name (expected a name other than cpu, gpu, tpu and any, which graphs read as kinds: \"/gpu:0\", say)" },
		{ CL DEV("a") ",\n{\"name\": \"any\", \"peak_flops\": 1e12, \"mem_bytes\": 1e9, \"mem_bw\": 1e11}]}",
		  "c.json:3:10: device 'any': name (expected a name other than cpu, gpu, tpu and any" },
		/* not UTF-8 (Latin-1) */
		{ CL DEV("caf\xe9") "]}", "c.json:2:14: byte 0xE9 is not UTF-8 (expected UTF-8 text" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_null(pl_cluster_parse_json(bad[i][0], strlen(bad[i][0]), "c.json", &cause));
		assert_has(cause, bad[i][1]);
		free(cause);
	}
	/* nesting beyond cJSON's limit is named, at its place */
	char *deep = malloc(4096);
	assert_non_null(deep);
	char *p = deep + sprintf(deep, CL);
	memset(p, '[', 1200);
	memset(p + 1200, ']', 1200);
	strcpy(p + 2400, "]}");
	assert_null(pl_cluster_parse_json(deep, strlen(deep), "c.json", &cause));
	assert_has(cause, "c.json:2:999: JSON nested more than 1000 levels deep");
	free(cause);
	free(deep);
	/* -c takes presets or files; unknown names list the presets */
	assert_null(pl_cluster_from_arg("k99", &cause));
	assert_has(cause, "k80x4");
	free(cause);
	assert_null(pl_cluster_from_arg("/nonexistent/c.json", &cause));
	assert_has(cause, "/nonexistent/c.json");
	free(cause);
	/* a bare name is a preset's even when a file has it: the message
	 * says how to name the file */
	FILE *f = fopen("test-io-bare-cluster", "w");
	assert_non_null(f);
	fclose(f);
	assert_null(pl_cluster_from_arg("test-io-bare-cluster", &cause));
	assert_has(cause, "for the file test-io-bare-cluster write ./test-io-bare-cluster");
	free(cause);
	unlink("test-io-bare-cluster");
}

static const char graph_json[] = "{\"format\": \"placelab-graph/1\", \"name\": \"g\",\n"
    "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\", \"group\": \"G\"}, {\"name\": \"c\", \"group\": \"G\"},"
    " {\"name\": \"d\", \"device\": \"cpu\"}],\n"
    "\"edges\": [[\"a\", \"b\", 4], [\"b\", \"c\", 4], [\"c\", \"d\", 4]]}";

/* Placements: round trip with priorities, and every check. */
static void
test_placement(void **state)
{
	(void)state;
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(graph_json, strlen(graph_json), "g", &cause);
	assert_non_null(g);
	struct pl_cluster *c = pl_cluster_preset("k80x2");
	struct pl_placement *p = pl_placement_new(4, c->n_dev);
	p->dev[0] = 1;
	p->dev[1] = p->dev[2] = 2;
	p->dev[3] = 0;
	pl_placement_ensure_prio(p);
	p->prio[2] = 2.5;
	assert_int_equal(pl_placement_check(p, g, c, &cause), 0);
	char path[] = "/tmp/pl-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pl_placement_save_json(p, g, c, path, &cause), 0);
	struct pl_placement *q = pl_placement_load_json(path, g, c, NULL, &cause);
	if (q == NULL)
		fail_msg("%s", cause);
	assert_memory_equal(p->dev, q->dev, sizeof *p->dev * 4);
	assert_non_null(q->prio);
	assert_true(q->prio[2] == 2.5);
	assert_null(q->tprio);
	pl_placement_free(q);
	/* tensor priorities (BRKGA's transfer order) survive a round trip */
	pl_placement_ensure_tprio(p, g->n_tensors);
	p->tprio[1 * c->n_dev + 2] = 0.25;
	p->tprio[2 * c->n_dev + 0] = -3;
	assert_int_equal(pl_placement_save_json(p, g, c, path, &cause), 0);
	q = pl_placement_load_json(path, g, c, NULL, &cause);
	if (q == NULL)
		fail_msg("%s", cause);
	assert_non_null(q->tprio);
	assert_int_equal(q->n_tensors, g->n_tensors);
	assert_memory_equal(p->tprio, q->tprio, sizeof *p->tprio * g->n_tensors * c->n_dev);
	struct pl_placement *r = pl_placement_clone(q);
	assert_memory_equal(r->tprio, q->tprio, sizeof *p->tprio * g->n_tensors * c->n_dev);
	pl_placement_free(r);
	pl_placement_free(q);
	unlink(path);

	/* colocation group split */
	p->dev[2] = 1;
	assert_int_equal(pl_placement_check(p, g, c, &cause), -1);
	assert_has(cause, "colocation group 'G'");
	free(cause);
	/* constraint broken */
	p->dev[2] = 2;
	p->dev[3] = 1;
	assert_int_equal(pl_placement_check(p, g, c, &cause), -1);
	assert_has(cause, "op 'd'");
	free(cause);

#define PH "{\"format\": \"placelab-placement/1\", \"graph\": \"g\", \"cluster\": \"k80x2\",\n"
#define ALL "{\"a\": \"/gpu:0\", \"b\": \"/gpu:0\", \"c\": \"/gpu:0\", \"d\": \"/cpu:0\"}"
	const char *bad[][2] = {
		{ PH "\"devices\": {\"a\": \"/gpu:0\"}}", "p.json:2:12: op 'b' has no device (expected every op of graph 'g' placed)" },
		{ PH "\"devices\": {\"a\": \"/gpu:0\",\n \"zz\": \"/gpu:0\"}}", "p.json:3:2: op 'zz' is not in graph 'g'" },
		{ PH "\"devices\": {\"a\": \"/tpu:9\"}}", "p.json:2:18: op 'a': device '/tpu:9' is not in cluster 'k80x2'" },
		{ PH "\"devices\": {\"a\": 1}}", "p.json:2:18: op 'a': expected a device name string" },
		{ PH "\"devices\": {\"a\": \"/gpu:0\", \"b\": \"/gpu:0\", \"c\": \"/gpu:1\", \"d\": \"/cpu:0\"}}",
		  "p.json:2:48: op 'c': on '/gpu:1' but its colocation group 'G' is on '/gpu:0' (where op 'b' is)" },
		/* a broken constraint names the file and the line */
		{ PH "\"devices\": {\"a\": \"/gpu:0\", \"b\": \"/gpu:0\", \"c\": \"/gpu:0\",\n \"d\": \"/gpu:1\"}}",
		  "p.json:3:7: op 'd': placed on '/gpu:1', which its device constraint 'cpu' forbids" },
		{ "{\"format\": \"placelab-placement/1\"}", "p.json: missing 'devices'" },
		{ "{\"devices\": {},\n\"format\": \"placelab-cluster/1\"}", "p.json:2:11: format \"placelab-cluster/1\" (expected \"placelab-placement/1\")" },
		{ PH "\"devices\": []}", "p.json:2:12: 'devices' (expected an object" },
		{ PH "\"devices\": " ALL ",\n \"tensor_priorities\": [[\"a\", 5, \"/gpu:0\", 1]]}",
		  "p.json:3:30: tensor_priorities[0]: op 'a' has no tensor of that output index" },
		{ PH "\"devices\": " ALL ",\n \"tensor_priorities\": [[\"a\", 0, \"/gpu:0\", 1, 2]]}", "p.json:3:24: tensor_priorities[0] (expected [op, output index, device, priority])" },
		{ PH "\"devices\": " ALL ",\n \"tensor_priorities\": [[\"a\", 0, \"/gpu:0\", 1], [\"a\", 0, \"/gpu:0\", 2]]}",
		  "p.json:3:47: tensor_priorities[1]: output 0 of 'a' to '/gpu:0' given a second time" },
		{ PH "\"devices\": " ALL ",\n \"priorities\": {\"a\": 1, \"zz\": 2}}", "p.json:3:25: priorities: op 'zz' is not in graph 'g'" },
		{ PH "\"devices\": " ALL ",\n \"priorities\": {\"a\": \"x\"}}", "p.json:3:22: priorities: op 'a' (expected a finite number)" },
		/* text after the object, repeated and unknown keys */
		{ PH "\"devices\": " ALL "}\n{\"format\": \"placelab-placement/1\", \"devices\": {}}", "p.json:3:1: '{\"format\": \"' after the JSON object" },
		{ PH "\"devices\": " ALL "}]]", "p.json:2:73: ']]' after the JSON object" },
		{ PH "\"devices\": {\"a\": \"/gpu:0\", \"a\": \"/gpu:1\"}}", "p.json:2:28: op 'a' placed a second time (expected each op once)" },
		{ PH "\"devices\": " ALL ",\n \"priorities\": {\"a\": 1, \"a\": 2}}", "p.json:3:25: priorities: op 'a' given a second time" },
		{ PH "\"devices\": " ALL ",\n \"priority\": {}}", "p.json:3:2: unknown field 'priority' (expected format, graph, cluster, devices, priorities, tensor_priorities)" },
		{ PH "\"devices\": " ALL ", \"devices\": " ALL "}", "p.json:2:74: field 'devices' given a second time" },
		{ PH "\"graph\": 3, \"devices\": " ALL "}", "p.json:2:1: field 'graph' given a second time" },
		/* placed for another graph and the ops do not match: an error naming it */
		{ "{\"format\": \"placelab-placement/1\", \"graph\": \"other\",\n\"devices\": {\"x\": \"/gpu:0\"}}",
		  "p.json:2:13: op 'x' is not in graph 'g' (the file places graph 'other')" },
		{ "{\"format\": \"placelab-placement/1\", \"cluster\": \"k80x8\",\n\"devices\": {\"a\": \"/gpu:7\"}}",
		  "p.json:2:18: op 'a': device '/gpu:7' is not in cluster 'k80x2' (the file places on cluster 'k80x8')" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_null(pl_placement_parse_json(bad[i][0], strlen(bad[i][0]), "p.json", g, c, NULL, &cause));
		assert_has(cause, bad[i][1]);
		free(cause);
	}
	pl_placement_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* JSON output reads back as the same doubles, where cJSON's own printing
 * lets the last digit go (0.1 + 0.2 came out as 0.3); not-finite numbers
 * are null. */
static void
test_json_exact(void **state)
{
	(void)state;
	volatile double tenth = 0.1;
	const double v[] = { tenth + 0.2, 6.8500000000000005, 1e300, 5e-324, -0.0, 3,
		12884901888.0, 1.0 / 3, -2.5e-7, 1e15 + 0.5, 123456789012345678.0 };
	size_t n = sizeof v / sizeof v[0];
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(root, "v");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(v[i]));
	cJSON_AddNumberToObject(root, "nan", NAN);
	cJSON_AddNumberToObject(root, "inf", INFINITY);
	char *s = pl_json_print(root);
	cJSON_Delete(root);
	cJSON *back = cJSON_Parse(s);
	assert_non_null(back);
	const cJSON *ba = cJSON_GetObjectItem(back, "v");
	assert_int_equal(cJSON_GetArraySize(ba), (int)n);
	for (size_t i = 0; i < n; i++) {
		double got = cJSON_GetArrayItem(ba, (int)i)->valuedouble;
		if (got != v[i])
			fail_msg("%.17g printed as %s", v[i], s);
	}
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(back, "nan")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(back, "inf")));
	assert_non_null(strstr(s, "\t\"v\":"));	/* indented as cJSON_Print does */
	cJSON_Delete(back);
	free(s);
}

/* A placement whose graph or cluster names differ loads when its ops and
 * devices match, with a warning naming both; none when the names match. */
static void
test_placement_names(void **state)
{
	(void)state;
	char *cause = NULL, *warning = NULL;
	struct pl_graph *g = pl_graph_parse_json(graph_json, strlen(graph_json), "g", &cause);
	struct pl_cluster *c = pl_cluster_preset("k80x2");
	assert_non_null(g);
	const char *renamed = "{\"format\": \"placelab-placement/1\",\n \"graph\": \"old-name\", \"cluster\": \"k80x2\",\n"
	    "\"devices\": {\"a\": \"/gpu:0\", \"b\": \"/gpu:0\", \"c\": \"/gpu:0\", \"d\": \"/cpu:0\"}}";
	struct pl_placement *p = pl_placement_parse_json(renamed, strlen(renamed), "p.json", g, c, &warning, &cause);
	if (p == NULL)
		fail_msg("%s", cause);
	assert_has(warning, "p.json:2:11: warning: the placement names graph 'old-name' (not 'g'); its ops and devices match");
	pl_placement_free(p);
	free(warning);
	warning = (char *)"unset";
	const char *same = "{\"format\": \"placelab-placement/1\", \"graph\": \"g\", \"cluster\": \"k80x2\",\n"
	    "\"devices\": {\"a\": \"/gpu:0\", \"b\": \"/gpu:0\", \"c\": \"/gpu:0\", \"d\": \"/cpu:0\"}}";
	p = pl_placement_parse_json(same, strlen(same), "p.json", g, c, &warning, &cause);
	assert_non_null(p);
	assert_null(warning);
	pl_placement_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* DOT as people write it: quoted names with spaces, subgraphs, defaults. */
static void
test_dot(void **state)
{
	(void)state;
	const char *dot =
	    "// a hand-written graph\n"
	    "digraph \"tiny net\" {\n"
	    "  node [type=\"MatMul\", flops=\"2e6\", out_bytes=400];\n"
	    "  edge [bytes=400];\n"
	    "  \"input data\" [type=Placeholder, flops=0];\n"
	    "  subgraph cluster_enc { label=\"encoder\"; \"enc 1\" [scope=\"enc/l0\"]; \"enc 2\" [scope=\"enc/l1\", group=g1]; }\n"
	    "  subgraph { rank=same; loss [device=cpu, measured_gpu_us=\"12.5\"]; }\n"
	    "  \"input data\" -> \"enc 1\" -> \"enc 2\";\n"
	    "  \"enc 2\" -> loss [bytes=16, output=1];\n"
	    "}\n";
	char *cause = NULL;
	struct pl_graph *g = plv_graph_parse_dot(dot, strlen(dot), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_string_equal(g->name, "tiny net");
	assert_int_equal(g->n_ops, 4);
	assert_int_equal(g->n_edges, 3);
	assert_string_equal(g->ops[0].name, "input data");
	assert_string_equal(g->ops[0].type, "Placeholder");
	assert_true(g->ops[0].flops == 0);
	assert_true(g->ops[1].flops == 2e6);
	assert_string_equal(g->ops[1].type, "MatMul");
	assert_string_equal(g->ops[2].scope, "enc/l1");
	assert_string_equal(g->groups[g->ops[2].group].name, "g1");
	assert_int_equal(g->ops[3].cons.kind, PL_CONS_KIND);
	assert_true(g->ops[3].measured_us[PL_DEV_GPU] == 12.5);
	int e = g->out_edge[g->out_off[2]];
	assert_int_equal(g->tensors[g->edges[e].tensor].bytes, 16);
	assert_int_equal(g->tensors[g->edges[e].tensor].index, 1);
	pl_graph_free(g);

	const char *bad[][2] = {
		{ "digraph g { a -> b; b -> a; }", "cycle" },
		{ "digraph g { a [flops=\"lots\"]; }", "node 'a'" },
		{ "graph g { a -- b; }", "undirected" },
		{ "digraph g { a -> b [bytes=\"-1\"]; }", "edge 'a' -> 'b'" },
		{ "digraph g { a -> ; }", "t.dot:1: DOT syntax error near" },
		{ "digraph g { }", "no ops" },
		{ "digraph g {\n a -> \"b\xff\"; }", "t.dot:2:9: byte 0xFF is not UTF-8" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_null(plv_graph_parse_dot(bad[i][0], strlen(bad[i][0]), "t.dot", &cause));
		assert_has(cause, bad[i][1]);
		assert_has(cause, "t.dot");
		free(cause);
	}
}

/* Well-formed UTF-8 passes; each kind of ill-formed sequence is found at
 * its first byte (Unicode's table 3-7). */
static void
test_utf8_check(void **state)
{
	(void)state;
	static const char *const good[] = {
		"", "plain", "caf\xc3\xa9", "\xe2\x82\xac", "\xed\x9f\xbf", "\xee\x80\x80",
		"\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xef\xbb\xbf{}",
		"0123456789abcdef\xc3\xa9 and some more ASCII after it",
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_int_equal(pl_utf8_check(good[i], strlen(good[i])), strlen(good[i]));
	static const struct { const char *s; size_t at; } bad[] = {
		{ "ab\x80", 2 },		/* a stray continuation byte */
		{ "a\xc3", 1 },		/* cut short */
		{ "a\xc3(", 1 },		/* no continuation */
		{ "\xc0\xaf", 0 },		/* overlong (2 bytes) */
		{ "\xe0\x80\xaf", 0 },	/* overlong (3 bytes) */
		{ "\xf0\x80\x80\xaf", 0 },	/* overlong (4 bytes) */
		{ "x\xed\xa0\x80", 1 },	/* a surrogate */
		{ "\xf4\x90\x80\x80", 0 },	/* above U+10FFFF */
		{ "\xf5\x80\x80\x80", 0 },
		{ "\xe2\x82", 0 },		/* cut short at the end */
		{ "\xe2\x82x", 0 },		/* a bad third byte */
		{ "ok \xff", 3 },
		{ "0123456789abcdefghij\xff", 20 },	/* after the 8-byte steps */
		{ "01234567\x80", 8 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(pl_utf8_check(bad[i].s, strlen(bad[i].s)), bad[i].at);
	char *e = pl_utf8_error("f.json", "{\n  \"\xe9\"", 6);
	assert_string_equal(e, "f.json:2:4: byte 0xE9 is not UTF-8 (expected UTF-8 text; "
	    "a file in another encoding can be converted with iconv)");
	free(e);
	assert_null(pl_utf8_error("f.json", "{}", 2));
}

/* Parse DOT text expecting an error containing frag. */
static void
dot_bad(const char *text, const char *frag)
{
	char *cause = NULL;
	assert_null(plv_graph_parse_dot(text, strlen(text), "t.dot", &cause));
	assert_has(cause, frag);
	free(cause);
}

/* Parse DOT text expecting a graph of n_ops ops and n_edges edges. */
static void
dot_good(const char *text, int n_ops, int n_edges)
{
	char *cause = NULL;
	struct pl_graph *g = plv_graph_parse_dot(text, strlen(text), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_int_equal(g->n_ops, n_ops);
	assert_int_equal(g->n_edges, n_edges);
	pl_graph_free(g);
}

/* A policy's weights, Beta parameters or an empty file given where a
 * graph, cluster or placement goes: said so, not a syntax error. */
static void
test_foreign_documents(void **state)
{
	(void)state;
	static const char plw[] = "PLWEIGHT\001\000\000\000rest";
	static const char beta[] = "# BRKGA\nplacelab-beta/1\ndefault 2 2\n";
	char *cause = NULL;
	assert_null(plv_graph_parse(plw, sizeof plw - 1, "p.plw", &cause));
	assert_string_equal(cause, "p.plw: holds a trained policy (PLWEIGHT), not a graph "
	    "(expected a placelab JSON graph or a DOT file)");
	free(cause);
	assert_null(plv_graph_parse(beta, strlen(beta), "b.json", &cause));
	assert_has(cause, "b.json: holds BRKGA's Beta parameters (placelab-beta/1), not a graph");
	free(cause);
	assert_null(plv_graph_parse("", 0, "e.plw", &cause));
	assert_string_equal(cause, "e.plw: an empty file, not a graph (expected a placelab JSON graph or a DOT file)");
	free(cause);
	assert_null(pl_cluster_parse_json(plw, sizeof plw - 1, "c.plw", &cause));
	assert_string_equal(cause, "c.plw: holds a trained policy (PLWEIGHT), not a cluster "
	    "(expected a placelab JSON cluster file or a preset name)");
	free(cause);
	assert_null(pl_graph_parse_json(plw, sizeof plw - 1, "g.json", &cause));
	assert_string_equal(cause, "g.json: holds a trained policy (PLWEIGHT), not a graph "
	    "(expected a placelab JSON graph)");
	free(cause);
	struct pl_graph *g = plv_graph_parse("digraph g { a -> b; }", 21, "g.dot", &cause);
	assert_non_null(g);
	struct pl_cluster *c = pl_cluster_preset("k80x4");
	assert_non_null(c);
	assert_null(pl_placement_parse_json(beta, strlen(beta), "p.txt", g, c, NULL, &cause));
	assert_string_equal(cause, "p.txt: holds BRKGA's Beta parameters (placelab-beta/1), "
	    "not a placement (expected a placelab JSON placement file)");
	free(cause);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* DOT errors name the file and line (found in the text: cgraph keeps no
 * lines), numbers are decimal and checked like JSON's, and an anonymous
 * graph takes the file's name. */
static void
test_dot_errors(void **state)
{
	(void)state;
	/* a node's line is its statement with attributes, not its first mention */
	dot_bad("digraph g {\n  a -> b;\n  // a [flops=\"0x10\"] in a comment is no statement\n"
	    "  b [label=\"a [flops=1]\"];\n  a [flops=\"0x10\"];\n}\n",
	    "t.dot:5: node 'a': attribute 'flops' is \"0x10\", not a decimal number (expected a number of FLOPs in [0, 1e18])");
	dot_bad("digraph g {\n a [flops=\"\"];\n}", "t.dot:2: node 'a': attribute 'flops' is empty (expected a decimal number");
	/* an empty device or group is an error, as in JSON, not taken for unset */
	dot_bad("digraph g {\n a;\n b [flops=1,\n device=\"\"];\n}", "t.dot:4: node 'b': attribute 'device' is empty (expected a device name");
	dot_bad("digraph g {\n a [group=\"\"];\n}", "t.dot:2: node 'a': attribute 'group' is empty (expected a colocation group's name");
	dot_bad("digraph g {\n node [type=X];\n \"a \\\"q\\\"\" [flops=\"inf\"];\n}", "t.dot:3: node 'a \"q\"': attribute 'flops' is \"inf\", not a decimal number");
	/* "-1" was taken for "not measured", "-2" was refused: both are refused, as in JSON */
	dot_bad("digraph g {\n\n a [measured_gpu_us=\"-1\"];\n}", "t.dot:3: node 'a': attribute 'measured_gpu_us' is -1 (expected a time in us in [0, 1e12]; leave it out when not measured)");
	dot_bad("digraph g {\n a -> b\n  -> c [output=5000];\n}", "t.dot:2: edge 'a' -> 'b': attribute 'output' is 5000 (expected an output index 0..4095)");
	dot_bad("digraph g {\n a -> b [bytes=\"1.5\"];\n}", "t.dot:2: edge 'a' -> 'b': attribute 'bytes' is 1.5 (expected a whole number of bytes in [0, 2^50])");
	/* semantic errors through the builder: the line of the edge that breaks the rule */
	dot_bad("digraph g {\n a -> b [bytes=4];\n c;\n a -> b [bytes=5];\n}", "t.dot:4: edge 'a' -> 'b': output 0 of 'a' carries 5 bytes here but 4");
	dot_bad("digraph g {\n a -> b;\n b -> c;\n subgraph cluster_x { c:p1 -> a:n; }\n}", "t.dot:2: the graph has a cycle of 3 ops");
	dot_bad("digraph g {\n a -> ;\n}", "t.dot:2: DOT syntax error near ';' (expected statements such as a -> b");
	/* a file cut short, or no graph at all: what was expected is said */
	dot_bad("digraph g {\n a -> b;\n b [flops=", "t.dot:3: DOT syntax error (the file ends inside the graph, "
	    "in the '[' of line 3: expected the rest of it)");
	dot_bad("digraph g {\n a -> b;\n", "t.dot:3: DOT syntax error (the file ends inside the graph: "
	    "expected the rest of it, up to its closing '}')");
	dot_bad("digraph g {\n a -> b [label=\"x\n", "(the quoted string that opens on line 2 never ends: "
	    "expected its closing '\"')");
	dot_bad("digraph g {\n a -> b;\n /* note\n", "(the comment that opens on line 3 never ends: "
	    "expected its closing '*/')");
	/* a bracket left open mid-file is named where it opened; braces in
	 * quoted and HTML strings are no brackets */
	dot_bad("digraph g {\n a -> b [bytes=\"4\";\n c -> d;\n}\n", "t.dot:3: DOT syntax error near '->' "
	    "(expected the ']' that closes the '[' of line 2)");
	dot_bad("digraph g {\n a [label=<x{y>, note=\"{\"];\n a -> ;\n}\n", "t.dot:3: DOT syntax error near ';' "
	    "(expected statements such as");
	dot_bad("a -> b\n", "t.dot:1: DOT syntax error near 'a' (expected a graph: digraph NAME {");
	/* nesting deeper than the parser takes: refused at its line, never
	 * read as the ops before it (x, y) with the rest left out; and the
	 * parses after it are not disturbed (the next dot_bad) */
	struct pl_strbuf deep = { 0 };
	pl_sb_printf(&deep, "%s", "digraph g { x -> y;\n");
	for (int i = 0; i < 5000; i++)
		pl_sb_printf(&deep, "%s", "subgraph { ");
	pl_sb_printf(&deep, "%s", "a -> b");
	for (int i = 0; i < 5000; i++)
		pl_sb_printf(&deep, "%s", " }");
	pl_sb_printf(&deep, "%s", "\n c -> d;\n}\n");
	dot_bad(deep.s, "t.dot:2: subgraphs nested more than 1000 deep here "
	    "(expected at most 1000 levels of subgraphs)");
	free(deep.s);
	/* a chain of edges longer than the parser's stack: refused (it was
	 * read as its ops without a single edge); 1000 edges are read */
	struct pl_strbuf chain = { 0 };
	pl_sb_printf(&chain, "digraph g {\n a -> b [bytes=4] c -> d\n n0");
	for (int i = 1; i <= 1000; i++)
		pl_sb_printf(&chain, " %s-> n%d", i == 1000 ? "\n" : "", i);
	pl_sb_printf(&chain, ";\n}\n");
	dot_good(chain.s, 1005, 1002);
	chain.len -= strlen(";\n}\n");
	pl_sb_printf(&chain, " -> n1001;\n}\n");
	dot_bad(chain.s, "t.dot:4: one statement chains more than 1000 edges here (expected at most "
	    "1000: write a long a -> b -> c ... chain as one a -> b; statement per edge)");
	free(chain.s);
	/* a chain through subgraphs ({n1} -> {n2} ...) counts as one; so
	 * does one through subgraphs of several nodes (their own statements
	 * count apart); an undirected graph is refused as such, however long
	 * its chains */
	static const char *const chain_err[] = {
		"t.dot:2: one statement chains more than 1000 edges here",
		"t.dot:2: one statement chains more than 1000 edges here",
		"t.dot:1: graph 'g' is undirected (expected 'digraph')",
	};
	for (int c = 0; c < 3; c++) {
		struct pl_strbuf sb = { 0 };
		pl_sb_printf(&sb, "%s g {\n n0", c < 2 ? "digraph" : "graph");
		for (int i = 1; i <= 3000; i++) {
			if (c == 0)
				pl_sb_printf(&sb, " -> {n%d}", i);
			else if (c == 1)
				pl_sb_printf(&sb, " -> subgraph s%d {a b; c}", i);
			else
				pl_sb_printf(&sb, " -- n%d", i);
		}
		pl_sb_printf(&sb, ";\n}\n");
		dot_bad(sb.s, chain_err[c]);
		free(sb.s);
	}
	/* chains inside a subgraph at a chain's end add up (the parser holds
	 * the outer one while it reads the inner); 1001 fan-in statements
	 * without semicolons ({a b} -> c) are 1001 chains of one edge */
	struct pl_strbuf nest = { 0 }, fan = { 0 };
	pl_sb_printf(&nest, "digraph g {\n a0");
	for (int l = 0; l < 3; l++) {
		for (int i = 1; i <= 600; i++)
			pl_sb_printf(&nest, " -> %c%d", 'a' + l, i);
		if (l < 2)
			pl_sb_printf(&nest, " -> {\n %c0", 'b' + l);
	}
	pl_sb_printf(&nest, "\n}}}\n");
	dot_bad(nest.s, "t.dot:3: one statement chains more than 1000 edges here, counting the "
	    "chains it is inside");
	free(nest.s);
	pl_sb_printf(&fan, "digraph g {\n");
	for (int i = 1; i <= 1001; i++)
		pl_sb_printf(&fan, " {a%d b%d} -> c%d [bytes=\"4\"]\n", i, i, i);
	pl_sb_printf(&fan, "}\n");
	dot_good(fan.s, 3003, 2002);
	free(fan.s);
	/* and a valid file reads after all these */
	dot_good("digraph ok { a -> b; }", 2, 1);
	/* a long name is a node like any other: its attributes are checked at
	 * its line (beyond 1 KiB it was not found, and nothing was) */
	char *longname = pl_xmalloc(5001);
	memset(longname, 'x', 5000);
	longname[5000] = '\0';
	char *text = pl_xasprintf("digraph g {\n \"%s\" -> b;\n \"%s\" [flop=\"1\"];\n}", longname, longname);
	dot_bad(text, "t.dot:3: node 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...': "
	    "unknown attribute 'flop' (expected 'flops')");
	free(text);
	free(longname);
	/* a decimal number of any length (70 zeros: refused as "not a
	 * decimal number" when it outgrew a 64-byte copy) */
	const char *many = "digraph g { a [flops=\"1.0000000000000000000000000000000000000000000000000000000000000000000000\"]; }";
	char *mwhy = NULL;
	struct pl_graph *mg = plv_graph_parse_dot(many, strlen(many), "t.dot", &mwhy);
	if (mg == NULL)
		fail_msg("%s", mwhy);
	assert_true(mg->ops[0].flops == 1.0);
	pl_graph_free(mg);
	/* in a `node [...]` default line "" undoes an earlier default */
	const char *undo = "digraph g {\n node [group=G, device=gpu];\n a;\n node [group=\"\", device=\"\"];\n b; a -> b;\n}";
	mg = plv_graph_parse_dot(undo, strlen(undo), "t.dot", &mwhy);
	if (mg == NULL)
		fail_msg("%s", mwhy);
	assert_int_equal(mg->ops[0].cons.kind, PL_CONS_KIND);
	assert_int_equal(mg->ops[1].cons.kind, PL_CONS_ANY);
	pl_graph_free(mg);
	/* what follows a NUL byte was never read: refused at the NUL */
	static const char nul[] = "digraph g { a }\n\0}junk";
	char *why = NULL;
	assert_null(plv_graph_parse_dot(nul, sizeof nul - 1, "t.dot", &why));
	assert_has(why, "t.dot:2:1: a NUL byte (expected text)");
	free(why);
	/* an unquoted exponent is a syntax error for DOT: say how to write it */
	dot_bad("digraph g {\n a [label=x];\n b [flops=2e9];\n}", "t.dot:3: DOT syntax error near ']' (a number with an exponent or a '+' must be quoted in DOT: flops=\"1e9\")");
	/* Graphviz ignores attributes it does not know: placelab-like ones that
	 * are misspelt or on the wrong kind of statement are refused */
	dot_bad("digraph g {\n a;\n b [label=x, flop=5];\n}", "t.dot:3: node 'b': unknown attribute 'flop' (expected 'flops')");
	dot_bad("digraph g {\n a [measured_fpga_us=3];\n}", "t.dot:2: node 'a': unknown attribute 'measured_fpga_us' (expected measured_cpu_us");
	dot_bad("digraph g {\n a [bytes=3];\n}", "t.dot:2: node 'a': attribute 'bytes' belongs on edges, not on nodes");
	dot_bad("digraph g {\n a -> b\n [flops=3];\n}", "t.dot:3: an edge statement: attribute 'flops' belongs on nodes, not on edges");
	dot_bad("digraph g {\n edge [outptu=1];\n a -> b;\n}", "t.dot:2: default attributes: unknown attribute 'outptu' (expected 'output')");
	/* a second graph was silently ignored */
	dot_bad("digraph g {\n a [device=\"/gpu:0\", group=g];\n}\n\ndigraph h { x }", "t.dot:5: text after the graph's closing '}'");
	dot_bad("\n\ngraph u { a -- b }", "t.dot:3: graph 'u' is undirected");
	dot_bad("/* nothing */\ndigraph { }", "t.dot:2: graph 't' has no ops");
	/* an anonymous graph is named after the file, not "%1" */
	char *cause = NULL;
	const char *anon = "digraph { a -> b }";
	struct pl_graph *g = plv_graph_parse_dot(anon, strlen(anon), "nets/resnet 2.dot", &cause);
	assert_non_null(g);
	assert_string_equal(g->name, "resnet 2");
	pl_graph_free(g);
	/* decimal numbers with spaces around, signs and exponents still load */
	const char *ok = "digraph g { graph [flop=1]; a [flops=\" 5 \", out_bytes=\"+1e3\", measured_cpu_us=\".5\", shape=box, style=filled, group=x]; a -> b [weight=2, label=\"4 B\"]; }";
	g = plv_graph_parse_dot(ok, strlen(ok), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_true(g->ops[0].flops == 5 && g->ops[0].out_bytes == 1000 && g->ops[0].measured_us[PL_DEV_CPU] == 0.5);
	pl_graph_free(g);
}

/* Attribute lists one after another (a [label=x] [flops=5]) are one
 * statement's: each is checked as the first is, for its node or edge. */
static void
test_dot_attr_lists(void **state)
{
	(void)state;
	dot_bad("digraph g {\n a [label=x] [device=\"\"];\n}",
	    "t.dot:2: node 'a': attribute 'device' is empty (expected a device name");
	dot_bad("digraph g {\n a [label=x]\n [flop=5];\n}",
	    "t.dot:3: node 'a': unknown attribute 'flop' (expected 'flops')");
	dot_bad("digraph g {\n a [flops=\"1\"] [bytes=1];\n}",
	    "t.dot:2: node 'a': attribute 'bytes' belongs on edges, not on nodes");
	dot_bad("digraph g {\n a -> b [label=x] [flops=5];\n}",
	    "t.dot:2: an edge statement: attribute 'flops' belongs on nodes, not on edges");
	dot_bad("digraph g {\n a -> b [label=x] [bytes=\"\"];\n}",
	    "t.dot:2: an edge statement: attribute 'bytes' is empty (expected a decimal number, or no attribute)");
	dot_bad("digraph g {\n edge [label=x] [outptu=1];\n a -> b;\n}",
	    "t.dot:2: default attributes: unknown attribute 'outptu' (expected 'output')");
	/* and their values are read as in one list */
	dot_bad("digraph g {\n a;\n a [label=x] [flops=\"zz\"];\n}",
	    "t.dot:3: node 'a': attribute 'flops' is \"zz\", not a decimal number");
	dot_good("digraph g {\n a [label=x] [flops=5] [type=MatMul];\n a -> b [label=y] [bytes=4];\n}", 2, 1);
}

/* An edge to or from a subgraph ({a b} -> c, a -> {b {c}}) is at the
 * line of its "->", not at that of a later statement of the same pair:
 * each edge cgraph makes from it, nested nodes and nodes of an earlier
 * subgraph of the same name included, is matched to its statement. */
static void
test_dot_subgraph_lines(void **state)
{
	(void)state;
	dot_bad("digraph g {\n a -> {b c} [bytes=\"1.5\"];\n\n\n a -> b;\n}",
	    "t.dot:2: edge 'a' -> 'b': attribute 'bytes' is 1.5 (expected a whole number of bytes");
	dot_bad("digraph g {\n a -> b;\n a -> {c b} [bytes=\"1.5\"];\n\n\n a -> b;\n}",
	    "t.dot:3: edge 'a' -> 'b': attribute 'bytes' is 1.5");
	dot_bad("digraph g {\n c;\n {x a} -> {c {d b}}\n [bytes=\"1.5\"];\n a -> b;\n}",
	    "t.dot:3: edge 'x' -> 'c': attribute 'bytes' is 1.5");
	dot_bad("digraph g {\n a -> b;\n x -> subgraph s { c { b } }\n -> {a -> b} [bytes=\"1.5\"];\n}",
	    "t.dot:3: edge 'x' -> 'b': attribute 'bytes' is 1.5");
	/* a subgraph opened again under its name holds its earlier nodes */
	dot_bad("digraph g {\n subgraph s { a }\n a -> c;\n subgraph s { x } -> c [bytes=\"1.5\"];\n a -> c;\n}",
	    "t.dot:4: edge 'a' -> 'c': attribute 'bytes' is 1.5");
	/* the edges inside a subgraph at an edge's end keep their own lines */
	dot_bad("digraph g {\n a -> {b -> c} [bytes=3];\n b -> c [bytes=4];\n}",
	    "t.dot:3: edge 'b' -> 'c': output 0 of 'b' carries 4 bytes here but 0 on another edge");
	dot_bad("digraph g {\n a -> b [bytes=4];\n {a} -> {b} [bytes=4];\n {c} -> {a} -> {b}\n -> {d} [bytes=5];\n}",
	    "t.dot:4: edge 'a' -> 'b': output 0 of 'a' carries 5 bytes here but 4 on another edge");
}

/* Errors give lines of the file as it is: a line directive (# 100
 * "foo.dot", #line 100) is a comment, not a new line number or file
 * name, and a line break inside a quoted string counts, as everywhere
 * else; '#' starts a comment anywhere outside a string, as in Graphviz. */
static void
test_dot_real_lines(void **state)
{
	(void)state;
	char *cause = NULL;
	const char *dir = "digraph g {\n# 100 \"foo.dot\"\n a -> b;\n a -> ;\n}";
	assert_null(plv_graph_parse_dot(dir, strlen(dir), "t.dot", &cause));
	assert_has(cause, "t.dot:4: DOT syntax error near ';' (expected statements such as");
	assert_null(strstr(cause, "foo.dot"));
	free(cause);
	dot_bad("digraph g {\n#line 100\n a -> b;\n a -> ;\n}", "t.dot:4: DOT syntax error near ';'");
	dot_bad("# 40 \"x\"\ndigraph g {\n a -> b;\n# 3\n a [flops=zz];\n}",
	    "t.dot:5: node 'a': attribute 'flops' is \"zz\", not a decimal number");
	dot_bad("digraph g {\n a -> b [label=\"x\nyy\n\"];\n a -> ;\n}", "t.dot:5: DOT syntax error near ';'");
	dot_bad("digraph g {\n a -> b [label=\"x\\\\\nyy\"];\n# 9\n a -> ;\n}", "t.dot:5: DOT syntax error near ';'");
	dot_bad("digraph g {\n a [label=\"x\n#line 7\n\"];\n b [flops=2e9];\n}",
	    "t.dot:5: DOT syntax error near ']' (a number with an exponent or a '+' must be quoted");
	dot_good("digraph g {\n a -> b # c [flops=\"\"]\n   # d [flop=1]\n}", 2, 1);
}

/* A strict graph's repeated edge is one edge: each statement's values
 * are checked at its own line, and two different values for one
 * attribute written in the statements' own lists are refused at the
 * later one (Graphviz keeps the last); values set once, or set again
 * the same, merge; a default (edge [...]) does not reach a repeat, as in
 * Graphviz, so the first edge's value stands. */
static void
test_dot_strict(void **state)
{
	(void)state;
	dot_bad("strict digraph g {\n a -> b [bytes=5];\n a -> b [bytes=7];\n}",
	    "t.dot:3: edge 'a' -> 'b': attribute 'bytes' is 7 here but 5 for the same edge on line 2 "
	    "(expected the same value; a strict graph has one edge per pair: use digraph for several)");
	dot_bad("strict digraph g {\n a -> b;\n\n a -> b [bytes=\"1.5\"];\n}",
	    "t.dot:4: edge 'a' -> 'b': attribute 'bytes' is 1.5 (expected a whole number of bytes");
	dot_bad("strict digraph g {\n edge [output=1];\n a -> b;\n a -> {c b} [output=2];\n}",
	    "t.dot:4: edge 'a' -> 'b': attribute 'output' is 2 here but 1 for the same edge on line 3");
	/* defaults at a repeat: the first edge's values stand */
	const char *dflt[] = {
		"strict digraph g {\n edge [bytes=\"5\"];\n a -> b [bytes=\"6\"];\n a -> b;\n}",
		"strict digraph g {\n a -> b [bytes=6];\n edge [bytes=5];\n a -> b;\n}",
		"strict digraph g {\n a -> b [output=1, bytes=6];\n edge [output=2];\n a -> {c b};\n}",
		"strict digraph g {\n edge [output=1];\n a -> b [bytes=6];\n edge [output=2];\n a -> {c b};\n}",
	};
	for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++) {
		char *why = NULL;
		struct pl_graph *h = plv_graph_parse_dot(dflt[i], strlen(dflt[i]), "t.dot", &why);
		if (h == NULL)
			fail_msg("%s", why);
		int ab = h->out_edge[h->out_off[0]];
		if (h->ops[h->edges[ab].dst].name[0] != 'b')
			ab = h->out_edge[h->out_off[0] + 1];
		assert_int_equal(h->tensors[h->edges[ab].tensor].bytes, 6);
		assert_int_equal(h->tensors[h->edges[ab].tensor].index, i >= 2);
		assert_int_equal(h->n_edges, 1 + (i >= 2));
		pl_graph_free(h);
	}
	dot_bad("strict digraph g {\n a -> b [bytes=4];\n a -> c [bytes=5, output=1];\n a -> b [output=1];\n}",
	    "t.dot:3: edge 'a' -> 'c': output 1 of 'a' carries 5 bytes here but 4");
	/* merged: one edge a -> b of 5 bytes from output 1 */
	const char *ok = "strict digraph g {\n a -> b [bytes=5];\n a -> b;\n a -> b [bytes=\"5.0\", output=1];\n a -> c [bytes=4];\n}";
	char *cause = NULL;
	struct pl_graph *g = plv_graph_parse_dot(ok, strlen(ok), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_int_equal(g->n_edges, 2);
	int e = g->out_edge[g->out_off[0]];
	assert_int_equal(g->tensors[g->edges[e].tensor].bytes, 5);
	assert_int_equal(g->tensors[g->edges[e].tensor].index, 1);
	pl_graph_free(g);
	/* not strict: two edges, and two tensors of one output must agree */
	dot_bad("digraph g {\n a -> b [bytes=5];\n a -> b [bytes=7];\n}",
	    "t.dot:3: edge 'a' -> 'b': output 0 of 'a' carries 7 bytes here but 5");
}

/* What follows a file's graph never reaches the next file read: a
 * second graph was read as the next file's graph, and a line break after
 * the '}' moved the next file's syntax errors a line down. */
static void
test_dot_next_file(void **state)
{
	(void)state;
	dot_bad("digraph g { a } digraph h { b }\n", "t.dot:1: text after the graph's closing '}'");
	const char *ok = "digraph ok { a -> b }";
	char *cause = NULL;
	struct pl_graph *g = plv_graph_parse_dot(ok, strlen(ok), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_string_equal(g->name, "ok");
	assert_int_equal(g->n_ops, 2);
	pl_graph_free(g);
	dot_good("digraph g {\n a\n}\n\n// the end\n", 1, 0);
	dot_bad("digraph g { a -> ; }", "t.dot:1: DOT syntax error near ';'");
	dot_bad("digraph g { a } digraph h {\n b ->", "t.dot:1: text after the graph's closing '}'");
	dot_bad("digraph g {\n a -> ;\n}", "t.dot:2: DOT syntax error near ';'");
}

/* A UTF-8 byte-order mark before the graph is skipped, as in JSON
 * files: the graph loads, and errors keep their lines (it was read as
 * part of the first word: "syntax error near '\ufeffdigraph'"). */
static void
test_dot_bom(void **state)
{
	(void)state;
	dot_good("\xEF\xBB\xBF" "digraph g {\n a -> b [bytes=4];\n}\n", 2, 1);
	dot_good("\xEF\xBB\xBF" "// a comment\nstrict digraph { a -> b }", 2, 1);
	dot_bad("\xEF\xBB\xBF" "digraph g {\n a -> b [bytes=\"1.5\"];\n}\n", "t.dot:2: edge 'a' -> 'b': attribute 'bytes' is 1.5");
	dot_bad("\xEF\xBB\xBF" "digraph g { a -> ; }", "t.dot:1: DOT syntax error near ';'");
	dot_bad("\xEF\xBB\xBF" "digraph g {\n a -> \"b\xff\"; }", "t.dot:2:9: byte 0xFF is not UTF-8");
	/* only at the start: elsewhere it is part of a name, as Graphviz reads it */
	char *cause = NULL;
	const char *mid = "digraph g { \xEF\xBB\xBF" "a -> b }";
	struct pl_graph *g = plv_graph_parse_dot(mid, strlen(mid), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_string_equal(g->ops[0].name, "\xEF\xBB\xBF" "a");
	pl_graph_free(g);
}

/* A decimal number too large for a double (1e400) is out of range, not
 * "not a decimal number"; one too small to tell from 0 is 0. */
static void
test_dot_number_range(void **state)
{
	(void)state;
	dot_bad("digraph g {\n a [flops=\"1e400\"];\n}",
	    "t.dot:2: node 'a': attribute 'flops' is \"1e400\", out of range (expected a number of FLOPs in [0, 1e18])");
	dot_bad("digraph g {\n a -> b [bytes=\"-1e400\"];\n}",
	    "t.dot:2: edge 'a' -> 'b': attribute 'bytes' is \"-1e400\", out of range (expected a whole number of bytes");
	dot_bad("digraph g {\n a [measured_cpu_us=\" 2E+999 \"];\n}",
	    "t.dot:2: node 'a': attribute 'measured_cpu_us' is \" 2E+999 \", out of range");
	dot_bad("digraph g {\n a [flops=\"1e400x\"];\n}",
	    "t.dot:2: node 'a': attribute 'flops' is \"1e400x\", not a decimal number");
	char *cause = NULL;
	const char *tiny = "digraph g { a [flops=\"1e-400\"]; }";
	struct pl_graph *g = plv_graph_parse_dot(tiny, strlen(tiny), "t.dot", &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_true(g->ops[0].flops == 0);
	pl_graph_free(g);
}

/* Subgraphs nest at most 1000 deep inside the graph's own braces: 1000
 * are read (with an attribute list in the deepest), 1001 are refused at
 * the line of the one past the limit. */
static void
test_dot_nesting_limit(void **state)
{
	(void)state;
	for (int levels = 1000; levels <= 1001; levels++) {
		struct pl_strbuf sb = { 0 };
		pl_sb_printf(&sb, "digraph g {\n");
		for (int i = 0; i < levels; i++)
			pl_sb_printf(&sb, "subgraph {\n");
		pl_sb_printf(&sb, "a -> b [bytes=4]\n");
		for (int i = 0; i < levels; i++)
			pl_sb_printf(&sb, "}\n");
		pl_sb_printf(&sb, "}\n");
		if (levels == 1000)
			dot_good(sb.s, 2, 1);
		else
			dot_bad(sb.s, "t.dot:1002: subgraphs nested more than 1000 deep here "
			    "(expected at most 1000 levels of subgraphs)");
		free(sb.s);
	}
}

/* Shapes that made cgraph's parser take tens of GB from a few KB are
 * refused before it reads them, at the line that passes the limit:
 * subgraphs at an edge's end nested more than 64 deep (either end), and
 * nodes, edges and subgraphs past the parser's budget (edges deep inside
 * nested subgraphs, edges between big subgraphs, a name opened again,
 * many subgraphs); 64 nested edge ends and flat graphs load. */
static void
test_dot_parse_cost(void **state)
{
	(void)state;
	struct pl_strbuf sb = { 0 };
	/* x0 -> { x1 -> { ... b } }: 999 deep on one line, then 65 and 64 */
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 999; i++)
		pl_sb_printf(&sb, "x%d -> {", i);
	pl_sb_printf(&sb, " b ");
	for (int i = 0; i < 999; i++)
		pl_sb_printf(&sb, "}");
	pl_sb_printf(&sb, "\n}\n");
	dot_bad(sb.s, "t.dot:2: subgraphs at an edge's end nested more than 64 deep here "
	    "(expected at most 64: an edge to or from a subgraph is one to or from each node in it, "
	    "nested ones included)");
	for (int levels = 64; levels <= 65; levels++) {
		sb.len = 0;
		pl_sb_printf(&sb, "digraph g {\n");
		for (int i = 0; i < levels; i++)
			pl_sb_printf(&sb, "x%d -> subgraph s%d {\n", i, i);
		pl_sb_printf(&sb, " b ");
		for (int i = 0; i < levels; i++)
			pl_sb_printf(&sb, "}");
		pl_sb_printf(&sb, "\n}\n");
		if (levels == 64)
			dot_good(sb.s, 65, 64 * 65 / 2);
		else
			dot_bad(sb.s, "t.dot:66: subgraphs at an edge's end nested more than 64 deep here");
	}
	/* { { { b } -> x0 } -> x1 } ...: found where the 65th closes */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 100; i++)
		pl_sb_printf(&sb, "{");
	pl_sb_printf(&sb, " b\n");
	for (int i = 0; i < 100; i++)
		pl_sb_printf(&sb, "} -> x%d\n", i);
	pl_sb_printf(&sb, "}\n");
	dot_bad(sb.s, "t.dot:67: subgraphs at an edge's end nested more than 64 deep here");
	/* 10,000 edges inside 999 nested subgraphs: refused at the edge that
	 * passes the budget */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 999; i++)
		pl_sb_printf(&sb, "subgraph {");
	pl_sb_printf(&sb, "\n");
	for (int i = 0; i < 10000; i++)
		pl_sb_printf(&sb, "a%d -> a%d\n", i, i + 1);
	for (int i = 0; i < 999; i++)
		pl_sb_printf(&sb, "}");
	pl_sb_printf(&sb, "\n}\n");
	dot_bad(sb.s, "t.dot:680: the subgraphs up to here take the DOT parser 1366990 entries "
	    "(expected at most 1366154 for a file of this size, 1048576 plus 2 a byte, counting "
	    "a node or edge once for the graph and once more for each subgraph around it, an "
	    "edge between subgraphs once for each pair of their nodes, a subgraph as 10, and an "
	    "attribute name of nodes or edges once for every 8 nodes and edges)");
	/* {a0 ... a1499} -> {b0 ... b1499}: 2.25 million edges */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n {");
	for (int i = 0; i < 1500; i++)
		pl_sb_printf(&sb, " a%d", i);
	pl_sb_printf(&sb, "}\n -> {");
	for (int i = 0; i < 1500; i++)
		pl_sb_printf(&sb, " b%d", i);
	pl_sb_printf(&sb, "}\n}\n");
	dot_bad(sb.s, "t.dot:3: the subgraphs up to here take the DOT parser ");
	/* the same through subgraphs named again with nothing in them */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n subgraph s {");
	for (int i = 0; i < 1100; i++)
		pl_sb_printf(&sb, " a%d", i);
	pl_sb_printf(&sb, "}\n subgraph t {");
	for (int i = 0; i < 1100; i++)
		pl_sb_printf(&sb, " b%d", i);
	pl_sb_printf(&sb, "}\n subgraph s { } -> subgraph t { }\n}\n");
	dot_bad(sb.s, "t.dot:4: the subgraphs up to here take the DOT parser ");
	/* 200,000 empty subgraphs */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n a\n");
	for (int i = 0; i < 200000; i++)
		pl_sb_printf(&sb, "{}");
	pl_sb_printf(&sb, "\n}\n");
	dot_bad(sb.s, "t.dot:3: the subgraphs up to here take the DOT parser ");
	/* flat graphs of any size and chains of subgraphs at one level load */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 3000; i++)
		pl_sb_printf(&sb, "{a%d b%d c%d} -> {d%d e%d f%d}\n", i, i, i, i, i, i);
	pl_sb_printf(&sb, "n0");
	for (int i = 1; i < 1000; i++)
		pl_sb_printf(&sb, " -> {n%d m%d}", i, i);
	pl_sb_printf(&sb, "\n}\n");
	dot_good(sb.s, 18000 + 1999, 27000 + 1 * 2 + 998 * 4);
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 300000; i++)
		pl_sb_printf(&sb, "a%d -> a%d\n", i, i + 1);
	pl_sb_printf(&sb, "}\n");
	dot_good(sb.s, 300001, 300000);
	/* a subgraph's name is looked up among its parent's subgraphs only:
	 * 1,100 clusters each with its own "inputs" are 1,100 subgraphs of
	 * two nodes, not one growing by two nodes in each */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 1100; i++)
		pl_sb_printf(&sb, "subgraph cluster_L%d { subgraph inputs { a%d b%d } -> c%d }\n", i, i, i, i);
	pl_sb_printf(&sb, "}\n");
	dot_good(sb.s, 3300, 2200);
	/* a node is filed once in each subgraph around it however often it
	 * is named: 2,000 nodes and 38,000 edges inside 20 nested clusters
	 * load (counting each mention at each level refused them) */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n");
	for (int i = 0; i < 20; i++)
		pl_sb_printf(&sb, "subgraph cluster_%d {\n", i);
	int n_e = 0;
	for (int d = 1; d <= 19; d++)
		for (int i = 0; i < 2000; i++, n_e++)
			pl_sb_printf(&sb, "a%d -> a%d\n", i, (i + d) % 2000 + 2000 * ((i + d) >= 2000));
	for (int i = 0; i < 20; i++)
		pl_sb_printf(&sb, "}\n");
	pl_sb_printf(&sb, "}\n");
	dot_good(sb.s, 2019, n_e);
	/* cgraph gives every node and edge a slot for each attribute name
	 * declared for nodes or edges: 200 names on a million edges took
	 * 2 GB from 11 KB, 2,000 names on 20,000 nodes 40 MB from 170 KB */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n edge [e0=1");
	for (int i = 1; i < 200; i++)
		pl_sb_printf(&sb, ",e%d=1", i);
	pl_sb_printf(&sb, "];\n {");
	for (int i = 0; i < 1000; i++)
		pl_sb_printf(&sb, " a%d", i);
	pl_sb_printf(&sb, "}\n -> {");
	for (int i = 0; i < 1000; i++)
		pl_sb_printf(&sb, " b%d", i);
	pl_sb_printf(&sb, "}\n}\n");
	dot_bad(sb.s, "t.dot:4: the subgraphs up to here take the DOT parser ");
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n a [x0=1");
	for (int i = 1; i < 2000; i++)
		pl_sb_printf(&sb, " x%d=1", i);
	pl_sb_printf(&sb, "];\n");
	for (int i = 0; i < 20000; i++)
		pl_sb_printf(&sb, "n%d\n", i);
	pl_sb_printf(&sb, "}\n");
	dot_bad(sb.s, "the subgraphs up to here take the DOT parser ");
	/* a few names on a few thousand nodes and edges load */
	sb.len = 0;
	pl_sb_printf(&sb, "digraph g {\n node [shape=box, color=red, style=filled, fontsize=9];\n"
	    " edge [color=blue, penwidth=2, arrowsize=0.5];\n");
	for (int i = 0; i < 5000; i++)
		pl_sb_printf(&sb, "n%d -> n%d [label=\"t%d\"]\n", i, i + 1, i);
	pl_sb_printf(&sb, "}\n");
	dot_good(sb.s, 5001, 5000);
	free(sb.s);
}

/* Loading by content and from missing files. */
static void
test_load_any(void **state)
{
	(void)state;
	char dir[] = "/tmp/pl-test-dir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/g.gv", dir);
	char *cause = NULL;
	assert_int_equal(pl_file_write_atomic(path, "digraph x { a -> b }", 20, &cause), 0);
	struct pl_graph *g = plv_graph_load(path, &cause);
	assert_non_null(g);
	assert_int_equal(g->n_ops, 2);
	/* save as JSON over the same name: atomic, no temporary left behind */
	assert_int_equal(pl_graph_save_json(g, path, &cause), 0);
	pl_graph_free(g);
	g = plv_graph_load(path, &cause);
	assert_non_null(g);
	pl_graph_free(g);
	/* a JSON graph after a byte-order mark is JSON, not DOT */
	char bpath[256];
	snprintf(bpath, sizeof bpath, "%s/bom.json", dir);
	size_t n = strlen(graph_json);
	char *bom = malloc(n + 4);
	memcpy(bom, "\xEF\xBB\xBF ", 4);
	memcpy(bom + 4, graph_json, n);
	assert_int_equal(pl_file_write_atomic(bpath, bom, n + 4, &cause), 0);
	free(bom);
	g = plv_graph_load(bpath, &cause);
	if (g == NULL)
		fail_msg("%s", cause);
	assert_string_equal(g->name, "g");
	pl_graph_free(g);
	unlink(bpath);
	assert_false(pl_text_is_json_object("\xEF\xBB\xBF", 3));
	assert_false(pl_text_is_json_object(" \0{", 3));
	assert_false(pl_text_is_json_object("digraph { }", 11));
	DIR *d = opendir(dir);
	int files = 0;
	for (struct dirent *de; (de = readdir(d)) != NULL;)
		files += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);
	unlink(path);
	rmdir(dir);
	assert_null(plv_graph_load("/nonexistent/g.json", &cause));
	assert_has(cause, "/nonexistent/g.json");
	free(cause);
}

/* An endless input (a device) is refused at the limit, not read until
 * memory runs out; a file of exactly the limit is read. */
static void
test_read_limit(void **state)
{
	(void)state;
	char *cause = NULL;
	size_t len = 0;
	assert_null(pl_file_read_max("/dev/zero", (size_t)1 << 20, &len, &cause));
	assert_has(cause, "/dev/zero: more than 1 MiB (too large for an input file)");
	free(cause);
	/* a regular file is measured, not read: 1 GiB of holes */
	char big[] = "/tmp/pl-test-XXXXXX";
	int bfd = mkstemp(big);
	assert_true(bfd >= 0);
	assert_int_equal(ftruncate(bfd, (off_t)1 << 30), 0);
	close(bfd);
	assert_null(pl_file_read_max(big, (size_t)1 << 20, &len, &cause));
	assert_has(cause, "more than 1 MiB (too large for an input file)");
	free(cause);
	unlink(big);
	char path[] = "/tmp/pl-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char *mib = calloc(1, (size_t)1 << 20);
	assert_true(write(fd, mib, (size_t)1 << 20) == 1 << 20);
	close(fd);
	char *text = pl_file_read_max(path, (size_t)1 << 20, &len, &cause);
	assert_non_null(text);
	assert_int_equal(len, (size_t)1 << 20);
	free(text);
	unlink(path);
	free(mib);
}

/* pl_file_write_new() writes a file only where none is: a name taken (a
 * file, or a link, even one to nothing) is left as it was, EEXIST, and
 * no temporary file stays; a folder that cannot take it says why. */
static void
test_write_new(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = NULL, *link_path = NULL, *gone = NULL, *cause = NULL;
	assert_true(asprintf(&path, "%s/r.json", dir) > 0);
	assert_true(asprintf(&link_path, "%s/l.json", dir) > 0);
	assert_true(asprintf(&gone, "%s/nowhere.json", dir) > 0);
	assert_int_equal(pl_file_write_new(path, "{\"a\": 1}", 8, &cause), 0);
	assert_int_equal(pl_file_write_new(path, "{}", 2, &cause), -1);
	assert_int_equal(errno, EEXIST);
	assert_null(cause);
	size_t len;
	char *text = pl_file_read(path, &len, &cause);
	assert_non_null(text);
	assert_string_equal(text, "{\"a\": 1}");
	free(text);
	assert_int_equal(symlink(gone, link_path), 0);
	assert_int_equal(pl_file_write_new(link_path, "{}", 2, &cause), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_not_equal(access(gone, F_OK), 0);	/* not made through it */
	DIR *d = opendir(dir);
	assert_non_null(d);
	int entries = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		entries += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(entries, 2);	/* r.json and l.json: no temporary file */
	char *missing = NULL;
	assert_true(asprintf(&missing, "%s/no/such/r.json", dir) > 0);
	assert_int_equal(pl_file_write_new(missing, "{}", 2, &cause), -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "does not exist"));
	free(cause);
	unlink(path);
	unlink(link_path);
	rmdir(dir);
	free(missing);
	free(path);
	free(link_path);
	free(gone);
}

/* A new file gets the mode fopen() would give it (0666 less the umask; it
 * was 0644 whatever the umask); a file that exists keeps its own. */
static void
test_write_mode(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = NULL, *cause = NULL;
	assert_true(asprintf(&path, "%s/new.json", dir) > 0);
	const mode_t masks[] = { 077, 002, 022 }, want[] = { 0600, 0664, 0644 };
	mode_t old = umask(022);
	struct stat st;
	for (int i = 0; i < 3; i++) {
		umask(masks[i]);
		unlink(path);
		assert_int_equal(pl_file_write_atomic(path, "{}", 2, &cause), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, want[i]);
	}
	assert_int_equal(chmod(path, 0640), 0);
	umask(077);
	assert_int_equal(pl_file_write_atomic(path, "[]", 2, &cause), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	umask(old);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* Write text to dir/name; returns the path (caller frees). */
static char *
put_file(const char *dir, const char *name, const char *text, size_t len)
{
	char *path = NULL;
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The file at path holds exactly want. */
static void
file_is(const char *path, const char *want)
{
	size_t len;
	char *cause = NULL, *text = pl_file_read(path, &len, &cause);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

/* A file this process holds open for appending, named as /dev/fd/N (the
 * shell's ">>" and /dev/stdout), keeps what it held: the output follows
 * it, and written again (a checkpoint, then the last) replaces its own
 * earlier copy.  Opened without appending (">"), the output goes at the
 * descriptor's offset, and the file is not replaced either. */
static void
test_write_appended_fd(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *fdpath = NULL, *cause = NULL;
	char *path = put_file(dir, "log.csv", "PRE\n", 4);
	int fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_true(asprintf(&fdpath, "/dev/fd/%d", fd) > 0);
	assert_int_equal(pl_file_check_writable(fdpath, &cause), 0);
	assert_int_equal(pl_file_write_atomic(fdpath, "one\n", 4, &cause), 0);
	assert_int_equal(pl_file_write_atomic(fdpath, "two\n", 4, &cause), 0);
	file_is(path, "PRE\ntwo\n");
	close(fd);
	/* the descriptor number reused for another file starts afresh */
	char *other = put_file(dir, "other.csv", "OTHER\n", 6);
	assert_int_equal(open(other, O_WRONLY | O_APPEND), fd);
	assert_int_equal(pl_file_write_atomic(fdpath, "three\n", 6, &cause), 0);
	file_is(other, "OTHER\nthree\n");
	close(fd);
	unlink(other);
	free(other);
	/* not appending (">"): written at the descriptor's offset, between
	 * what the shell writes before and after, the file never replaced */
	struct stat st0, st1;
	assert_int_equal(stat(path, &st0), 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "HEADER\n", 7), 7);
	free(fdpath);
	assert_true(asprintf(&fdpath, "/dev/fd/%d", fd) > 0);
	assert_int_equal(pl_file_check_writable(fdpath, &cause), 0);
	assert_null(pl_file_kind_clash(fdpath, "placelab-compare/1"));
	assert_int_equal(pl_file_write_atomic(fdpath, "first copy\n", 11, &cause), 0);
	assert_int_equal(pl_file_write_atomic(fdpath, "new\n", 4, &cause), 0);
	assert_int_equal(write(fd, "FOOTER\n", 7), 7);
	file_is(path, "HEADER\nnew\nFOOTER\n");
	assert_int_equal(stat(path, &st1), 0);
	assert_true(st0.st_ino == st1.st_ino);
	close(fd);
	/* a descriptor open elsewhere than the file's end ("3<>file") is no
	 * way into it: the file is a document like any other, its kind
	 * checked and, written, replaced whole */
	assert_int_equal(pl_file_write_atomic(path, "{\"format\": \"placelab-placement/1\"}\n", 35, &cause), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	free(fdpath);
	assert_true(asprintf(&fdpath, "/dev/fd/%d", fd) > 0);
	char *clash = pl_file_kind_clash(fdpath, "placelab-compare/1");
	assert_non_null(clash);
	free(clash);
	close(fd);
	/* a growing file written there too */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "A\n", 2), 2);
	free(fdpath);
	assert_true(asprintf(&fdpath, "/dev/fd/%d", fd) > 0);
	struct pl_grow g;
	assert_int_equal(pl_grow_open(&g, fdpath, &cause), 0);
	fputs("row\n", g.f);
	assert_int_equal(pl_grow_close(&g, 1, &cause), 0);
	assert_int_equal(write(fd, "B\n", 2), 2);
	file_is(path, "A\nrow\nB\n");
	close(fd);
	unlink(path);
	rmdir(dir);
	free(path);
	free(fdpath);
}

/* In a child (as nobody when run as root, whom permissions do not stop):
 * a read-only file is neither replaced by an atomic write, nor by a
 * growing file, nor passed by the check before a run; each says so. */
static int
read_only_child(const char *dir)
{
	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		return 77;	/* no user to become here: skipped */
	char *path = NULL, *cause = NULL;
	if (asprintf(&path, "%s/ro.json", dir) < 0)
		return 11;
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs("saved", f) < 0 || fclose(f) != 0 || chmod(path, 0444) != 0)
		return 12;
	if (pl_file_write_atomic(path, "{}", 2, &cause) != -1 || strstr(cause, "Permission denied") == NULL)
		return 13;
	free(cause);
	cause = NULL;
	if (pl_file_check_writable(path, &cause) != -1 || strstr(cause, "ro.json") == NULL)
		return 14;
	free(cause);
	cause = NULL;
	struct pl_grow g;
	if (pl_grow_open(&g, path, &cause) != -1)
		return 15;
	free(cause);
	size_t len;
	char *text = pl_file_read(path, &len, &cause);
	if (text == NULL || strcmp(text, "saved") != 0)
		return 16;	/* what the user saved is still there */
	free(text);
	chmod(path, 0644);
	unlink(path);
	free(path);
	return 0;
}

/* The kind of placelab document a file holds: the "format" tag however
 * it is spaced, the Beta header after comments, a policy's magic; none for
 * other JSON, a tag past the first 4 KiB, a missing file or a folder;
 * and the clash a write of another kind reports, none for the same kind. */
static void
test_file_kind(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-kind-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char kind[64];
	struct { const char *name, *text, *want; } cases[] = {
		{ "p.json", "{\n\"format\": \"placelab-placement/1\",\n\"graph\": \"g\"}", "placelab-placement/1" },
		{ "c.json", "{\n\t\"format\":\t\"placelab-compare/1\"}", "placelab-compare/1" },
		{ "g.json", "{\"name\": \"x\", \"format\" : \"placelab-graph/1\"}", "placelab-graph/1" },
		{ "b.txt", "# priors\n\n  placelab-beta/1\ndefault 1 1\n", "placelab-beta/1" },
		{ "w.plw", "PLWEIGHT\x01", "PLWEIGHT" },
		{ "o.json", "{\"format\": \"other/1\"}", NULL },
		{ "s.json", "{\"format\": 3, \"x\": \"placelab-graph/1\"}", NULL },
		{ "e.json", "", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t len = strlen(cases[i].text) + (strcmp(cases[i].name, "w.plw") == 0);
		char *path = put_file(dir, cases[i].name, cases[i].text, len);
		int got = pl_file_kind(path, kind, sizeof kind);
		if (cases[i].want == NULL)
			assert_int_equal(got, 0);
		else {
			assert_int_equal(got, 1);
			assert_string_equal(kind, cases[i].want);
		}
		unlink(path);
		free(path);
	}
	/* a tag past the first 4 KiB is not looked for */
	char *far = pl_xmalloc(5000 + 64);
	memset(far, ' ', 5000);
	strcpy(far + 5000, "{\"format\": \"placelab-graph/1\"}");
	char *path = put_file(dir, "far.json", far, strlen(far));
	assert_int_equal(pl_file_kind(path, kind, sizeof kind), 0);
	unlink(path);
	free(path);
	free(far);
	assert_int_equal(pl_file_kind(dir, kind, sizeof kind), 0);
	assert_int_equal(pl_file_kind("/nonexistent/x.json", kind, sizeof kind), 0);
	/* the clash */
	const char *saved = "{\"format\": \"placelab-placement/1\"}";
	path = put_file(dir, "best.json", saved, strlen(saved));
	assert_null(pl_file_kind_clash(path, "placelab-placement/1"));
	assert_null(pl_file_kind_clash(path, "placelab-placement/2"));	/* a later version */
	char *why = pl_file_kind_clash(path, "placelab-placements/1");
	assert_non_null(why);
	free(why);
	why = pl_file_kind_clash(path, "placelab-compare/1");
	assert_non_null(why);
	assert_non_null(strstr(why, "holds a placement (placelab-placement/1), which this would "
	    "replace with a comparison table"));
	free(why);
	why = pl_file_kind_clash(path, NULL);
	assert_non_null(why);
	assert_non_null(strstr(why, "with another kind of file"));
	free(why);
	unlink(path);
	free(path);
	assert_null(pl_file_kind_clash("/nonexistent/x.json", NULL));
	rmdir(dir);
}

/* A graph file is read as JSON when it holds a JSON object (whatever its
 * name) or is named .json (a broken one gets JSON's error), else as DOT. */
static void
test_graph_load_by_suffix(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-load-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *dot = "digraph g { a -> b; }";
	const char *json = "{\"format\": \"placelab-graph/1\", \"name\": \"g\", \"ops\": "
	    "[{\"name\": \"a\", \"type\": \"Op\", \"flops\": 1}], \"edges\": []}";
	struct { const char *name, *text, *err; } cases[] = {
		{ "a.json", "hello world", "a.json:1:1: expected a JSON object" },
		{ "b.JSON", "digraph g { a -> b; }", "b.JSON:1:1: expected a JSON object" },
		{ "c.dot", "{ \"broken\": ", "c.dot:1:13: unexpected end of file" },
		{ "d.gv", json, NULL },
		{ "e.txt", json, NULL },
		{ "f", dot, NULL },
		{ "g.json", json, NULL },
		{ "h.dot", dot, NULL },
		/* control characters JSON does not allow, raw in a string or
		 * as white space */
		{ "k.json", "{\"format\": \"placelab-graph/1\", \"ops\": [{\"name\": \"a\tb\"}]}",
		  "k.json:1:51: a control character (byte 0x09) in a string (expected it escaped: \\t, \\n or \\u0009)" },
		{ "l.json", "{\"format\": \"placelab-graph/1\", \"ops\": [{\"name\": \"a\"},\f{\"name\": \"b\"}]}",
		  "l.json:1:54: a control character (byte 0x0C) between values (expected white space" },
		/* where the top level is, and a file in UTF-16 said as such */
		{ "i.json", "\n\n   [1]", "i.json:3:4: expected a JSON object" },
		{ "j.json", "\xff\xfe{\0\"\0f\0", "j.json:1:1: byte 0xFF is not UTF-8 (expected UTF-8 text; "
		  "a file in another encoding can be converted with iconv)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		/* (the UTF-16 file's bytes whole, its NULs too) */
		size_t len = strcmp(cases[i].name, "j.json") == 0 ? 8 : strlen(cases[i].text);
		char *path = put_file(dir, cases[i].name, cases[i].text, len);
		char *cause = NULL;
		struct pl_graph *g = plv_graph_load(path, &cause);
		if (cases[i].err == NULL) {
			if (g == NULL)
				fail_msg("%s: %s", cases[i].name, cause);
			pl_graph_free(g);
		} else {
			assert_null(g);
			assert_has(cause, cases[i].err);
			free(cause);
		}
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

/* A read-only output file is refused, not replaced (see above). */
static void
test_write_read_only(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-ro-XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(read_only_child(dir));
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	char *path = NULL;
	assert_true(asprintf(&path, "%s/ro.json", dir) > 0);
	chmod(path, 0644);	/* whatever the child left */
	unlink(path);
	free(path);
	rmdir(dir);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A device or FIFO as the output (/dev/null, /dev/stdout, a named pipe,
 * also through a symbolic link) is written in place, never replaced by a
 * regular file; a missing folder is named, an existing one is not said to
 * be missing. */
static void
test_write_special(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *fifo = NULL, *link = NULL, *cause = NULL;
	assert_true(asprintf(&fifo, "%s/pipe", dir) > 0);
	assert_true(asprintf(&link, "%s/link", dir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink(fifo, link), 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(pl_file_check_writable(link, &cause), 0);
	assert_int_equal(pl_file_write_atomic(link, "hello", 5, &cause), 0);
	assert_int_equal(pl_file_write_atomic(fifo, " pipe", 5, &cause), 0);
	char buf[16] = { 0 };
	assert_int_equal(read(rd, buf, sizeof buf - 1), 10);
	assert_string_equal(buf, "hello pipe");
	close(rd);
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(pl_file_write_atomic("/dev/null", "x", 1, &cause), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* the folder exists, the file cannot be made there: not "missing" */
	char *bad = NULL;
	assert_true(asprintf(&bad, "%s/nofolder/x.json", dir) > 0);
	assert_int_equal(pl_file_write_atomic(bad, "x", 1, &cause), -1);
	assert_non_null(strstr(cause, "does not exist"));
	free(cause);
	cause = NULL;
	assert_int_equal(pl_file_write_atomic("/proc/placelab-x.json", "x", 1, &cause), -1);
	assert_null(strstr(cause, "does not exist"));
	free(cause);
	free(bad);
	unlink(link);
	unlink(fifo);
	rmdir(dir);
	free(fifo);
	free(link);
}

/* Whether folder dir holds a name starting with prefix. */
static int
dir_has(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	int found = 0;
	while ((e = readdir(d)) != NULL)
		found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return found;
}

/* A chain of symbolic links whose last target is not made yet is followed
 * to it, each relative link from its own folder (the links stay links);
 * links that loop are refused as the shell's ">" refuses them, nothing
 * replaced; two names whose writes would make one file are the same file
 * (a dangling link and its target). */
static void
test_write_link_chain(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *p[8], *cause = NULL;
	const char *names[8] = { "saves", "saves/best.json", "sub", "sub/current.json",
	    "latest.json", "a", "b", "sub/other.json" };
	for (int i = 0; i < 8; i++)
		assert_true(asprintf(&p[i], "%s/%s", dir, names[i]) > 0);
	assert_int_equal(mkdir(p[0], 0755), 0);
	assert_int_equal(mkdir(p[2], 0755), 0);
	/* latest.json -> sub/current.json -> ../saves/best.json (from sub) */
	assert_int_equal(symlink("../saves/best.json", p[3]), 0);
	assert_int_equal(symlink("sub/current.json", p[4]), 0);
	assert_int_equal(pl_file_same(p[4], p[1]), 1);
	assert_int_equal(pl_file_same(p[4], p[7]), 0);
	assert_int_equal(pl_file_check_writable(p[4], &cause), 0);
	assert_int_equal(pl_file_write_atomic(p[4], "{}", 2, &cause), 0);
	struct stat st;
	assert_int_equal(lstat(p[4], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(p[3], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	file_is(p[1], "{}");
	/* a loop */
	assert_int_equal(symlink("b", p[5]), 0);
	assert_int_equal(symlink("a", p[6]), 0);
	assert_int_equal(pl_file_check_writable(p[5], &cause), -1);
	assert_has(cause, "Too many levels of symbolic links");
	free(cause);
	cause = NULL;
	assert_int_equal(pl_file_write_atomic(p[5], "{}", 2, &cause), -1);
	assert_has(cause, "a: cannot write to it: Too many levels of symbolic links");
	free(cause);
	cause = NULL;
	struct pl_grow g;
	assert_int_equal(pl_grow_open(&g, p[6], &cause), -1);
	assert_has(cause, "Too many levels of symbolic links");
	free(cause);
	assert_int_equal(lstat(p[5], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(p[6], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_false(dir_has(dir, "a.tmp") || dir_has(dir, "b.tmp"));
	for (int i = 7; i >= 0; i--) {
		if (i == 0 || i == 2)
			rmdir(p[i]);
		else
			unlink(p[i]);
		free(p[i]);
	}
	rmdir(dir);
}

/* A name as long as a folder takes (255 bytes) is written: its temporary
 * file's name is shortened to fit, and none is left. */
static void
test_write_long_name(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char name[256], *path = NULL, *cause = NULL;
	memset(name, 'x', 250);
	memcpy(name + 250, ".json", 6);
	assert_int_equal(strlen(name), 255);
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	assert_int_equal(pl_file_check_writable(path, &cause), 0);
	assert_int_equal(pl_file_write_atomic(path, "{}", 2, &cause), 0);
	assert_int_equal(pl_file_write_atomic(path, "[]", 2, &cause), 0);
	file_is(path, "[]");
	struct pl_grow g;
	assert_int_equal(pl_grow_open(&g, path, &cause), 0);
	fputs("grown", g.f);
	assert_int_equal(pl_grow_close(&g, 1, &cause), 0);
	file_is(path, "grown");
	unlink(path);
	assert_false(dir_has(dir, "x"));
	free(path);
	rmdir(dir);
}

/* A file rewritten keeps its owner and group where this process may set
 * them: as root any (a file of nobody's), else a group it is in. */
static void
test_write_owner(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = NULL, *cause = NULL;
	assert_true(asprintf(&path, "%s/owned.json", dir) > 0);
	assert_int_equal(pl_file_write_atomic(path, "{}", 2, &cause), 0);
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (geteuid() == 0) {
		uid = 65534;	/* nobody */
		gid = 100;	/* users */
	} else {
		gid_t groups[256];
		int n = getgroups(256, groups);
		for (int i = 0; i < n && gid == getegid(); i++)
			gid = groups[i];
		if (gid == getegid()) {	/* in no other group: nothing to test */
			unlink(path);
			free(path);
			rmdir(dir);
			skip();
		}
	}
	assert_int_equal(chown(path, uid, gid), 0);
	assert_int_equal(chmod(path, 0640), 0);
	struct stat st;
	assert_int_equal(pl_file_write_atomic(path, "[]", 2, &cause), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & 07777, 0640);
	file_is(path, "[]");
	struct pl_grow g;
	assert_int_equal(pl_grow_open(&g, path, &cause), 0);
	fputs("grown", g.f);
	assert_int_equal(pl_grow_close(&g, 1, &cause), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & 07777, 0640);
	file_is(path, "grown");
	unlink(path);
	free(path);
	rmdir(dir);
}

/* In a child: hold a growing file's temporary file over path, say so on
 * fd ready, and wait for a signal. */
static void
hold_temp_child(const char *path, int ready)
{
	struct pl_grow g;
	char *cause = NULL;
	if (pl_grow_open(&g, path, &cause) != 0)
		_exit(3);
	fputs("partial", g.f);
	fflush(g.f);
	if (write(ready, "x", 1) != 1)
		_exit(4);
	for (;;)
		pause();
}

/* A signal that ends the process while it holds a temporary file (a
 * growing file's, or one a write is filling) removes it: the process dies
 * of the signal as before, the old file as it was; once none is held the
 * signals have their default action again. */
static void
test_write_signal_temps(void **state)
{
	(void)state;
	char dir[] = "/tmp/placelab-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cause = NULL;
	char *path = put_file(dir, "kept.csv", "old\n", 4);
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		int pfd[2];
		assert_int_equal(pipe(pfd), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rlimit no_core = { 0, 0 };
			setrlimit(RLIMIT_CORE, &no_core);
			signal(sigs[i], SIG_DFL);
			close(pfd[0]);
			hold_temp_child(path, pfd[1]);
		}
		close(pfd[1]);
		char c;
		assert_int_equal(read(pfd[0], &c, 1), 1);	/* the temporary file is there */
		close(pfd[0]);
		assert_true(dir_has(dir, "kept.csv.tmp."));
		assert_int_equal(kill(pid, sigs[i]), 0);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sigs[i]);
		if (dir_has(dir, "kept.csv.tmp."))
			fail_msg("signal %d left the temporary file", sigs[i]);
		file_is(path, "old\n");
	}
	/* held and let go: the default action again */
	struct pl_grow g;
	assert_int_equal(pl_grow_open(&g, path, &cause), 0);
	struct sigaction sa;
	assert_int_equal(sigaction(SIGHUP, NULL, &sa), 0);
	assert_true(sa.sa_handler != SIG_DFL);
	assert_int_equal(pl_grow_close(&g, 0, &cause), 0);
	assert_int_equal(sigaction(SIGHUP, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	file_is(path, "old\n");
	unlink(path);
	free(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_presets_round_trip),
		cmocka_unit_test(test_cluster_parse),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_placement_names),
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_write_mode),
		cmocka_unit_test(test_write_new),
		cmocka_unit_test(test_write_read_only),
		cmocka_unit_test(test_file_kind),
		cmocka_unit_test(test_graph_load_by_suffix),
		cmocka_unit_test(test_read_limit),
		cmocka_unit_test(test_utf8_check),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_dot_errors),
		cmocka_unit_test(test_json_shortest),
		cmocka_unit_test(test_foreign_documents),
		cmocka_unit_test(test_dot_attr_lists),
		cmocka_unit_test(test_dot_subgraph_lines),
		cmocka_unit_test(test_dot_real_lines),
		cmocka_unit_test(test_dot_strict),
		cmocka_unit_test(test_dot_next_file),
		cmocka_unit_test(test_dot_bom),
		cmocka_unit_test(test_dot_number_range),
		cmocka_unit_test(test_dot_nesting_limit),
		cmocka_unit_test(test_dot_parse_cost),
		cmocka_unit_test(test_load_any),
		cmocka_unit_test(test_write_special),
		cmocka_unit_test(test_write_appended_fd),
		cmocka_unit_test(test_write_link_chain),
		cmocka_unit_test(test_write_long_name),
		cmocka_unit_test(test_write_owner),
		cmocka_unit_test(test_write_signal_temps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
