#!/bin/sh
# tmux — the real placelab binary in a real terminal (tmux) at 80x24 and
# 200x50: keys sent with send-keys, the screen read with capture-pane -p
# and compared with golden files tests/tui/tmux-*.screen (GENERATE=1
# rewrites them).  Every wait is on a condition (text on the screen, a
# golden match), polled, with a deadline; nothing waits a fixed time.
# Also checks that the terminal is restored on q, on SIGTERM and after the
# unsaved-edits question, that SIGHUP saves unsaved edits to a new file, and that what a library writes to stderr stays
# off the screen.
set -u

: "${PLACELAB:?PLACELAB not set}"
: "${PL_SRCDIR:?PL_SRCDIR not set}"
GOLD="$PL_SRCDIR/tests/tui"
N=18

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	exit 0
fi

WORK=$(mktemp -d)
SOCK="placelab-test-$$"
T="tmux -L $SOCK -f /dev/null"
trap '$T kill-server >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap '$T kill-server >/dev/null 2>&1; rm -rf "$WORK"; exit 1' INT TERM
export TZ=UTC HOME="$WORK" LC_ALL=C.UTF-8
unset NO_COLOR

echo "1..$N"
num=0
ok() { num=$((num + 1)); echo "ok $num - $1"; }
notok() { num=$((num + 1)); echo "not ok $num - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# Start the explorer in a fresh session of the given size; when it exits
# the pane shows "EXITED <status>" (the pane's shell survives a ^C).
session=0
start() {	# cols rows args...
	cols=$1; rows=$2; shift 2
	$T kill-server >/dev/null 2>&1
	session=$((session + 1))
	T="tmux -L $SOCK-$session -f /dev/null"
	rm -f "$WORK/pid"
	$T new-session -d -s t -x "$cols" -y "$rows" \
	    "trap : INT; cd '$WORK'; sh -c 'echo \$\$ > pid; exec env TERM=xterm-256color $PLACELAB $*'; echo EXITED \$?; exec cat"
	$T set-option -t t status off >/dev/null
}

capture() { $T capture-pane -p -t t 2>/dev/null; }

# Wait until the screen contains text (fixed string); 0 when it does.
wait_for() {	# text [seconds]
	tries=$(( ${2:-20} * 20 ))
	while [ "$tries" -gt 0 ]; do
		capture | grep -qF -- "$1" && return 0
		tries=$((tries - 1))
		sleep 0.05
	done
	return 1
}

# Wait until the screen equals golden NAME (trailing blanks and empty last
# lines ignored); with GENERATE=1, wait for `text` and write the golden.
strip() { sed -e 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
wait_screen() {	# name text
	if [ "${GENERATE:-}" = 1 ]; then
		wait_for "$2" || return 1
		# let the screen settle: the same capture twice in a row
		prev=""; cur=$(capture | strip)
		while [ "$prev" != "$cur" ]; do prev=$cur; sleep 0.2; cur=$(capture | strip); done
		printf '%s\n' "$cur" > "$GOLD/$1.screen"
		return 0
	fi
	want=$(strip < "$GOLD/$1.screen")
	tries=200
	while [ "$tries" -gt 0 ]; do
		[ "$(capture | strip)" = "$want" ] && return 0
		tries=$((tries - 1))
		sleep 0.05
	done
	capture | strip > "$WORK/$1.got"
	return 1
}

show_diff() { diff "$GOLD/$1.screen" "$WORK/$1.got" | head -20 | sed 's/^/  /'; }

# 1. 80x24: the default view (tests/tui/lab.json, a graph of our own).
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
if wait_screen tmux-80x24-ops "scope / op"; then ok "80x24 ops view"
else notok "80x24 ops view" "$(show_diff tmux-80x24-ops)"; fi

# 2. the timeline, by its key.
$T send-keys -t t 2
if wait_screen tmux-80x24-timeline "z fit"; then ok "80x24 timeline"
else notok "80x24 timeline" "$(show_diff tmux-80x24-timeline)"; fi

# 3. resize to 200x50 while running: the ops view uses the width (side pane).
$T resize-window -t t -x 200 -y 50
$T send-keys -t t 1
if wait_screen tmux-200x50-ops "scope / op"; then ok "resize to 200x50"
else notok "resize to 200x50" "$(show_diff tmux-200x50-ops)"; fi

# 4. help, then q quits and the terminal is restored.
$T send-keys -t t '?'
if wait_for "What it does" && { $T send-keys -t t Escape; wait_for "? help"; $T send-keys -t t q; wait_for "EXITED 0"; } &&
    ! capture | grep -qF "1 Ops"; then ok "help, q quits, terminal restored"
else notok "help, q quits, terminal restored" "$(capture | tail -5)"; fi

# 5. unsaved edits: q asks first; d discards and quits.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t E Down Down Down d
if wait_for "[edited]" && { $T send-keys -t t q; wait_for "Unsaved edits"; } &&
    { $T send-keys -t t d; wait_for "EXITED 0"; }; then ok "quitting with unsaved edits asks first"
else notok "quitting with unsaved edits asks first" "$(capture | tail -3)"; fi

# 6. SIGTERM restores the terminal.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
pid=$(cat "$WORK/pid" 2>/dev/null)
[ -n "$pid" ] || pid=0
kill -TERM "$pid" 2>/dev/null
if wait_for "EXITED 143" && ! capture | grep -qF "1 Ops"; then ok "SIGTERM restores the terminal"
else notok "SIGTERM restores the terminal" "$(capture | tail -3)"; fi

# 6b. SIGHUP with unsaved edits: the placement goes to a new file, the
# terminal is restored and the explorer dies of the signal.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t E Down Down Down d
wait_for "[edited]" >/dev/null
pid=$(cat "$WORK/pid" 2>/dev/null)
[ -n "$pid" ] || pid=0
kill -HUP "$pid" 2>/dev/null
if wait_for "EXITED 129" && ! capture | grep -qF "1 Ops" &&
    capture | tr -d '\n' | grep -qF "SIGHUP: the placement not saved is in lab-k80x4.placement.recovered.json" &&
    grep -q '"format": "placelab-placement/1"' "$WORK/lab-k80x4.placement.recovered.json"; then
	ok "SIGHUP with unsaved edits: saved to a new file, the terminal restored"
else notok "SIGHUP with unsaved edits: saved to a new file, the terminal restored" "$(capture | grep -v '^$' | tail -4)" "$(ls "$WORK")"; fi

# 6c. A key curses does not know (Alt-d: ESC d) is dropped whole, not read
# as Esc and then d (which moved the selected op, on gpu:0); a paste of two lines
# into the search prompt searches, its second line no command.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t 2 Down Right
wait_for "gpu:0  " >/dev/null
$T send-keys -t t M-d
$T send-keys -t t 3
if wait_for "busy" && ! capture | grep -qF "[edited]"; then ok "Alt-d: dropped, no op moved"
else notok "Alt-d: dropped, no op moved" "$(capture | head -3)"; fi
$T send-keys -t t 1 /
wait_for "Search ops" >/dev/null
$T set-buffer -b two "$(printf 'enc\nd')"
$T paste-buffer -b two -t t
if wait_for "match 1 of" && ! capture | grep -qF "[edited]"; then ok "a pasted second line is no command"
else notok "a pasted second line is no command" "$(capture | head -3)"; fi

# 7. too small, then big enough again.
start 60 20 "$PL_SRCDIR/tests/tui/lab.json"
if wait_for "terminal too small: 60x20" && { $T resize-window -t t -x 80 -y 24; wait_for "scope / op"; }; then
	ok "terminal too small, then resized"
else notok "terminal too small, then resized" "$(capture | head -12)"; fi

# 8. ^S is a key (save), not XOFF: the save prompt appears and the
# explorer still answers (with flow control on, the terminal froze).
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t C-s
if wait_for "Save placement to:" && { $T send-keys -t t Escape; wait_for "? help"; $T send-keys -t t q; wait_for "EXITED 0"; }; then
	ok "^S reaches the explorer (save prompt)"
else notok "^S reaches the explorer (save prompt)" "$(capture | tail -3)"; fi

# 9. ^C with nothing to lose quits at once, restores the terminal and
# ends as interrupted (status 130), so a calling script stops too.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t C-c
if wait_for "EXITED 130" && ! capture | grep -qF "1 Ops"; then ok "^C interrupts and restores the terminal"
else notok "^C interrupts and restores the terminal" "$(capture | tail -3)"; fi

# 10. ^C with unsaved edits asks as q does; Esc keeps the explorer, and
# ^C at the question quits.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t E Down Down Down d
if wait_for "[edited]" && { $T send-keys -t t C-c; wait_for "Unsaved edits"; } &&
    { $T send-keys -t t Escape; wait_for "? help"; } && ! capture | grep -qF "EXITED" &&
    { $T send-keys -t t C-c; wait_for "Unsaved edits"; } &&
    { $T send-keys -t t C-c; wait_for "EXITED 130"; } && ! capture | grep -qF "1 Ops"; then
	ok "^C with unsaved edits asks first; ^C again quits"
else notok "^C with unsaved edits asks first; ^C again quits" "$(capture | tail -3)"; fi

# 11. What a library writes to stderr (fontconfig, without its
# configuration, when the export preview lays text out) stays off the
# screen: the status line says it, it is printed in full once the
# terminal is restored, and the file that held it is gone.
mkdir -p "$WORK/tmp"
export FONTCONFIG_FILE=/nonexistent TMPDIR="$WORK/tmp"
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
unset FONTCONFIG_FILE TMPDIR
wait_for "scope / op" >/dev/null
$T send-keys -t t 7
if wait_for "stderr: Fontconfig error" &&
    [ "$(capture | grep -c 'Cannot load default config')" = 1 ] &&
    { $T send-keys -t t q; wait_for "EXITED 0"; } &&
    capture | grep -q '^Fontconfig error: Cannot load default config' &&
    [ -z "$(ls -A "$WORK/tmp")" ]; then
	ok "stderr of libraries stays off the screen, printed on exit"
else notok "stderr of libraries stays off the screen, printed on exit" "$(capture | tail -5)" "$(ls -A "$WORK/tmp")"; fi

# 12. A text prompt edits with the keys the terminal sends (Left, Home and
# End as tmux sends them, which the terminfo entry of TERM=xterm-256color
# names otherwise, Delete, ^W, Backspace): the search is for the text as
# edited.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t /
wait_for "Search ops" >/dev/null
$T send-keys -t t x n c Left Left e Home DC End Space q C-w BSpace
if wait_for "Search ops by name or type: enc" &&
    { $T send-keys -t t Enter; wait_for "for 'enc'"; }; then ok "prompt editing keys from a real terminal"
else notok "prompt editing keys from a real terminal" "$(capture | tail -3)"; fi

# 13. Alt-Backspace (ESC DEL) in a prompt deletes the word before the
# cursor as ^W does (it closed the prompt, its text lost); in a view it
# is dropped.
start 80 24 "$PL_SRCDIR/tests/tui/lab.json"
wait_for "scope / op" >/dev/null
$T send-keys -t t /
wait_for "Search ops" >/dev/null
$T send-keys -t t -l "enc dec"
$T send-keys -t t M-BSpace
if wait_for "Search ops by name or type: enc" && ! capture | grep -qF "type: enc d" &&
    { $T send-keys -t t M-BSpace; wait_for "Search ops by name or type:"; } &&
    ! capture | grep -qF "type: enc" && { $T send-keys -t t Escape; sleep 0.2; $T send-keys -t t M-BSpace 3; wait_for "busy"; } &&
    ! capture | grep -qF "[edited]"; then ok "Alt-Backspace: a word deleted in a prompt, dropped in a view"
else notok "Alt-Backspace: a word deleted in a prompt, dropped in a view" "$(capture | grep -v "^$" | tail -3)"; fi

# 14. The commands' progress line keeps to the terminal's width, so that
# each update rewrites it (a longer one wrapped, and every update left a
# line behind).
$T kill-server >/dev/null 2>&1
session=$((session + 1))
T="tmux -L $SOCK-$session -f /dev/null"
$T new-session -d -s t -x 40 -y 12 \
    "cd '$WORK'; env TERM=xterm-256color $PLACELAB run -a brkga $PL_SRCDIR/samples/nmt4.json --seconds 1.6 --evals 0 > /dev/null; echo EXITED \$?; exec cat"
if wait_for "EXITED 0" && [ "$(capture | grep -c 'brkga: step')" = 1 ] &&
    [ "$(capture | grep -v '^$' | wc -l)" = 2 ]; then ok "run's progress line: one line within 40 columns"
else notok "run's progress line: one line within 40 columns" "$(capture | grep -v '^$' | head -5)"; fi

# 15. A terminal the explorer cannot use is refused before curses starts,
# with the reason and exit status 2: TERM unknown to terminfo (ncurses
# exited with status 1 and its own message), unset or empty, or without
# cursor addressing (dumb: it started and drew nothing usable).
bad=""
for t in "TERM=nosuchterm|unknown terminal type 'nosuchterm'" "-u TERM|TERM is not set" \
    "TERM=|TERM is not set" "TERM=dumb|terminal type 'dumb' cannot move the cursor"; do
	$T kill-server >/dev/null 2>&1
	session=$((session + 1))
	T="tmux -L $SOCK-$session -f /dev/null"
	$T new-session -d -s t -x 200 -y 12 \
	    "cd '$WORK'; env ${t%%|*} $PLACELAB $PL_SRCDIR/samples/chain.json; echo EXITED \$?; exec cat"
	if ! wait_for "EXITED 2" || ! capture | grep -qF "placelab: ${t#*|}"; then
		bad="$bad [${t%%|*}] $(capture | grep -v '^$' | head -2)"
	fi
done
if [ -z "$bad" ]; then ok "explorer on an unknown, unset or dumb TERM: refused with the reason, exit 2"
else notok "explorer on an unknown, unset or dumb TERM: refused with the reason, exit 2" "$bad"; fi

$T kill-server >/dev/null 2>&1
exit 0
