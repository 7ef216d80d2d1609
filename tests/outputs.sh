#!/bin/sh
# outputs — nothing the user has is replaced by accident: an output that is
# the same file as an input (by any spelling, or a hard link) or as
# another output, or that holds a placelab document of another kind, is
# refused before any work, the file left as it was; a
# write through a symbolic link goes to its target and keeps the link,
# and an existing file keeps its permissions.  Prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=..}"
. "$PL_SRCDIR/tests/tap-check.sh"

echo "1..70"
cd "$T" || exit 1
cp "$PL_SRCDIR/samples/teach.json" g.json
cp g.json g.orig
$PLACELAB run -a heft g.json -c k80x4 -o p.json >/dev/null 2>&1 || exit 1
cp p.json p.orig

# refused: exit 2, the clash named, the input unchanged
refused() {	# file-kept message command...
	kept=$1 msg=$2; shift 2
	"$@" >/dev/null 2>err; rc=$?
	test "$rc" = 2 && grep -qF -- "$msg" err && cmp -s "$kept" "${kept%.*}.orig"
}
check "run -o GRAPH" 'refused g.json "-o g.json: the same file as the input GRAPH g.json" \
    $PLACELAB run -a heft g.json -c k80x4 -o g.json'
check "run -o P --history P" 'refused p.json "--history p.json: the same file as -o p.json" \
    $PLACELAB run -a heft g.json -c k80x4 -o p.json --history p.json'
check "sim --trace PLACEMENT" 'refused p.json "--trace p.json: the same file as the input -p p.json" \
    $PLACELAB sim g.json -c k80x4 -p p.json --trace p.json'
check "export -o GRAPH (a table by its suffix)" 'refused g.json "the same file as the input GRAPH g.json" \
    $PLACELAB export g.json -c k80x4 -a heft -o g.json'
check "export -o PLACEMENT spelt another way" 'refused p.json "-o ./p.json: the same file as the input -p p.json" \
    $PLACELAB export g.json -c k80x4 -p p.json -o ./p.json --format json'
check "compare -o GRAPH by a path through .." 'refused g.json "the same file as the input GRAPH g.json" \
    $PLACELAB compare g.json -c k80x4 --methods heft -o "../$(basename "$T")/g.json"'
ln g.json hard.json
check "run -o a hard link to GRAPH" 'refused g.json "-o hard.json: the same file as the input GRAPH g.json" \
    $PLACELAB run -a heft g.json -c k80x4 -o hard.json'
$PLACELAB train placeto g.json -c k80x4 --episodes 1 -o pol.plw --curve pol.plw >/dev/null 2>err; rc=$?
check "train -o X --curve X: refused before any episode" \
    'test $rc = 2 && grep -qF -- "--curve pol.plw: the same file as -o pol.plw" err && ! test -e pol.plw'

