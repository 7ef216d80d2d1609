#!/bin/sh
# compare.sh — `placelab compare` and `placelab run` end to end: every output
# format parsed back (CSV with awk, JSON with jq), -o files equal to stdout,
# the run's placement, history and JSON result, and bad usage exiting 2.
: "${PLACELAB:?}" "${PL_SRCDIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/pl-compare.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }
quiet() { "$@" > /dev/null 2>&1; }

echo "1..60"

# A small graph of an unknown family: two branches joining, a CPU-only
# input and a colocation group.
cat > "$T/g.json" <<'JSON'
{"format": "placelab-graph/1", "name": "toy-join",
 "ops": [
  {"name": "in", "scope": "in", "flops": 1e6, "device": "cpu"},
  {"name": "a1", "scope": "a/l0", "flops": 4e9, "param_bytes": 1048576, "group": "A"},
  {"name": "a1g", "scope": "a/l0", "flops": 8e9, "group": "A"},
  {"name": "a2", "scope": "a/l1", "flops": 4e9},
  {"name": "b1", "scope": "b/l0", "flops": 6e9},
  {"name": "b2", "scope": "b/l1", "flops": 2e9},
  {"name": "out", "scope": "out", "flops": 1e9}],
 "edges": [["in", "a1", 1048576], ["in", "b1", 1048576], ["a1", "a1g", 4096, 1],
  ["a1", "a2", 2097152], ["b1", "b2", 2097152], ["a2", "out", 524288], ["b2", "out", 524288]]}
JSON
M=expert,single-cpu,single-gpu,heft,mincut,scotch,m-etf,random

# CSV: header and one row per method, in order, with positive step times.
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods $M --format csv > "$T/c.csv" 2> "$T/err"
check "compare --format csv exits 0" test $? -eq 0
check "CSV has a header and 8 rows" test "$(wc -l < "$T/c.csv")" -eq 9
got=$(awk -F, 'NR > 1 { printf "%s%s", sep, $1; sep = "," }' "$T/c.csv")
check "CSV rows are the methods in order ($got)" test "$got" = "$M"
check "CSV step times are positive numbers" awk -F, 'NR == 1 { ok = ($3 == "makespan_us") } NR > 1 && !($3 + 0 > 0) { ok = 0 } END { exit !ok }' "$T/c.csv"
check "expert row is 0% vs expert, best row 0% gap" awk -F, '$1 == "expert" && $4 + 0 == 0 { e = 1 } NR > 1 && $5 != "" && $5 + 0 == 0 { b = 1 } END { exit !(e && b) }' "$T/c.csv"

# JSON: tag, rows, best, lower bound, the same numbers as the CSV.
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods $M --format json > "$T/c.json"
check "JSON is placelab-compare/1 with 8 rows" test "$(jq -r '.format + " " + (.rows | length | tostring)' "$T/c.json")" = "placelab-compare/1 8"
best=$(jq -r '.best' "$T/c.json")
check "JSON best row ($best) has gap 0 and the smallest fitting step time" \
	test "$(jq -r --arg b "$best" '([.rows[] | select(.oom | not) | .makespan_us] | min) as $m | [.rows[] | select(.method == $b)][0] | (.makespan_us == $m and .gap_best_pct == 0)' "$T/c.json")" = true
jq -r '.rows[] | .method + " " + (.makespan_us | tostring)' "$T/c.json" > "$T/j.txt"
awk -F, 'NR > 1 { print $1, $3 }' "$T/c.csv" > "$T/k.txt"
check "JSON and CSV give the same step times" awk 'NR == FNR { v[$1] = $2; next } { d = v[$1] - $2; if (d < 0) d = -d; if (!($1 in v) || d > 1e-9 * $2) bad = 1; n++ } END { exit bad || n != 8 }' "$T/j.txt" "$T/k.txt"
check "JSON gaps to the lower bound are >= 0" test "$(jq '([.rows[] | .gap_bound_pct >= 0] | all) and (.lower_bound_us > 0)' "$T/c.json")" = true

