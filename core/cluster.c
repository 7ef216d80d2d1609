/*
 * cluster — devices, links and the compiled-in presets.
 *
 * Invariant: the link matrices always have n_dev*n_dev entries; presets are
 * built by code from documented device figures (docs/FORMAT.md lists them),
 * so they validate like any loaded cluster.
 */
#include "cluster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

/* Placeto's reference parameters (AWS p2.8xlarge). */
struct pl_placeto_params
pl_placeto_defaults(void)
{
	return (struct pl_placeto_params){ .delta1 = 5.7, .delta2 = 25,
		.transfer_speed = 7600, .init_offset = 0 };
}

/* A new empty cluster. */
struct pl_cluster *
pl_cluster_new(const char *name)
{
	struct pl_cluster *c = pl_xcalloc(1, sizeof *c);
	c->name = pl_xstrdup(name != NULL ? name : "cluster");
	c->description = pl_xstrdup("");
	c->placeto = pl_placeto_defaults();
	return c;
}

/* Append a device and grow the link matrices. */
int
pl_cluster_add_device(struct pl_cluster *c, const struct pl_device *d,
    double bw, double lat_us)
{
	int n = c->n_dev, m = n + 1;
	c->dev = pl_xreallocarray(c->dev, m, sizeof *c->dev);
	c->dev[n] = *d;
	c->dev[n].name = pl_xstrdup(d->name != NULL ? d->name : "");
	double *nbw = pl_xmalloc(sizeof *nbw * m * m);
	double *nlat = pl_xmalloc(sizeof *nlat * m * m);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++) {
			int old = i < n && j < n;
			nbw[i * m + j] = old ? c->bw[i * n + j] : (i == j ? 0 : bw);
			nlat[i * m + j] = old ? c->lat_us[i * n + j] : (i == j ? 0 : lat_us);
		}
	free(c->bw);
	free(c->lat_us);
	c->bw = nbw;
	c->lat_us = nlat;
	c->n_dev = m;
	return n;
}

/* Set one directed link. */
void
pl_cluster_set_link(struct pl_cluster *c, int src, int dst, double bw, double lat_us)
{
	c->bw[src * c->n_dev + dst] = bw;
	c->lat_us[src * c->n_dev + dst] = lat_us;
}

/* The allowed range of every cluster figure.  The minimums are below any
 * real hardware (1 MFLOP/s, 1 MB/s of memory bandwidth, a 1 kB/s link:
 * slower than a 9600-baud modem) and keep simulated times finite. */
static const struct {
	const char *field;
	double lo, hi;
	int whole;
	const char *expected;
} figures[] = {
	{ "peak_flops", 1e6, 1e18, 0, "FLOP/s in [1e6, 1e18]" },
	{ "mem_bytes", 1, (double)PL_MAX_BYTES, 1, "a whole number of bytes in [1, 2^50]" },
	{ "mem_bw", 1e6, 1e16, 0, "bytes/s in [1e6, 1e16]" },
	{ "launch_us", 0, 1e9, 0, "us in [0, 1e9]" },
	{ "bandwidth", 1e3, 1e16, 0, "bytes/s in [1e3, 1e16]" },
	{ "latency_us", 0, 1e9, 0, "us in [0, 1e9]" },
	{ "delta1", 0, 1e9, 0, "us in [0, 1e9]" },
	{ "delta2", 0, 1e9, 0, "us in [0, 1e9]" },
	{ "transfer_speed", 1e-3, 1e15, 0, "bytes/us in [1e-3, 1e15]" },
	{ "init_offset", 0, 1e9, 0, "us in [0, 1e9]" },
};

/* Whether v is allowed for a cluster figure (see cluster.h). */
int
pl_cluster_figure_check(const char *field, double v, const char **expected)
{
	for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
		if (strcmp(figures[i].field, field) == 0) {
			*expected = figures[i].expected;
			return isfinite(v) && v >= figures[i].lo && v <= figures[i].hi &&
			    (!figures[i].whole || v == floor(v)) ? 0 : -1;
		}
	*expected = "a known figure";
	return -1;
}

/* Check one figure of what ("device '/gpu:0'"); 0 or -1 with *cause. */
static int
figure(const char *what, const char *field, double v, char **cause)
{
	const char *expected;
	if (pl_cluster_figure_check(field, v, &expected) == 0)
		return 0;
	char num[32];
	*cause = pl_xasprintf("%s: %s %s (expected %s)", what, field, pl_fmt_exact(num, sizeof num, v),
	    expected);
	return -1;
}

