/*
 * explore — the explorer's shared state and its one main loop.
 *
 * The state is what every view shows: the graph on its cluster, the
 * current placement (the one the user edits, saves and compares), its
 * simulated trace, the selected op, the search, and the messages.  Views
 * read it and change it only through the functions below, so a selection
 * or a new placement is seen everywhere at once.
 *
 * The main loop (explore_run) waits for a key with a short timeout while
 * any view has background work (a placer running), and between keys gives
 * the views time slices of EXPLORE_SLICE_S to step their placers; so keys
 * answer within about one slice plus one placer step.  KEY_RESIZE, mouse
 * events, prompts and help are handled here, in one place each.
 *
 * Invariant: cur is always a valid placement (pl_placement_check passes)
 * and tr is its trace under sim.  clean is what a file holds or the
 * session started from: the last placement saved or opened, or the
 * starting one; origin is the last taken from elsewhere (a method's, a
 * file's).  A placement is held when a file holds it (source_file: opened
 * from or saved to, and not overwritten since) or it is clean (unless
 * clean's file was replaced), and no export is writing over that file.  dirty is 1 exactly when cur is neither
 * held nor origin, so it holds hand edits not yet saved; cur not held
 * but origin is a placement not saved (a method's), which quitting asks
 * about too.
 * Every change of cur (a hand edit, a placement taken from elsewhere) is
 * one undo step, except a search replacing its own best as it improves
 * (a restarted search's first best, or one replacing a saved best, is a
 * new step) and a take of the
 * placement cur already is; the redo stack holds only steps undone since
 * the last such change.  An undo step brings back the session's file
 * (save_path) of its time, so w offers the file that step belonged to.
 * A running search may replace cur only while follower says so (see
 * explore_may_follow).
 *
 * Ownership: explore_close() frees everything explore_open() made.
 */
#ifndef TUI_EXPLORE_H
#define TUI_EXPLORE_H

#include <stdint.h>
#include <stdio.h>

#include "action.h"
#include "cluster.h"
#include "graph.h"
#include "placement.h"
#include "problem.h"
#include "sim.h"
#include "view.h"

#define EXPLORE_SLICE_S 0.040	/* background work per slice */
#define EXPLORE_N_VIEWS 7
#define EXPLORE_UNDO 64

struct explore_opts {
	const char *graph_path;		/* NULL: the default sample */
	const char *cluster;		/* NULL: PL_DEFAULT_CLUSTER */
	const char *placement_path;	/* -p FILE, or NULL */
	const char *sim;		/* "native" (default) or "placeto" */
	int demo;			/* teaching mode */
	uint64_t seed;
	int threads;			/* for placers; <= 0: one per core */
	int fixed_clock;		/* tests: wall-clock figures as "-" */
};

/* A line of text; a file name (a line without the blanks around it, which
 * a typed name never means); one key. */
enum explore_prompt_kind { PROMPT_NONE, PROMPT_TEXT, PROMPT_PATH, PROMPT_KEY };
/* The most a prompt takes, in bytes with the NUL: a path's limit
 * (Linux's PATH_MAX). */
#define EXPLORE_PROMPT_MAX 4096

struct explore;
struct pl_compare;
typedef void explore_prompt_fn(struct explore *ex, const char *text, void *arg);

struct explore {
	struct explore_opts opts;
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
	struct pl_sim_opts sim;
	struct pl_bounds bounds;

	struct pl_placement *cur;	/* the current placement */
	struct pl_trace *tr;		/* its trace */
	char *source;			/* where cur came from: "expert", "file x" */
	char *source_file;		/* the file's real path when it came from
					 * one and the file still holds it */
	char *cluster_arg;		/* opts.cluster's own copy */
	double start_us;		/* makespan of the starting placement:
					 * the header's "vs start" */
	int dirty;
	int cur_edit;			/* cur was made by hand (not taken) */
	struct pl_placement *clean;	/* the last placement saved or opened,
					 * or the starting one */
	char *clean_file;		/* the file clean was saved to or opened
					 * from (real path); NULL: none */
	int clean_lost;			/* that file no longer holds it (an
					 * export replaced it) */
	char **writing;			/* files an export is writing or will
					 * write (real paths, or a new file's
					 * folder's real path and name; once
					 * per write): what they
					 * hold is not held meanwhile */
	int n_writing;
	struct pl_placement *origin;	/* the last one taken from elsewhere */
	int follower_restarted;		/* follower was restarted since: its next
					 * best is a new undo step */
	const void *follower;		/* the search that may replace cur (its
					 * own best), any (the starting one) or
					 * none (NULL) */
	char *save_path;		/* opened from or last saved to */
	char *save_asked;		/* "overwrite?" asked for this path */
	char *graph_path;		/* the graph file loaded */
	int sel_op;			/* -1: none */