# Markdown to -o equals stdout; LaTeX has booktabs rules.
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods $M --format md > "$T/a.md"
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods $M --format md -o "$T/b.md"
# (search times differ between runs: blank that column)
awk -F'|' -v OFS='|' '{ if (NF > 10) $10 = ""; print }' "$T/a.md" > "$T/a2.md"
awk -F'|' -v OFS='|' '{ if (NF > 10) $10 = ""; print }' "$T/b.md" > "$T/b2.md"
check "-o writes what stdout shows (md)" cmp -s "$T/a2.md" "$T/b2.md"
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods heft,expert --format tex > "$T/t.tex"
check "LaTeX uses booktabs" grep -q '\\toprule' "$T/t.tex"
"$PLACELAB" compare "$T/g.json" -c k80x4 --methods heft,expert -o "$T/o.json"
check "-o FILE.json without --format writes JSON" test "$(jq -r .format "$T/o.json")" = placelab-compare/1

# Names with control characters (a graph named over three lines, a device
# with a newline) stay on their lines in every text format, and LaTeX
# prints "<0.001" as \textless{} (OT1 fonts print < as an inverted !).
cat > "$T/nl.json" <<'JSON'
{"format": "placelab-graph/1", "name": "toy\njoin\r\n\\end{tabular}\tx",
 "ops": [{"name": "in", "scope": "in", "flops": 1e6, "device": "cpu"},
  {"name": "a1", "scope": "a/l0", "flops": 4e9, "param_bytes": 1048576},
  {"name": "out", "scope": "out", "flops": 1e9}],
 "edges": [["in", "a1", 1048576], ["a1", "out", 524288]]}
JSON
sed -e 's/"name": "heft3"/"name": "three\\nprocs"/' -e 's/"name": "P1"/"name": "P\\n1"/' \
	"$PL_SRCDIR/samples/clusters/heft3.json" > "$T/nl-c.json"
for f in tex md csv table; do
	"$PLACELAB" compare "$T/nl.json" -c "$T/nl-c.json" --methods heft,single-cpu,random --format $f > "$T/nl.$f" 2> "$T/err"
done
check "LaTeX: every line a comment, a command or a row; the graph's name on its comment line" \
	awk '!(/^%/ || /^\\/ || /\\\\$/) { bad = 1 } NR == 1 && !/^% toy join/ { bad = 1 } END { exit bad || NR != 11 }' "$T/nl.tex"
check "LaTeX: the search column says textless{}0.001, no bare <" \
	sh -c "grep -q 'textless{}0.001' '$T/nl.tex' && ! grep -q '<' '$T/nl.tex'"
# TeX's ligatures in a name are broken: x--y---z``q''!`?`,,w prints as written
sed -e 's/"name": "P\([123]\)"/"name": "x--y---z``q'"''"'!`?`,,w\1"/' "$PL_SRCDIR/samples/clusters/heft3.json" > "$T/lig-c.json"
"$PLACELAB" compare "$PL_SRCDIR/samples/heft.json" -c "$T/lig-c.json" --methods heft --format tex > "$T/lig.tex" 2>"$T/err"
check "LaTeX: ligatures in device names broken" \
	grep -qF "x-{}-y-{}-{}-z\`{}\`q'{}'!{}\`?{}\`,{},w" "$T/lig.tex"
check "Markdown: the caption on one line, then only table rows" \
	awk 'NR == 1 && !/^toy join/ { bad = 1 } NR > 2 && !/^\|/ { bad = 1 } END { exit bad || NR != 7 }' "$T/nl.md"
check "CSV: a header and 3 rows of 15 fields" awk -F, 'NF != 15 { bad = 1 } END { exit bad || NR != 4 }' "$T/nl.csv"
check "table: the caption on one line, header, rule and 3 rows" \
	awk 'NR == 1 && !/^toy join/ { bad = 1 } END { exit bad || NR != 6 }' "$T/nl.table"

