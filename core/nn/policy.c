/*
 * policy — forward and backward passes of Placeto's policy (see policy.h).
 *
 * Invariant: the workspace's tape is laid out for its capacity; every
 * buffer the forward pass writes is what the backward pass reads.
 */
#include "policy.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define MAXK 64

struct pl_policy_ws {
	int cap;		/* nodes */
	float *s_tape;		/* T */
	float *f_tape[2][MAXK], *m[2][MAXK], *g_tape[2][MAXK], *x[2][MAXK];
	float *e;		/* n x 2d */
	float *pf_tape[3], pool[3][1024], *pg_tape[3];
	float z[4096];
	float *head_tape;
	/* backward buffers */
	float *scratch, *dx, *dx2, *ds, *de, *dtmp;
	float *logits;
};

/* Build the layers. */
struct pl_policy *
pl_policy_new(const struct pl_policy_cfg *cfg, uint64_t seed)
{
	struct pl_policy *p = pl_xcalloc(1, sizeof *p);
	int d = cfg->d, d2 = 2 * d;
	p->cfg = *cfg;
	if (p->cfg.k > MAXK)
		p->cfg.k = MAXK;
	if (p->cfg.k < 0)
		p->cfg.k = 0;
	p->m = pl_nn_model_new();
	int ts[] = { d, d, d, d };
	pl_nn_mlp_init(p->m, &p->T, "mp/node_transform", 4, ts, 0);
	int fs[] = { d, d, d };
	static const char *const dirs[2] = { "fwd", "bwd" };
	char buf[64];
	for (int i = 0; i < 2; i++) {
		snprintf(buf, sizeof buf, "mp/%s/f", dirs[i]);
		pl_nn_mlp_init(p->m, &p->f[i], buf, 3, fs, 1);
		snprintf(buf, sizeof buf, "mp/%s/g", dirs[i]);
		pl_nn_mlp_init(p->m, &p->g[i], buf, 3, fs, 1);
	}
	int ps[] = { d2, d2, d2 };
	static const char *const sets[3] = { "anc", "desc", "par" };
	for (int i = 0; i < 3; i++) {
		snprintf(buf, sizeof buf, "agg/%s/f", sets[i]);
		pl_nn_mlp_init(p->m, &p->pf[i], buf, 3, ps, 1);
		snprintf(buf, sizeof buf, "agg/%s/g", sets[i]);
		pl_nn_mlp_init(p->m, &p->pg[i], buf, 3, ps, 1);
	}
	int hs[] = { 8 * d, 16 * d, 8 * d, cfg->n_dev };
	pl_nn_mlp_init(p->m, &p->head, "head", 4, hs, 0);
	pl_nn_model_init(p->m, seed);
	return p;
}

/* Free the policy. */
void
pl_policy_free(struct pl_policy *p)
{
	if (p == NULL)
		return;
	pl_nn_model_free(p->m);
	free(p);
}

/* Free every buffer of a workspace. */
static void
ws_release(struct pl_policy_ws *ws)
{
	free(ws->s_tape);
	for (int i = 0; i < 2; i++)
		for (int r = 0; r < MAXK; r++) {
			free(ws->f_tape[i][r]);
			free(ws->m[i][r]);
			free(ws->g_tape[i][r]);
			free(ws->x[i][r]);
		}
	free(ws->e);
	for (int i = 0; i < 3; i++) {
		free(ws->pf_tape[i]);
		free(ws->pg_tape[i]);
	}
	free(ws->head_tape);
	free(ws->scratch);
	free(ws->dx);
	free(ws->dx2);
	free(ws->ds);
	free(ws->de);
	free(ws->dtmp);
	free(ws->logits);
}

/* Allocate floats. */
static float *
fl(size_t n)
{
	return pl_xcalloc(n ? n : 1, sizeof(float));
}