	struct explore_undo {		/* a placement and where it came from */
		struct pl_placement *pl;
		char *source;
		char *source_file;
		char *save_path;	/* the session's file at that step */
		int edit;		/* made by hand (not taken) */
	} undo[EXPLORE_UNDO], redo[EXPLORE_UNDO];
	int n_undo, n_redo;		/* redo: the steps undone since the
					 * last change, latest last */

	struct view views[EXPLORE_N_VIEWS];
	int view;			/* index of the current view */

	int help;			/* help screen shown */
	int help_top;

	enum explore_prompt_kind prompt;
	char *prompt_label;
	char *prompt_buf;		/* the bytes typed (NUL-terminated; */
	int prompt_len, prompt_cap;	/* invalid UTF-8 shown as '?'), */
	int prompt_full;		/* and whether some was not taken, */
	int prompt_skip;		/* continuation bytes still to drop */
	int prompt_pos;			/* the cursor: a byte offset, at a
					 * character's start or the end */
	int prompt_view;		/* the first byte shown when the text
					 * is wider than its room */
	explore_prompt_fn *prompt_done;
	void *prompt_arg;

	char *msg;		/* shown until the next key (or click) */
	int msg_error;
	unsigned msg_gen;	/* messages set so far */

	char *search;
	int *matches;
	int n_matches;
	int match_pos;

	struct pl_compare *cmp;		/* the Compare view's table (it owns it) */
	int keep_inputs;		/* a worker still reads g, c and p: leave them */

	int quit;
	int interrupted;		/* quit by ^C (placelab explore then
					 * dies of SIGINT, as a shell expects) */
	int hangup;			/* quit by SIGHUP or SIGTERM (then dies
					 * of it), and what was not saved: */
	char *recovered;		/* the file it went to, or */
	char *recover_error;		/* why it could not */
	int busy;			/* a view reported more work last tick */
	int tick_first;			/* the view favoured next slice (explore_tick) */
	unsigned long redraws;
};

/* Load graph, cluster and placement, make the views.  -1 + *cause. */
int explore_open(struct explore *ex, const struct explore_opts *o, char **cause);
void explore_close(struct explore *ex);

/* Run the interactive loop on the terminal until quit; exit status. */
int explore_run(struct explore *ex);
/* Every key of the explorer, one per line (`placelab explore --keys`). */
void explore_print_keys(FILE *f);

/* Draw everything into stdscr (wnoutrefresh; the caller calls doupdate). */
void explore_draw(struct explore *ex);
/* Handle one key (including KEY_RESIZE and KEY_MOUSE).  Returns 1 if the
 * screen should be redrawn. */
int explore_key(struct explore *ex, int key);
/* Perform a named action as if its key had been pressed. */
int explore_action(struct explore *ex, enum tui_action a);
/* ^C: quit as q does, asking first when something would be lost; ^C at
 * that question quits. */
void explore_interrupt(struct explore *ex);
/* SIGHUP or SIGTERM (sig): quit at once, the current placement first
 * written to a new file when it holds edits or a result not saved
 * (ex->recovered, or ex->recover_error). */
void explore_hangup(struct explore *ex, int sig);
/* Give views background time until deadline; 1 if work remains. */
int explore_tick(struct explore *ex, double deadline);
/* Handle a terminal resize (the one place that does). */
void explore_resize(struct explore *ex);

/* ---- for views -------------------------------------------------------- */

/* Select an op everywhere (-1 for none). */
void explore_select(struct explore *ex, int op);
/* The file at path now holds cur (written by 'w' or by Export): it is
 * what is saved (clean, no edits unsaved) and where 'w' saves next. */
void explore_saved_to(struct explore *ex, const char *path);
/* Export wrote another kind of file (a diagram, a table) to path: a
 * placement that file held (cur, an undo step, clean) is in it no more. */
void explore_file_replaced(struct explore *ex, const char *path);
/* An export starts writing path (a diagram rendered on a worker): until
 * explore_write_end(), a placement that file holds counts as not held,
 * so that quitting asks first; at the end, written (ok) it is
 * explore_file_replaced(), failed the file holds what it held. */
void explore_write_begin(struct explore *ex, const char *path);
/* Whether an export in flight or waiting will write path (a file that
 * is not there yet too): another write there must ask, or wait. */
int explore_writing(const struct explore *ex, const char *path);
void explore_write_end(struct explore *ex, const char *path, int ok);
/* Search who was restarted: its new run's bests are not the best it may
 * replace without an undo step (if it follows cur, cur stays until the
 * new run improves on it, which is then one undo step, or until 'a'). */
