#!/bin/sh
# man — the man page (docs/placelab.1) is well-formed roff and has every
# command with every option its --help names, so that "man placelab has
# them all on one page" stays true; and docs/SAMPLES.md, which says it is
# generated, is what its generator writes (a hand edit would be lost at
# the next `make samples-doc`).  Prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=..}"
. "$PL_SRCDIR/tests/tap-check.sh"

echo "1..6"
MAN="$PL_SRCDIR/docs/placelab.1"
python3 "$PL_SRCDIR/tools/man-check.py" "$PLACELAB" "$MAN" >"$T/out" 2>&1; rc=$?
check "every command's --help options are in its man page entry" \
    'test $rc = 0 && grep -q "^commands: info validate clusters gen sim run compare train export explore$" "$T/out"'
# The check can fail: a page without export's --dpi is caught.
sed "s/dpi/resolution/g" "$MAN" >"$T/bad.1"
python3 "$PL_SRCDIR/tools/man-check.py" "$PLACELAB" "$T/bad.1" >"$T/out" 2>&1; rc=$?
check "a page without an option is reported, with the command and the option" \
    'test $rc = 1 && grep -q "^export: not in the man page: --dpi$" "$T/out"'
LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$MAN" >"$T/out" 2>&1; rc=$?
check "groff reads the page without a warning" 'test $rc = 0 && ! test -s "$T/out"'
$PLACELAB --help >"$T/out" 2>&1
check "placelab --help names the explorer's --demo, -p, --version and the man page" \
    'grep -q "^usage: placelab \[GRAPH\] \[-c CLUSTER\] \[-p PLACEMENT\] \[--demo\]$" "$T/out" && grep -q -- "--version" "$T/out" && grep -q "man placelab" "$T/out"'
bad_h=""
for c in info validate clusters gen sim run compare train export explore; do
	$PLACELAB $c -h >"$T/out" 2>&1 && grep -q "^usage: placelab " "$T/out" || bad_h="$bad_h $c"
done
check "every command takes -h, as the man page says (${bad_h:-all do})" 'test -z "$bad_h"'
PLACELAB="$PLACELAB" sh "$PL_SRCDIR/tools/samples-doc.sh" "$PL_SRCDIR" "$(dirname "$PLACELAB")" \
    >"$T/samples.md" 2>"$T/err"; rc=$?
check "docs/SAMPLES.md is what tools/samples-doc.sh (make samples-doc) writes" \
    'test $rc = 0 && cmp -s "$T/samples.md" "$PL_SRCDIR/docs/SAMPLES.md"'