/* (Re)size a workspace for n nodes. */
static void
ws_size(const struct pl_policy *p, struct pl_policy_ws *ws, int n)
{
	if (n <= ws->cap)
		return;
	ws_release(ws);
	memset(ws, 0, sizeof *ws);
	ws->cap = n;
	size_t d = (size_t)p->cfg.d, nn = (size_t)n;
	ws->s_tape = fl(pl_nn_mlp_tape(&p->T, n));
	for (int i = 0; i < 2; i++)
		for (int r = 0; r < p->cfg.k; r++) {
			ws->f_tape[i][r] = fl(pl_nn_mlp_tape(&p->f[i], n));
			ws->m[i][r] = fl(nn * d);
			ws->g_tape[i][r] = fl(pl_nn_mlp_tape(&p->g[i], n));
			ws->x[i][r] = fl(nn * d);
		}
	ws->e = fl(nn * 2 * d);
	for (int i = 0; i < 3; i++) {
		ws->pf_tape[i] = fl(pl_nn_mlp_tape(&p->pf[i], n));
		ws->pg_tape[i] = fl(pl_nn_mlp_tape(&p->pg[i], 1));
	}
	ws->head_tape = fl(pl_nn_mlp_tape(&p->head, 1));
	size_t sc = pl_nn_mlp_scratch(&p->pf[0], n);
	if (pl_nn_mlp_scratch(&p->head, 1) > sc)
		sc = pl_nn_mlp_scratch(&p->head, 1);
	if (pl_nn_mlp_scratch(&p->T, n) > sc)
		sc = pl_nn_mlp_scratch(&p->T, n);
	ws->scratch = fl(sc);
	ws->dx = fl(nn * d);
	ws->dx2 = fl(nn * d);
	ws->ds = fl(nn * d);
	ws->de = fl(nn * 2 * d);
	ws->dtmp = fl(nn * 2 * d);
	ws->logits = fl((size_t)p->cfg.n_dev);
}

/* A workspace for n nodes. */
struct pl_policy_ws *
pl_policy_ws_new(const struct pl_policy *p, int n)
{
	struct pl_policy_ws *ws = pl_xcalloc(1, sizeof *ws);
	if ((size_t)p->cfg.d * 8 > sizeof ws->z / sizeof ws->z[0])
		abort();
	ws_size(p, ws, n > 0 ? n : 1);
	return ws;
}

/* Free a workspace. */
void
pl_policy_ws_free(struct pl_policy_ws *ws)
{
	if (ws == NULL)
		return;
	ws_release(ws);
	free(ws);
}

/* Whether node v has a neighbour in a. */
static inline int
has_nb(const struct pl_nn_csr *a, int v)
{
	return a->off[v + 1] > a->off[v];
}

/* Forward pass. */
void
pl_policy_forward(const struct pl_policy *p, const float *w,
    const struct pl_policy_in *in, struct pl_policy_ws *ws, float *logits,
    float *probs)
{
	int n = in->n, d = p->cfg.d, d2 = 2 * d, k = p->cfg.k;
	ws_size(p, ws, n);
	const float *s = pl_nn_mlp_forward(&p->T, w, n, in->x0, ws->s_tape);
	for (int dir = 0; dir < 2; dir++) {
		const struct pl_nn_csr *a = in->adj[dir];
		const float *x = s;
		for (int r = 0; r < k; r++) {
			const float *fo = pl_nn_mlp_forward(&p->f[dir], w, n, x, ws->f_tape[dir][r]);
			if (p->cfg.mp_mean)
				pl_nn_csr_mean_forward(a, d, fo, ws->m[dir][r]);
			else
				pl_nn_csr_sum_forward(a, d, fo, ws->m[dir][r]);
			const float *go = pl_nn_mlp_forward(&p->g[dir], w, n, ws->m[dir][r], ws->g_tape[dir][r]);
			float *xr = ws->x[dir][r];
			for (int v = 0; v < n; v++) {
				int keep = has_nb(a, v);
				for (int j = 0; j < d; j++)
					xr[(size_t)v * d + j] = (keep ? go[(size_t)v * d + j] : 0.0f) + s[(size_t)v * d + j];
			}
			x = xr;
		}
		for (int v = 0; v < n; v++)
			memcpy(ws->e + (size_t)v * d2 + (size_t)dir * d, x + (size_t)v * d, (size_t)d * sizeof(float));
	}
	for (int i = 0; i < 3; i++) {
		const float *fo = pl_nn_mlp_forward(&p->pf[i], w, n, ws->e, ws->pf_tape[i]);
		pl_nn_pool_forward(n, d2, fo, in->set[i], p->cfg.pool_mean, ws->pool[i]);
		const float *go = pl_nn_mlp_forward(&p->pg[i], w, 1, ws->pool[i], ws->pg_tape[i]);
		memcpy(ws->z + (size_t)i * d2, go, (size_t)d2 * sizeof(float));
	}
	memcpy(ws->z + 3 * (size_t)d2, ws->e + (size_t)in->cur * d2, (size_t)d2 * sizeof(float));
	const float *lo = pl_nn_mlp_forward(&p->head, w, 1, ws->z, ws->head_tape);
	memcpy(logits, lo, (size_t)p->cfg.n_dev * sizeof(float));
	if (probs != NULL)
		pl_nn_softmax(p->cfg.n_dev, logits, in->allowed, probs);
}