/* Check the invariant. */
int
pl_cluster_validate(const struct pl_cluster *c, char **cause)
{
	if (c->n_dev < 1 || c->n_dev > PL_MAX_DEVICES) {
		*cause = pl_xasprintf("cluster '%s': %d devices (expected 1 to %d)",
		    c->name, c->n_dev, PL_MAX_DEVICES);
		return -1;
	}
	char what[300];
	for (int i = 0; i < c->n_dev; i++) {
		const struct pl_device *d = &c->dev[i];
		if (d->name == NULL || !*d->name) {
			*cause = pl_xasprintf("device #%d: empty name (expected a string such as \"/gpu:0\")", i);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(c->dev[j].name, d->name) == 0) {
				*cause = pl_xasprintf("device '%s': duplicate name", d->name);
				return -1;
			}
		snprintf(what, sizeof what, "device '%.*s%s'", PL_SHOWN(d->name));
		if (figure(what, "peak_flops", d->peak_flops, cause) != 0 ||
		    figure(what, "mem_bytes", (double)d->mem_bytes, cause) != 0 ||
		    figure(what, "mem_bw", d->mem_bw, cause) != 0 ||
		    figure(what, "launch_us", d->launch_us, cause) != 0)
			return -1;
	}
	for (int i = 0; i < c->n_dev; i++)
		for (int j = 0; j < c->n_dev; j++) {
			if (i == j)
				continue;
			snprintf(what, sizeof what, "link '%.*s%s' -> '%.*s%s'", PL_SHOWN(c->dev[i].name),
			    PL_SHOWN(c->dev[j].name));
			if (figure(what, "bandwidth", c->bw[i * c->n_dev + j], cause) != 0 ||
			    figure(what, "latency_us", c->lat_us[i * c->n_dev + j], cause) != 0)
				return -1;
		}
	const struct pl_placeto_params *p = &c->placeto;
	snprintf(what, sizeof what, "cluster '%.*s%s': placeto", PL_SHOWN(c->name));
	if (figure(what, "delta1", p->delta1, cause) != 0 || figure(what, "delta2", p->delta2, cause) != 0 ||
	    figure(what, "transfer_speed", p->transfer_speed, cause) != 0 ||
	    figure(what, "init_offset", p->init_offset, cause) != 0)
		return -1;
	return 0;
}

/* Deep copy. */
struct pl_cluster *
pl_cluster_clone(const struct pl_cluster *c)
{
	struct pl_cluster *n = pl_cluster_new(c->name);
	free(n->description);
	n->description = pl_xstrdup(c->description);
	for (int i = 0; i < c->n_dev; i++)
		pl_cluster_add_device(n, &c->dev[i], 1, 0);
	memcpy(n->bw, c->bw, sizeof *n->bw * c->n_dev * c->n_dev);
	memcpy(n->lat_us, c->lat_us, sizeof *n->lat_us * c->n_dev * c->n_dev);
	n->shared_bus = c->shared_bus;
	n->placeto = c->placeto;
	return n;
}

/* Free a cluster. */
void
pl_cluster_free(struct pl_cluster *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->n_dev; i++)
		free(c->dev[i].name);
	free(c->dev);
	free(c->bw);
	free(c->lat_us);
	free(c->name);
	free(c->description);
	free(c);
}

/* Device index by name. */
int
pl_cluster_find(const struct pl_cluster *c, const char *name)
{
	for (int i = 0; i < c->n_dev; i++)
		if (strcmp(c->dev[i].name, name) == 0)
			return i;
	return -1;
}

/* Sum of peak FLOP/s. */
double
pl_cluster_total_flops(const struct pl_cluster *c)
{
	double s = 0;
	for (int i = 0; i < c->n_dev; i++)
		s += c->dev[i].peak_flops;
	return s;
}

/* ---- presets ------------------------------------------------------------ */

#define GB 1000000000.0
#define GiB (1024LL * 1024 * 1024)

/* Host CPU of an AWS p2.8xlarge / a K40 box: 2-socket Xeon, effective
 * (not theoretical) throughput for DL kernels. */
static const struct pl_device cpu_xeon = { "/cpu:0", PL_DEV_CPU, 0.5e12, 64 * GiB, 60 * GB, 2.0 };
/* One GK210 die of a Tesla K80 (each K80 board holds two). */
static const struct pl_device gpu_k80 = { NULL, PL_DEV_GPU, 4.37e12, 12 * GiB, 240 * GB, 5.0 };
/* Tesla K40. */
static const struct pl_device gpu_k40 = { NULL, PL_DEV_GPU, 4.29e12, 12 * GiB, 288 * GB, 5.0 };
/* H100 SXM, TF32 tensor-core dense throughput. */
static const struct pl_device gpu_h100 = { NULL, PL_DEV_GPU, 495e12, 80 * GiB, 3350 * GB, 3.0 };

