/*
 * placeto — Placeto (Addanki et al., NeurIPS 2019): device placement as an
 * MDP of iterative improvements, a graph-network policy, REINFORCE.
 *
 * The graph is coarsened into at most `groups` nodes (colocation groups,
 * merged by scope); an episode visits every node once and picks a device
 * for it; after each decision the whole (ungrouped) graph is simulated
 * (first-ready first, or with sched=rank under upward-rank priorities) and
 * the reward is the drop in run time r_t = R_t - R_{t+1} (seconds, plus an
 * optional memory penalty).  See docs/PLACETO.md.
 * With escape=grow (not in the reference), once the best has not improved
 * for a while, a move also takes nodes connected to the current one on
 * its device, so that a local search can leave a local optimum of
 * single-node moves.
 *
 * As a placer (pl_placer_placeto): each pl_placer_step() is ONE MDP
 * decision in each of the `workers` parallel episodes (the explorer follows
 * worker 0).  Without a policy it trains from scratch for `episodes`
 * episodes; with `policy` it runs one greedy (arg-max) episode, after
 * `finetune` training episodes if asked.  Either way a final greedy episode
 * ends the run.
 *
 * As a trainer (pl_placeto_trainer, for `placelab train placeto`): one
 * policy trained over several graphs, episodes assigned round-robin.
 *
 * Invariant: results depend only on the seed and the options, never on the
 * number of threads: episode i of a batch draws from rng stream i, writes
 * its own gradient buffer, and gradients are summed in episode order.
 *
 * Ownership: pointers returned by the getters belong to the placer and stay
 * valid until its next step.
 */
#ifndef PL_PLACETO_H
#define PL_PLACETO_H

#include <stdint.h>
#include <stdio.h>

#include "placer.h"

#define PL_PLACETO_MAX_FEAT (6 + PL_MAX_DEVICES)

extern const struct pl_placer_class pl_placer_placeto;
extern const struct pl_option_def pl_placeto_options[];
extern const struct pl_option_range pl_placeto_ranges[];

/* One MDP decision, as the explorer's Placeto view shows it. */
struct pl_placeto_decision {
	long episode;		/* episode number, from 0 */
	int worker;		/* slot in the batch */
	int t;			/* decision index within the episode */
	int greedy;		/* 1: arg-max (evaluation) episode */
	int group;		/* the grouped node being placed */
	int n_feat;
	float feat[PL_PLACETO_MAX_FEAT];	/* its feature row */
	int n_dev;
	uint64_t allowed;	/* the devices the node may go to (bit d) */
	float probs[PL_MAX_DEVICES];	/* the policy's distribution (0 where
					 * not allowed) */
	int prev_dev, action;
	double before_us, after_us;	/* simulated makespan before / after */
	double before_s, after_s;	/* R_t, R_{t+1}: seconds incl. penalty */
	int undone;		/* accept=improve: the move did not help and was undone */
	double tried_us;	/* makespan of the move tried (after_us unless undone) */
	int moved;		/* nodes the move took (0: action == prev_dev; more than
				 * 1 with escape=grow: connected nodes on prev_dev) */
	double reward;		/* r_t (in the reward unit) */
	double ret;		/* return so far in this episode */
	double entropy;		/* of probs, in nats (pl_nn_entropy_nats) */
};

/* Training statistics so far. */
struct pl_placeto_stats {
	long episodes;		/* finished training episodes */
	long budget;		/* training episodes asked for: episodes, or
				 * finetune with a policy */
	long updates;		/* gradient steps */
	long placements;	/* placements simulated */
	double last_mean_us;	/* mean final makespan of the last batch */
	double last_entropy;	/* mean per-step entropy of the last batch */
	double best_us;		/* the best placement's makespan: one
				 * that fits beats one that does not */
	uint64_t best_oom;	/* its devices out of memory */
	double lr;		/* learning rate of the last update (before the
				 * first: the configured initial rate) */
	double grad_norm;	/* before clipping */
	int phase;		/* 0 training, 1 greedy evaluation, 2 done */
};

/* One finished episode, for learning curves. */
struct pl_placeto_episode_log {
	long episode;
	int graph;
	int greedy;		/* 1: the arg-max (evaluation) episode */
	double init_us;		/* makespan of the initial placement */
	double final_us;	/* after the last decision */
	double best_us;		/* best within the episode */
	double entropy;		/* mean per-step entropy */
	double ret;		/* the episode's return */
};

/* ---- the placer's view ---------------------------------------------------- */

/* Grouped nodes: count, name, member ops; node of each op (n_ops). */
int pl_placeto_n_groups(const struct pl_placer *pl);
const char *pl_placeto_group_name(const struct pl_placer *pl, int i);
const int *pl_placeto_group_ops(const struct pl_placer *pl, int i, int *n);
const int *pl_placeto_group_of(const struct pl_placer *pl);
/* How grouped node v relates to node cur in the grouped graph the policy
 * sees: 'a' ancestor, 'd' descendant, 'c' both (on a cycle with cur),
 * 'p' parallel (neither), 0 for cur itself. */