/* Backward pass through the tape of the last forward. */
void
pl_policy_backward(const struct pl_policy *p, const float *w, float *gw,
    const struct pl_policy_in *in, struct pl_policy_ws *ws, const float *dlogits)
{
	int n = in->n, d = p->cfg.d, d2 = 2 * d, k = p->cfg.k;
	size_t nd = (size_t)n * d;
	float dz[4096], dpool[1024];
	memset(dz, 0, (size_t)8 * d * sizeof(float));
	pl_nn_mlp_backward(&p->head, w, gw, 1, ws->z, ws->head_tape, dlogits, dz, ws->scratch);
	float *de = ws->de;
	memset(de, 0, (size_t)n * d2 * sizeof(float));
	for (int j = 0; j < d2; j++)
		de[(size_t)in->cur * d2 + j] += dz[3 * d2 + j];
	for (int i = 0; i < 3; i++) {
		memset(dpool, 0, (size_t)d2 * sizeof(float));
		pl_nn_mlp_backward(&p->pg[i], w, gw, 1, ws->pool[i], ws->pg_tape[i], dz + (size_t)i * d2, dpool, ws->scratch);
		float *dfo = ws->dtmp;
		memset(dfo, 0, (size_t)n * d2 * sizeof(float));
		pl_nn_pool_backward(n, d2, in->set[i], p->cfg.pool_mean, dpool, dfo);
		pl_nn_mlp_backward(&p->pf[i], w, gw, n, ws->e, ws->pf_tape[i], dfo, de, ws->scratch);
	}
	const float *s = ws->s_tape + pl_nn_mlp_tape(&p->T, n) - nd;
	float *ds = ws->ds;
	memset(ds, 0, nd * sizeof(float));
	for (int dir = 0; dir < 2; dir++) {
		const struct pl_nn_csr *a = in->adj[dir];
		float *dx = ws->dx;
		for (int v = 0; v < n; v++)
			memcpy(dx + (size_t)v * d, de + (size_t)v * d2 + (size_t)dir * d, (size_t)d * sizeof(float));
		for (int r = k - 1; r >= 0; r--) {
			/* x_r = mask * g(A f(x_{r-1})) + s */
			for (size_t q = 0; q < nd; q++)
				ds[q] += dx[q];
			float *dgo = ws->dtmp;
			for (int v = 0; v < n; v++) {
				int keep = has_nb(a, v);
				for (int j = 0; j < d; j++)
					dgo[(size_t)v * d + j] = keep ? dx[(size_t)v * d + j] : 0.0f;
			}
			float *dm = ws->dx2;
			memset(dm, 0, nd * sizeof(float));
			pl_nn_mlp_backward(&p->g[dir], w, gw, n, ws->m[dir][r], ws->g_tape[dir][r], dgo, dm, ws->scratch);
			float *dfo = ws->dtmp;
			memset(dfo, 0, nd * sizeof(float));
			if (p->cfg.mp_mean)
				pl_nn_csr_mean_backward(a, d, dm, dfo);
			else
				pl_nn_csr_sum_backward(a, d, dm, dfo);
			const float *xin = r > 0 ? ws->x[dir][r - 1] : s;
			memset(dx, 0, nd * sizeof(float));
			pl_nn_mlp_backward(&p->f[dir], w, gw, n, xin, ws->f_tape[dir][r], dfo, dx, ws->scratch);
		}
		for (size_t q = 0; q < nd; q++)
			ds[q] += dx[q];
	}
	pl_nn_mlp_backward(&p->T, w, gw, n, in->x0, ws->s_tape, ds, NULL, ws->scratch);
}

/* Metadata text. */
char *
pl_policy_meta(const struct pl_policy *p, const char *extra)
{
	return pl_xasprintf("placeto-policy d=%d devices=%d k=%d pool-mean=%d mp-mean=%d%s%s",
	    p->cfg.d, p->cfg.n_dev, p->cfg.k, p->cfg.pool_mean, p->cfg.mp_mean,
	    extra != NULL && *extra ? " " : "", extra != NULL ? extra : "");
}

