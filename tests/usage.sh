#!/bin/sh
# usage — how the commands answer mistakes in their arguments: an unknown
# option named with the command, an option given without its value, an
# empty or mismatched method list, a bad method option found before any
# method runs; and that --mem none claims nothing about memory.  Prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=..}"
. "$PL_SRCDIR/tests/tap-check.sh"

echo "1..62"
G="$PL_SRCDIR/samples/teach.json"
$PLACELAB run -a heft "$G" --evals 5 >/dev/null 2>"$T/err"; rc=$?
check "an unknown option: exit 2, named with the command" \
    'test $rc = 2 && grep -q "^placelab run: unrecognized option .--evals." "$T/err"'
$PLACELAB sim "$G" --trace >/dev/null 2>"$T/err"; rc=$?
check "an option without its argument: exit 2, named" \
    'test $rc = 2 && grep -q "^placelab sim: option .--trace. requires an argument" "$T/err"'
$PLACELAB run -a brkga "$G" --opt evals >/dev/null 2>"$T/err"; rc=$?
check "--opt KEY without a value: exit 2, the value asked for" \
    'test $rc = 2 && grep -q "option .evals. needs a value (evals=N)" "$T/err"'
$PLACELAB run -a brkga "$G" --opt seed-from=heft,expert --evals 200 -q >/dev/null 2>"$T/err"; rc=$?
check "a list value still continues over commas" 'test $rc = 0'
$PLACELAB compare "$G" --methods "" >/dev/null 2>"$T/err"; rc=$?
check "--methods empty: exit 2, not the default set" \
    'test $rc = 2 && grep -q "no method named" "$T/err"'
$PLACELAB compare "$G" --methods brkga --opt brkga:evals=abc >"$T/out" 2>"$T/err"; rc=$?
check "compare with a bad method option: exit 2 before any method runs" \
    'test $rc = 2 && grep -q "brkga: option .evals.: .abc. is not an integer" "$T/err" && ! test -s "$T/out"'
$PLACELAB compare "$G" --methods brkga --opt brkga:evals=200,pop=20 --opt brkga: --format csv -q >"$T/out" 2>"$T/err"; rc=$?
check "compare --opt brkga:... --opt brkga: (empty): adds nothing, no empty-item error" \
    'test $rc = 0 && grep -q "^brkga,.*,200," "$T/out" && ! test -s "$T/err"'
$PLACELAB compare "$G" --methods heft --opt brkga:evals=100 >/dev/null 2>"$T/err"; rc=$?
check "--opt for a method not compared: exit 2" \
    'test $rc = 2 && grep -q "not among the methods compared" "$T/err"'
$PLACELAB run -a heft "$G" --mem none >"$T/out" 2>&1
check "run --mem none: memory not modelled, no peaks claimed" \
    'grep -q "^memory *not modelled" "$T/out" && ! grep -q "fits" "$T/out" && grep -q "peak *- /" "$T/out"'
$PLACELAB run -a heft "$G" -o "$T/p.json" -q >/dev/null 2>&1
$PLACELAB sim "$G" -p "$T/p.json" --mem none >"$T/out" 2>&1
check "sim --mem none: no peak figures" \
    'grep -q "memory model none" "$T/out" && ! grep -q "^/gpu:0 .* 0 B  *12.0 GiB" "$T/out"'
$PLACELAB export "$G" -c k80x4 -a '' -o "$T/t.md" >/dev/null 2>"$T/err"; rc=$?
check "export -a empty: exit 2, the flag it came with named" \
    'test $rc = 2 && grep -q "^placelab: -a: no method named" "$T/err"'
$PLACELAB export "$G" -c k80x4 -a heft --format png -o "$T/f.MD" >/dev/null 2>"$T/err"; rc=$?
check "a table suffix in capitals still names a table: --format png refused" \
    'test $rc = 2 && ! test -e "$T/f.MD"'