# The caption names the memory model the peaks come from.
bad=""
for m in "native:--sim native:native simulator, native memory model" \
    "placeto:--sim placeto --mem placeto:placeto simulator, placeto memory model"; do
	flags=$(echo "$m" | cut -d: -f2) want=$(echo "$m" | cut -d: -f3)
	# shellcheck disable=SC2086
	"$PLACELAB" compare "$PL_SRCDIR/samples/teach.json" --methods heft $flags --format md > "$T/cap.md" 2>/dev/null
	head -1 "$T/cap.md" | grep -q "^teach on k80x4, $want, lower bound " || bad="$bad [$flags: $(head -1 "$T/cap.md")]"
done
check "the caption names the simulator and the memory model (bad:$bad)" test -z "$bad"

# --mem none: memory is not modelled, so no format shows a peak or an
# OOM verdict (the graph's expert row would otherwise say OOM on k80x4).
MN="--mem none --methods single-gpu,expert"
"$PLACELAB" compare "$PL_SRCDIR/samples/nmt4.json" -c k80x4 $MN --format md > "$T/mn.md"
check "--mem none, md: caption says so, peak and OOM cells n/a" \
	awk -F'|' 'NR == 1 && !/memory not modelled/ { bad = 1 } NR > 4 && NF > 10 { n++; if ($7 !~ /^ n\/a $/ || $8 !~ /^ n\/a $/) bad = 1 } END { exit bad || n != 2 }' "$T/mn.md"
"$PLACELAB" compare "$PL_SRCDIR/samples/nmt4.json" -c k80x4 $MN --format csv > "$T/mn.csv"
check "--mem none, csv: peak, capacity, device and oom empty" \
	awk -F, 'NR > 1 { n++; if ($7 $8 $9 $10 != "" || !($3 > 0)) bad = 1 } END { exit bad || n != 2 }' "$T/mn.csv"
"$PLACELAB" compare "$PL_SRCDIR/samples/nmt4.json" -c k80x4 $MN --format json > "$T/mn.json"
check "--mem none, json: mem recorded, peak and oom null" \
	test "$(jq '.mem == "none" and ([.rows[] | .oom == null and .peak_bytes == null and .peak_device == null and .makespan_us > 0] | all)' "$T/mn.json")" = true
for f in table tex; do
	"$PLACELAB" compare "$PL_SRCDIR/samples/nmt4.json" -c k80x4 $MN --format $f > "$T/mn.$f"
done
check "--mem none, table and tex: peak and OOM n/a on both rows, no device named" \
	sh -c "test \$(grep -c 'n/a  n/a' '$T/mn.table') = 2 && test \$(grep -c '& n/a & n/a &' '$T/mn.tex') = 2 && ! grep -q '(/' '$T/mn.table' '$T/mn.tex'"
"$PLACELAB" compare --help | grep -q 'native|placeto|none'; h=$?
check "compare --help offers --mem none" test $h = 0

# run: JSON result, saved placement valid, history CSV.
"$PLACELAB" run -a heft "$T/g.json" -c k80x4 --json -o "$T/p.json" --history "$T/h.csv" > "$T/r.json"
check "run --json is placelab-result/1 with a step time" \
	test "$(jq -r '.format + " " + (.makespan_us > 0 | tostring)' "$T/r.json")" = "placelab-result/1 true"
check "run --json: error is there, null, when the method had none" \
	test "$(jq -c '[has("error"), .error]' "$T/r.json")" = '[true,null]'
check "run -o saves a placement that validates" quiet "$PLACELAB" validate -g "$T/g.json" -c k80x4 "$T/p.json"
check "run --history writes the generic history" \
	test "$(head -1 "$T/h.csv" | cut -d, -f1-4)" = "step,evals,best_us,wall_s"
