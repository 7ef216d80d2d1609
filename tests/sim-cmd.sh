#!/bin/sh
# sim-cmd — `placelab sim` end to end: rules, placement files, JSON result
# and trace, exit codes.  Prints TAP.
: "${PLACELAB:?}" "${PL_SRCDIR:?}"
S="$PL_SRCDIR/samples"
. "$PL_SRCDIR/tests/tap-check.sh"
echo "1..20"

G="$S/heft.json"
C="$S/clusters/heft3.json"

check "text summary" \
	'"$PLACELAB" sim "$G" -c "$C" --place round-robin >"$T/out" && grep -q "^makespan" "$T/out" && grep -q "gap to bound" "$T/out"'
check "json result is placelab-result/1" \
	'"$PLACELAB" sim "$G" -c "$C" --place all:P1 --json >"$T/r.json" && grep -q "\"format\":[[:space:]]*\"placelab-result/1\"" "$T/r.json"'
# all on one device: no transfers, makespan = the device's busy time
ms=$(sed -n 's/.*"makespan_us":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$T/r.json" | head -1)
busy=$(tr -d '\n\t ' <"$T/r.json" | sed 's/.*"name":"P1","ops":[0-9]*,"busy_us":\([0-9.e+]*\).*/\1/')
check "one device: makespan = busy time ($ms = $busy)" '[ -n "$ms" ] && [ "$ms" = "$busy" ]'
check "one device: no transfers" 'grep -q "\"transfers\":[[:space:]]*0" "$T/r.json"'
check "gap to bound is not negative" \
	'! grep -q "\"gap_to_bound\":[[:space:]]*-" "$T/r.json"'
check "trace file has ops, transfers, memory and critical path" \
	'"$PLACELAB" sim "$G" -c "$C" --place random:4 --trace "$T/t.json" >/dev/null && grep -q "\"xfers\"" "$T/t.json" && grep -q "\"critical_path\"" "$T/t.json" && grep -q "\"memory\"" "$T/t.json" && grep -q "\"start_us\"" "$T/t.json"'
check "random:SEED is deterministic" \
	'"$PLACELAB" sim "$G" -c "$C" --place random:9 --json >"$T/a" && "$PLACELAB" sim "$G" -c "$C" --place random:9 --json >"$T/b" && cmp -s "$T/a" "$T/b"'
check "placeto model and memory model" \
	'"$PLACELAB" sim "$G" -c "$C" --place round-robin --sim placeto --mem placeto --json | grep -q "\"sim\":[[:space:]]*\"placeto\""'
"$PLACELAB" sim "$G" -c "$C" --place bogus >/dev/null 2>"$T/err"; rc=$?
check "unknown rule: exit 2 with a message" '[ $rc -eq 2 ] && grep -q "expected all:DEVICE" "$T/err"'
"$PLACELAB" sim "$G" -c "$C" --place all:nosuch >/dev/null 2>&1; rc=$?
check "unknown device: exit 2" '[ $rc -eq 2 ]'
"$PLACELAB" sim "$G" -c "$C" >/dev/null 2>&1; rc=$?
check "neither -p nor --place: exit 2" '[ $rc -eq 2 ]'
"$PLACELAB" sim "$G" -c "$C" --place round-robin --sim heft >/dev/null 2>&1; rc=$?
check "unknown simulator: exit 2" '[ $rc -eq 2 ]'
# all:NAME tells apart long names that differ only past 127 bytes, in
# full or without '/' and ':', and a name no device has is refused
python3 -c "import json; L = 'x' * 200; json.dump({'format': 'placelab-cluster/1', 'name': 'long',
    'devices': [{'name': '/gpu:' + L + s, 'kind': 'gpu', 'peak_flops': 1e12, 'mem_bytes': 10**10, 'mem_bw': 1e11}
    for s in 'AB']}, open('$T/long.json', 'w'))"
L=$(python3 -c "print('x' * 200)")
onB() { python3 -c "import json, sys; d = json.load(sys.stdin)['devices']; sys.exit(0 if d[0]['ops'] == 0 and d[1]['ops'] > 0 else 1)"; }
check "all:NAME with long names: the device named, squashed or not" \
	'"$PLACELAB" sim "$G" -c "$T/long.json" --place "all:gpu${L}B" --json | onB &&
	 "$PLACELAB" sim "$G" -c "$T/long.json" --place "all:/gpu:${L}B" --json | onB'