# Numeric method options are range-checked, like BRKGA's rho.
bad=""
for o in "lr -1" "lr 1e10" "entropy -1" "clip 0" "clip -1" "mem-penalty -1" "max-mem -1" \
    "mem-cap -1" "episodes -1" "peers -1" "baseline 0"; do
	# shellcheck disable=SC2086
	set -- $o
	$PLACELAB run -a placeto "$G" -c k80x2 --$1 $2 --episodes 1 -q >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "placeto: option '$1': $2 is not in [[(]" "$T/err" || bad="$bad --$1 $2"
done
check "placeto options out of range: exit 2, the range named (bad:$bad)" 'test -z "$bad"'
$PLACELAB run -a random "$G" --samples 0 >/dev/null 2>"$T/err"; rc=$?
check "random --samples 0: exit 2, the range named" \
    'test $rc = 2 && grep -q "random: option .samples.: 0 is not in \[1, inf)" "$T/err"'
$PLACELAB compare "$G" --methods mincut --opt mincut:ufactor=0 >"$T/out" 2>"$T/err"; rc=$?
check "compare --opt mincut:ufactor=0: exit 2 before any work, the range named" \
    'test $rc = 2 && grep -q "mincut: option .ufactor.: 0 is not in \[1, 10000\]" "$T/err" && ! test -s "$T/out"'
$PLACELAB compare "$G" -c k80x2 --methods heft,brkga --opt brkga:rho=5 >"$T/out" 2>"$T/err"; rc=$?
check "compare with an option value out of range: exit 2, no table" \
    'test $rc = 2 && grep -q "option .rho.: 5 is not in \[0.5, 1\]" "$T/err" && ! test -s "$T/out"'
$PLACELAB compare "$G" -c k80x2 --methods heft,placeto --opt placeto:init=foo >"$T/out" 2>"$T/err"; rc=$?
check "compare with a method that cannot start: exit 2 before any method runs" \
    'test $rc = 2 && grep -q "placeto: option .init.: unknown value .foo." "$T/err" && ! test -s "$T/out"'
# A policy file fixes the network's shape (k, pool, mp): an explicit
# option that contradicts it is refused; the values used are reported.
POL="$PL_SRCDIR/samples/policies/nmt.plw"
$PLACELAB run -a placeto "$G" -c k80x4 --policy "$POL" --k 3 -q >/dev/null 2>"$T/err"; rc=$?
check "--policy with a contradicting --k: exit 2, both values named" \
    'test $rc = 2 && grep -q "option .k.: 3 contradicts the policy .*trained with k=8" "$T/err"'
$PLACELAB compare "$G" -c k80x4 --methods heft,placeto --opt placeto:policy="$POL",pool=sum >"$T/out" 2>"$T/err"; rc=$?
check "compare with a policy and a contradicting pool: exit 2 before any method runs" \
    'test $rc = 2 && grep -q "option .pool.: sum contradicts" "$T/err" && ! test -s "$T/out"'
$PLACELAB run -a placeto "$G" -c k80x4 --policy "$POL" --k 8 --json -q >"$T/r.json" 2>"$T/err"; rc=$?
check "--policy: an agreeing option runs; JSON reports the policy's k, pool and mp" \
    'test $rc = 0 && test "$(jq -c ".options | [.k, .pool, .mp]" "$T/r.json")" = "[8,\"mean\",\"mean\"]"'
# train: progress only on a terminal (stderr here is a file), as run
# and compare; no episodes to train is refused, not reported as inf ms.
$PLACELAB train placeto "$G" -c k80x2 -o "$T/p.plw" --episodes 4 >"$T/out" 2>"$T/err"; rc=$?
check "train without a terminal: results on stdout, nothing on stderr" \
    'test $rc = 0 && grep -q "^trained *4 episodes" "$T/out" && ! test -s "$T/err"'
