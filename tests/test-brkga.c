/*
 * test-brkga — the BRKGA placer: decoder (groups, constraints, priorities),
 * crossover with rho = 1, children's parents (one elite, one not) and the
 * elite bias, Beta sampling of new chromosomes, monotone best,
 * thread-count independence, budgets, objectives, options, Beta files, the
 * gene memory limit and warm starts that replay their seed's schedule.
 *
 * Every test builds its own small random DAG and cluster, so it depends on
 * nothing but the core library and the simulator, but for the warm-start
 * replay, which also reads sample graphs and cluster presets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cluster.h"
#include "graph.h"
#include "io.h"
#include "placement.h"
#include "placer.h"
#include "placers/brkga.h"
#include "problem.h"
#include "rng.h"
#include "sim.h"
#include "xmalloc.h"

struct fixture {
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
};

/*
 * A layered random DAG of n ops: every op has 1..3 inputs from earlier
 * ops; ops come in colocation groups of two (forward and "grad") every so
 * often; some ops are pinned to the CPU kind, some to "/gpu:1", and one
 * group mixes a GPU-kind constraint with an unconstrained op.
 */
static struct pl_graph *
make_graph(int n, uint64_t seed)
{
	struct pl_rng r;
	pl_rng_seed(&r, seed);
	struct pl_graph_builder *b = pl_graph_builder_new("test");
	for (int i = 0; i < n; i++) {
		struct pl_op op;
		memset(&op, 0, sizeof op);
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		char name[32], group[32];
		snprintf(name, sizeof name, "op%d", i);
		op.name = name;
		op.type = "MatMul";
		op.scope = "s";
		op.flops = 1e6 * (double)(1 + pl_rng_below(&r, 50));
		op.param_bytes = (int64_t)pl_rng_below(&r, 4) << 20;
		op.temp_bytes = 0;
		const char *gname = NULL;
		if (i % 7 == 3 || i % 7 == 4) {
			snprintf(group, sizeof group, "g%d", i / 7);
			gname = group;
		}
		if (gname != NULL) {
			if (i % 7 == 3 && (i / 7) % 2 == 1) {
				op.cons.kind = PL_CONS_KIND;
				op.cons.dev_kind = PL_DEV_GPU;
			}
		} else if (i % 11 == 5) {
			op.cons.kind = PL_CONS_KIND;
			op.cons.dev_kind = PL_DEV_CPU;
		} else if (i % 13 == 8) {
			op.cons.kind = PL_CONS_DEVICE;
			op.cons.device = "/gpu:1";
		}
		pl_graph_add_op(b, &op, gname);
		if (i == 0)
			continue;
		int k = 1 + (int)pl_rng_below(&r, 3), prev = -1;
		for (int j = 0; j < k; j++) {
			int src = i - 1 - (int)pl_rng_below(&r, (uint64_t)(i < 6 ? i : 6));
			if (src == prev)
				continue;
			prev = src;
			int out = (int)pl_rng_below(&r, 2);
			/* one size per tensor: a function of (src, out) */
			pl_graph_add_edge(b, src, i, out,
			    (int64_t)(1 + (src * 7 + out * 3) % 64) << 14);
		}
	}
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("graph: %s", cause);
	return g;
}

/* One CPU and three GPUs; GPU memory `gpu_mem` bytes. */
static struct pl_cluster *
make_cluster(int64_t gpu_mem)
{
	struct pl_cluster *c = pl_cluster_new("test4");
	struct pl_device cpu = { .name = "/cpu:0", .kind = PL_DEV_CPU,
		.peak_flops = 1e11, .mem_bytes = (int64_t)64 << 30,
		.mem_bw = 50e9, .launch_us = 5 };
	pl_cluster_add_device(c, &cpu, 8e9, 10);
	for (int i = 0; i < 3; i++) {
		char name[24];
		snprintf(name, sizeof name, "/gpu:%d", i);
		struct pl_device gpu = { .name = name, .kind = PL_DEV_GPU,
			.peak_flops = 4e12, .mem_bytes = gpu_mem,
			.mem_bw = 200e9, .launch_us = 5 };
		pl_cluster_add_device(c, &gpu, 8e9, 10);
	}
	char *cause = NULL;
	if (pl_cluster_validate(c, &cause) != 0)
		fail_msg("cluster: %s", cause);
	return c;
}

/* Build graph, cluster and problem. */
static void
fixture_init(struct fixture *f, int n, uint64_t seed, int64_t gpu_mem)
{
	f->g = make_graph(n, seed);
	f->c = make_cluster(gpu_mem);
	char *cause = NULL;
	f->p = pl_problem_new(f->g, f->c, &cause);
	if (f->p == NULL)
		fail_msg("problem: %s", cause);
}

/* Free the fixture. */
static void
fixture_free(struct fixture *f)
{
	pl_problem_free(f->p);
	pl_cluster_free(f->c);
	pl_graph_free(f->g);
}

/* A BRKGA placer on f with options spec and thread count. */
static struct pl_placer *
new_brkga(struct fixture *f, const char *spec, int threads, uint64_t seed)
{
	struct pl_run_opts run = { .seed = seed, .threads = threads };
	run.sim.kind = PL_SIM_NATIVE;
	run.sim.mem = PL_MEM_NATIVE;
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(&pl_placer_brkga, f->p, spec, &run, &cause);
	if (pl == NULL)
		fail_msg("brkga '%s': %s", spec, cause);
	return pl;
}

