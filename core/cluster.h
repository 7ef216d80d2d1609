/*
 * cluster — the devices a graph is placed on and the links between them.
 *
 * Invariant: a validated cluster has 1..PL_MAX_DEVICES devices with unique
 * names, rates and capacities within pl_cluster_figure_check()'s ranges
 * (positive, finite, never so small that a time overflows); links are either one shared
 * bus (every transfer uses the same channel) or a full matrix of per ordered
 * pair bandwidth and latency (the diagonal is unused).  Units: bytes,
 * FLOP/s, bytes/s, microseconds.
 *
 * Ownership: pl_cluster_free() frees everything the struct points to.
 */
#ifndef PL_CLUSTER_H
#define PL_CLUSTER_H

#include <stdint.h>

#include "graph.h"

#define PL_MAX_DEVICES 64

struct pl_device {
	char *name;		/* e.g. "/gpu:0" */
	enum pl_dev_kind kind;
	double peak_flops;	/* FLOP/s */
	int64_t mem_bytes;	/* capacity */
	double mem_bw;		/* bytes/s */
	double launch_us;	/* per-op launch overhead */
};

/* Parameters of Placeto's reference simulator (docs/SIMULATION.md, section 3). */
struct pl_placeto_params {
	double delta1;		/* us, device gap after a non-zero-cost op */
	double delta2;		/* us, bus gap after every transfer */
	double transfer_speed;	/* bytes/us */
	double init_offset;	/* us */
};

struct pl_cluster {
	char *name;
	char *description;	/* one line, may be "" */
	int n_dev;
	struct pl_device *dev;
	int shared_bus;		/* 1: one channel for all transfers */
	double *bw;		/* n_dev*n_dev bytes/s, bw[src*n_dev+dst] */
	double *lat_us;		/* n_dev*n_dev us */
	struct pl_placeto_params placeto;
};

/* A new empty cluster with default Placeto parameters. */
struct pl_cluster *pl_cluster_new(const char *name);
/* Append a device; returns its index.  Resizes the link matrices, filling
 * new entries with bw/lat. */
int pl_cluster_add_device(struct pl_cluster *c, const struct pl_device *d,
    double bw, double lat_us);
void pl_cluster_set_link(struct pl_cluster *c, int src, int dst, double bw,
    double lat_us);
/* Check the invariant; 0 or -1 with *cause ("device '/gpu:1': ..."). */
int pl_cluster_validate(const struct pl_cluster *c, char **cause);
/*
 * Whether v is allowed for a cluster figure: a device's "peak_flops",
 * "mem_bytes", "mem_bw" or "launch_us", a link's "bandwidth" or
 * "latency_us", or a Placeto parameter ("delta1", "delta2",
 * "transfer_speed", "init_offset").  Returns 0, or -1 with *expected set
 * to the range ("FLOP/s in [1e6, 1e18]").  The lower bounds keep every
 * simulated time finite (docs/FORMAT.md gives the reasons).
 */
int pl_cluster_figure_check(const char *field, double v, const char **expected);
struct pl_cluster *pl_cluster_clone(const struct pl_cluster *c);
void pl_cluster_free(struct pl_cluster *c);

/* Device index by name, or -1. */
int pl_cluster_find(const struct pl_cluster *c, const char *name);
/* Total memory and total peak FLOP/s. */
double pl_cluster_total_flops(const struct pl_cluster *c);

/* ---- presets ----------------------------------------------------------- */

struct pl_cluster_preset {
	const char *name;
	const char *description;
	struct pl_cluster *(*make)(void);
};
/* NULL-terminated table of compiled-in presets. */
extern const struct pl_cluster_preset pl_cluster_presets[];
/* A preset by name, or NULL. */
struct pl_cluster *pl_cluster_preset(const char *name);

/* Default Placeto parameters (AWS p2.8xlarge). */
struct pl_placeto_params pl_placeto_defaults(void);

#endif