$PLACELAB train placeto "$G" -c k80x2 -o "$T/p5.plw" --episodes 5 --workers 4 --curve "$T/c5.csv" >"$T/out" 2>"$T/err"; rc=$?
check "train --episodes 5 --workers 4: exactly 5 episodes (the last batch is short)" \
    'test $rc = 0 && grep -q "^trained *5 episodes (2 updates" "$T/out" && test "$(wc -l < "$T/c5.csv")" = 6'
$PLACELAB train placeto "$G" -c k80x2 -o "$T/ps.plw" --episodes 100000 --seconds 0.5 >"$T/out" 2>"$T/err"; rc=$?
trained=$(sed -n 's/^trained *\([0-9]*\) episodes.*/\1/p' "$T/out")
check "train stopped by --seconds: the policy's header gives the episodes trained, of the budget" \
    'test $rc = 0 && test -n "$trained" && tr -c "[:print:]" "\n" < "$T/ps.plw" | grep -q " episodes=$trained of 100000 seed="'
check "train run to its budget: the header gives the episodes alone" \
    'tr -c "[:print:]" "\n" < "$T/p5.plw" | grep -q " episodes=5 seed="'
$PLACELAB train --help >"$T/out" 2>&1
check "train --help: the MDP's sim option is shown as --opt sim=, not as the run's --sim" \
    'grep -q "^  --opt sim= " "$T/out" && ! grep -q "^  --sim " "$T/out"'
$PLACELAB run --list >"$T/out" 2>&1
$PLACELAB run -a placeto --help >"$T/out2" 2>&1
check "run --list and run -a placeto --help: Placeto's sim option (which takes 'run', unlike the run's --sim) is shown as --opt sim=" \
    'grep -q "^  --opt sim= .*simulator of the MDP" "$T/out" && grep -q "^  --opt sim= .*simulator of the MDP" "$T/out2" && ! grep -q "^  --sim .*simulator of the MDP" "$T/out" "$T/out2"'
# numbers read one way everywhere: decimal, finite, tiny values kept
$PLACELAB run -a heft "$G" --seconds 0x10 -q >"$T/out" 2>"$T/err"; rc=$?
check "--seconds 0x10 (hex): exit 2, a number asked for" \
    'test $rc = 2 && grep -q "seconds .0x10.: expected a number in" "$T/err"'
$PLACELAB run -a brkga "$G" --opt rho=0x0.8p0 -q >"$T/out" 2>"$T/err"; rc=$?
check "an option written in hex: exit 2, not a number" \
    'test $rc = 2 && grep -q "option .rho.: .0x0.8p0. is not a number" "$T/err"'
$PLACELAB run -a brkga "$G" --opt "pop= 20" -q >"$T/out" 2>"$T/err"; rc=$?
check "an integer option with a space: exit 2, as a number option is" \
    'test $rc = 2 && grep -q "option .pop.: . 20. is not an integer" "$T/err"'
$PLACELAB run -a heft "$G" --seconds 1e-310 -q -o "$T/tiny.json" >"$T/out" 2>"$T/err"; rc=$?
check "--seconds 1e-310: read as a (tiny) time, and the first step still runs" \
    'test $rc = 0 && test -s "$T/tiny.json" && ! test -s "$T/err"'
$PLACELAB train placeto "$G" "$G" -c k80x2 --episodes 2 --workers 2 --baseline 1 -o "$T/b1.plw" >"$T/out" 2>"$T/err"; rc=$?
check "placeto --baseline 1 (the episode's own return: nothing learnt): exit 2, the range said" \
    'test $rc = 2 && grep -q "option .baseline.: 1 is not in \[2, inf)" "$T/err" && ! test -e "$T/b1.plw"'
# an option the run would not use is refused, not ignored
$PLACELAB train placeto "$G" -c k80x2 -o "$T/pf.plw" --episodes 2 --finetune 5 >"$T/out" 2>"$T/err"; rc=$?
check "train --finetune: exit 2, said (training runs --episodes), no policy written" \
    'test $rc = 2 && grep -q "option .finetune. is for a run with a policy" "$T/err" && ! test -e "$T/pf.plw"'
