#!/bin/sh
# sim-ab — tools/sim-ab builds and runs the paired timing of a simulator
# model, and stops when the two versions disagree.  Prints TAP.
: "${PLACELAB:?}" "${PL_SRCDIR:?}"
PL_BUILDDIR=$(dirname "$PLACELAB")
export PL_BUILDDIR
AB="$PL_SRCDIR/tools/sim-ab"
. "$PL_SRCDIR/tests/tap-check.sh"
echo "1..5"

check "placeto model against itself: a ratio" \
	'sh "$AB" "$PL_SRCDIR/core/sim-placeto.c" placeto placeto 300 2 >"$T/p" 2>&1 && grep -q "new/old [0-9.]*, new faster in [0-9]* of 2 rounds" "$T/p"'
check "native model against itself: a ratio" \
	'sh "$AB" "$PL_SRCDIR/core/sim-native.c" native native 300 2 >"$T/n" 2>&1 && grep -q "300 ops .*new/old" "$T/n"'
# a version whose ops take twice as long is not an optimisation
sed 's/double e = t + o->cost;/double e = t + 2 * o->cost;/' "$PL_SRCDIR/core/sim-native.c" >"$T/slow.c"
check "the mutation applies" '! cmp -s "$T/slow.c" "$PL_SRCDIR/core/sim-native.c"'
check "versions that disagree stop the run" \
	'! sh "$AB" "$T/slow.c" native native 300 2 >"$T/d" 2>&1 && grep -q "versions disagree" "$T/d"'
check "an unknown model is refused" \
	'sh "$AB" HEAD heft >"$T/u" 2>&1; [ $? -eq 2 ] && grep -q "placeto or native" "$T/u"'
exit $fail
