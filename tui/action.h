/*
 * action — every key of the explorer, as one table.
 *
 * Each row is X(ENUM, "name", where, key, alt-key, "help"): the key (and
 * an optional second key, 0 for none) becomes the named action, valid in
 * the views of the `where` mask (AV_ALL: everywhere).  The same table
 * generates the enum, the `?` help screen and the names scripted tests use
 * ("action brkga-step").  A key bound in several rows means different
 * actions in different views; the current view's row wins over AV_ALL.
 * A row's mask names exactly the views where its action does something
 * (the help's Views column says so); AV_HELP marks the keys that scroll
 * the help screen whatever view is under it.
 *
 * Invariant: names are unique; no two rows with overlapping masks share a
 * key.
 */
#ifndef TUI_ACTION_H
#define TUI_ACTION_H

#include <curses.h>

/* View masks, by view index (the order of the view list in explore.c). */
#define AV_OPS		(1u << 0)
#define AV_TIMELINE	(1u << 1)
#define AV_DEVICES	(1u << 2)
#define AV_PLACETO	(1u << 3)
#define AV_BRKGA	(1u << 4)
#define AV_COMPARE	(1u << 5)
#define AV_EXPORT	(1u << 6)
#define AV_HELP		(1u << 7)	/* the help screen, over any view */
#define AV_HELP_INDEX	7
#define AV_ALL		0u

#define ACT_CTRL(c) ((c) & 0x1f)