$PLACELAB run -a placeto "$G" -c k80x2 --finetune 5 -q >"$T/out" 2>"$T/err"; rc=$?
check "run -a placeto --finetune without --policy: exit 2, policy asked for" \
    'test $rc = 2 && grep -q "option .finetune. trains a loaded policy: it needs .policy." "$T/err"'
$PLACELAB run -a placeto "$G" -c k80x2 --policy "$T/p.plw" --episodes 5 -q >"$T/out" 2>"$T/err"; rc=$?
check "run -a placeto --policy with --episodes: exit 2, --finetune named" \
    'test $rc = 2 && grep -q "with .policy., .finetune. sets the episodes" "$T/err"'
$PLACELAB train placeto "$G" -c k80x2 -o "$T/p0.plw" --episodes 0 >"$T/out" 2>"$T/err"; rc=$?
check "train --episodes 0: exit 2, said, no policy written" \
    'test $rc = 2 && grep -q "episodes 0: nothing to train" "$T/err" && ! test -e "$T/p0.plw" && ! grep -q inf "$T/out"'
# Output flags that contradict each other or do not apply are refused
# before any work, and nothing is written.
$PLACELAB compare "$G" --methods heft -o "$T/o.tex" --format md >/dev/null 2>"$T/err"; rc=$?
check "compare -o FILE.tex --format md: exit 2, both named, no file" \
    'test $rc = 2 && grep -q "format md, but -o .*o.tex names tex" "$T/err" && ! test -e "$T/o.tex"'
$PLACELAB compare "$G" --methods heft -o "$T/o.xyz" >/dev/null 2>"$T/err"; rc=$?
check "compare -o FILE.xyz without --format: exit 2, no file" \
    'test $rc = 2 && grep -q "cannot tell the format of -o .*o.xyz" "$T/err" && ! test -e "$T/o.xyz"'
$PLACELAB compare "$G" --methods heft -o "$T/o" && $PLACELAB compare "$G" --methods heft -o "$T/o.txt" --format table
check "compare -o FILE without a suffix or .txt: the text table" \
    'sed -n 2p "$T/o" | grep -q "^method  *step time" && sed -n 2p "$T/o.txt" | grep -q "^method  *step time"'
$PLACELAB export "$G" -c k80x4 -a heft --timeline -o "$T/t.md" >/dev/null 2>"$T/err"; rc=$?
check "export --timeline -o FILE.md: exit 2 (a table has no timeline), no file" \
    'test $rc = 2 && grep -q "timeline does not apply to a table" "$T/err" && ! test -e "$T/t.md"'
bad=""
for a in "--timeline --level 2 -o $T/t.svg" "--timeline --max-nodes 9 -o $T/t.svg" \
    "--width 5 -o $T/t.svg" "--dpi 300 -o $T/t.svg" "--level 1 -o $T/t.csv" "--title x -o $T/t.csv"; do
	# shellcheck disable=SC2086
	$PLACELAB export "$G" -c k80x4 -a heft $a >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "does not apply to\|applies to PNG only" "$T/err" && ! test -e "$T/t.svg" && \
	    ! test -e "$T/t.csv" || bad="$bad [$a]"
done
check "export flags that do not apply to the output: exit 2, said (bad:$bad)" 'test -z "$bad"'
$PLACELAB export "$G" -c k80x4 -a heft --timeline --width 5 --title x -o "$T/t.svg" >/dev/null 2>"$T/err"; rc=$?
check "export flags that apply are taken (--timeline --width --title)" 'test $rc = 0 && test -s "$T/t.svg"'
# One rule for seeds in every command: a whole number in [0, 2^53].
bad=""
for c in "run -a random $G" "compare $G --methods random" "train placeto $G -o $T/s.plw" \
    "export $G -a random -o $T/s.svg" "gen nmt" "explore $G"; do
	for s in -1 1.5 abc 9007199254740993 ""; do
		# shellcheck disable=SC2086
		$PLACELAB $c --seed "$s" >/dev/null 2>"$T/err" </dev/null
		rc=$?
		test $rc = 2 && grep -q "^placelab: --seed '$s': expected a whole number in \[0, 9007199254740992\]" "$T/err" ||
		    bad="$bad [$c --seed '$s' -> $rc]"
	done