/* Expect creation to fail with a message containing frag. */
static void
expect_create_error(struct fixture *f, const char *spec, const char *frag)
{
	struct pl_run_opts run = { .seed = 1, .threads = 1 };
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(&pl_placer_brkga, f->p, spec, &run, &cause);
	assert_null(pl);
	assert_non_null(cause);
	if (strstr(cause, frag) == NULL)
		fail_msg("'%s': error '%s' lacks '%s'", spec, cause, frag);
	free(cause);
}

/* The decoder: device = allowed device of highest group affinity; groups
 * together; constraints kept; priority genes copied. */
static void
test_decoder(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 120, 7, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=4", 1, 1);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	int nd = f.c->n_dev;
	assert_int_equal(L.n_genes, (long)nd * (f.g->n_groups + f.g->n_tensors) + f.g->n_ops);
	assert_true(L.tprio_off > L.prio_off);
	float *x = malloc(sizeof *x * L.n_genes);
	struct pl_placement *out = pl_placement_new(f.g->n_ops, nd);
	struct pl_rng r;
	pl_rng_seed(&r, 99);
	int constrained_seen = 0;
	for (int trial = 0; trial < 200; trial++) {
		for (long i = 0; i < L.n_genes; i++)
			x[i] = (float)pl_rng_uniform(&r);
		pl_brkga_decode(pl, x, out);
		char *cause = NULL;
		if (pl_placement_check(out, f.g, f.c, &cause) != 0)
			fail_msg("trial %d: %s", trial, cause);
		for (int v = 0; v < f.g->n_ops; v++) {
			int gi = f.g->ops[v].group;
			uint64_t mask = f.p->group_allowed[gi];
			int best = -1;
			for (int d = 0; d < nd; d++)
				if (((mask >> d) & 1) && (best < 0 ||
				    x[L.aff_off + (long)gi * nd + d] >
				    x[L.aff_off + (long)gi * nd + best]))
					best = d;
			assert_int_equal(out->dev[v], best);
			assert_true((f.p->allowed[v] >> out->dev[v]) & 1);
			if (f.g->ops[v].cons.kind != PL_CONS_ANY)
				constrained_seen++;
			assert_true(out->prio[v] == x[L.prio_off + v]);
		}
		for (long t = 0; t < (long)f.g->n_tensors * nd; t++)
			assert_true(out->tprio[t] == x[L.tprio_off + t]);
	}
	assert_true(constrained_seen > 0);
	/* decoding allocates nothing once the placement has its arrays */
	unsigned long a0 = pl_alloc_count();
	for (int trial = 0; trial < 50; trial++)
		pl_brkga_decode(pl, x, out);
	assert_int_equal(pl_alloc_count() - a0, 0);
	/* a group of a GPU-kind op and an unconstrained op never lands on the CPU */
	int found = 0;
	for (int gi = 0; gi < f.g->n_groups; gi++)
		if (f.g->groups[gi].count == 2 && f.p->group_allowed[gi] == 0xe)
			found = 1;
	assert_true(found);
	pl_placement_free(out);
	free(x);
	pl_placer_free(pl);

	/* without tensor genes the layout shrinks and tprio stays NULL */
	pl = new_brkga(&f, "pop=4,tensor-genes=0", 1, 1);
	pl_brkga_layout(pl, &L);
	assert_int_equal(L.n_genes, (long)nd * f.g->n_groups + f.g->n_ops);
	assert_int_equal(L.tprio_off, -1);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	assert_null(pl->best->tprio);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Snapshot of a population's genes, best first. */
static float *
snapshot(struct pl_placer *pl, int k, int n, long G)
{
	float *s = malloc(sizeof *s * (size_t)n * G);
	for (int r = 0; r < n; r++) {
		const float *x = pl_brkga_chromosome(pl, k, r, NULL, NULL);
		assert_non_null(x);
		memcpy(s + (long)r * G, x, sizeof *s * G);
	}
	return s;
}

/* How many chromosomes of population 0 equal one of the n given. */
static int
count_copies(struct pl_placer *pl, int p, const float *set, int n, long G)
{
	int c = 0;
	for (int r = 0; r < p; r++) {
		const float *x = pl_brkga_chromosome(pl, 0, r, NULL, NULL);
		for (int j = 0; j < n; j++)
			if (memcmp(x, set + (long)j * G, sizeof *x * G) == 0) {
				c++;
				break;
			}
	}
	return c;
}

/* rho = 1: every child is a copy of an elite parent; with the default
 * rho the children are mixes. */
static void
test_crossover_rho1(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 60, 3, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=30,elite=0.2,mutants=0.1,rho=1,evals=0", 1, 5);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	assert_int_equal(L.n_elite, 6);
	assert_int_equal(L.n_mutants, 3);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	float *elite = snapshot(pl, 0, L.n_elite, L.n_genes);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	/* elites (6) and children (21) are copies; mutants (3) are not */
	assert_int_equal(count_copies(pl, 30, elite, L.n_elite, L.n_genes), 27);
	free(elite);
	pl_placer_free(pl);

	pl = new_brkga(&f, "pop=30,elite=0.2,mutants=0.1,evals=0", 1, 5);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	elite = snapshot(pl, 0, L.n_elite, L.n_genes);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	assert_int_equal(count_copies(pl, 30, elite, L.n_elite, L.n_genes), 6);
	free(elite);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Genes of x equal to those of y (the same chromosome: all G). */
static long
count_same(const float *x, const float *y, long G)
{
	long n = 0;
	for (long i = 0; i < G; i++)
		n += x[i] == y[i];
	return n;
}

/* Whether every gene of x is that of e or of o (1) or not (0); of the genes
 * where e and o differ, *from_e and *from_o count those x has from each. */
static int
split_genes(const float *x, const float *e, const float *o, long G, long *from_e,
    long *from_o)
{
	for (long i = 0; i < G; i++) {
		if (x[i] != e[i] && x[i] != o[i])
			return 0;
		if (e[i] != o[i]) {
			*from_e += x[i] == e[i];
			*from_o += x[i] == o[i];
		}
	}
	return 1;
}

/*
 * Children and their parents, over three generations: each chromosome of
 * the next generation is an elite copied unchanged, a mutant (sharing
 * hardly any gene with the previous generation), or a child whose genes
 * all come from exactly one pair of previous chromosomes, one of them of
 * the elite (rank < n_elite) and the other not.  Of the genes where the
 * two parents differ, the share taken from the elite parent is rho = 0.7:
 * over 3 x 35 children of 572 genes (about 58,000 such genes, standard
 * deviation about 0.002) it must lie within 0.03 of 0.7, some 15 standard
 * deviations; an unbiased crossover gives 0.5, a bias towards the wrong
 * parent 0.3.
 */
static void
test_crossover_parents(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 60, 3, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=50,elite=0.2,mutants=0.1,evals=0", 1, 11);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	int p = L.pop_size, ne = L.n_elite, nm = L.n_mutants;
	long G = L.n_genes;
	assert_int_equal(ne, 10);
	assert_int_equal(nm, 5);
	assert_int_equal(G, 572);
	long from_e = 0, from_o = 0;
	long *same = malloc(sizeof *same * (size_t)p);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	for (int gen = 1; gen <= 3; gen++) {
		float *prev = snapshot(pl, 0, p, G);
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		int copies = 0, mutants = 0, children = 0;
		for (int r = 0; r < p; r++) {
			const float *x = pl_brkga_chromosome(pl, 0, r, NULL, NULL);
			long most = 0;
			int copy_of = -1;
			for (int j = 0; j < p; j++) {
				same[j] = count_same(x, prev + (long)j * G, G);
				if (same[j] > most)
					most = same[j];
				if (same[j] == G)
					copy_of = j;
			}
			if (copy_of >= 0) {
				if (copy_of >= ne)
					fail_msg("generation %d, rank %d: a copy of non-elite rank %d",
					    gen, r, copy_of);
				copies++;
				continue;
			}
			if (most < G / 10) {
				mutants++;
				continue;
			}
			/* the only pair of previous chromosomes x can come from */
			int pe = -1, po = -1, pairs = 0;
			long ce = 0, co = 0;
			for (int a = 0; a < p; a++)
				for (int b = a + 1; b < p; b++) {
					long e1 = 0, o1 = 0;
					if (same[a] + same[b] < G || !split_genes(x, prev + (long)a * G,
					    prev + (long)b * G, G, &e1, &o1))
						continue;
					pairs++;
					pe = a;
					po = b;
					ce = e1;
					co = o1;
				}
			if (pairs != 1)
				fail_msg("generation %d, rank %d: %d pairs of parents", gen, r, pairs);
			if (pe >= ne || po < ne)
				fail_msg("generation %d, rank %d: parents of ranks %d and %d "
				    "(elite: below %d)", gen, r, pe, po, ne);
			from_e += ce;
			from_o += co;
			children++;
		}
		assert_int_equal(copies, ne);
		assert_int_equal(mutants, nm);
		assert_int_equal(children, p - ne - nm);
		free(prev);
	}
	double share = (double)from_e / (double)(from_e + from_o);
	if (from_e + from_o < 30000 || fabs(share - 0.7) > 0.03)
		fail_msg("%ld genes from the elite parent, %ld from the other: share %.4f, "
		    "expected 0.7", from_e, from_o, share);
	free(same);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Sample mean and variance of genes [from, to) over a population. */
static void
moments(struct pl_placer *pl, int p, long from, long to, const char *skip_set,
    double *mean, double *var)
{
	double s1 = 0, s2 = 0;
	long n = 0;
	for (int r = 0; r < p; r++) {
		if (skip_set != NULL && skip_set[r])
			continue;
		const float *x = pl_brkga_chromosome(pl, 0, r, NULL, NULL);
		for (long i = from; i < to; i++) {
			s1 += x[i];
			s2 += (double)x[i] * x[i];
			n++;
		}
	}
	assert_true(n > 1000);
	*mean = s1 / n;
	*var = s2 / n - *mean * *mean;
}

/* Check Beta(a, b) moments within tolerances a wrong sampler misses. */
static void
check_beta(double mean, double var, double a, double b, const char *what)
{
	double m = a / (a + b), v = a * b / ((a + b) * (a + b) * (a + b + 1));
	if (fabs(mean - m) > 0.012 || fabs(var - v) > 0.12 * v)
		fail_msg("%s: mean %.4f var %.5f, Beta(%g, %g) has %.4f and %.5f",
		    what, mean, var, a, b, m, v);
}

/* The initial population and later mutants follow the given Betas. */
static void
test_beta_sampling(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 80, 11, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=60,elite=0.1,mutants=0.5,rho=1,evals=0", 1, 21);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	long G = L.n_genes;
	double *al = malloc(sizeof *al * G), *be = malloc(sizeof *be * G);
	for (long i = 0; i < G; i++) {
		int part = i < L.prio_off ? 0 : i < L.tprio_off ? 1 : 2;
		al[i] = part == 0 ? 2 : part == 1 ? 0.5 : 5;
		be[i] = part == 0 ? 5 : part == 1 ? 0.5 : 1;
	}
	char *cause = NULL;
	assert_int_equal(pl_brkga_set_beta(pl, al, be, G, &cause), 0);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	double m, v;
	moments(pl, 60, 0, L.prio_off, NULL, &m, &v);
	check_beta(m, v, 2, 5, "affinity genes");
	moments(pl, 60, L.prio_off, L.tprio_off, NULL, &m, &v);
	check_beta(m, v, 0.5, 0.5, "priority genes");
	moments(pl, 60, L.tprio_off, G, NULL, &m, &v);
	check_beta(m, v, 5, 1, "tensor genes");
	/* a uniform sample would fail the first check */
	assert_true(fabs(0.5 - 2.0 / 7) > 0.012);

	/* mutants of the next generation follow new distributions; with
	 * rho = 1 every other chromosome copies a previous elite */
	for (long i = 0; i < G; i++) {
		al[i] = 3;
		be[i] = 1.5;
	}
	assert_int_equal(pl_brkga_set_beta(pl, al, be, G, &cause), 0);
	float *elite = snapshot(pl, 0, L.n_elite, G);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	char skip[60];
	int n_mut = 0;
	for (int r = 0; r < 60; r++) {
		const float *x = pl_brkga_chromosome(pl, 0, r, NULL, NULL);
		skip[r] = 0;
		for (int j = 0; j < L.n_elite; j++)
			if (memcmp(x, elite + (long)j * G, sizeof *x * G) == 0)
				skip[r] = 1;
		n_mut += !skip[r];
	}
	assert_int_equal(n_mut, L.n_mutants);
	moments(pl, 60, 0, G, skip, &m, &v);
	check_beta(m, v, 3, 1.5, "mutants");
	free(elite);

	/* bad parameters are refused; NULL restores uniform */
	al[3] = 0;
	assert_int_equal(pl_brkga_set_beta(pl, al, be, G, &cause), -1);
	assert_non_null(strstr(cause, "gene 3"));
	free(cause);
	assert_int_equal(pl_brkga_set_beta(pl, al, be, G - 1, &cause), -1);
	free(cause);
	free(al);
	free(be);
	pl_placer_free(pl);

	/* uniform by default */
	pl = new_brkga(&f, "pop=60,evals=0", 1, 4);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	moments(pl, 60, 0, G, NULL, &m, &v);
	check_beta(m, v, 1, 1, "default");
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Write text to a fresh temporary file; returns its path (caller frees). */
static char *
temp_file(const char *text)
{
	char *path = strdup("/tmp/test-brkga-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t n = strlen(text);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Beta files: parts by name, errors with file and line. */
static void
test_beta_file(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 40, 2, (int64_t)8 << 30);
	char *good = temp_file("placelab-beta/1\n# learned\n"
	    "default 4 4\n"
	    "affinity op3 /gpu:0 9 1   # op3's group prefers gpu:0\n"
	    "affinity op3 * 1 9\n"
	    "affinity \"op10\" \"/gpu:2\" 20 1 # names may be quoted \"#\"\n"
	    "priority \"op7\"\t1 30\n"
	    "tensor op1:1 * 1 1\n");
	char *spec;
	if (asprintf(&spec, "pop=200,evals=0,beta-file=%s", good) < 0)
		fail();
	struct pl_placer *pl = new_brkga(&f, spec, 1, 3);
	free(spec);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	int g3 = f.g->ops[3].group, g10 = f.g->ops[10].group;
	double s_g3 = 0, s_g10 = 0, s_p7 = 0, s_other = 0;
	for (int r = 0; r < 200; r++) {
		const float *x = pl_brkga_chromosome(pl, 0, r, NULL, NULL);
		s_g3 += x[L.aff_off + (long)g3 * 4 + 1];	/* "*" came last: Beta(1, 9) */
		s_g10 += x[L.aff_off + (long)g10 * 4 + 3];
		s_p7 += x[L.prio_off + 7];
		s_other += x[L.prio_off + 8];
	}
	assert_true(fabs(s_g3 / 200 - 0.1) < 0.04);
	assert_true(fabs(s_g10 / 200 - 20.0 / 21) < 0.04);
	assert_true(fabs(s_p7 / 200 - 1.0 / 31) < 0.03);
	assert_true(fabs(s_other / 200 - 0.5) < 0.06);
	pl_placer_free(pl);
	unlink(good);
	free(good);

	/* per node, as REGAL's policy sets them: op 1 (unconstrained) leans
	 * to /gpu:1 (device 2) and to a low priority */
	pl = new_brkga(&f, "pop=50,evals=0", 1, 8);
	double na[4] = { 1, 1, 60, 1 }, nb[4] = { 60, 60, 1, 60 };
	char *err = NULL;
	assert_int_equal(pl_brkga_set_node_beta(pl, 1, na, nb, 1, 50, &err), 0);
	assert_int_equal(pl_brkga_set_node_beta(pl, 1, na, nb, -1, 2, &err), -1);
	free(err);
	assert_int_equal(pl_brkga_set_node_beta(pl, 999, NULL, NULL, 1, 1, &err), -1);
	free(err);
	assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	struct pl_placement *out = pl_placement_new(f.g->n_ops, f.c->n_dev);
	int on2 = 0, on2_other = 0;
	double prio1 = 0;
	for (int r = 0; r < 50; r++) {
		pl_brkga_decode(pl, pl_brkga_chromosome(pl, 0, r, NULL, NULL), out);
		on2 += out->dev[1] == 2;
		on2_other += out->dev[2] == 2;
		prio1 += out->prio[1];
	}
	assert_true(on2 >= 48);
	assert_true(on2_other < 30);
	assert_true(prio1 / 50 < 0.06);
	pl_placement_free(out);
	pl_placer_free(pl);

	const char *bad[][2] = {
		{ "nonsense\n", ":1: expected the header 'placelab-beta/1'" },
		{ "PLWEIGHT\001rest", ": holds a trained policy (PLWEIGHT), not BRKGA's Beta parameters (expected a placelab-beta/1 file)" },
		{ "{\"format\": \"placelab-graph/1\", \"ops\": []}", ": holds a graph (placelab-graph/1), not BRKGA's Beta parameters" },
		{ "placelab-beta/1\naffinity nosuchop * 1 1\n", ":2: op 'nosuchop' is not in graph '" },
		{ "placelab-beta/1\npriority\n", ":2: no op given (expected 'priority OP ALPHA BETA')" },
		{ "placelab-beta/1\n\npriority op1 1 -2\n", ":3: BETA '-2' is not a number > 0 (expected one as JSON writes it: 2, 0.5, 1e-3; not .5, +2 or 1.)" },
		{ "placelab-beta/1\ndefault .5 2\n", ":2: ALPHA '.5' is not a number > 0" },
		{ "placelab-beta/1\naffinity op1 * +2 1\n", ":2: ALPHA '+2' is not a number > 0" },
		{ "placelab-beta/1\ndefault 2\n", ":2: BETA is missing (expected 'default ALPHA BETA')" },
		{ "placelab-beta/1\ntensor op1:1 * 1\n", ":2: BETA is missing (expected 'tensor OP:INDEX DEVICE ALPHA BETA')" },
		{ "placelab-beta/1\npriority op1 1 2 3\n", ":2: too many fields (expected 'priority OP ALPHA BETA'" },
		{ "placelab-beta/1\ntensor op1:+0 * 1 1\n", ":2: expected an existing tensor OP:INDEX" },
		{ "placelab-beta/1\naffinity op1 /tpu:9 1 1\n", ":2: device '/tpu:9' is not in cluster '" },
		{ "placelab-beta/1\ntensor op1:99 * 1 1\n", "tensor" },
		{ "placelab-beta/1\nfrobnicate 1 2\n", "unknown keyword" },
		{ "placelab-beta/1\naffinity \"no such#op\\\"\" * 1 1\n",
		  ":2: op 'no such#op\"' is not in graph '" },
		{ "placelab-beta/1\naffinity \"op1 * 1 1\n", ":2: a quoted name is not closed" },
		{ "placelab-beta/1\naffinity \"op1\"x * 1 1\n", ":2: text after a quoted name" },
		{ "placelab-beta/1\naffinity op 1 * 1 1\n", ":2: too many fields (a name with spaces" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *path = temp_file(bad[i][0]);
		if (asprintf(&spec, "beta-file=%s", path) < 0)
			fail();
		expect_create_error(&f, spec, bad[i][1]);
		free(spec);
		unlink(path);
		free(path);
	}
	expect_create_error(&f, "beta-file=/nonexistent/beta.txt", "/nonexistent/beta.txt");
	/* what follows a NUL byte was never read: refused at the NUL */
	char *path = temp_file("placelab-beta/1\ndefault 1 1");
	FILE *fp = fopen(path, "ab");
	assert_non_null(fp);
	fwrite("\0\nfrobnicate 1 2\n", 1, 18, fp);
	fclose(fp);
	if (asprintf(&spec, "beta-file=%s", path) < 0)
		fail();
	expect_create_error(&f, spec, ":2:12: a NUL byte (expected text)");
	free(spec);
	unlink(path);
	free(path);
	fixture_free(&f);
}

/* Whether history entry b is no better than a (lexicographic on OOM). */
static int
worse(const struct pl_brkga_gen *a, const struct pl_brkga_gen *b)
{
	if (a->best_oom != b->best_oom)
		return b->best_oom;
	return !a->best_oom && b->best > a->best;
}

/* The best never gets worse; pl->best is its decoding and its result is
 * what the simulator says; a feasible best exists when one was found. */
static void
test_best_monotone(void **state)
{
	(void)state;
	struct fixture f;
	/* GPUs so small that many placements run out of memory */
	fixture_init(&f, 150, 5, (int64_t)40 << 20);
	struct pl_placer *pl = new_brkga(&f,
	    "pop=40,populations=2,exchange=3,exchange-count=2,generations=15,evals=0", 1, 9);
	enum pl_step_status st = pl_placer_run(pl, 0, 0);
	assert_int_equal(st, PL_STEP_DONE);
	int n;
	const struct pl_brkga_gen *h = pl_brkga_history(pl, &n);
	assert_int_equal(n, 16);
	int any_oom = 0;
	for (int i = 0; i < n; i++) {
		assert_int_equal(h[i].gen, i);
		any_oom |= h[i].n_oom > 0;
		if (i > 0) {
			assert_false(worse(&h[i - 1], &h[i]));
			assert_true(h[i].evals > h[i - 1].evals);
		}
		assert_true(h[i].diversity >= 0 && h[i].diversity < 0.5);
		if (!isnan(h[i].mean))
			assert_true(h[i].worst >= h[i].mean);
	}
	assert_true(any_oom);
	assert_int_equal(h[n - 1].evals, 80 + 15 * 2 * 36);
	assert_true(h[n - 1].diversity < h[0].diversity);
	char *cause = NULL;
	assert_int_equal(pl_placement_check(pl->best, f.g, f.c, &cause), 0);
	assert_non_null(pl->best->tprio);
	struct pl_sim_result r;
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	assert_int_equal(pl_sim_eval(ws, pl->best, &pl->run.sim, &r), 0);
	assert_true(r.makespan_us == pl->best_res.makespan_us);
	assert_true(r.makespan_us == h[n - 1].best_makespan_us);
	assert_true(r.peak_fullest == h[n - 1].best_peak_bytes);
	pl_sim_ws_free(ws);
	/* if some chromosome ever fit, the best fits */
	int ever_ok = 0;
	for (int i = 0; i < n; i++)
		ever_ok |= !isnan(h[i].mean);
	assert_int_equal(h[n - 1].best_oom, !ever_ok);
	/* the history CSV has a header and one row per generation */
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	assert_int_equal(pl_placer_brkga.history_csv(pl, mf), 0);
	fclose(mf);
	int lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, n + 1);
	assert_true(strncmp(buf, "generation,evals,wall_s,best,", 29) == 0);
	free(buf);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Same seed, 1 and 2 threads: the same history and the same best. */
static void
test_threads(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 100, 8, (int64_t)60 << 20);
	const char *spec = "pop=30,populations=2,exchange=2,generations=8,evals=0";
	struct pl_placer *a = new_brkga(&f, spec, 1, 77);
	struct pl_placer *b = new_brkga(&f, spec, 2, 77);
	pl_placer_run(a, 0, 0);
	pl_placer_run(b, 0, 0);
	int na, nb;
	const struct pl_brkga_gen *ha = pl_brkga_history(a, &na);
	const struct pl_brkga_gen *hb = pl_brkga_history(b, &nb);
	assert_int_equal(na, 9);
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		const struct pl_brkga_gen *x = &ha[i], *y = &hb[i];
		assert_int_equal(x->gen, y->gen);
		assert_int_equal(x->evals, y->evals);
		assert_true(x->best == y->best);
		assert_int_equal(x->best_oom, y->best_oom);
		assert_true(x->mean == y->mean || (isnan(x->mean) && isnan(y->mean)));
		assert_true(x->worst == y->worst || (isnan(x->worst) && isnan(y->worst)));
		assert_int_equal(x->n_oom, y->n_oom);
		assert_true(x->best_makespan_us == y->best_makespan_us);
		assert_int_equal(x->best_peak_bytes, y->best_peak_bytes);
		assert_true(x->diversity == y->diversity);
	}
	assert_memory_equal(a->best->dev, b->best->dev, sizeof(int) * f.g->n_ops);
	/* another seed gives another run */
	struct pl_placer *c = new_brkga(&f, spec, 2, 78);
	pl_placer_run(c, 0, 0);
	int nc;
	const struct pl_brkga_gen *hc = pl_brkga_history(c, &nc);
	assert_true(hc[0].mean != ha[0].mean);
	pl_placer_free(a);
	pl_placer_free(b);
	pl_placer_free(c);
	fixture_free(&f);
}

/* Budgets: evaluations never exceeded; patience stops; objectives. */
static void
test_budgets_objectives(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 60, 4, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=50,evals=500", 2, 1);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	assert_true(pl->evals <= 500);
	assert_true(pl->evals + 45 > 500);
	assert_int_equal(pl->evals, 50 + 45 * 10);
	pl_placer_free(pl);

	/* allocations per generation do not grow with the population: none
	 * per chromosome (the driver's status and note strings only) */
	pl = new_brkga(&f, "pop=80,evals=0", 2, 1);
	pl_placer_step(pl);
	pl_placer_step(pl);
	unsigned long a0 = pl_alloc_count();
	for (int i = 0; i < 5; i++)
		pl_placer_step(pl);
	assert_true(pl_alloc_count() - a0 <= 5 * 4);
	pl_placer_free(pl);

	pl = new_brkga(&f, "pop=10,evals=0,patience=3", 1, 1);
	assert_int_equal(pl_placer_run(pl, 1000, 0), PL_STEP_DONE);
	int n;
	const struct pl_brkga_gen *h = pl_brkga_history(pl, &n);
	assert_true(n < 1000);
	assert_true(h[n - 1].best == h[n - 4].best);
	pl_placer_free(pl);

	/* memory objective: the best's fitness is its peak */
	pl = new_brkga(&f, "pop=20,generations=5,objective=memory", 1, 1);
	pl_placer_run(pl, 0, 0);
	h = pl_brkga_history(pl, &n);
	assert_true(h[n - 1].best == (double)h[n - 1].best_peak_bytes);
	int64_t mem_peak = h[n - 1].best_peak_bytes;
	pl_placer_free(pl);
	pl = new_brkga(&f, "pop=20,generations=5,objective=runtime", 1, 1);
	pl_placer_run(pl, 0, 0);
	h = pl_brkga_history(pl, &n);
	assert_true(h[n - 1].best == h[n - 1].best_makespan_us);
	assert_true(h[n - 1].best_peak_bytes >= mem_peak);
	pl_placer_free(pl);
	pl = new_brkga(&f, "pop=20,generations=2,objective=mix:0.5", 1, 1);
	pl_placer_run(pl, 0, 0);
	h = pl_brkga_history(pl, &n);
	assert_true(h[n - 1].best > 0 && isfinite(h[n - 1].best));
	pl_placer_free(pl);

	expect_create_error(&f, "pop=50,evals=20", "initial population");
	expect_create_error(&f, "objective=speed", "objective");
	expect_create_error(&f, "objective=mix:2", "mix:W");
	expect_create_error(&f, "pop=1", "pop");
	expect_create_error(&f, "elite=0.6,mutants=0.5", "no room");
	expect_create_error(&f, "rho=0.3", "rho");
	expect_create_error(&f, "populations=3,pop=10,exchange-count=5", "exchange-count");
	/* with exchange 0 the count is moot: independent populations run */
	pl = new_brkga(&f, "populations=50,exchange=0,pop=10,evals=0,generations=1", 1, 1);
	pl_placer_free(pl);
	/* more seeds than a population holds (one of its own) are refused,
	 * not dropped */
	expect_create_error(&f, "pop=2,seed-from=m-topo+heft",
	    "brkga: option 'seed-from': 2 placers, but a population of 2 takes at most 1 (expected pop above 2)");
	expect_create_error(&f, "seed-from=nosuchplacer", "nosuchplacer");
	expect_create_error(&f, "seed-from=brkga", "not another placer");
	/* an empty name in the list is refused, not skipped */
	expect_create_error(&f, "seed-from=heft+", "an empty name in 'heft+'");
	expect_create_error(&f, "seed-from=heft:+expert", "an empty name");
	fixture_free(&f);
}

/* Warm start from another registered placer: one chromosome of the
 * initial population decodes to that placer's devices. */
static void
test_seed_from(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 60, 6, (int64_t)8 << 30);
	static const char *const prefer[] = { "heft", "single-gpu", "random", "expert", NULL };
	int tried = 0;
	for (int i = 0; prefer[i] != NULL; i++) {
		const struct pl_placer_class *cls = pl_placer_find(prefer[i]);
		if (cls == NULL)
			continue;
		tried++;
		char spec[128];
		snprintf(spec, sizeof spec, "pop=10,generations=2,seed-from=%s", prefer[i]);
		struct pl_placer *pl = new_brkga(&f, spec, 1, 1);
		struct pl_run_opts run = pl->run;
		char *cause = NULL;
		struct pl_placer *base = pl_placer_new(cls, f.p, NULL, &run, &cause);
		if (base == NULL)
			fail_msg("%s: %s", prefer[i], cause);
		pl_placer_run(base, 0, 0);
		assert_non_null(base->best);
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		struct pl_placement *out = pl_placement_new(f.g->n_ops, f.c->n_dev);
		int found = 0;
		for (int r = 0; r < 10; r++) {
			pl_brkga_decode(pl, pl_brkga_chromosome(pl, 0, r, NULL, NULL), out);
			if (memcmp(out->dev, base->best->dev, sizeof(int) * f.g->n_ops) == 0)
				found++;
		}
		assert_true(found >= 1);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		pl_placement_free(out);
		pl_placer_free(base);
		pl_placer_free(pl);
	}
	/* the list syntax takes ',' (from --seed-from) and '+' (in --opt) */
	if (tried >= 2) {
		struct pl_placer *pl = new_brkga(&f, "pop=10,generations=1,seed-from=heft+single-gpu", 1, 1);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		pl_placer_free(pl);
		/* and spaces: "heft single-gpu", " heft + single-gpu " */
		pl = new_brkga(&f, "pop=10,generations=1,seed-from= heft  single-gpu ", 1, 1);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		pl_placer_free(pl);
		pl = new_brkga(&f, "pop=10,generations=1,seed-from= heft + single-gpu ", 1, 1);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		pl_placer_free(pl);
	}
	fixture_free(&f);
}

/* Settings whose genes need more than the 2 GiB limit are refused with
 * their need rounded up (never down to the limit) and the limit stated;
 * a Beta file is checked against a problem without any population. */
static void
test_gene_limit(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 40, 2, (int64_t)8 << 30);
	struct pl_placer *pl = new_brkga(&f, "pop=4", 1, 1);
	struct pl_brkga_layout L;
	pl_brkga_layout(pl, &L);
	pl_placer_free(pl);
	/* the smallest population over the limit: a need just above 2 GiB */
	long pop = ((long)2 << 30) / (8 * L.n_genes) + 1;
	double gib = 8.0 * (double)pop * (double)L.n_genes / (1 << 30);
	assert_true(gib > 2 && gib < 2.001 && pop <= 1000000);
	char spec[96];
	snprintf(spec, sizeof spec, "pop=%ld,evals=0", pop);
	struct pl_run_opts run = { .seed = 1, .threads = 1 };
	char *cause = NULL;
	assert_null(pl_placer_new(&pl_placer_brkga, f.p, spec, &run, &cause));
	assert_non_null(cause);
	const char *at = strstr(cause, "genes need ");
	double need = 0;
	if (at == NULL || sscanf(at, "genes need %lf GiB", &need) != 1 ||
	    strstr(cause, "GiB, more than the limit of 2 GiB; ") == NULL)
		fail_msg("'%s' lacks the need and the limit", cause);
	if (!(need > 2 && need >= gib && need < gib + 0.001))
		fail_msg("'%s': %.6f GiB needed", cause, gib);
	free(cause);

	static const char good[] = "placelab-beta/1\npriority op5 2 2\ntensor op1:1 * 1 1\n";
	assert_int_equal(pl_brkga_check_beta(f.p, 1, good, strlen(good), "b.txt", &cause), 0);
	assert_int_equal(pl_brkga_check_beta(f.p, 0, good, strlen(good), "b.txt", &cause), -1);
	assert_non_null(strstr(cause, "b.txt:3: tensor line, but the chromosome has no tensor genes"));
	free(cause);
	static const char bad[] = "placelab-beta/1\npriority nosuch 2 2\n";
	assert_int_equal(pl_brkga_check_beta(f.p, 1, bad, strlen(bad), "b.txt", &cause), -1);
	assert_non_null(strstr(cause, "b.txt:2: op 'nosuch' is not in graph"));
	free(cause);
	fixture_free(&f);
}

/*
 * A warm start from a placer that sets no priorities replays its schedule:
 * the chromosome encoding its placement decodes to the same devices and
 * simulates to exactly its makespan, with tensor genes and without, on
 * sample graphs and on per-pair links and a shared bus.
 */
static void
test_seed_schedule(void **state)
{
	(void)state;
	static const char *const graphs[] = { "crown", "rnnlm", "inception_v3" };
	static const char *const clusters[] = { "k80x4", "k80x4-bus" };
	static const char *const seeds[] = { "m-topo", "single-gpu", "single-cpu",
	    "expert", "random", "scotch", "scotch-mem", "mincut" };
	int checked = 0;
	for (size_t gi = 0; gi < sizeof graphs / sizeof graphs[0]; gi++) {
		char path[512], *cause = NULL;
		snprintf(path, sizeof path, "%s/samples/%s.json", PL_SRCDIR, graphs[gi]);
		struct pl_graph *g = pl_graph_load_json(path, &cause);
		if (g == NULL)
			fail_msg("%s: %s", path, cause);
		for (size_t ci = 0; ci < sizeof clusters / sizeof clusters[0]; ci++) {
			struct pl_cluster *c = pl_cluster_preset(clusters[ci]);
			assert_non_null(c);
			struct pl_problem *p = pl_problem_new(g, c, &cause);
			if (p == NULL)
				fail_msg("%s on %s: %s", graphs[gi], clusters[ci], cause);
			struct fixture f = { .g = g, .c = c, .p = p };
			struct pl_sim_ws *ws = pl_sim_ws_new(p);
			for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
				const struct pl_placer_class *cls = pl_placer_find(seeds[si]);
				if (cls == NULL)
					continue;
				for (int tg = 0; tg < 2; tg++) {
					char spec[160];
					snprintf(spec, sizeof spec, "pop=2,evals=0,seconds=0,"
					    "tensor-genes=%d,seed-from=%s", tg, seeds[si]);
					struct pl_placer *pl = new_brkga(&f, spec, 1, 3);
					struct pl_run_opts run = pl->run;
					struct pl_placer *base = pl_placer_new(cls, p, NULL, &run, &cause);
					if (base == NULL)
						fail_msg("%s: %s", seeds[si], cause);
					pl_placer_run(base, 0, 0);
					assert_non_null(base->best);
					assert_null(base->best->prio);
					struct pl_sim_result want, got;
					assert_int_equal(pl_sim_eval(ws, base->best, &run.sim, &want), 0);
					assert_int_not_equal(pl_placer_step(pl), PL_STEP_ERROR);
					/* fresh: without tensor genes tprio stays NULL */
					struct pl_placement *out = pl_placement_new(g->n_ops, c->n_dev);
					int found = 0;
					double seen = NAN;
					for (int r = 0; r < 2; r++) {
						pl_brkga_decode(pl, pl_brkga_chromosome(pl, 0, r, NULL, NULL), out);
						if (memcmp(out->dev, base->best->dev, sizeof(int) * g->n_ops) != 0)
							continue;
						assert_int_equal(pl_sim_eval(ws, out, &run.sim, &got), 0);
						seen = got.makespan_us;
						found |= got.makespan_us == want.makespan_us;
					}
					if (!found)
						fail_msg("%s on %s, seed-from=%s, tensor-genes=%d: the "
						    "encoded seed runs in %.17g us, the seed in %.17g us",
						    graphs[gi], clusters[ci], seeds[si], tg, seen,
						    want.makespan_us);
					checked++;
					pl_placement_free(out);
					pl_placer_free(base);
					pl_placer_free(pl);
				}
			}
			pl_sim_ws_free(ws);
			pl_problem_free(p);
			pl_cluster_free(c);
		}
		pl_graph_free(g);
	}
	assert_true(checked >= 3 * 2 * 2 * 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoder),
		cmocka_unit_test(test_crossover_rho1),
		cmocka_unit_test(test_crossover_parents),
		cmocka_unit_test(test_beta_sampling),
		cmocka_unit_test(test_beta_file),
		cmocka_unit_test(test_best_monotone),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_budgets_objectives),
		cmocka_unit_test(test_seed_from),
		cmocka_unit_test(test_seed_schedule),
		cmocka_unit_test(test_gene_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
