#!/bin/sh
# sim-ab — tools/sim-ab builds and runs the paired timing of a simulator
# model, and stops when the two versions disagree on any placement's
# result or any op's start.  Prints TAP.
: "${PLACELAB:?}" "${PL_SRCDIR:?}"
PL_BUILDDIR=$(dirname "$PLACELAB")
export PL_BUILDDIR
AB="$PL_SRCDIR/tools/sim-ab"
. "$PL_SRCDIR/tests/tap-check.sh"
echo "1..7"

check "placeto model against itself: a ratio" \
	'sh "$AB" "$PL_SRCDIR/core/sim-placeto.c" placeto placeto 300 2 >"$T/p" 2>&1 && grep -q "new/old [0-9.]*, new faster in [0-9]* of 2 rounds" "$T/p"'
check "native model against itself: a ratio" \
	'sh "$AB" "$PL_SRCDIR/core/sim-native.c" native native 300 2 >"$T/n" 2>&1 && grep -q "300 ops .*new/old" "$T/n"'
# a version whose ops take twice as long is not an optimisation
sed 's/double e = t + o->cost;/double e = t + 2 * o->cost;/' "$PL_SRCDIR/core/sim-native.c" >"$T/slow.c"
check "the mutation applies" '! cmp -s "$T/slow.c" "$PL_SRCDIR/core/sim-native.c"'
check "versions that disagree stop the run" \
	'! sh "$AB" "$T/slow.c" native native 300 2 >"$T/d" 2>&1 && grep -q "versions disagree" "$T/d"'
# a version whose busy times alone differ (the makespans agree): every
# result field is compared, not the makespan alone
sed 's/R->busy\[rk\] += cost;/R->busy[rk] += cost * 1.0000001;/' "$PL_SRCDIR/core/sim-placeto.c" >"$T/busy.c"
check "the busy-time mutation applies" '! cmp -s "$T/busy.c" "$PL_SRCDIR/core/sim-placeto.c"'
check "versions whose busy times alone differ stop the run, the field named" \
	'! sh "$AB" "$T/busy.c" placeto none 300 2 >"$T/b" 2>&1 && grep -q "versions disagree on placement 0: a device.s busy time" "$T/b"'
check "an unknown model is refused" \
	'sh "$AB" HEAD heft >"$T/u" 2>&1; [ $? -eq 2 ] && grep -q "placeto or native" "$T/u"'
exit $fail