done
check "--seed: a whole number in [0, 2^53] in every command, else exit 2 (bad:$bad)" 'test -z "$bad"'
bad=""
for s in random:-1 random:x random: random:9007199254740993; do
	$PLACELAB sim "$G" --place "$s" >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "expected random:SEED with a whole number" "$T/err" || bad="$bad [$s -> $rc]"
done
$PLACELAB sim "$G" --place random:9007199254740992 >/dev/null 2>&1 || bad="$bad [2^53 refused]"
check "sim --place random:SEED takes the same seeds (bad:$bad)" 'test -z "$bad"'
# Whole-number flags take whole values only; number flags take the whole text.
bad=""
for a in "run -a random $G --threads 1.5" "compare $G --methods random --steps 1e-3" \
    "train placeto $G -o $T/s.plw --threads -1" "explore $G --threads x" "run -a random $G --steps ''"; do
	# shellcheck disable=SC2086
	eval "\$PLACELAB $a" >/dev/null 2>"$T/err" </dev/null
	rc=$?
	test $rc = 2 && grep -q "^placelab: --[a-z]* '.*': expected a whole number in \[" "$T/err" || bad="$bad [$a -> $rc]"
done
check "--threads, --steps: whole numbers only, else exit 2 (bad:$bad)" 'test -z "$bad"'
bad=""
for a in "--width 5in --timeline -o $T/w.svg" "--dpi 300x -o $T/w.png" "--seconds 2s -o $T/w.svg" "--sim foo -o $T/w.svg"; do
	# shellcheck disable=SC2086
	$PLACELAB export "$G" -a random $a >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "^placelab: --[a-z]* '[^']*': expected " "$T/err" && ! test -e "$T/w.svg" &&
	    ! test -e "$T/w.png" || bad="$bad [$a -> $rc]"
done
check "export --width, --dpi, --seconds, --sim: the whole value or exit 2 (bad:$bad)" 'test -z "$bad"'
# One grammar for numbers on the command line and in method options,
# JSON's (as in the files): 5, -1.5, 2e9; a whole-number flag or option
# takes any such number with a whole value (5e3), nothing else.
bad=""
for a in "-a brkga --evals 5e3" "-a brkga --opt evals=1E3" "-a brkga --pop 1e2" "-a brkga --elite 2e-1" \
    "-a brkga --steps 1e1" "-a random --seed 1e3" "-a heft --seconds 1e0" "-a brkga --pop 2.0e1"; do
	# shellcheck disable=SC2086
	$PLACELAB run $a "$G" --steps 1 -q >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 0 && ! test -s "$T/err" || bad="$bad [$a -> $rc]"
done
check "exponent forms in whole-number flags and options are taken (bad:$bad)" 'test -z "$bad"'
$PLACELAB run -a brkga "$G" --evals 5e3 --pop 2.0e1 --elite 2e-1 --seed 1e3 --steps 2e0 -q --json >"$T/r.json" 2>"$T/err"
check "run --evals 5e3 --pop 2.0e1 --seed 1e3 --steps 2e0: read as 5000, 20, 1000 and 2" \
    'test "$(jq -c "[.options.evals, .options.pop, .options.elite, .seed, .steps]" "$T/r.json")" = "[5000,20,0.2,1000,2]"'