/* One CPU plus n GPUs of one model on PCIe 3.0 x16 (12 GB/s, 10 us). */
static struct pl_cluster *
cpu_plus_gpus(const char *name, const char *desc, const struct pl_device *gpu, int n)
{
	struct pl_cluster *c = pl_cluster_new(name);
	free(c->description);
	c->description = pl_xstrdup(desc);
	pl_cluster_add_device(c, &cpu_xeon, 12 * GB, 10);
	for (int i = 0; i < n; i++) {
		struct pl_device d = *gpu;
		char buf[32];
		snprintf(buf, sizeof buf, "/gpu:%d", i);
		d.name = buf;
		pl_cluster_add_device(c, &d, 12 * GB, 10);
	}
	return c;
}

static struct pl_cluster *k80x2(void) { return cpu_plus_gpus("k80x2", "1 CPU + 2 K80 GPUs on PCIe (Placeto's setup)", &gpu_k80, 2); }
static struct pl_cluster *k80x4(void) { return cpu_plus_gpus("k80x4", "1 CPU + 4 K80 GPUs on PCIe (Placeto's setup)", &gpu_k80, 4); }
static struct pl_cluster *k80x8(void) { return cpu_plus_gpus("k80x8", "1 CPU + 8 K80 GPUs on PCIe (AWS p2.8xlarge)", &gpu_k80, 8); }
static struct pl_cluster *k40x2(void) { return cpu_plus_gpus("k40x2", "1 CPU + 2 K40 GPUs on PCIe (hierarchical planner's setup)", &gpu_k40, 2); }
static struct pl_cluster *k40x4(void) { return cpu_plus_gpus("k40x4", "1 CPU + 4 K40 GPUs on PCIe (hierarchical planner's setup)", &gpu_k40, 4); }
static struct pl_cluster *k40x8(void) { return cpu_plus_gpus("k40x8", "1 CPU + 8 K40 GPUs on PCIe (hierarchical planner's setup)", &gpu_k40, 8); }

/* Eight H100s on NVLink 4 through NVSwitch (450 GB/s each way, 2 us). */
static struct pl_cluster *
h100x8(void)
{
	struct pl_cluster *c = pl_cluster_new("h100x8");
	free(c->description);
	c->description = pl_xstrdup("8 H100 SXM GPUs on NVLink/NVSwitch");
	for (int i = 0; i < 8; i++) {
		struct pl_device d = gpu_h100;
		char buf[32];
		snprintf(buf, sizeof buf, "/gpu:%d", i);
		d.name = buf;
		pl_cluster_add_device(c, &d, 450 * GB, 2);
	}
	return c;
}

/* Four K80s and a CPU sharing one PCIe bus (a single channel). */
static struct pl_cluster *
k80x4_bus(void)
{
	struct pl_cluster *c = cpu_plus_gpus("k80x4-bus", "1 CPU + 4 K80 GPUs sharing one PCIe bus", &gpu_k80, 4);
	c->shared_bus = 1;
	return c;
}

const struct pl_cluster_preset pl_cluster_presets[] = {
	{ "k80x2", "1 CPU + 2 K80 GPUs on PCIe (Placeto's setup)", k80x2 },
	{ "k80x4", "1 CPU + 4 K80 GPUs on PCIe (Placeto's setup)", k80x4 },
	{ "k80x8", "1 CPU + 8 K80 GPUs on PCIe (AWS p2.8xlarge)", k80x8 },
	{ "k40x2", "1 CPU + 2 K40 GPUs on PCIe (hierarchical planner)", k40x2 },
	{ "k40x4", "1 CPU + 4 K40 GPUs on PCIe (hierarchical planner)", k40x4 },
	{ "k40x8", "1 CPU + 8 K40 GPUs on PCIe (hierarchical planner)", k40x8 },
	{ "k80x4-bus", "1 CPU + 4 K80 GPUs sharing one PCIe bus", k80x4_bus },
	{ "h100x8", "8 H100 SXM GPUs on NVLink/NVSwitch", h100x8 },
	{ NULL, NULL, NULL },
};

/* A preset by name, or NULL. */
struct pl_cluster *
pl_cluster_preset(const char *name)
{
	for (const struct pl_cluster_preset *p = pl_cluster_presets; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			return p->make();
	return NULL;
}