void explore_search_restarted(struct explore *ex, const void *who);
/* Replace the current placement (copied) and resimulate, as one undo
 * step.  edit: a hand edit (marks dirty); else a placement taken from
 * elsewhere (a method's, a file's), which no search replaces by itself
 * afterwards, even when it is the placement cur already is (then only its
 * name changes, with no undo step).  source
 * names where it came from. */
void explore_set_placement(struct explore *ex, const struct pl_placement *pl,
    const char *source, int edit);
/* Whether search `who` may make its improving best the current placement
 * without being asked: only while cur is the starting placement (no file
 * given) or who's own best, and holds no hand edits.  Anything else the
 * user made, opened or took stays until 'a'. */
int explore_may_follow(const struct explore *ex, const void *who);
/* Make search who's best the current placement ('a', or following it
 * when explore_may_follow): taken from elsewhere, one undo step unless
 * cur is that placement already or who's own best (not saved, and from
 * who's run since its last restart); who may go on replacing it. */
void explore_take_best(struct explore *ex, const struct pl_placement *pl,
    const char *source, const void *who);
/* Whether the current placement is in no file: edited, or a method's
 * and never saved (quitting asks first). */
int explore_unsaved(const struct explore *ex);
/* 1 (and a message saying how to go on) when unsaved hand edits stand in
 * the way of a placement from elsewhere (a method's, a file's); else 0. */
int explore_edits_block(struct explore *ex);
/* Why path must not be written (caller frees): it is the graph or the
 * cluster file the explorer reads, or a folder; NULL when it may be. */
char *explore_input_clash(const struct explore *ex, const char *path);
/* The stem of default file names, "GRAPH-CLUSTER", each name reduced to
 * one safe file name component (no '/', no leading '.', no control
 * characters), so a graph's name never steers where a file goes.
 * Caller frees. */
char *explore_file_stem(const struct explore *ex);
/* Move ops (and their colocation groups) to device d, as one hand edit.
 * Returns the number of ops moved (0 when d is not allowed for them). */
int explore_move_ops(struct explore *ex, const int *ops, int n, int d);
/* The next (dir 1) or previous (-1) device allowed for every op of the
 * list, starting from the device of ops[0]; -1 if none. */
int explore_next_device(struct explore *ex, const int *ops, int n, int dir);
/* Status line message (printf); error messages are shown highlighted. */
void explore_message(struct explore *ex, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Ask for a line of text (or one key for PROMPT_KEY); done is called with
 * the text (NULL when cancelled). */
void explore_prompt(struct explore *ex, enum explore_prompt_kind kind,
    const char *label, const char *initial, explore_prompt_fn *done, void *arg);
/* Ask "PATH exists: overwrite? (y/n)"; done gets the key typed (NULL
 * when cancelled), to read with explore_said_yes(). */
void explore_ask_overwrite(struct explore *ex, const char *path,
    explore_prompt_fn *done, void *arg);
/* Whether a key prompt's answer is yes (y or Y). */
int explore_said_yes(const char *text);
/* Switch to view i. */
void explore_show(struct explore *ex, int i);
/* Wall-clock seconds as text ("-" in fixed-clock mode). */
const char *explore_fmt_wall(const struct explore *ex, char *buf, int len,
    double s);
/* Short device label: "gpu:0" from "/gpu:0". */
const char *explore_dev_label(const struct explore *ex, int d);
/* Device d's label without the components every device's label shares
 * but the last ("job:worker/replica:0/task:1/device:GPU:0" among tasks
 * 0 and 1 is "task:1/device:GPU:0"), in buf (len bytes; when too small,
 * screen_ellipsis() and the name's end, where two names differ). */
const char *explore_dev_distinct(const struct explore *ex, int d, char *buf, size_t len);
/* The fewest columns a long device name keeps beside figures that are
 * shown whole (a device's load, an op's times): below it they give way. */
#define EXPLORE_DEV_NAME_MIN 10
/* That name in at most width columns, cut in the middle when longer
 * (into buf, len bytes); returns buf. */
const char *explore_dev_fit(const struct explore *ex, int d, int width, char *buf, size_t len);
/* Device d's glyph, a space and that name, in at most width columns (into
 * buf, len bytes): unambiguous however the name is cut; returns buf. */
const char *explore_dev_tag(const struct explore *ex, int d, int width, char *buf, size_t len);
/* Columns the widest device's tag takes, at most most (at least 3). */
int explore_dev_tag_w(const struct explore *ex, int most);

/* Name of view i's class. */
const char *explore_view_name(int i);

#endif