$PLACELAB compare "$G" --methods brkga --opt brkga:evals=2e2,pop=2E1 --format csv -q >"$T/out" 2>"$T/err"; rc=$?
check "compare --opt brkga:evals=2e2: read as 200" 'test $rc = 0 && grep -q "^brkga,.*,200," "$T/out"'
$PLACELAB sim "$G" --place random:1e3 >"$T/a" 2>&1 && $PLACELAB sim "$G" --place random:1000 >"$T/b" 2>&1
check "sim --place random:1e3: the placement of random:1000" 'cmp -s "$T/a" "$T/b"'
bad=""
for a in "--evals +500" "--evals 0100" "--evals 1.5" "--evals 1e400" "--opt evals=+500" "--opt evals=5.0e-1" \
    "--pop 0100" "--pop 1e-1" "--pop -0100"; do
	# shellcheck disable=SC2086
	$PLACELAB run -a brkga "$G" $a -q >/dev/null 2>"$T/err"
	rc=$?
	v=${a##*[ =]}
	test $rc = 2 && grep -q "^placelab: brkga: option '[a-z]*': '$v' is not an integer$" "$T/err" ||
	    bad="$bad [$a -> $rc]"
done
check "integer options: no '+', leading zeros or fractions, exit 2, the value quoted (bad:$bad)" 'test -z "$bad"'
$PLACELAB run -a brkga "$G" --evals 1e20 -q >/dev/null 2>"$T/err"; rc=$?
check "--evals 1e20: exit 2, too large, the range said" \
    'test $rc = 2 && grep -q "option .evals.: 1e20 is too large (expected an integer in \[0, 2147483647\])" "$T/err"'
bad=""
for a in "--elite .2" "--elite +0.2" "--elite 1." "--opt elite=00.2" "--opt rho=-.8" "--elite 0.2e" "--elite 1e+"; do
	# shellcheck disable=SC2086
	$PLACELAB run -a brkga "$G" $a -q >/dev/null 2>"$T/err"
	rc=$?
	v=${a##*[ =]}
	test $rc = 2 && grep -q "^placelab: brkga: option '[a-z]*': '$v' is not a number$" "$T/err" ||
	    bad="$bad [$a -> $rc]"
done
check "number options: no '+', '.5', '1.' or leading zeros, exit 2, the value quoted (bad:$bad)" 'test -z "$bad"'
bad=""
for a in "--steps +500" "--steps 05" "--steps 1e400" "--steps 2.5e0" "--threads 01" "--threads +1" \
    "--seed 05" "--seed +5" "--seed 1e400" "--seed 1.5e0" "--seed 9.007199254740993e15"; do
	# shellcheck disable=SC2086
	$PLACELAB run -a random "$G" $a -q >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "^placelab: --[a-z]* '${a#* }': expected a whole number in \[" "$T/err" ||
	    bad="$bad [$a -> $rc]"
done
check "--steps, --threads, --seed: no '+', leading zeros or fractions, exit 2 (bad:$bad)" 'test -z "$bad"'
bad=""
for s in random:05 random:+5 random:1.5 random:1e400 random:1e16; do
	$PLACELAB sim "$G" --place "$s" >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "^placelab: --place '$s': expected random:SEED with a whole number" "$T/err" ||
	    bad="$bad [$s -> $rc]"
done
check "sim --place random:SEED: no '+', leading zeros or fractions, exit 2 (bad:$bad)" 'test -z "$bad"'
bad=""
for s in .5 +1 1. 01 -.5 1e; do
	$PLACELAB run -a heft "$G" --seconds "$s" -q >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "^placelab: --seconds '$s': expected a number in \[0, 1e+09\]" "$T/err" ||
	    bad="$bad [$s -> $rc]"
done
check "--seconds: no '+', '.5', '1.' or leading zeros, exit 2 (bad:$bad)" 'test -z "$bad"'
# gen's sizes and --place all:INDEX read numbers the same way
bad=""
$PLACELAB gen transformer --layers 1e0 > "$T/l1e0.json" 2>"$T/err" && $PLACELAB gen transformer --layers 1 > "$T/l1.json" &&
    cmp -s "$T/l1e0.json" "$T/l1.json" || bad="$bad [1e0]"
for s in +1 01 1.5 " 1"; do
	$PLACELAB gen transformer --layers "$s" >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "^placelab: gen: --layers (-L) '$s' (expected a whole number up to 2^30)" "$T/err" ||
	    bad="$bad [$s -> $rc]"
done
check "gen --layers: 1e0 is 1; no '+', leading zeros, fractions or spaces, exit 2 (bad:$bad)" 'test -z "$bad"'
bad=""
a=$($PLACELAB sim "$G" --place all:1e0 --json 2>/dev/null | jq -r .makespan_us) b=$($PLACELAB sim "$G" --place all:1 --json 2>/dev/null | jq -r .makespan_us)
test -n "$a" && test "$a" = "$b" || bad="$bad [1e0: $a vs $b]"
for s in +1 01 " 1"; do
	$PLACELAB sim "$G" --place "all:$s" >/dev/null 2>"$T/err"
	rc=$?
	test $rc = 2 && grep -q "no device '$s' in cluster" "$T/err" || bad="$bad [$s -> $rc]"
done
check "sim --place all:INDEX: 1e0 is 1; '+1', '01', ' 1' are no device, exit 2 (bad:$bad)" 'test -z "$bad"'
$PLACELAB "$G" "$PL_SRCDIR/samples/heft.json" >/dev/null 2>"$T/err" </dev/null; rc=$?
check "two graphs for the explorer: exit 2, the reason after the usage" \
    'test $rc = 2 && tail -1 "$T/err" | grep -q "^placelab: one GRAPH at a time (.*teach.json. and .*heft.json. given"'
# a graph name with quotes and a comma is one quoted CSV field of the
# curve; a graph the cluster cannot run is named once; "1 graph"
python3 -c "import json; g = json.load(open('$G')); g['name'] = 'my \"net\", v2'; json.dump(g, open('$T/q.json', 'w'))"
$PLACELAB train placeto "$T/q.json" -c k80x2 -o "$T/q.plw" --episodes 2 --curve "$T/q.csv" >"$T/out" 2>"$T/err"; rc=$?
check "train --curve: a graph name with quotes and a comma is one CSV field" \
    'test $rc = 0 && python3 -c "import csv, sys; r = list(csv.DictReader(open(\"$T/q.csv\"))); sys.exit(0 if len(r) == 2 and all(x[\"graph_name\"] == \"my \\\"net\\\", v2\" and x[\"lr\"] for x in r) else 1)"'
check "train on one graph says '1 graph'" 'grep -q "^trained .* on 1 graph in" "$T/out"'
printf '{"format":"placelab-graph/1","ops":[{"name":"a","device":"tpu"}]}' > "$T/tpu.json"
$PLACELAB train placeto "$T/tpu.json" -c k80x2 -o "$T/t.plw" --episodes 2 >"$T/out" 2>"$T/err"; rc=$?
check "train: a graph the cluster cannot run, its file named once" \
    'test $rc = 2 && test "$(grep -o "tpu.json" "$T/err" | wc -l)" = 1'
python3 -c "import json; c = json.load(open('$PL_SRCDIR/samples/clusters/heft3.json'))
for d, n in zip(c['devices'], ['a,b', 'c\"d', 'e']): d['name'] = n
json.dump(c, open('$T/comma.json', 'w'))"
$PLACELAB run -a placeto "$G" -c "$T/comma.json" --episodes 2 --history "$T/h.csv" -q >/dev/null 2>"$T/err"; rc=$?
check "run -a placeto --history: device names with commas and quotes are one field each" \
    'test $rc = 0 && python3 -c "import csv, sys; r = list(csv.reader(open(\"$T/h.csv\"))); sys.exit(0 if len(r) > 2 and all(len(x) == 16 for x in r) and {x[7] for x in r[1:]} <= {\"a,b\", \"c\\\"d\", \"e\"} else 1)"'
exit $fail