"$PLACELAB" run -a random --samples 3 --seed 5 "$T/g.json" --json > "$T/r3.json"
check "run maps --samples to the method's option" test "$(jq -r '.steps' "$T/r3.json")" = 3
"$PLACELAB" run -a brkga "$T/g.json" --steps 1 --opt elite=0.15,pop=20,objective=memory --json > "$T/rb.json"
check "run --json writes options by type: numbers, booleans, text" \
	test "$(jq -c '.options | [.elite, .pop, ."tensor-genes", .objective, ."beta-file"]' "$T/rb.json")" = '[0.15,20,true,"memory",""]'

# run --json and sim --json share the summary: the same fields, the same
# figures for the same placement; --mem none makes the memory ones null.
"$PLACELAB" sim "$T/g.json" -c k80x4 -p "$T/p.json" --json > "$T/s.json"
check "run --json has every field of sim --json, devices too" \
	test "$(jq -n --slurpfile r "$T/r.json" --slurpfile s "$T/s.json" '($s[0] | keys) - ($r[0] | keys) == [] and ($s[0].devices[0] | keys) == ($r[0].devices[0] | keys)')" = true
check "run --json and sim --json agree on the figures" \
	test "$(jq -n --slurpfile r "$T/r.json" --slurpfile s "$T/s.json" '[$r[0] | .mem, .makespan_us, .bounds, .gap_to_bound, .peak_max, .oom_excess, .devices] == [$s[0] | .mem, .makespan_us, .bounds, .gap_to_bound, .peak_max, .oom_excess, .devices]')" = true
"$PLACELAB" run -a heft "$T/g.json" -c k80x4 --mem none --json > "$T/rn.json"
"$PLACELAB" sim "$T/g.json" -c k80x4 -p "$T/p.json" --mem none --json > "$T/sn.json"
check "--mem none: run and sim --json give null memory figures" \
	test "$(jq -s 'map(.mem == "none" and .oom == null and .peak_max == null and ([.devices[] | .peak_bytes == null and .oom == null] | all)) | all' "$T/rn.json" "$T/sn.json")" = true

# A method that finds no placement is named on standard error, whatever
# the format; when none finds one, compare exits 1.
sed 's/, "device": "cpu"//' "$T/g.json" > "$T/g-nocpu.json"
"$PLACELAB" compare "$T/g-nocpu.json" -c h100x8 --methods single-cpu --format csv > "$T/f.csv" 2> "$T/f.err"; a=$?
check "compare: no method found a placement exits 1 ($a)" test "$a" -eq 1
check "compare names the method that found none, and why" grep -q "single-cpu found no placement: error: no cpu device" "$T/f.err"
"$PLACELAB" compare "$T/g-nocpu.json" -c h100x8 --methods single-cpu,single-gpu --format csv > /dev/null 2> "$T/f2.err"; b=$?
check "compare: one method of two found a placement exits 0 and names the other ($b)" \
	sh -c "test $b -eq 0 && grep -q 'single-cpu found no placement' '$T/f2.err' && ! grep -q single-gpu '$T/f2.err'"

# A stop signal ends a long run cleanly: the best so far is written, and
# the exit status says which signal (128 + 15 for SIGTERM).
"$PLACELAB" run -a brkga --evals 0 --seconds 120 "$PL_SRCDIR/samples/nmt4.json" \
	-o "$T/stopped.json" > "$T/stopped.out" 2> "$T/stopped.err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid; a=$?
check "run stopped by SIGTERM exits 143 ($a)" test "$a" -eq 143
check "run stopped by SIGTERM writes its best so far" sh -c "'$PLACELAB' validate -g '$PL_SRCDIR/samples/nmt4.json' '$T/stopped.json' | grep -q ': ok'"
check "run stopped by SIGTERM says so, and prints its summary" sh -c "grep -q 'brkga stopped by signal 15 after [0-9]* steps; its best so far is written' '$T/stopped.err' && grep -q '^step time' '$T/stopped.out'"
# training: once a batch is on the curve, so that the signal comes in the loop
"$PLACELAB" train placeto "$PL_SRCDIR/samples/teach.json" --episodes 1000000 \
	-o "$T/stopped.plw" --curve "$T/curve.csv" > /dev/null 2> "$T/train.err" &