/* Save weights and metadata. */
int
pl_policy_save(const struct pl_policy *p, const char *extra, const char *path,
    char **cause)
{
	char *meta = pl_policy_meta(p, extra);
	int rc = pl_nn_model_save(p->m, meta, path, cause);
	free(meta);
	return rc;
}

/* "key=V" in a space-separated metadata text. */
long
pl_policy_meta_int(const char *meta, const char *key, long def)
{
	size_t kl = strlen(key);
	for (const char *q = meta; q != NULL && *q; ) {
		if (strncmp(q, key, kl) == 0 && q[kl] == '=')
			return strtol(q + kl + 1, NULL, 10);
		q = strchr(q, ' ');
		if (q != NULL)
			q++;
	}
	return def;
}

/*
 * Whether the settings of a metadata text read back as written: each of
 * them at most once, as a decimal integer that fits an int (flags 0 or
 * 1).  Other words (a training note's) are left alone.  -1 + *why.
 */
static int
meta_check(const char *meta, char **why)
{
	static const struct { const char *key; int flag; } set[] = {
		{ "d", 0 }, { "devices", 0 }, { "k", 0 }, { "pool-mean", 1 }, { "mp-mean", 1 },
		{ "mem-feature", 1 }, { "groups", 0 }, { "start-absmax", 1 },
	};
	for (size_t i = 0; i < sizeof set / sizeof *set; i++) {
		const char *key = set[i].key;
		size_t kl = strlen(key);
		int seen = 0, flag = set[i].flag;
		for (const char *q = meta; q != NULL && *q; ) {
			if (strncmp(q, key, kl) == 0 && q[kl] == '=') {
				const char *v = q + kl + 1;
				size_t n = strspn(v, "0123456789");
				if (seen++) {
					*why = pl_xasprintf("'%s' given twice (expected each setting once)", key);
					return -1;
				}
				if (n == 0 || (v[n] != ' ' && v[n] != '\0') || n > 10 ||
				    strtoll(v, NULL, 10) > INT_MAX || (flag && (n != 1 || *v > '1'))) {
					*why = pl_xasprintf("'%s=%.*s': expected %s", key,
					    (int)strcspn(v, " "), v,
					    flag ? "0 or 1" : "a decimal integer that fits an int");
					return -1;
				}
			}
			q = strchr(q, ' ');
			if (q != NULL)
				q++;
		}
	}
	return 0;
}

/* Load a policy file. */
struct pl_policy *
pl_policy_load(const char *path, char **extra, char **cause)
{
	struct pl_nn_file *f = pl_nn_file_read(path, cause);
	if (f == NULL)
		return NULL;
	struct pl_policy *p = pl_policy_from_file(f, path, extra, cause);
	pl_nn_file_free(f);
	return p;
}

/* The policy a decoded weight file holds. */
struct pl_policy *
pl_policy_from_file(const struct pl_nn_file *f, const char *path, char **extra, char **cause)
{
	if (strncmp(f->meta, "placeto-policy ", 15) != 0) {
		*cause = pl_xasprintf("%s: not a Placeto policy (metadata '%.40s')", path, f->meta);
		return NULL;
	}
	char *why = NULL;
	if (meta_check(f->meta, &why) != 0) {
		*cause = pl_xasprintf("%s: metadata '%s': %s", path, f->meta, why);
		free(why);
		return NULL;
	}
	struct pl_policy_cfg cfg = {
		.d = (int)pl_policy_meta_int(f->meta, "d", -1),
		.n_dev = (int)pl_policy_meta_int(f->meta, "devices", -1),
		.k = (int)pl_policy_meta_int(f->meta, "k", -1),
		.pool_mean = (int)pl_policy_meta_int(f->meta, "pool-mean", 0),
		.mp_mean = (int)pl_policy_meta_int(f->meta, "mp-mean", 0),
	};
	if (cfg.d < 1 || cfg.d > 256 || cfg.n_dev < 1 || cfg.n_dev > 64 ||
	    cfg.k < 0 || cfg.k > MAXK) {
		*cause = pl_xasprintf("%s: metadata '%s': expected d in 1..256, devices in 1..64, k in 0..%d",
		    path, f->meta, MAXK);
		return NULL;
	}
	struct pl_policy *p = pl_policy_new(&cfg, 0);
	if (pl_nn_model_assign(p->m, f, path, cause) != 0) {
		pl_policy_free(p);
		return NULL;
	}
	if (extra != NULL)
		*extra = pl_xstrdup(f->meta);
	return p;
}