#define TUI_ACTIONS(X) \
	X(QUIT, "quit", AV_ALL, 'q', 0, "quit (asks first when the placement is in no file: hand edits, or a method's best not saved); ^C too") \
	X(HELP, "help", AV_ALL, '?', KEY_F(1), "show every key") \
	X(NEXT_VIEW, "next-view", AV_ALL, '\t', 0, "next view") \
	X(PREV_VIEW, "prev-view", AV_ALL, KEY_BTAB, 0, "previous view") \
	X(VIEW_OPS, "view-ops", AV_ALL, '1', 0, "ops by scope, with detail and hand edits") \
	X(VIEW_TIMELINE, "view-timeline", AV_ALL, '2', 0, "timeline (Gantt) of the simulated step") \
	X(VIEW_DEVICES, "view-devices", AV_ALL, '3', 0, "devices: memory over time, busy time, traffic") \
	X(VIEW_PLACETO, "view-placeto", AV_ALL, '4', 0, "Placeto: step the MDP") \
	X(VIEW_BRKGA, "view-brkga", AV_ALL, '5', 0, "BRKGA: watch generations evolve") \
	X(VIEW_COMPARE, "view-compare", AV_ALL, '6', 0, "compare every method on this graph") \
	X(VIEW_EXPORT, "view-export", AV_ALL, '7', 0, "export diagrams, timelines and tables") \
	X(UP, "up", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_UP, 'k', "move up a row (Export: a field)") \
	X(DOWN, "down", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_DOWN, 'j', "move down a row (Export: a field)") \
	X(PAGE_UP, "page-up", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_PPAGE, ACT_CTRL('b'), "page up (Timeline, Devices, Compare: the first row; Export: the preview)") \
	X(PAGE_DOWN, "page-down", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_NPAGE, ACT_CTRL('f'), "page down (Timeline, Devices, Compare: the last row; Export: the preview)") \
	X(HOME, "home", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_HOME, 'g', "go to the first row (Export: the preview's start, its first column)") \
	X(END, "end", AV_OPS | AV_TIMELINE | AV_DEVICES | AV_COMPARE | AV_EXPORT | AV_HELP, KEY_END, 'G', "go to the last row (Export: the preview's end)") \
	X(LEFT, "left", AV_OPS | AV_TIMELINE | AV_EXPORT, KEY_LEFT, 'h', "Ops: close the scope (or go to its parent); Timeline: the previous block; Export: the previous value") \
	X(RIGHT, "right", AV_OPS | AV_TIMELINE | AV_EXPORT, KEY_RIGHT, 'l', "Ops: open the scope; Timeline: the next block; Export: the next value") \
	X(ENTER, "enter", AV_OPS | AV_TIMELINE | AV_COMPARE | AV_EXPORT, '\r', KEY_ENTER, "Ops: open or close a scope, or walk an op's inputs and outputs; Timeline: show the op in Ops; Compare: take the row's best; Export: edit the field, or write") \
	X(CANCEL, "cancel", AV_ALL, 27, 0, "close help or a prompt, end an Ops walk of an op's edges, or clear the message (one too long for the status line is shown whole above it)") \
	X(REDRAW, "redraw", AV_ALL, ACT_CTRL('l'), 0, "redraw the whole screen") \
	X(SEARCH, "search", AV_ALL, '/', 0, "search ops by name or type (shows them in Ops)") \
	X(SEARCH_NEXT, "search-next", AV_OPS | AV_TIMELINE, 'n', 0, "next search match") \
	X(SEARCH_PREV, "search-prev", AV_OPS | AV_TIMELINE, 'N', 0, "previous search match") \
	X(DEV_NEXT, "device-next", AV_OPS | AV_TIMELINE, 'd', 0, "move the selected op's group (or scope) to the next device") \
	X(DEV_PREV, "device-prev", AV_OPS | AV_TIMELINE, 'D', 0, "move it to the previous device") \
	X(UNDO, "undo", AV_ALL, 'u', 0, "undo the last change of the placement: a hand edit, or one taken with a, o or a Compare row") \
	X(REDO, "redo", AV_ALL, ACT_CTRL('r'), 'U', "redo what undo undid (until the next change)") \
	X(SAVE, "save", AV_ALL, 'w', ACT_CTRL('s'), "save the current placement (atomic write; asks before replacing a file it was not opened from or saved to)") \
	X(OPEN, "open", AV_ALL, 'o', 0, "open a placement file") \
	X(CRIT_NEXT, "critical-next", AV_OPS | AV_TIMELINE, 'c', 0, "next op on the critical path") \
	X(EXPAND_ALL, "expand-all", AV_OPS, 'E', 0, "open every scope") \
	X(COLLAPSE_ALL, "collapse-all", AV_OPS, 'C', 0, "close every scope") \
	X(ZOOM_IN, "zoom-in", AV_TIMELINE | AV_DEVICES, '+', '=', "zoom in (time)") \
	X(ZOOM_OUT, "zoom-out", AV_TIMELINE | AV_DEVICES, '-', '_', "zoom out (time)") \
	X(ZOOM_FIT, "zoom-fit", AV_TIMELINE | AV_DEVICES, 'z', 0, "fit the whole step") \
	X(PAN_LEFT, "pan-left", AV_TIMELINE | AV_DEVICES | AV_EXPORT, '<', ',', "pan towards earlier time (Export: the preview's lines scroll left)") \
	X(PAN_RIGHT, "pan-right", AV_TIMELINE | AV_DEVICES | AV_EXPORT, '>', '.', "pan towards later time (Export: the preview's lines scroll right)") \
	X(PLACETO_STEP, "placeto-step", AV_PLACETO, 'n', 0, "one MDP decision") \
	X(PLACETO_EPISODE, "placeto-episode", AV_PLACETO, 'e', 0, "finish the current episode") \
	X(LOAD_POLICY, "load-policy", AV_PLACETO, 'L', 0, "load a trained policy (zero-shot)") \
	X(OPTIONS, "options", AV_PLACETO | AV_BRKGA, 'O', 0, "the method's options, k=v,... as run --opt takes them (e.g. Placeto's accept=improve,init=best, BRKGA's pop=50), then restart; options it refuses are not used") \
	X(BRKGA_STEP, "brkga-step", AV_BRKGA, 'n', 0, "one generation") \
	X(RUN, "run", AV_PLACETO | AV_BRKGA | AV_COMPARE, ' ', 0, "run / pause (in time slices; keys stay live)") \
	X(SLOWER, "slower", AV_PLACETO | AV_BRKGA, '-', '_', "run slower, for a demo: 8, 4, 2, 1 steps a second, then one every 2 s (n and e are not slowed)") \
	X(FASTER, "faster", AV_PLACETO | AV_BRKGA, '+', '=', "run faster, up to full speed") \
	X(RESTART, "restart", AV_PLACETO | AV_BRKGA | AV_COMPARE, 'r', 0, "start the method(s) again from scratch") \
	X(ADOPT, "adopt", AV_PLACETO | AV_BRKGA, 'a', 0, "make the method's best placement the current one (a BRKGA run also replaces the starting placement, then its own best, as it improves; never one you edited, opened or took)") \
	X(EXPORT_WRITE, "export-write", AV_EXPORT, 'x', 0, "write the export file")

enum tui_action {
	ACT_NONE = 0,
#define ACT_X(e, n, w, k1, k2, h) ACT_##e,
	TUI_ACTIONS(ACT_X)
#undef ACT_X
	ACT_COUNT
};

struct tui_action_def {
	enum tui_action action;
	const char *name;
	unsigned where;
	int key, alt;
	const char *help;
};

/* The table, ACT_COUNT - 1 rows in enum order (index = action - 1). */
extern const struct tui_action_def tui_actions[];
/* The action a key means in view `view` (index), or ACT_NONE. */
enum tui_action tui_action_for_key(int key, int view);
/* An action by name, or ACT_NONE. */
enum tui_action tui_action_by_name(const char *name);
const char *tui_action_name(enum tui_action a);
/* A key's printable name ("q", "Tab", "Up", "^L", "F1", "Space"). */
const char *tui_key_name(int key, char *buf, int len);

#endif