pid=$!
i=0
while [ $i -lt 600 ] && [ "$(cat "$T/curve.csv" 2>/dev/null | wc -l)" -lt 2 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $pid
wait $pid; b=$?
check "train stopped by SIGTERM exits 143 ($b)" test "$b" -eq 143
check "train stopped by SIGTERM saves the policy" sh -c "grep -q 'training stopped by signal 15' '$T/train.err' && test -s '$T/stopped.plw'"
# a signal after the whole budget has trained (during the greedy
# evaluation, which takes about a second here; the policy is saved just
# before it) does not say training was cut short
"$PLACELAB" train placeto "$PL_SRCDIR/samples/nmt4.json" -o "$T/full.plw" \
	--episodes 1 --workers 1 --groups 0 -q > "$T/full.out" 2> "$T/full.err" &
pid=$!
i=0
while [ $i -lt 1200 ] && ! [ -s "$T/full.plw" ]; do
	sleep 0.05; i=$((i + 1))
done
kill -TERM $pid
wait $pid; b=$?
check "train: a signal during the greedy evaluation exits 143 ($b)" test "$b" -eq 143
check "train: a signal after the budget trained says training was complete" \
	sh -c "grep -q 'greedy evaluations stopped by signal 15 after [01] of 1 graph; training was complete (1 episodes)' '$T/full.err' && ! grep -q 'training stopped' '$T/full.err'"

# train's best seen puts a placement that fits first, as run's best does
cat > "$T/tight.json" <<'EOC'
{"format": "placelab-cluster/1", "name": "tight4", "devices": [
 {"name": "/cpu:0", "kind": "cpu", "peak_flops": 1e11, "mem_bytes": 68719476736, "mem_bw": 5e10, "launch_us": 5},
 {"name": "/gpu:0", "kind": "gpu", "peak_flops": 4e12, "mem_bytes": 157286400, "mem_bw": 2e11, "launch_us": 5},
 {"name": "/gpu:1", "kind": "gpu", "peak_flops": 4e12, "mem_bytes": 157286400, "mem_bw": 2e11, "launch_us": 5},
 {"name": "/gpu:2", "kind": "gpu", "peak_flops": 4e12, "mem_bytes": 157286400, "mem_bw": 2e11, "launch_us": 5},
 {"name": "/gpu:3", "kind": "gpu", "peak_flops": 4e12, "mem_bytes": 157286400, "mem_bw": 2e11, "launch_us": 5}],
 "links": {"shared_bus": false, "bandwidth": 6e9, "latency_us": 10}}
EOC
"$PLACELAB" train placeto "$PL_SRCDIR/samples/teach.json" -c "$T/tight.json" -o "$T/tight.plw" \
	--episodes 40 --curve "$T/tight.csv" -q > "$T/tight.out" 2>&1
"$PLACELAB" run -a placeto "$PL_SRCDIR/samples/teach.json" -c "$T/tight.json" --episodes 40 -q > "$T/tight-run.out" 2>&1
rbest=$(sed -n 's/^step time *\([0-9.]*\) ms.*/\1/p' "$T/tight-run.out")
tbest=$(sed -n 's/.*best seen *\([0-9.]*\) ms.*/\1/p' "$T/tight.out")
check "train's best seen ($tbest ms) is run's best that fits ($rbest ms), not a faster one out of memory" \
	sh -c "grep -q '^memory *fits' '$T/tight-run.out' && test -n '$rbest' && test '$tbest' = '$rbest' && ! grep -q 'best seen *[0-9.]* ms (OOM)' '$T/tight.out'"
check "train's curve: the graph's best is the one that fits" \
	sh -c "test \"\$(tail -1 '$T/tight.csv' | cut -d, -f7 | awk '{ printf \"%.3f\", \$1 / 1000 }')\" = '$rbest'"

# export -a: a stop signal draws the method's best so far
"$PLACELAB" export "$PL_SRCDIR/samples/nmt4.json" -a placeto --seconds 120 \
	-o "$T/stopped.svg" > /dev/null 2> "$T/export.err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid; a=$?
check "export -a stopped by SIGTERM exits 143 ($a)" test "$a" -eq 143
check "export -a stopped by SIGTERM draws its best so far, and says so" \
	sh -c "grep -q '<svg' '$T/stopped.svg' && grep -q 'placeto stopped by signal 15: its best so far drawn in' '$T/export.err'"

# export -a LIST (a table): stopped, the methods run so far are written
"$PLACELAB" export "$PL_SRCDIR/samples/nmt4.json" -a heft,placeto,expert --seconds 120 \
	-o "$T/stopped.md" > /dev/null 2> "$T/export-t.err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid; a=$?
check "export -a LIST stopped by SIGTERM: exit 143, heft and placeto's best so far written ($a)" \
	sh -c "test $a -eq 143 && grep -Eq '^[|] ([*][*])?HEFT' '$T/stopped.md' && grep -Eq '^[|] ([*][*])?Placeto' '$T/stopped.md' && ! grep -q 'human expert' '$T/stopped.md' && grep -q 'export stopped by signal 15: 2 of 3 methods in' '$T/export-t.err'"

# Bad usage exits 2.
"$PLACELAB" compare "$T/g.json" --methods heft,nosuch > /dev/null 2>&1; a=$?
"$PLACELAB" run -a nosuch "$T/g.json" > /dev/null 2>&1; b=$?
"$PLACELAB" run "$T/g.json" > /dev/null 2>&1; c=$?
"$PLACELAB" run -a random --samples x "$T/g.json" > /dev/null 2>&1; d=$?
check "unknown method / missing -a / bad option value exit 2 ($a $b $c $d)" test "$a$b$c$d" = 2222

# a device name too long for its cell, in UTF-8: the text table's header,
# rule and rows are still as wide as each other (in characters)
python3 -c "import json; json.dump({'format': 'placelab-cluster/1', 'name': 'long', 'devices': [
    {'name': '/cpu:0', 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10},
    {'name': '/gpu:00-' + '\u00e9' * 130, 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11}]},
    open('$T/long.json', 'w'))"
