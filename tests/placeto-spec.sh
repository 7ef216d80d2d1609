#!/bin/sh
# placeto-spec — bench/placeto-spec.py, Placeto's event loop written in
# Python from docs/SIMULATION.md section 3, gives the Placeto model's run
# times bit for bit on the benchmark's random placements (2,000 ops, 4
# devices) and on a tie-heavy graph (integer costs, zero-cost ops, three
# outputs an op, repeated edges), the peak memory of the reference's
# estimate (--mem placeto) too, and reports a run time or a peak that
# differs.
# Prints TAP.
: "${PLACELAB:?}" "${PL_SRCDIR:?}"
BENCH="$(dirname "$PLACELAB")/bench/bench-sim"
PY="$PL_SRCDIR/bench/placeto-spec.py"
. "$PL_SRCDIR/tests/tap-check.sh"
echo "1..8"

check "bench-sim writes the problem, placements and run times" \
	'"$BENCH" placeto-dump "$T/d.json" && grep -q "\"makespan\": [0-9]" "$T/d.json"'
check "the Python loop gives the same run times and peaks" \
	'python3 "$PY" "$T/d.json" 1 >"$T/o" 2>&1 && grep -q "run times and peaks equal placelab" "$T/o"'
check "a tie-heavy problem with several outputs an op is written" \
	'"$BENCH" placeto-dump "$T/t.json" ties && grep -q "\"sizes\": \[[0-9]*, [0-9]*, [0-9]*\]" "$T/t.json"'
check "the Python loop gives the same run times and peaks on it" \
	'python3 "$PY" "$T/t.json" 1 >"$T/to" 2>&1 && grep -q "run times and peaks equal placelab" "$T/to"'
# one run time off by a leading digit must be reported, with the placement
awk '!done && sub(/"makespan": /, "&9") { done = 1 } { print }' "$T/d.json" >"$T/bad.json"
check "a run time that differs is an error" \
	'! cmp -s "$T/d.json" "$T/bad.json" && ! python3 "$PY" "$T/bad.json" 1 >"$T/b" 2>&1 && grep -q "placement 0: run time" "$T/b"'
# one peak off by a leading digit likewise
awk '!done && sub(/"peak_bytes": \[/, "&9") { done = 1 } { print }' "$T/d.json" >"$T/badp.json"
check "a peak that differs is an error" \
	'! cmp -s "$T/d.json" "$T/badp.json" && ! python3 "$PY" "$T/badp.json" 1 >"$T/p" 2>&1 && grep -q "placement 0: peak memory" "$T/p"'
# not a dump, or a bad ROUNDS: a message naming the file, exit 2
echo '{"nodes": [], "placements": []}' >"$T/empty.json"
check "a file that is not a dump is refused, named" \
	'python3 "$PY" "$T/empty.json" 1 >"$T/e" 2>&1; test $? = 2 && grep -q "empty.json: .*expected a dump" "$T/e"'
check "ROUNDS must be a whole number of at least 1" \
	'python3 "$PY" "$T/d.json" 0 >"$T/r" 2>&1; test $? = 2 && grep -q "usage: .*ROUNDS >= 1" "$T/r"'
exit $fail