int pl_placeto_relation(const struct pl_placer *pl, int cur, int v);
/* The grouped graph the policy sees: the predecessors (dir 0) or
 * successors (dir 1) of node v, in increasing order, each once (however
 * many edges join the two nodes); *n gets their count.  NULL and *n = 0
 * out of range. */
const int *pl_placeto_neighbours(const struct pl_placer *pl, int v, int dir, int *n);
/* Feature width and the name of feature column j. */
int pl_placeto_n_feat(const struct pl_placer *pl);
const char *pl_placeto_feat_name(const struct pl_placer *pl, int j);
/* The decisions of worker 0's current (or just finished) episode, in
 * order; *n gets their count.  NULL before the first step. */
const struct pl_placeto_decision *pl_placeto_decisions(const struct pl_placer *pl,
    int *n);
/* The last decision of worker 0, or NULL. */
const struct pl_placeto_decision *pl_placeto_last(const struct pl_placer *pl);
/* Worker 0's state at decision t of its current episode: n x
 * pl_placeto_n_feat() features, a row per grouped node; NULL when it has
 * not made decision t. */
const float *pl_placeto_state(const struct pl_placer *pl, int t, int *n);
/* Every episode finished so far, in order: each training batch's
 * `workers` episodes, then the final greedy one; *n gets their count.
 * For learning curves (one point per episode). */
const struct pl_placeto_episode_log *pl_placeto_episodes(const struct pl_placer *pl,
    long *n);
/* The episode whose placement is the placer's best (pl->best, in the
 * driver's simulator and order: one that fits first): 0 with its number
 * (from 0, as the episode logs count) and whether it was the greedy one,
 * or -1 before any. */
int pl_placeto_best_episode(const struct pl_placer *pl, long *episode, int *greedy);
/* Worker 0's current placement (ungrouped; with priorities under
 * sched=rank), or NULL. */
const struct pl_placement *pl_placeto_current(const struct pl_placer *pl);
void pl_placeto_get_stats(const struct pl_placer *pl, struct pl_placeto_stats *st);
struct pl_policy;
/* The mem-feature (0 or 1) a Placeto policy with metadata meta was
 * trained with, its input width checked against it (5 + mem-feature +
 * devices); -1 + *cause naming path. */
int pl_placeto_policy_check(const struct pl_policy *p, const char *meta, const char *path,
    char **cause);
/* The options a policy file fixes (its network's shape and features),
 * NULL-terminated: given with a policy they must agree with the file's. */
extern const char *const pl_placeto_policy_fixed[];

/* Save the placer's policy.  0 or -1 + *cause. */
int pl_placeto_save_policy(const struct pl_placer *pl, const char *path,
    char **cause);

/* ---- training over several graphs ----------------------------------------- */

struct pl_placeto_trainer;

/* A trainer over n problems (same cluster), with placeto options (NULL:
 * defaults).  NULL + *cause. */
struct pl_placeto_trainer *pl_placeto_trainer_new(
    const struct pl_problem *const *probs, int n, const struct pl_options *opts,
    const struct pl_run_opts *run, char **cause);
void pl_placeto_trainer_free(struct pl_placeto_trainer *tr);
/* Run one batch of `workers` episodes (the last of the `episodes` budget
 * only those left) and update the policy.  logs gets
 * one entry per episode of the batch (at most `workers`; *n_logs their
 * count).  0, or -1 + *cause. */
int pl_placeto_trainer_batch(struct pl_placeto_trainer *tr,
    struct pl_placeto_episode_log *logs, int *n_logs, char **cause);
/* Greedy (zero-shot) makespan on problem i with the current policy (and
 * its devices out of memory in *oom_mask unless NULL). */
int pl_placeto_trainer_greedy(struct pl_placeto_trainer *tr, int i,
    double *makespan_us, uint64_t *oom_mask, char **cause);
void pl_placeto_trainer_stats(const struct pl_placeto_trainer *tr,
    struct pl_placeto_stats *st);
/* The makespan of the best placement seen so far on problem i (in the
 * MDP's simulator; one that fits beats one that does not, by
 * pl_result_better's rule; INFINITY before any), and its devices out of
 * memory (0 before any). */
double pl_placeto_trainer_best(const struct pl_placeto_trainer *tr, int i);
uint64_t pl_placeto_trainer_best_oom(const struct pl_placeto_trainer *tr, int i);
/* The MDP's simulator, whose times the trainer reports. */
enum pl_sim_kind pl_placeto_trainer_sim(const struct pl_placeto_trainer *tr);
int pl_placeto_trainer_workers(const struct pl_placeto_trainer *tr);
int pl_placeto_trainer_save(const struct pl_placeto_trainer *tr,
    const char *path, const char *note, char **cause);

#endif