"$PLACELAB" compare "$PL_SRCDIR/samples/teach.json" -c "$T/long.json" --methods expert,heft,single-gpu -q \
    > "$T/long.txt" 2>/dev/null
check "text table: rows line up with a long UTF-8 device name cut in its cell" python3 -c "
import sys
rows = open('$T/long.txt', encoding='utf-8').read().splitlines()[1:5]
sys.exit(0 if len(rows) == 4 and len(set(len(r) for r in rows)) == 1 and '\u2026' in rows[2] else 1)"

# Every step time 0 (ops with no cost): gaps are 0, not n/a, as the gap
# to a bound of 0 is, and "best" names a row whose gap to best is 0.
printf '{"format":"placelab-graph/1","name":"zero","ops":[{"name":"x"},{"name":"y"}],"edges":[["x","y"]]}' > "$T/zero.json"
"$PLACELAB" compare "$T/zero.json" --methods single-cpu,expert,heft --format json -q > "$T/zero.out" 2>/dev/null
check "all step times 0: gap to best and time vs expert 0 on every row" python3 -c "
import json, sys
d = json.load(open('$T/zero.out'))
rows = d['rows']
ok = d['best'] in [r['method'] for r in rows] and all(r['gap_best_pct'] == 0 and r['time_vs_expert_pct'] == 0 for r in rows)
sys.exit(0 if ok else 1)"