"$PLACELAB" sim "$G" -c "$T/long.json" --place "all:gpu${L}C" >/dev/null 2>"$T/err"; rc=$?
check "all:NAME matching no device past 127 bytes: exit 2, what is expected" \
	'[ $rc -eq 2 ] && grep -q "(expected a device.s name, such as" "$T/err"'
# ops that cost nothing: the bound is 0, and a makespan above it has no
# finite gap (n/a, null), one at 0 a gap of 0
printf '{"format": "placelab-graph/1", "name": "zz", "ops": [{"name": "a"}, {"name": "b"}], "edges": [["a", "b", 0]]}\n' >"$T/zz.json"
check "bound 0, makespan above it: gap to bound n/a in text and run, null in JSON" \
	'"$PLACELAB" sim "$T/zz.json" --place round-robin | grep -q "gap to bound n/a" &&
	 "$PLACELAB" sim "$T/zz.json" --place round-robin --json | grep -q "\"gap_to_bound\":[[:space:]]*null" &&
	 "$PLACELAB" run -a random --seed 3 "$T/zz.json" | grep -q "gap n/a)"'
check "bound 0, makespan 0: gap to bound 0" \
	'"$PLACELAB" sim "$T/zz.json" --place all:gpu0 | grep -q "gap to bound 0.0%" &&
	 "$PLACELAB" sim "$T/zz.json" --place all:gpu0 --json | grep -q "\"gap_to_bound\":[[:space:]]*0,"'
# byte totals above 2^53 (allowed up to 2^56) are printed with every digit
python3 -c '
import json, sys
json.dump({"format": "placelab-graph/1", "name": "big",
           "ops": [{"name": "o%d" % i, "param_bytes": 2**50 - 1} for i in range(9)]}, open(sys.argv[1], "w"))
' "$T/big.json"
check "bytes above 2^53: peak and excess exact in JSON and in the trace" \
	'"$PLACELAB" sim "$T/big.json" --place all:gpu0 --json --trace "$T/big-trace.json" > "$T/big.out" &&
	 python3 -c "
import json, sys
peak = 9 * (2**50 - 1)
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert d[\"peak_max\"] == peak and d[\"oom_excess\"] == peak - 12884901888, (f, d[\"peak_max\"])
" "$T/big.out" "$T/big-trace.json"'
printf '{"format":"placelab-graph/1","ops":[{"name":"o","param_bytes":1000000000000000}]}' > "$T/e15.json"
check "bytes of 10^15: written as an integer, not 1e+15" \
	'"$PLACELAB" sim "$T/e15.json" --place all:gpu0 --json | grep -q "\"peak_max\":[[:space:]]*1000000000000000,"'
# round-robin: a group pinned to the CPU does not reset the others' turn
# (it did: the unconstrained groups went back to /gpu:0 after each, and
# /gpu:2 and /gpu:3 got none); random: uniform among a group's allowed
# devices (the first allowed one took the draws of those it may not use)
awk 'BEGIN { printf "{\"format\": \"placelab-graph/1\", \"name\": \"rr\", \"ops\": [";
	for (i = 0; i < 12; i++) printf "%s{\"name\": \"op%d\", \"flops\": 1e9%s}", i ? ", " : "", i, i % 3 ? "" : ", \"device\": \"cpu\"";
	print "], \"edges\": []}" }' > "$T/rr.json"
check "round-robin: every device takes a turn (pinned groups keep to theirs)" \
	'"$PLACELAB" sim "$T/rr.json" --place round-robin > "$T/rr.out" &&
	 awk "/^\/cpu:0/ { c = \$2 } /^\/gpu:/ { if (\$2 < 1) bad = 1 } END { exit !(c == 6 && !bad) }" "$T/rr.out"'
awk 'BEGIN { printf "{\"format\": \"placelab-graph/1\", \"name\": \"rg\", \"ops\": [";
	for (i = 0; i < 2000; i++) printf "%s{\"name\": \"op%d\", \"flops\": 1e6, \"device\": \"gpu\"}", i ? ", " : "", i;
	print "], \"edges\": []}" }' > "$T/rg.json"
check "random: uniform among a group's allowed devices (400-600 of 2000 on each GPU)" \
	'"$PLACELAB" sim "$T/rg.json" --place random > "$T/rg.out" &&
	 awk "/^\/gpu:/ { n++; if (\$2 < 400 || \$2 > 600) bad = 1 } END { exit !(n == 4 && !bad) }" "$T/rg.out"'
exit $fail