# train --curve grows as training goes, but an existing curve is replaced
# only with the policy (every 30 s and at the end): a run killed before
# then leaves it as it was
printf 'old curve\n' > cur.csv
chmod 640 cur.csv
$PLACELAB train placeto g.json -c k80x4 --episodes 1000000 -o killed.plw --curve cur.csv >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && [ "$(cat cur.csv.tmp.* 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
check "train --curve OLD killed before its first save: OLD as it was" \
    'test $i -lt 600 && test "$(cat cur.csv)" = "old curve"'
rm -f cur.csv.tmp.*
$PLACELAB train placeto g.json -c k80x4 --episodes 2 -o done.plw --curve cur.csv >/dev/null 2>&1; rc=$?
check "train --curve OLD that ends: the new curve, OLD's permissions, no file left over" \
    'test $rc = 0 && head -1 cur.csv | grep -q "^episode,graph" && test "$(wc -l < cur.csv)" -ge 3 &&
     test "$(stat -c %a cur.csv)" = 640 && ! ls cur.csv.tmp.* >/dev/null 2>&1'
$PLACELAB train placeto g.json -c k80x4 --episodes 2 -o new.plw --curve /dev/stdout >sc.csv 2>se; rc=$?
check "train --curve /dev/stdout > file: the file holds the curve, the summary on stderr" \
    'test $rc = 0 && head -1 sc.csv | grep -q "^episode,graph" && ! grep -q "^policy " sc.csv && grep -q "^policy *new.plw" se'
$PLACELAB train placeto g.json -c k80x4 --episodes 2 -o same.plw --curve same.csv >same.csv 2>se; rc=$?
check "train --curve F > F: F holds the curve, the summary on stderr" \
    'test $rc = 0 && head -1 same.csv | grep -q "^episode,graph" && ! grep -q "^policy " same.csv && grep -q "^policy *same.plw" se'
$PLACELAB train placeto g.json -c k80x4 --episodes 2 -o full.plw --curve /dev/full >/dev/null 2>err; rc=$?
check "train --curve /dev/full: the write error said, exit 2" \
    'test $rc = 2 && grep -qF -- "write failed: No space left on device" err'
(umask 077; $PLACELAB train placeto g.json -c k80x4 --episodes 2 -o um.plw --curve um.csv >/dev/null 2>&1); rc=$?
check "train --curve NEW under umask 077: the file is private" 'test $rc = 0 && test "$(stat -c %a um.csv)" = 600'

# an empty output name is refused before any work (it failed after it)
$PLACELAB train placeto g.json -c k80x4 --episodes 100000 -o "" >/dev/null 2>err; rc=$?
check "train -o \"\": refused before any episode" \
    'test $rc = 2 && grep -qF -- "-o \"\": an empty file name (expected the name of a file to write)" err && ! ls .tmp.* >/dev/null 2>&1'
$PLACELAB run -a heft g.json -c k80x4 --history "" >/dev/null 2>err; rc=$?
check "run --history \"\": refused" 'test $rc = 2 && grep -qF -- "--history \"\": an empty file name" err'

# through a symbolic link: the target is written, the link stays
cp g.orig g2.json
cp p.orig p2.json
printf 'old\n' > real.svg
ln -s real.svg link.svg
$PLACELAB export g2.json -c k80x4 -p p2.json -o link.svg >/dev/null 2>&1; rc=$?
check "a symbolic link stays a link" 'test $rc = 0 && test -L link.svg'
check "its target gets the diagram" "grep -q '<svg' real.svg"
cp "$PL_SRCDIR/samples/policies/nmt.plw" pol.plw
cp pol.plw pol.orig
check "run -o a method's input file (--policy)" 'refused pol.plw "-o pol.plw: the same file as the input --policy pol.plw" \
    $PLACELAB run -a placeto g.json -c k80x4 --policy pol.plw --finetune 0 -o pol.plw'
check "compare -o a file a method option reads" 'refused pol.plw "-o pol.plw: the same file as the input --policy pol.plw" \
    $PLACELAB compare g.json -c k80x4 --methods placeto --opt placeto:policy=pol.plw -o pol.plw'
ln -s made.json dangling.json
$PLACELAB run -a heft g2.json -c k80x4 -o dangling.json -q >/dev/null 2>&1; rc=$?
check "a link to a file not made yet makes it and stays a link" \
    'test $rc = 0 && test -L dangling.json && grep -q placelab-placement made.json'
$PLACELAB run -a heft g2.json -c k80x4 -o k80x4 -q >/dev/null 2>&1; rc=$?
check "-c PRESET is no file: an output named like it is written" 'test $rc = 0 && test -s k80x4'
printf 'old\n' > mode.svg
chmod 640 mode.svg
$PLACELAB export g2.json -c k80x4 -p p2.json -o mode.svg >/dev/null 2>&1; rc=$?
check "an existing file keeps its permissions" \
    'test $rc = 0 && grep -q "<svg" mode.svg && test "$(stat -c %a mode.svg)" = 640'
$PLACELAB run -a heft g2.json -c k80x4 -o nodir/sub/p.json -q >/dev/null 2>err; rc=$?
check "an output in a missing folder: the folder named" \
    'test $rc != 0 && grep -qF "nodir/sub/p.json: cannot create it: the folder nodir/sub does not exist" err'
$PLACELAB run -a heft g2.json -c k80x4 -o mode.svg/p.json -q >/dev/null 2>err; rc=$?
check "an output under a file: the file named as no folder" \
    'test $rc != 0 && grep -qF "mode.svg/p.json: cannot create it: mode.svg is not a folder" err'

# a placelab document is replaced only by one of its own kind: a table
# written to a saved placement's name, a placement over a table, a graph
# or a policy over a placement are refused before any work, the file kept
cp p.orig keep.json
cp p.orig keep.orig
check "export TABLE -o PLACEMENT" 'refused keep.json "-o keep.json: holds a placement (placelab-placement/1), which this would replace with a comparison table" \
    $PLACELAB export g2.json -c k80x4 -a expert,heft -o keep.json'
check "compare --format md -o PLACEMENT" 'refused keep.json "holds a placement (placelab-placement/1), which this would replace with another kind of file" \
    $PLACELAB compare g2.json -c k80x4 --methods heft --format md -o keep.json'
check "gen -o PLACEMENT" 'refused keep.json "-o keep.json: holds a placement" $PLACELAB gen chain -o keep.json'
mkdir fam && cp p.orig fam/nmt-02.json && cp p.orig fam/nmt-02.orig
check "gen family over a placement: refused before any member is written" \
    'refused fam/nmt-02.json "-o fam/nmt-02.json: holds a placement" $PLACELAB gen family nmt -o fam --count 4 &&
     ! test -e fam/nmt-00.json'
check "train -o PLACEMENT: before any episode" 'refused keep.json "-o keep.json: holds a placement" \
    $PLACELAB train placeto g2.json -c k80x4 --episodes 100000 -o keep.json'
check "sim --trace GRAPH (not an input)" 'refused g3.json "--trace g3.json: holds a graph (placelab-graph/1)" \
    sh -c "cp g.orig g3.json && cp g.orig g3.orig && $PLACELAB sim g2.json -c k80x4 -p p2.json --trace g3.json"'
$PLACELAB compare g2.json -c k80x4 --methods heft -o t.json -q >/dev/null 2>&1
cp t.json t.orig
check "run -o TABLE" 'refused t.json "-o t.json: holds a comparison table (placelab-compare/1), which this would replace with a placement" \
    $PLACELAB run -a heft g2.json -c k80x4 -o t.json'
check "run -o POLICY" 'refused pol.plw "-o pol.plw: holds a trained policy (PLWEIGHT)" \
    $PLACELAB run -a heft g2.json -c k80x4 -o pol.plw'
printf '# priors\n\nplacelab-beta/1\ndefault 1 1\n' > b.txt
cp b.txt b.orig
check "export -o BETA-FILE" 'refused b.txt "holds BRKGA'"'"'s Beta parameters (placelab-beta/1)" \
    $PLACELAB export g2.json -c k80x4 -a heft --format md -o b.txt'
check "the same kind is replaced: compare -o TABLE again, run -o PLACEMENT again" \
    '$PLACELAB compare g2.json -c k80x4 --methods expert -o t.json -q >/dev/null 2>&1 && grep -q "\"expert\"" t.json &&
     $PLACELAB run -a expert g2.json -c k80x4 -o keep.json -q >/dev/null 2>&1 && ! cmp -s keep.json keep.orig'

# an output that is standard output's file: it alone goes there, and what
# the command prints goes to standard error
$PLACELAB run -a heft g2.json -c k80x4 -o /dev/stdout >so.json 2>se; rc=$?
check "run -o /dev/stdout > file: the file holds the placement, the summary on stderr" \
    'test $rc = 0 && $PLACELAB validate -g g2.json so.json >/dev/null && grep -q "^step time" se'
$PLACELAB run -a heft g2.json -c k80x4 --history /dev/stdout >sh.csv 2>se; rc=$?
check "run --history /dev/stdout > file: the file holds the history alone, the summary on stderr" \
    'test $rc = 0 && head -1 sh.csv | grep -q "^step," && ! grep -q "^step time" sh.csv && grep -q "^step time" se'
$PLACELAB run -a heft g2.json -c k80x4 -o same.json >same.json 2>se; rc=$?
check "run -o F > F: F holds the placement, the summary on stderr" \
    'test $rc = 0 && $PLACELAB validate -g g2.json same.json >/dev/null && grep -q "^step time" se'
$PLACELAB sim g2.json -c k80x4 --place round-robin --trace /dev/stdout >tr.json 2>se; rc=$?
check "sim --trace /dev/stdout > file: the file holds the trace, the text on stderr" \
    'test $rc = 0 && python3 -c "import json; assert \"ops\" in json.load(open(\"tr.json\"))" && grep -q "^makespan" se'
# >> appends: an output to /dev/stdout goes through the descriptor the
# shell opened, not a file put in place of the one it appends to
echo PRE > ap.csv
for i in 1 2; do
	$PLACELAB export g2.json -c k80x4 -a expert -o /dev/stdout --format csv >>ap.csv 2>se || echo "rc $?" >>se
done
check "export -o /dev/stdout >> file: the file keeps what it held and gets both tables" \
    'test "$(head -1 ap.csv)" = PRE && test "$(grep -c "^method," ap.csv)" = 2 && ! grep -q "rc " se'
# > as well: a shell group's file keeps what the group writes before and
# after (the output goes at the descriptor's offset, the file is never
# put in place of it)
{ echo HEADER; $PLACELAB export g2.json -c k80x4 -a heft -o - --format md 2>se; echo "rc=$?"; echo FOOTER; } >grp.txt
check "{ echo; export -o -; echo; } > file: the table between the group's lines" \
    'test "$(head -1 grp.txt)" = HEADER && grep -q "^| \*\*HEFT\*\*" grp.txt && grep -qx "rc=0" grp.txt && test "$(tail -1 grp.txt)" = FOOTER'
{ echo HEADER; $PLACELAB compare g2.json -c k80x4 --methods expert,heft --format csv -o /dev/stdout -q 2>se; echo FOOTER; } >grp2.txt
check "{ echo; compare -o /dev/stdout; echo; } > file: the table between the group's lines" \
    'test "$(head -1 grp2.txt)" = HEADER && grep -q "^heft," grp2.txt && test "$(tail -1 grp2.txt)" = FOOTER'
{ echo HEADER; $PLACELAB train placeto g2.json -c k80x4 --episodes 2 -o gpol.plw --curve - 2>se; echo FOOTER; } >grp3.txt
check "{ echo; train --curve -; echo; } > file: the curve between the group's lines" \
    'test "$(head -1 grp3.txt)" = HEADER && test "$(sed -n 2p grp3.txt | cut -d, -f1)" = episode && test "$(tail -1 grp3.txt)" = FOOTER'
{ $PLACELAB sim g2.json -c k80x4 --place round-robin --json; $PLACELAB export g2.json -c k80x4 -a heft,expert -o - --format md; } >mix.txt 2>se; rc=$?
check "{ sim --json; export -o -; } > file: written after the result, no kind clash" \
    'test $rc = 0 && grep -q placelab-result mix.txt && grep -q "^| human expert" mix.txt && ! grep -q "holds a simulation result" se'
# "-" names standard output for every output option: through a pipe, and
# no file called "-" is made
$PLACELAB run -a heft g2.json -c k80x4 -o - 2>se | cat >dash.json
check "run -o - | cat: the placement through the pipe, the summary on stderr, no file -" \
    '$PLACELAB validate -g g2.json dash.json >/dev/null && grep -q "^step time" se && ! test -e ./-'
$PLACELAB train placeto g2.json -c k80x4 --episodes 1 -o dpol.plw --curve - 2>se | cat >dcurve.csv
check "train --curve - | cat: the curve through the pipe, no file -" \
    'head -1 dcurve.csv | grep -q "^episode," && test -s dpol.plw && ! test -e ./-'
# a policy to a pipe goes once, at the end: no checkpoint (every 30 s)
# follows another there, and an existing --curve is replaced only then,
# with the policy
printf 'old curve\n' > pcurve.csv
{ $PLACELAB train placeto g2.json -c k80x4 --episodes 10000000 --seconds 38 -q -o - \
    --curve pcurve.csv 2>se | cat >dpipe.plw; } &
bg=$!
# training's clock starts as the new curve's temporary file is made:
# then past its first checkpoint (30 s), before its end (38 s)
i=0
while [ $i -lt 600 ] && ! ls pcurve.csv.tmp.* >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
sleep 33
mid=$(cat pcurve.csv)
wait $bg
check "train -o - | cat for longer than a checkpoint: one policy, valid" \
    '$PLACELAB validate dpipe.plw >/dev/null 2>&1 && ! test -e ./-'
check "train -o - --curve OLD: OLD as it was past a checkpoint (no policy saved there)" \
    'test "$mid" = "old curve"'
check "... and the new curve once the policy is written, at the end" \
    'head -1 pcurve.csv | grep -q "^episode,graph," && ! ls | grep -q "pcurve.csv.tmp"'
$PLACELAB sim g2.json -c k80x4 --place round-robin --trace - 2>se | cat >dtr.json
check "sim --trace - | cat: the trace through the pipe, the text on stderr, no file -" \
    'python3 -c "import json; assert \"ops\" in json.load(open(\"dtr.json\"))" && grep -q "^makespan" se && ! test -e ./-'
$PLACELAB export g2.json -c k80x4 -a heft -o - --format svg 2>se | cat >d.svg
check "export -o - --format svg: the drawing through the pipe, no file -" \
    'grep -q "</svg>" d.svg && ! test -e ./-'
$PLACELAB export g2.json -c k80x4 -a heft -o - >/dev/null 2>se; rc=$?
check "export -o - without --format: refused, asking for --format" \
    'test $rc = 2 && grep -q "standard output has no suffix.*--format" se && ! test -e ./-'
$PLACELAB gen family nmt --count 1 -o - >/dev/null 2>se; rc=$?
check "gen family -o -: refused (a family is a directory), no directory -" \
    'test $rc = 2 && grep -q "a family is a directory of files (expected -o DIR)" se && ! test -e ./-'
$PLACELAB gen family enas-cnn --count 2 --seed 9007199254740992 -g layer -o famseed >/dev/null 2>se; rc=$?
check "gen family: a last member's seed past the largest is refused, nothing written" \
    'test $rc = 2 && grep -q "expected --seed at most 9007199254740991" se && ! test -e famseed'
for name in resnet50 nosuch; do
	$PLACELAB gen family $name -o "fam-$name" >/dev/null 2>se; rc=$?
	check "gen family $name (not a family): refused, no directory made" \
	    'test $rc = 2 && grep -q "no family .$name. (expected enas-cnn, enas-rnn or nmt)" se && ! test -e "fam-$name"'
done
mkdir famkeep && : > famkeep/nmt-01.json && echo '{"format": "placelab-placement/1"}' > famkeep/nmt-01.json
$PLACELAB gen family nmt --count 3 -o famnew/ >/dev/null 2>&1
$PLACELAB gen family nmt --count 3 -o famkeep >/dev/null 2>se; rc=$?
check "gen family into a folder holding a placement: refused, the folder kept" \
    'test $rc = 2 && test -d famkeep && test -s famkeep/nmt-01.json && test "$(ls famnew | wc -l)" = 3'
$PLACELAB compare g2.json -c k80x4 --methods expert,heft --format csv -o - -q 2>se | cat >dcmp.csv
check "compare -o -: the table on standard output, no file -" \
    'test "$(grep -c "^expert,\|^heft," dcmp.csv)" = 2 && ! test -e ./-'
# appending to a log that holds another placelab document replaces
# nothing, so it is no kind clash
$PLACELAB sim g2.json -c k80x4 --place round-robin --json >log.json 2>/dev/null
$PLACELAB run -a heft g2.json -c k80x4 -o - -q >>log.json 2>se; rc=$?
check "run -o - >> a file holding a result: appended, not refused" \
    'test $rc = 0 && grep -q placelab-result log.json && grep -q placelab-placement log.json'
# a write to "-" that fails names standard output, as the user wrote it
$PLACELAB run -a heft g2.json -c k80x4 -o - -q >/dev/full 2>se; rc=$?
check "run -o - > /dev/full: 'standard output: write failed', exit 2" \
    'test $rc = 2 && grep -qF "placelab: standard output: write failed: No space left on device" se && ! grep -q /dev/stdout se'
$PLACELAB run -a brkga g2.json -c k80x4 --evals 200 -q --history - >/dev/full 2>se; rc=$?
check "run --history - > /dev/full: standard output named" \
    'test $rc = 2 && grep -qF "standard output: write failed" se && ! grep -q /dev/stdout se'
$PLACELAB train placeto g.json -c k80x4 --episodes 2 -o full2.plw --curve - >/dev/full 2>se; rc=$?
check "train --curve - > /dev/full: standard output named" \
    'test $rc = 2 && grep -qF -- "--curve standard output: write failed" se && ! grep -q /dev/stdout se'
$PLACELAB export g2.json -c k80x4 -a heft --format dot -o - >/dev/full 2>se; rc=$?
check "export -o - > /dev/full: standard output named" \
    'test $rc = 2 && grep -qF "standard output: write failed" se && ! grep -q /dev/stdout se'
# a chain of symbolic links to a file not made yet makes that file, the
# links left as links; links that loop are refused, nothing replaced
mkdir saves && ln -s saves/best.json current.json && ln -s current.json latest.json
$PLACELAB gen chain -o latest.json >/dev/null 2>err; rc=$?
check "gen -o LINK -> LINK -> missing: the last target made, the links stay" \
    'test $rc = 0 && test -L latest.json && test -L current.json && grep -q placelab-graph saves/best.json'
ln -s loopb loopa && ln -s loopa loopb
$PLACELAB gen chain -o loopa >/dev/null 2>err; rc=$?
check "gen -o a link loop: refused as the shell's > is, the links kept" \
    'test $rc = 2 && grep -qF "loopa: cannot write to it: Too many levels of symbolic links" err &&
     test -L loopa && test -L loopb'
# a dangling link and the file it would make are one output
mkdir realdir && ln -s realdir/new.json dang.json
$PLACELAB run -a heft g2.json -c k80x4 -q -o dang.json --history realdir/new.json >/dev/null 2>err; rc=$?
check "run -o DANGLING-LINK --history ITS-TARGET: refused before any work" \
    'test $rc = 2 && grep -qF -- "--history realdir/new.json: the same file as -o dang.json" err &&
     ! test -e realdir/new.json'
# a message names the output as given, and a link's target
ln -s nodir2/new.json dang2.json
$PLACELAB run -a heft g2.json -c k80x4 -q -o dang2.json >/dev/null 2>err; rc=$?
check "-o a link into a missing folder: the link named, then its target" \
    'test $rc = 2 && grep -qF -- "-o dang2.json (a link to nodir2/new.json): cannot create it: the folder nodir2 does not exist" err'
# a name as long as a folder takes is written (its temporary file's name
# is shortened to fit)
long=$(printf '%0250d' 0).json
$PLACELAB gen chain -o "$long" >/dev/null 2>err; rc=$?
check "gen -o a 255-byte name: written, no temporary file left" \
    'test $rc = 0 && grep -q placelab-graph "$long" && ! ls 0*.tmp.* >/dev/null 2>&1'
# a signal during a write leaves no temporary file, the old file as it was
# (gen catches no signal: fileio does while it holds the file)
echo old > big.json
$PLACELAB gen nmt -L 24 -T 200 -o big.json >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 1200 ] && ! ls big.json.tmp.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid 2>/dev/null
wait $pid; rc=$?
check "gen -o OLD killed by SIGTERM while writing: 143, OLD as it was, no temporary file" \
    'test $i -lt 1200 && test $rc = 143 && test "$(cat big.json)" = old && ! ls big.json.tmp.* >/dev/null 2>&1'
# a second SIGTERM ends a command that stops on the first one at once,
# with no temporary file left (train's curve is one until the end)
$PLACELAB gen nmt -L 2 -T 12 -o slow.json >/dev/null 2>&1
printf 'old curve\n' > cur2.csv
$PLACELAB train placeto slow.json -c k80x4 --episodes 100 --workers 1 --threads 1 --groups 0 \
    -o slow.plw --curve cur2.csv >/dev/null 2>err &
pid=$!
i=0
while [ $i -lt 1200 ] && ! ls cur2.csv.tmp.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid 2>/dev/null
j=0
while [ $j -lt 200 ] && kill -0 $pid 2>/dev/null && ! grep -q "stopping after this step" err; do sleep 0.05; j=$((j + 1)); done
kill -TERM $pid 2>/dev/null
wait $pid; rc=$?
check "train --curve OLD, SIGTERM twice: 143, OLD as it was, no temporary file" \
    'test $i -lt 1200 && test $rc = 143 && test "$(cat cur2.csv)" = "old curve" && ! ls cur2.csv.tmp.* >/dev/null 2>&1 &&
     ! test -e slow.plw'
exit $fail