# Device names of wide (CJK) and combining characters: the columns are
# counted as a terminal shows them, in compare's table and in run's,
# sim's and info's device lines.
cat > "$T/cols.py" <<'PYEOF'
import sys, unicodedata
def cols(s):
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
PYEOF
python3 -c "import json; json.dump({'format': 'placelab-cluster/1', 'name': 'cjk', 'devices': [
    {'name': '/cpu:0', 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10},
    {'name': 'GPU\u7532\u4e59\u4e19', 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11},
    {'name': 'gpu-e\u0301\u0301-1', 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11}]},
    open('$T/cjk.json', 'w'))"
"$PLACELAB" compare "$PL_SRCDIR/samples/teach.json" -c "$T/cjk.json" --methods expert,single-gpu,random -q \
    > "$T/cjk.txt" 2>/dev/null
check "text table: rows line up with CJK and combining device names (terminal columns)" python3 -c "
exec(open('$T/cols.py').read())
rows = open('$T/cjk.txt', encoding='utf-8').read().splitlines()[1:6]
sys.exit(0 if len(rows) == 5 and len(set(cols(r) for r in rows)) == 1 and any('\u7532' in r for r in rows) else 1)"
"$PLACELAB" run -a random "$PL_SRCDIR/samples/teach.json" -c "$T/cjk.json" -q > "$T/cjk-run.txt" 2>/dev/null
"$PLACELAB" sim "$PL_SRCDIR/samples/teach.json" -c "$T/cjk.json" --place round-robin > "$T/cjk-sim.txt" 2>/dev/null
"$PLACELAB" info "$PL_SRCDIR/samples/teach.json" -c "$T/cjk.json" > "$T/cjk-info.txt" 2>/dev/null
check "run, sim and info: the device columns line up with CJK and combining names" python3 -c "
exec(open('$T/cols.py').read())
def at(path, word, n):
    L = [l for l in open(path, encoding='utf-8').read().splitlines() if word in l]
    assert len(L) == n, (path, L)
    return set(cols(l[:l.index(word)]) for l in L)
ok = len(at('$T/cjk-run.txt', ' ops  busy', 3)) == 1
ok = ok and len(at('$T/cjk-sim.txt', ' 16.0 GiB', 2)) == 1
ok = ok and len(at('$T/cjk-info.txt', ' TFLOP/s', 3)) == 1
sys.exit(0 if ok else 1)"

# Names with Markdown and LaTeX specials, and a graph name of 300
# two-byte characters: the caption is whole (not cut, so no broken
# UTF-8), Markdown shows every name as written (a row splits into its
# 10 cells at unescaped pipes, and unescaping gives the names back),
# LaTeX quotes '"' with a glyph OT1 has.
python3 -c "import json
g = json.load(open('$T/g.json')); g['name'] = '1. # x_y*z \u00fc' + '\u00fc' * 300
json.dump(g, open('$T/mdg.json', 'w'))
json.dump({'format': 'placelab-cluster/1', 'name': 'md', 'devices': [
    {'name': 'a\\\\|b', 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10},
    {'name': '[l](u) *e* \`c\` <b>&amp;\"', 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11},
    {'name': 'q\\\\', 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10}]},
    open('$T/mdc.json', 'w'))"
"$PLACELAB" compare "$T/mdg.json" -c "$T/mdc.json" --methods single-cpu,single-gpu --format md > "$T/sp.md" 2>/dev/null
check "md: a long caption is whole and valid UTF-8" python3 -c "
import sys
cap = open('$T/sp.md', 'rb').read().decode('utf-8').splitlines()[0]
sys.exit(0 if cap.startswith('1\\\\. # x_y\\\\*z') and cap.count('\u00fc') == 301 and 'lower bound' in cap else 1)"
check "md: names with pipes, backslashes and markup show as written" python3 -c "
import re, sys
rows = open('$T/sp.md', encoding='utf-8').read().splitlines()[2:]
rows = [r for r in rows if r.startswith('|')][2:]
names = set()
for r in rows:
    cells = re.split(r'(?<!\\\\)((?:\\\\\\\\)*)\|', r)
    cells = [c for i, c in enumerate(cells) if i % 2 == 0]
    if len(cells) != 12: sys.exit(1)
    m = re.search(r'\((.*)\)', cells[6])
    names.add(re.sub(r'\\\\([!-/:-@[-\`{-~])', r'\1', m.group(1)))
sys.exit(0 if names == {'a\\\\|b', '[l](u) *e* \`c\` <b>&amp;\"'} else 1)"
"$PLACELAB" compare "$T/mdg.json" -c "$T/mdc.json" --methods single-gpu --format tex > "$T/sp.tex" 2>/dev/null
check "tex: '\"' in a name is the typewriter quote" grep -q 'amp;{\\ttfamily\\char34})' "$T/sp.tex"
"$PLACELAB" compare "$T/mdg.json" -c "$T/mdc.json" --methods single-gpu > "$T/sp.txt" 2>/dev/null
check "text table: the long caption is whole" python3 -c "
import sys
cap = open('$T/sp.txt', encoding='utf-8').read().splitlines()[0]
sys.exit(0 if cap.count('\u00fc') == 301 and cap.endswith(' ms') else 1)"
python3 -c "import json; g = json.load(open('$T/g.json')); g['name'] = '    # x'; json.dump(g, open('$T/ind.json', 'w'))"
"$PLACELAB" compare "$T/ind.json" -c k80x4 --methods single-gpu --format md > "$T/ind.md" 2>/dev/null
check "md: a caption's leading blanks dropped (no code block), its '#' escaped" \
	sh -c "head -1 '$T/ind.md' | grep -q '^\\\\# x on k80x4'"

# Byte counts above 2^53 are written with every digit, as in the CSV and
# placelab-result/1 (2^53 + 1 bytes of parameters on one device).
python3 -c 'import json; json.dump({"format": "placelab-graph/1", "name": "b53", "ops": [{"name": "o%d" % i, "param_bytes": 2**50} for i in range(8)] + [{"name": "x", "param_bytes": 1}], "edges": []}, open("'"$T"'/b53.json", "w"))'
"$PLACELAB" compare "$T/b53.json" --methods single-cpu --format json -q > "$T/b53.out" 2>/dev/null
check "json: byte counts above 2^53 exact (peak 9007199254740993)" \
	sh -c "grep -q '\"peak_bytes\":[[:space:]]*9007199254740993,' '$T/b53.out' && grep -q '\"bytes_moved\":[[:space:]]*0,' '$T/b53.out'"

# a long device name in an OOM note: whole, so the JSON stays UTF-8 and the
# note keeps its figures (a 160-byte buffer cut the name mid-character)
long=$(awk 'BEGIN { for (i = 0; i < 80; i++) printf "\303\251" }')
cat > "$T/clong.json" <<JSON
{"format": "placelab-cluster/1", "name": "longname", "devices": [
 {"name": "/cpu:0", "kind": "cpu", "peak_flops": 5e11, "mem_bytes": 68719476736, "mem_bw": 6e10},
 {"name": "/gpu:0-$long", "kind": "gpu", "peak_flops": 4.37e12, "mem_bytes": 1048576, "mem_bw": 2.4e11}]}
JSON
"$PLACELAB" compare "$T/g.json" -c "$T/clong.json" --methods single-gpu --format json -q > "$T/long.out" 2>/dev/null
check "json: an OOM note with a 160-byte device name is whole (needs X of Y)" \
	sh -c "jq -e '.rows[0].status | test(\"^OOM: /gpu:0-(é){80} needs .* of 1.00 MiB$\")' '$T/long.out' > /dev/null"

exit 0
