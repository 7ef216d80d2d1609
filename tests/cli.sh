#!/bin/sh
# cli — the program's foundation commands from the outside: exit codes,
# messages on stderr naming file and line, --help, --version, info --json.
# Prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=..}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else notok "$desc"; fi; }

echo "1..112"
check "--version names the program" sh -c "$PLACELAB --version | grep -q '^placelab [0-9]'"
check "--help lists info and validate" sh -c "$PLACELAB --help | grep -q 'info' && $PLACELAB --help | grep -q 'validate'"

cat > "$tmp/g.json" <<'JSON'
{"format": "placelab-graph/1", "name": "cli",
 "ops": [{"name": "a", "type": "MatMul", "flops": 2e9, "param_bytes": 4000000},
         {"name": "b", "type": "Relu", "flops": 1e6}],
 "edges": [["a", "b", 1000]]}
JSON
check "info prints the op count" sh -c "$PLACELAB info '$tmp/g.json' | grep -q '^ops *2$'"
check "info --json is JSON with the right figures" sh -c "$PLACELAB info '$tmp/g.json' --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"ops\"]==2 and d[\"edges\"]==1 and abs(d[\"gflops\"]-2.001)<1e-9 and abs(d[\"param_mb\"]-4)<1e-9'"
# An update op's param_bytes are the optimizer's slots, not parameters.
cat > "$tmp/u.json" <<'JSON'
{"format": "placelab-graph/1", "name": "cli-update",
 "ops": [{"name": "w", "type": "VariableV2", "param_bytes": 4000000},
         {"name": "w/update", "type": "ApplyAdam", "flops": 1e6, "param_bytes": 8000000}],
 "edges": [["w", "w/update", 1000]]}
JSON
check "info: parameters and optimizer state apart" sh -c "$PLACELAB info '$tmp/u.json' | grep -q '^params *4.00 MB' && $PLACELAB info '$tmp/u.json' | grep -q '^optimizer *8.00 MB' && $PLACELAB info '$tmp/u.json' --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert abs(d[\"param_mb\"]-4)<1e-9 and abs(d[\"optimizer_mb\"]-8)<1e-9'"
want=$(awk -F' [|] ' '$1 == "| nmt4.json" { print $7 }' "$PL_SRCDIR/docs/SAMPLES.md" | tr -d ' |')
got=$($PLACELAB info "$PL_SRCDIR/samples/nmt4.json" --json | python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["param_mb"])')
check "info's parameters for nmt4 are docs/SAMPLES.md's ($got, $want MB)" test -n "$want" -a "$got" = "$want"
check "info: labels, op type counts and device columns aligned (long names included)" sh -c "$PLACELAB info '$PL_SRCDIR/samples/nmt4.json' -c k80x4 | python3 -c '
import sys
L = sys.stdin.read().splitlines()
top = [l for l in L if not l.startswith(\" \")]
assert all(l[11] == \" \" and l[12] != \" \" for l in top), top
ty = [l.index(\" GFLOPs\") for l in L if l.startswith(\"  \") and l.endswith(\" GFLOPs\")]
dv = [l.index(\"TFLOP/s\") for l in L if \"TFLOP/s\" in l]
assert len(ty) == 12 and len(set(ty)) == 1 and len(dv) == 5 and len(set(dv)) == 1, (ty, dv)
'"
check "info -c shows the cluster's devices" sh -c "$PLACELAB info '$tmp/g.json' -c k80x4 | grep -q '/gpu:3'"
check "validate accepts a good graph" sh -c "$PLACELAB validate '$tmp/g.json' | grep -q ': ok'"
# a graph from a pipe is read once (JSON and DOT), as info reads it
check "validate reads a graph from a pipe, JSON and DOT" sh -c "cat '$tmp/g.json' | $PLACELAB validate /dev/stdin | grep -q ': ok (graph' && printf 'digraph p { a -> b; }' | $PLACELAB validate /dev/stdin | grep -q \"ok (graph 'p', 2 ops\""

printf '{"format": "placelab-graph/1",\n "ops": [{"name": "a"},\n  {"name": "a"}]}\n' > "$tmp/dup.json"
$PLACELAB validate "$tmp/dup.json" >/dev/null 2>"$tmp/err"; rc=$?
check "duplicate name: exit 2" test "$rc" = 2
check "duplicate name: file, line and op named" grep -q "dup.json:3:3: op 'a': duplicate name" "$tmp/err"

printf '{"format": "placelab-graph/1",\n "ops": [\n ]}\n' > "$tmp/noops.json"
$PLACELAB info "$tmp/noops.json" >/dev/null 2>"$tmp/err"; rc=$?
check "a graph without ops: exit 2, file, line and column of the empty array" \
    sh -c "test $rc = 2 && grep -q \"noops.json:2:9: 'ops' is empty (expected at least one op)\" '$tmp/err'"

python3 -c '
import json, sys
t = {"/gpu:%d" % i: 1.0 for i in range(65)}
t["gpu"] = 2.0
json.dump({"format": "placelab-graph/1", "ops": [{"name": "a", "measured_us": t}]}, open(sys.argv[1], "w"))
' "$tmp/t65.json"
$PLACELAB info "$tmp/t65.json" >/dev/null 2>"$tmp/err"; rc=$?
check "65 device names in measured_us: exit 2, the limit of 64 said with its position" \
    sh -c "test $rc = 2 && grep -q 't65.json:1:[0-9]*: op .a.: more than 64 device names in measured_us (expected at most 64' '$tmp/err'"

printf '{"format": "placelab-graph/1",\n "ops": [{"name": "a", "out_bytes": 0},\n   {"name": "b", "flops": 1}],\n "edges": [["a", "b", 400]]}\n' > "$tmp/ob.json"
$PLACELAB info "$tmp/ob.json" >/dev/null 2>"$tmp/err"; rc=$?
check "out_bytes below the op's output tensors: exit 2, at the op, the sum named (not raised silently)" \
    sh -c "test $rc = 2 && grep -q \"ob.json:2:10: op 'a': field 'out_bytes' is 0, less than its output tensors' 400 bytes\" '$tmp/err'"
printf 'digraph d { a [out_bytes=10]; a -> b [bytes=400]; }\n' > "$tmp/ob.dot"
check "... in a DOT file too" sh -c "! $PLACELAB info '$tmp/ob.dot' >/dev/null 2>'$tmp/err' && grep -q \"field 'out_bytes' is 10, less than its output tensors' 400 bytes\" '$tmp/err'"

$PLACELAB info /nonexistent.json >/dev/null 2>"$tmp/err"; rc=$?
check "missing file: exit 2 and the path named" sh -c "test $rc = 2 && grep -q '/nonexistent.json' '$tmp/err'"

$PLACELAB info "$tmp/g.json" -c nosuch >/dev/null 2>"$tmp/err"; rc=$?
check "unknown preset: exit 2 and presets listed" sh -c "test $rc = 2 && grep -q 'k80x4' '$tmp/err'"

$PLACELAB info >/dev/null 2>&1; rc=$?
check "bad usage: exit 2" test "$rc" = 2
$PLACELAB frobnicate >/dev/null 2>&1; rc=$?
check "unknown command: exit 2" test "$rc" = 2
$PLACELAB simm >/dev/null 2>"$tmp/err"; rc=$?
check "a mistyped command: exit 2, the command it is close to named" sh -c "test $rc = 2 && grep -q \"unknown command 'simm' (did you mean 'sim'?\" '$tmp/err'"
# options as getopt reads them: bundled and abbreviated forms of -a find
# the method (and its own options); a second method, an option for -a
# next to -p, and a generator option the model does not read are refused
check "run -qa heft: the method found in a bundle" sh -c "$PLACELAB run -qa heft '$tmp/g.json' | grep -q '^method *heft'"
check "run --alg brkga --pop 8: an abbreviation, with the method's options" sh -c "$PLACELAB run --alg brkga --pop 8 --evals 40 '$tmp/g.json' -q | grep -q '^method *brkga'"
$PLACELAB run -a heft -a brkga "$tmp/g.json" >/dev/null 2>"$tmp/err"; rc=$?
check "run -a twice: exit 2, compare suggested" sh -c "test $rc = 2 && grep -q \"run: -a heft and -a brkga: one method per run ('placelab compare --methods heft,brkga' runs both)\" '$tmp/err'"
$PLACELAB run --objective -abc -a brkga "$tmp/g.json" >/dev/null 2>"$tmp/err"; rc=$?
check "run --objective -abc -a brkga: the value is the option's, not a second -a" sh -c "test $rc = 2 && grep -q \"brkga: option 'objective': '-abc' is not\" '$tmp/err'"
$PLACELAB export "$tmp/g.json" -p "$tmp/none.json" -o "$tmp/x.svg" --seed 5 >/dev/null 2>"$tmp/err"; rc=$?
check "export -p with --seed: exit 2, the flag named" sh -c "test $rc = 2 && grep -q 'export: --seed applies to -a PLACER only' '$tmp/err' && ! test -e '$tmp/x.svg'"
$PLACELAB gen heft --layers 5 >/dev/null 2>"$tmp/err"; rc=$?
check "gen heft --layers: exit 2, not ignored" sh -c "test $rc = 2 && grep -q 'heft: --layers does not apply (heft takes no options)' '$tmp/err'"
$PLACELAB gen heft --stats -o "$tmp/gs.json" >/dev/null 2>"$tmp/err"; rc=$?
check "gen --stats -o: exit 2, no file" sh -c "test $rc = 2 && ! test -e '$tmp/gs.json' && grep -q 'stats prints to standard output' '$tmp/err'"
bad=
for c in "nmt --count 3" "cluster k80x2 --layers 3" "table $PL_SRCDIR/samples/teach.json --layers 3" "family nmt --stats -o $tmp/fam" "table"; do
	$PLACELAB gen $c >/dev/null 2>"$tmp/err"; rc=$?
	test $rc = 2 && grep -q 'does not apply\|expected one or more graph files' "$tmp/err" || bad="$bad [$c]"
done
check "gen: an option a form does not take, or no graph for a table: exit 2 (bad:$bad)" test -z "$bad"
# what a command writes to stdout and cannot (a full disk, a closed
# descriptor) is an error, not a silent success
$PLACELAB clusters k80x4 >/dev/full 2>"$tmp/err"; rc=$?
check "stdout on a full disk: exit 2 and said" sh -c "test $rc = 2 && grep -q 'write error on standard output: No space left on device' '$tmp/err'"
$PLACELAB info "$tmp/g.json" --json >&- 2>"$tmp/err"; rc=$?
check "stdout closed: exit 2 and said" sh -c "test $rc = 2 && grep -q 'write error on standard output' '$tmp/err'"
$PLACELAB run -a brkga "$tmp/g.json" --patience -4 >/dev/null 2>"$tmp/err"; rc=$?
check "a negative budget: exit 2 and the option named" sh -c "test $rc = 2 && grep -q \"option 'patience': -4 is not in \\[0, inf)\" '$tmp/err'"
$PLACELAB run -a brkga "$tmp/g.json" --generations 4294967297 >/dev/null 2>"$tmp/err"; rc=$?
check "an integer option beyond an int: exit 2, not wrapped" sh -c "test $rc = 2 && grep -q '4294967297 is too large (expected an integer in \\[0, 2147483647\\])' '$tmp/err'"
$PLACELAB train placeto "$tmp/g.json" --episodes 8 -o "$tmp/no/dir/p.plw" >/dev/null 2>"$tmp/err"; rc=$?
check "train to an unwritable path: exit 2 before any episode" sh -c "test $rc = 2 && grep -q -- '-o $tmp/no/dir/p.plw: cannot create' '$tmp/err' && ! grep -q episode '$tmp/err'"
$PLACELAB run -a heft "$tmp/g.json" --history "$tmp" >/dev/null 2>"$tmp/err"; rc=$?
check "a directory as --history: exit 2, said" sh -c "test $rc = 2 && grep -q 'is a directory' '$tmp/err'"
$PLACELAB run -a placeto "$tmp/g.json" --workers 0 >/dev/null 2>"$tmp/err"; rc=$?
check "an option out of its range: exit 2, the option and its range named" sh -c "test $rc = 2 && grep -q \"option 'workers': 0 is not in \\[1, 256\\]\" '$tmp/err'"

$PLACELAB clusters k40x4 > "$tmp/c.json"
check "a preset saved as a file loads back" sh -c "$PLACELAB validate '$tmp/c.json' | grep -q '5 devices'"
check "clusters lists the H100 preset" sh -c "$PLACELAB clusters | grep -q h100x8"
$PLACELAB clusters k40x4 k80x4 >/dev/null 2>&1; rc=$?
check "clusters with two names: usage error, exit 2 ($rc)" test "$rc" = 2

# validate -c: whether the graph can run on the cluster.
printf '{"format": "placelab-graph/1", "name": "pinned",\n "ops": [{"name": "in", "device": "cpu"},\n  {"name": "a"}],\n "edges": [["in", "a", 8]]}\n' > "$tmp/pin.json"
check "validate -c: a graph that runs on the cluster is said to" sh -c "$PLACELAB validate -c k80x4 '$tmp/pin.json' | grep -q \"runs on cluster 'k80x4'\""
$PLACELAB validate -c h100x8 "$tmp/pin.json" >/dev/null 2>"$tmp/err"; rc=$?
check "validate -c: a constraint no device meets, exit 2 ($rc)" test "$rc" = 2
check "validate -c: file, line, op and constraint named" grep -q "pin.json:2:10: op 'in': constraint 'cpu' matches no device of cluster 'h100x8'" "$tmp/err"

printf '{"format": "placelab-graph/1", "ops": [{"name": "a"}]}\n]]]garbage\n' > "$tmp/tail.json"
$PLACELAB validate "$tmp/tail.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "text after the JSON object: exit 2 at its line and column, no ok" sh -c "test $rc = 2 && grep -q \"tail.json:2:1: ']]]garbage' after the JSON object\" '$tmp/err' && ! grep -q ok '$tmp/out'"

$PLACELAB clusters k80x2 | sed '7s/"peak_flops": [0-9]*/"peak_flops": 1e-300/' > "$tmp/tiny.json"
$PLACELAB sim "$tmp/g.json" -c "$tmp/tiny.json" --place all:/gpu:0 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a near-zero peak_flops: exit 2 at its line and column with the range, no infinite makespan" sh -c "test $rc = 2 && grep -q \"tiny.json:7:51: device '/gpu:0': peak_flops 1e-300 (expected FLOP/s in \\[1e6, 1e18\\])\" '$tmp/err' && ! grep -q inf '$tmp/out'"
$PLACELAB clusters k80x2 | sed '8s/"mem_bytes": [0-9]*/"mem_bytes": 0/' > "$tmp/zero.json"
$PLACELAB validate "$tmp/zero.json" >/dev/null 2>"$tmp/err"; rc=$?
check "zero memory: exit 2 at its line and column" sh -c "test $rc = 2 && grep -q \"zero.json:8:79: device '/gpu:1': mem_bytes 0\" '$tmp/err'"

printf '{"format": "placelab-graph/1", "ops": [{"name": "a"},\n  {"name": "b", "device": "/gpu:9"}]}\n' > "$tmp/dev.json"
$PLACELAB info "$tmp/dev.json" -c k80x2 >/dev/null 2>"$tmp/err"; rc=$?
check "a constraint no device meets: exit 2, file, line and column of the op" sh -c "test $rc = 2 && grep -q \"dev.json:2:3: op 'b': constraint '/gpu:9' matches no device of cluster 'k80x2'\" '$tmp/err'"

printf '{"format": "placelab-placement/1", "graph": "renamed", "cluster": "k80x4",\n "devices": {"a": "/gpu:0", "b": "/gpu:1"}}\n' > "$tmp/p.json"
$PLACELAB sim "$tmp/g.json" -c k80x4 -p "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a placement saved under another graph name: used, with a warning naming both" sh -c "test $rc = 0 && grep -q \"p.json:1:45: warning: the placement names graph 'renamed' (not 'cli')\" '$tmp/err' && grep -q '^makespan' '$tmp/out'"
printf '{"format": "placelab-placement/1", "graph": "other",\n "devices": {"a": "/gpu:0", "b": "/gpu:1",\n  "zz": "/gpu:1"}}\n' > "$tmp/p2.json"
$PLACELAB sim "$tmp/g.json" -c k80x4 -p "$tmp/p2.json" >/dev/null 2>"$tmp/err"; rc=$?
check "a placement of other ops: exit 2 at the op's line, naming the graph it was made for" sh -c "test $rc = 2 && grep -q \"p2.json:3:3: op 'zz' is not in graph 'cli' (the file places graph 'other')\" '$tmp/err'"
cat "$tmp/p.json" "$tmp/p.json" > "$tmp/p3.json"
$PLACELAB validate -g "$tmp/g.json" -c k80x4 "$tmp/p3.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "two placements in one file: exit 2 at the second" sh -c "test $rc = 2 && grep -q \"p3.json:3:1: '{\\\"format\\\": \\\"' after the JSON object\" '$tmp/err' && ! grep -q ok '$tmp/out'"

printf 'digraph {\n  a -> b;\n  b [flops="0x10"];\n}\n' > "$tmp/hex.dot"
$PLACELAB validate "$tmp/hex.dot" >/dev/null 2>"$tmp/err"; rc=$?
check "DOT: a hex number: exit 2, FILE:LINE and the attribute named" sh -c "test $rc = 2 && grep -q \"hex.dot:3: node 'b': attribute 'flops' is \\\"0x10\\\", not a decimal number\" '$tmp/err'"
printf 'digraph { a -> b }\n' > "$tmp/anon.dot"
check "DOT: an anonymous graph is named after its file" sh -c "$PLACELAB info '$tmp/anon.dot' | grep -q '^graph *anon$'"
# gen table: a graph name with a pipe stays one Markdown cell
printf '{"format": "placelab-graph/1", "name": "a|b", "ops": [{"name": "x"}], "edges": []}\n' > "$tmp/pipe.json"
$PLACELAB gen table "$tmp/pipe.json" > "$tmp/out"; rc=$?
check "gen table: a '|' in a name is escaped" sh -c "test $rc = 0 && grep -qF '| pipe.json | a\\|b |  | 1 | 0 |' '$tmp/out'"
# gen table reads DOT graphs as every command does, and prints nothing
# when a file does not load
$PLACELAB gen table "$tmp/anon.dot" "$tmp/pipe.json" > "$tmp/out"; rc=$?
check "gen table: a DOT graph is a row" sh -c "test $rc = 0 && grep -qF '| anon.dot | anon |  | 2 | 1 |' '$tmp/out'"
$PLACELAB gen table "$tmp/pipe.json" "$tmp/nosuch.json" > "$tmp/out" 2>"$tmp/err"; rc=$?
check "gen table: a file that does not load: exit 2, no half table" sh -c "test $rc = 2 && ! test -s '$tmp/out' && grep -q nosuch.json '$tmp/err'"
# a memory penalty on the run's model when the run models none is refused
# (it was silently no penalty)
$PLACELAB run -a placeto "$PL_SRCDIR/samples/teach.json" --episodes 2 --workers 2 --mem none \
    --mem-penalty 2 --penalty-mem run -q >"$tmp/out" 2>"$tmp/err"; rc=$?
check "placeto: mem-penalty on the run's memory with --mem none: exit 2, said" sh -c \
    "test $rc = 2 && grep -q 'penalty-mem=run, but the run models no memory (--mem none)' '$tmp/err' && test ! -s '$tmp/out'"
# a Beta file's tensor OP:INDEX names the output index, as a placement's
# tensor priorities do (it counted the op's tensors: a:5 was refused and
# a:0 set the genes of output 5)
cat > "$tmp/gt.json" <<'EOF'
{"format": "placelab-graph/1", "ops": [{"name": "a", "flops": 1e9}, {"name": "b", "flops": 1e9}, {"name": "c", "flops": 1e9}],
 "edges": [["a", "b", 1000000, 5], ["a", "c", 2000, 7]]}
EOF
printf 'placelab-beta/1\ntensor a:5 * 3 1\ntensor a:7 /gpu:0 2 2\n' > "$tmp/bt5.txt"
printf 'placelab-beta/1\ntensor a:0 * 3 1\n' > "$tmp/bt0.txt"
$PLACELAB validate -g "$tmp/gt.json" -c k80x2 "$tmp/bt5.txt" >"$tmp/out" 2>"$tmp/err"; rc5=$?
$PLACELAB validate -g "$tmp/gt.json" -c k80x2 "$tmp/bt0.txt" >"$tmp/out0" 2>"$tmp/err0"; rc0=$?
check "Beta file: tensor a:5 is output 5 of a; a:0, which a lacks, is refused" sh -c \
    "test $rc5 = 0 && test $rc0 = 2 && grep -q 'bt0.txt:2: .*expected an existing tensor OP:INDEX' '$tmp/err0'"
# a placement for a graph of a long name: the hint of what it places is
# cut between characters (it was cut mid-character, its ')' lost)
long=$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "\303\251" }')
printf '{"format": "placelab-placement/1", "graph": "x%s", "cluster": "k80x2", "devices": {"nosuch": "/gpu:0"}}\n' "$long" > "$tmp/longp.json"
$PLACELAB validate -g "$tmp/gt.json" -c k80x2 "$tmp/longp.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "placement for a long-named graph: the hint cut between characters, whole UTF-8" sh -c \
    "test $rc = 2 && grep -q \"(the file places graph 'x.*…')\" '$tmp/err' && iconv -f UTF-8 -t UTF-8 '$tmp/err' >/dev/null"
# names reach the terminal with their control characters as spaces, as
# the tables print them: an ESC in a graph's name or an op's type cannot
# drive the terminal from info, sim or an error message
printf '{"format": "placelab-graph/1", "name": "n\\u001b[31mRED", "ops": [{"name": "a\\u001b[2J", "type": "T\\u001b[1m"}, {"name": "a\\u001b[2J"}]}\n' > "$tmp/escdup.json"
printf '{"format": "placelab-graph/1", "name": "n\\u001b[31mRED", "ops": [{"name": "a", "type": "T\\u001b[1m"}]}\n' > "$tmp/esc.json"
esc=$(printf '\033')
$PLACELAB info "$tmp/esc.json" >"$tmp/out" 2>&1; rc1=$?
$PLACELAB sim "$tmp/esc.json" --place all:gpu0 >>"$tmp/out" 2>&1; rc2=$?
$PLACELAB validate "$tmp/escdup.json" >>"$tmp/out" 2>&1; rc3=$?
# an op's name on sim's critical line, a C1 control (U+009B, CSI), and a
# table's column measured as printed
printf '{"format": "placelab-graph/1", "ops": [{"name": "a\\u001b[2J", "type": "T\\u001b\\u001bX"}, {"name": "Q\\u009b2J", "type": "T2"}], "edges": [["a\\u001b[2J", "Q\\u009b2J", 8]]}\n' > "$tmp/esc2.json"
$PLACELAB sim "$tmp/esc2.json" --place round-robin >>"$tmp/out" 2>&1 || rc2=1
$PLACELAB info "$tmp/esc2.json" > "$tmp/info2" 2>&1 || rc1=1
c1=$(printf '\302\233')
check "control characters in names printed as spaces (info, sim, errors)" sh -c \
    "test $rc1 = 0 && test $rc2 = 0 && test $rc3 = 2 && ! grep -q '$esc' '$tmp/out' '$tmp/info2' && ! grep -q '$c1' '$tmp/out' &&
     grep -q 'n \[31mRED' '$tmp/out' && grep -q \"op 'a \[2J': duplicate name\" '$tmp/out' && grep -q 'critical   2 ops: a \[2J ... Q 2J' '$tmp/out' &&
     test \$(grep -c '^  T  X  *1 ' '$tmp/info2') = 1 && test \$(grep -c '^  T2  *1 ' '$tmp/info2') = 1 &&
     test \$(awk '/^  T  X/ { print index(\$0, \" 1 \") } ' '$tmp/info2') = \$(awk '/^  T2 / { print index(\$0, \" 1 \") }' '$tmp/info2')"
# every action of the explorer's key table is listed by explore --keys
$PLACELAB explore --keys > "$tmp/keys"; rc=$?
missing=""
for a in $(sed -n 's/^[[:space:]]*X([A-Z_0-9]*, "\([a-z0-9-]*\)".*/\1/p' "$PL_SRCDIR/tui/action.h"); do
	grep -q "^[^ ]*\( [^ ]*\)\? *$a " "$tmp/keys" || missing="$missing $a"
done
check "explore --keys lists every action of tui/action.h" sh -c "test $rc = 0 && test -z '$missing' && grep -q '^w ^S  *save ' '$tmp/keys'"
check "explore --keys: a key's Views are those where it does something" sh -c "grep -q '^Up k  *up  *1-3,6,7 ' '$tmp/keys' && grep -q '^Left h  *left  *1,2,7 ' '$tmp/keys' && grep -q '^Enter  *enter  *1,2,6,7 ' '$tmp/keys' && grep -q '^q  *quit  *all ' '$tmp/keys'"
$PLACELAB explore --keys extra >"$tmp/out" 2>"$tmp/err"; rc=$?
check "explore --keys with a GRAPH: exit 2, saying --keys takes none" sh -c "test $rc = 2 && grep -q 'expected no GRAPH' '$tmp/err' && test ! -s '$tmp/out'"
$PLACELAB explore --keys -c k80x4 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "explore --keys with another option: exit 2, the option named" sh -c "test $rc = 2 && grep -q \"'-c' given: expected no other option\" '$tmp/err' && test ! -s '$tmp/out'"
# validate knows every file placelab reads: trained policies and Beta files
$PLACELAB validate "$PL_SRCDIR/samples/policies/nmt.plw" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "validate POLICY.plw: ok, its tensors and settings named" sh -c "test $rc = 0 && grep -q 'nmt.plw: ok (trained policy, [0-9]* tensors, [0-9]* parameters; placeto-policy ' '$tmp/out'"
head -c 2000 "$PL_SRCDIR/samples/policies/nmt.plw" > "$tmp/cut.plw"
$PLACELAB validate "$tmp/cut.plw" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "validate a truncated policy: exit 2, saying it is truncated" sh -c "test $rc = 2 && grep -q 'cut.plw: .*truncated' '$tmp/err' && ! grep -q ok '$tmp/out'"
printf '# priors\nplacelab-beta/1\ndefault 2 3\naffinity a /gpu:0 5 1\n' > "$tmp/beta.txt"
$PLACELAB validate "$tmp/beta.txt" >/dev/null 2>"$tmp/err"; rc=$?
check "validate BETA without -g: exit 2, asking for the graph" sh -c "test $rc = 2 && grep -q 'beta.txt: Beta parameters are checked against a graph (expected -g GRAPH' '$tmp/err'"
$PLACELAB validate -g "$tmp/g.json" "$tmp/beta.txt" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "validate -g GRAPH BETA: ok" sh -c "test $rc = 0 && grep -q \"beta.txt: ok (BRKGA Beta parameters for graph 'cli'\" '$tmp/out'"
printf 'placelab-beta/1\npriority nosuch 2 2\n' > "$tmp/beta2.txt"
$PLACELAB validate -g "$tmp/g.json" "$tmp/beta2.txt" >/dev/null 2>"$tmp/err"; rc=$?
check "validate -g GRAPH BETA with an unknown op: exit 2 at its line" sh -c "test $rc = 2 && grep -q \"beta2.txt:2: op 'nosuch' is not in graph 'cli' (expected the name of one of its ops)\" '$tmp/err'"
# a Beta file is checked whatever the population: a 21,000-op chain on 64
# GPUs has 2,708,936 genes, which BRKGA's default pop of 100 cannot hold
awk 'BEGIN { n = 21000; printf "{\"format\": \"placelab-graph/1\", \"name\": \"big\",\n \"ops\": [";
	for (i = 0; i < n; i++) printf "%s{\"name\": \"op%d\", \"flops\": 1e6}", (i ? ",\n  " : ""), i;
	printf "],\n \"edges\": [";
	for (i = 1; i < n; i++) printf "%s[\"op%d\", \"op%d\", 1000]", (i > 1 ? ",\n  " : ""), i - 1, i;
	print "]}" }' > "$tmp/big.json"
awk 'BEGIN { printf "{\"format\": \"placelab-cluster/1\", \"name\": \"c64\",\n \"devices\": [";
	for (i = 0; i < 64; i++) printf "%s{\"name\": \"/gpu:%d\", \"kind\": \"gpu\", \"peak_flops\": 1e12, \"mem_bytes\": 1e10, \"mem_bw\": 1e11, \"launch_us\": 1}", (i ? ",\n  " : ""), i;
	print "],\n \"links\": {\"shared_bus\": false, \"bandwidth\": 1e9, \"latency_us\": 1}}" }' > "$tmp/c64.json"
printf 'placelab-beta/1\npriority op5 2 2\n' > "$tmp/bigbeta.txt"
$PLACELAB validate -g "$tmp/big.json" -c "$tmp/c64.json" "$tmp/bigbeta.txt" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "validate -g -c BETA on a graph too large for the default pop: ok ($rc)" sh -c \
    "test $rc = 0 && grep -q \"bigbeta.txt: ok (BRKGA Beta parameters for graph 'big' on cluster 'c64')\" '$tmp/out' && ! test -s '$tmp/err'"
$PLACELAB run -a brkga "$tmp/big.json" -c "$tmp/c64.json" -q >/dev/null 2>"$tmp/err"; rc=$?
check "brkga over its gene memory limit: exit 2, the need rounded up above the limit stated" sh -c \
    "test $rc = 2 && grep -q \"1 x 100 chromosomes of 2708936 genes need 2.019 GiB, more than the limit of 2 GiB; use a smaller 'pop'\" '$tmp/err'"
$PLACELAB sim "$tmp/g.json" -c k80x4 --place round-robin --json > "$tmp/res.json"
$PLACELAB validate "$tmp/res.json" >/dev/null 2>"$tmp/err"; rc=$?
check "validate a simulation result: what it holds named, and what validate checks" sh -c "test $rc = 2 && grep -q 'res.json: holds a simulation result (placelab-result/1), which validate does not check' '$tmp/err'"
printf '{"format": "placelab-graph/2", "name": "x", "ops": [{"name": "a"}], "edges": []}\n' > "$tmp/g2.json"
$PLACELAB validate "$tmp/g2.json" >/dev/null 2>"$tmp/err"; rc=$?
check "validate a graph of another format version: the version named as not supported" sh -c "test $rc = 2 && grep -q 'g2.json:1:12: format version \"placelab-graph/2\" is not supported (expected \"placelab-graph/1\")' '$tmp/err'"
cat "$tmp/beta.txt" | $PLACELAB validate -g "$tmp/g.json" /dev/stdin >"$tmp/out" 2>"$tmp/err"; rc=$?
check "validate -g GRAPH a Beta file from a pipe" sh -c "test $rc = 0 && grep -q '/dev/stdin: ok (BRKGA Beta parameters' '$tmp/out'"
printf '{"format": "placelab-cluster/1", "name": "c", "devices": [{k: 1}]}\n' > "$tmp/badc.json"
$PLACELAB validate "$tmp/badc.json" >/dev/null 2>"$tmp/err"; rc=$?
check "validate a cluster file with a syntax error: the error where it is, not read as a graph" sh -c "test $rc = 2 && grep -q 'badc.json:1:60: JSON syntax error near .k: 1}]}. (expected a \"key\" in double quotes)' '$tmp/err'"
# an out-of-memory status in a unit its sizes read in (small sizes were
# "needs 0.00 GiB of 0.00 GiB")
printf '{"format":"placelab-cluster/1","name":"one","devices":[{"name":"g0","kind":"gpu","peak_flops":1e12,"mem_bytes":1,"mem_bw":1e9}]}\n' > "$tmp/c1.json"
printf '{"format":"placelab-graph/1","name":"disc","ops":[{"name":"a","flops":1e9,"out_bytes":1000},{"name":"c","flops":3e9,"out_bytes":5e6},{"name":"d","flops":1e9}],"edges":[["a","c",1000],["c","d",5000000]]}\n' > "$tmp/disc.json"
$PLACELAB run -a heft "$tmp/disc.json" -c "$tmp/c1.json" -q >"$tmp/out" 2>&1; rc=$?
check "run: OOM status and device line in a unit that shows the sizes" sh -c "test $rc = 0 && grep -q '^status     OOM: g0 needs 4.77 MiB of 1 B$' '$tmp/out' && grep -q 'peak  4.77 MiB / 1 B  OOM$' '$tmp/out'"
$PLACELAB compare "$tmp/disc.json" -c "$tmp/c1.json" --methods heft -q >"$tmp/out" 2>&1; rc=$?
check "compare: a method's OOM said below the table in the same units" sh -c "test $rc = 0 && grep -q '^heft: OOM: g0 needs 4.77 MiB of 1 B$' '$tmp/out'"
# a policy whose outputs stop being finite numbers (training at --lr 1)
# never puts an op on a device its constraint forbids: run stops with
# the error and exit 1, its best so far valid; train saves nothing over
# the file it was given
python3 -c "import json
g = json.load(open('$PL_SRCDIR/samples/chain.json'))
for o in g['ops']: o['device'] = 'cpu'
json.dump(g, open('$tmp/cpuonly.json', 'w'))
json.dump({'format': 'placelab-cluster/1', 'name': 'cl3', 'devices': [
    {'name': 'G0', 'kind': 'gpu', 'peak_flops': 1e15, 'mem_bytes': 2**34, 'mem_bw': 1e11},
    {'name': 'C1', 'kind': 'cpu', 'peak_flops': 1e9, 'mem_bytes': 2**34, 'mem_bw': 1e10},
    {'name': 'C2', 'kind': 'cpu', 'peak_flops': 1e9, 'mem_bytes': 2**34, 'mem_bw': 1e10}]},
    open('$tmp/cl3.json', 'w'))"
$PLACELAB run -a placeto "$tmp/cpuonly.json" -c "$tmp/cl3.json" --lr 1 --episodes 400 -q -o "$tmp/lr1.json" >/dev/null 2>"$tmp/err"; rc=$?
check "run -a placeto --lr 1: stops on outputs that are not finite, exit 1" sh -c "test $rc = 1 && grep -q 'placeto stopped: the policy.s outputs are not finite numbers' '$tmp/err'"
check "run -a placeto --lr 1: its best placement keeps every op on a CPU" sh -c \
    "$PLACELAB sim '$tmp/cpuonly.json' -c '$tmp/cl3.json' -p '$tmp/lr1.json' >/dev/null"
echo keep >"$tmp/t.plw"
$PLACELAB train placeto "$PL_SRCDIR/samples/heft.json" "$PL_SRCDIR/samples/chain.json" -o "$tmp/t.plw" --episodes 200 --lr 1 >/dev/null 2>"$tmp/err"; rc=$?
check "train --lr 1 that diverges: exit 2, the file given kept" sh -c "test $rc = 2 && grep -q 'not finite' '$tmp/err' && test \"\$(cat '$tmp/t.plw')\" = keep"
# the policy file fixes mem-feature as it fixes k: run needs no option,
# a contradicting one is refused, and k=8e0 is k=8
$PLACELAB train placeto "$PL_SRCDIR/samples/chain.json" -o "$tmp/mf.plw" --episodes 4 --mem-feature on -q >/dev/null 2>&1
check "a policy trained with --mem-feature on runs with --policy alone" sh -c \
    "$PLACELAB run -a placeto '$PL_SRCDIR/samples/chain.json' --policy '$tmp/mf.plw' -q >/dev/null"
$PLACELAB run -a placeto "$PL_SRCDIR/samples/chain.json" --policy "$tmp/mf.plw" --mem-feature off -q >/dev/null 2>"$tmp/err"; rc=$?
check "--mem-feature off with that policy: refused, exit 2" sh -c \
    "test $rc = 2 && grep -q \"option 'mem-feature': off contradicts the policy\" '$tmp/err'"
check "--k 8e0 with a policy trained with k=8: the same value" sh -c \
    "$PLACELAB run -a placeto '$PL_SRCDIR/samples/chain.json' --policy '$tmp/mf.plw' --k 8e0 --mem-feature 1 -q >/dev/null"
# --seconds too short for a batch still trains one before it stops
$PLACELAB train placeto "$PL_SRCDIR/samples/chain.json" -o "$tmp/short.plw" --seconds 1e-9 -q >/dev/null 2>&1; rc=$?
check "train --seconds 1e-9: one batch trained, not an untrained policy" sh -c \
    "test $rc = 0 && $PLACELAB validate '$tmp/short.plw' >/dev/null && ! grep -aq 'episodes=0 ' '$tmp/short.plw'"
# a Beta file is known by its header after any comments (over 4 KiB of
# them too) and a byte order mark: validate reads it as one, an -o never
# replaces it, and a version placelab does not read is named
{ for i in $(seq 80); do echo "# comment $i: a line of padding, padding, padding, padding, padding"; done
  echo placelab-beta/1; echo default 2 3; } >"$tmp/longbeta.txt"
check "validate: a Beta file after 5 KiB of comments" sh -c \
    "$PLACELAB validate -g '$PL_SRCDIR/samples/chain.json' '$tmp/longbeta.txt' | grep -q 'ok (BRKGA Beta parameters'"
cp "$tmp/longbeta.txt" "$tmp/longbeta.orig"
$PLACELAB run -a heft "$PL_SRCDIR/samples/chain.json" -o "$tmp/longbeta.txt" -q >/dev/null 2>"$tmp/err"; rc=$?
check "run -o over that Beta file: refused, the file kept" sh -c \
    "test $rc = 2 && grep -q \"holds BRKGA's Beta parameters\" '$tmp/err' && cmp -s '$tmp/longbeta.txt' '$tmp/longbeta.orig'"
printf '\357\273\277placelab-beta/1\ndefault 2 3\n' >"$tmp/bom.txt"
check "a Beta file after a byte order mark: validate and run read it" sh -c \
    "$PLACELAB validate -g '$PL_SRCDIR/samples/chain.json' '$tmp/bom.txt' >/dev/null &&
     $PLACELAB run -a brkga '$PL_SRCDIR/samples/chain.json' --beta-file '$tmp/bom.txt' --evals 100 -q >/dev/null"
printf '# v2\nplacelab-beta/2\ndefault 2 3\n' >"$tmp/b2.txt"
$PLACELAB validate -g "$PL_SRCDIR/samples/chain.json" "$tmp/b2.txt" >/dev/null 2>"$tmp/err"; rc=$?
check "validate: placelab-beta/2 refused by the Beta parser, at its line" sh -c \
    "test $rc = 2 && grep -q \"b2.txt:2: expected the header 'placelab-beta/1'\" '$tmp/err'"
# a value out of range is quoted as written, not rounded into the range
printf '{"format": "placelab-cluster/1", "name": "x", "devices": [{"name": "g", "kind": "gpu", "peak_flops": 999999.9, "mem_bytes": 1073741824, "mem_bw": 1e10}]}\n' >"$tmp/pf.json"
printf '{"format": "placelab-graph/1", "name": "g", "ops": [{"name": "a", "measured_us": {"gpu": 1.0000001e12}}], "edges": []}\n' >"$tmp/mu.json"
check "range errors quote the value as written (999999.9, 1.0000001e+12)" sh -c \
    "! $PLACELAB validate '$tmp/pf.json' 2>'$tmp/err' && grep -q 'peak_flops 999999.9 (expected' '$tmp/err' &&
     ! $PLACELAB validate '$tmp/mu.json' 2>'$tmp/err' && grep -q 'measured_us.gpu 1.0000001e+12 (expected' '$tmp/err'"
# validate checks a policy as its loaders do: metadata that is not a
# Placeto policy's, or a d that does not fit its devices and features
cat >"$tmp/remeta.py" <<'PYEOF'
import struct, sys
src, dst, meta = sys.argv[1], sys.argv[2], sys.argv[3].encode()
b = open(src, "rb").read()[:-8]
ml = struct.unpack_from("<I", b, 12)[0]
b = b[:12] + struct.pack("<I", len(meta)) + meta + b[16 + ml:]
h = 0xcbf29ce484222325
for c in b:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
open(dst, "wb").write(b + struct.pack("<Q", h))
PYEOF
python3 "$tmp/remeta.py" "$PL_SRCDIR/samples/policies/nmt.plw" "$tmp/hello.plw" "hello world"
python3 "$tmp/remeta.py" "$PL_SRCDIR/samples/policies/nmt.plw" "$tmp/mf5.plw" \
    "placeto-policy d=10 devices=5 k=8 pool-mean=1 mp-mean=1 mem-feature=1 groups=128 start-absmax=0"
python3 "$tmp/remeta.py" "$PL_SRCDIR/samples/policies/nmt.plw" "$tmp/dbig.plw" \
    "placeto-policy d=4294967306 devices=5 k=8 pool-mean=1 mp-mean=1 mem-feature=0 groups=128 start-absmax=0"
python3 "$tmp/remeta.py" "$PL_SRCDIR/samples/policies/nmt.plw" "$tmp/k2.plw" \
    "placeto-policy d=10 devices=5 k=8 pool-mean=1 mp-mean=1 mem-feature=0 groups=128 start-absmax=0 k=2"
python3 "$tmp/remeta.py" "$PL_SRCDIR/samples/policies/nmt.plw" "$tmp/pm2.plw" \
    "placeto-policy d=10 devices=5 k=8 pool-mean=2 mp-mean=1 mem-feature=0 groups=128 start-absmax=0"
check "validate: a policy whose d does not fit an int is refused (not read as 10)" sh -c \
    "! $PLACELAB validate '$tmp/dbig.plw' 2>'$tmp/err' && grep -q \"'d=4294967306': expected a decimal integer\" '$tmp/err'"
check "validate: a policy whose metadata gives k twice is refused" sh -c \
    "! $PLACELAB validate '$tmp/k2.plw' 2>'$tmp/err' && grep -q \"'k' given twice\" '$tmp/err'"
check "run --policy: a flag other than 0 or 1 in the metadata is refused" sh -c \
    "! $PLACELAB run -a placeto '$PL_SRCDIR/samples/nmt2.json' -c k80x4 --policy '$tmp/pm2.plw' -q 2>'$tmp/err' >/dev/null && grep -q \"'pool-mean=2': expected 0 or 1\" '$tmp/err'"
check "validate: a policy file whose metadata is not a Placeto policy's is refused" sh -c \
    "! $PLACELAB validate '$tmp/hello.plw' 2>'$tmp/err' && grep -q 'not a Placeto policy' '$tmp/err'"
check "validate: a policy whose d does not fit mem-feature and devices is refused" sh -c \
    "! $PLACELAB validate '$tmp/mf5.plw' 2>'$tmp/err' && grep -q 'expected mem-feature 0 or 1' '$tmp/err'"
# a Beta file names an op whose name has a space and a '#' in quotes
cat > "$tmp/sp.json" <<'JSON'
{"format": "placelab-graph/1", "name": "sp",
 "ops": [{"name": "enc l1#x", "flops": 2e9}, {"name": "b", "flops": 1e6}],
 "edges": [["enc l1#x", "b", 1000]]}
JSON
printf 'placelab-beta/1\naffinity "enc l1#x" /gpu:0 50 1  # "quoted"\npriority "enc l1#x" 1 2\n' > "$tmp/sp.beta"
check "Beta file: a quoted op name with a space and '#' is found" sh -c \
    "$PLACELAB run -a brkga '$tmp/sp.json' -c k80x4 --opt beta-file='$tmp/sp.beta',pop=20,evals=40 -q >/dev/null 2>'$tmp/err' && ! test -s '$tmp/err'"
# ... and when the header is cut by the first 4 KiB
{ printf '#%04088d\n' 0; echo placelab-beta/1; echo default 2 3; } >"$tmp/cutbeta.txt"
cp "$tmp/cutbeta.txt" "$tmp/cutbeta.orig"
$PLACELAB run -a heft "$PL_SRCDIR/samples/chain.json" -o "$tmp/cutbeta.txt" -q >/dev/null 2>"$tmp/err"; rc=$?
check "run -o over a Beta file whose header crosses 4 KiB: refused, the file kept" sh -c \
    "test $rc = 2 && grep -q \"holds BRKGA's Beta parameters\" '$tmp/err' && cmp -s '$tmp/cutbeta.txt' '$tmp/cutbeta.orig'"
# gen checks its output before it makes the graph, and says a lost
# standard output once, with why
mkdir "$tmp/gdir"
$PLACELAB gen nmt -L 8 -o "$tmp/gdir" >/dev/null 2>"$tmp/err"; rc=$?
check "gen -o DIRECTORY: refused before the graph is made, nothing left" sh -c \
    "test $rc = 2 && grep -q 'gdir: is a directory (expected a file name)' '$tmp/err' && ! ls '$tmp' | grep -q 'tmp[.]'"
$PLACELAB gen chain >/dev/full 2>"$tmp/err"; rc=$?
check "gen >/dev/full: exit 2, one message, with why" sh -c \
    "test $rc = 2 && test \$(wc -l <'$tmp/err') = 1 && grep -q 'write error on standard output: No space left on device' '$tmp/err'"
# train marks a best or greedy placement that does not fit (16 GiB of
# parameters per op: none fits), names the MDP's simulator when it is
# not --sim's, and its help lists what it takes
python3 -c "
import json
ops = [{'name': 'op%d' % i, 'type': 'MatMul', 'flops': 20e9, 'param_bytes': 16 * 2**30, 'out_bytes': 4194304} for i in range(10)]
edges = [['op%d' % i, 'op%d' % (i + 1), 4194304, 0] for i in range(9)]
json.dump({'format': 'placelab-graph/1', 'name': 'fat', 'ops': ops, 'edges': edges}, open('$tmp/fat.json', 'w'))"
$PLACELAB train placeto "$tmp/fat.json" -o "$tmp/fat.plw" --episodes 8 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "train: a best and greedy placement out of memory are marked (OOM)" sh -c \
    "test $rc = 0 && grep -q '^  fat  *best seen  *[0-9.]* ms (OOM)   greedy  *[0-9.]* ms (OOM)$' '$tmp/out'"
$PLACELAB train placeto "$PL_SRCDIR/samples/chain.json" -o "$tmp/ps.plw" --episodes 4 --opt sim=placeto >"$tmp/out" 2>"$tmp/err"; rc=$?
check "train --opt sim=placeto: the times named as the MDP simulator's" sh -c \
    "test $rc = 0 && grep -q '^times  *by the placeto simulator (the MDP.s, --opt sim=), not --sim native$' '$tmp/out'"
check "train --help: --episodes from 1, no --finetune (train refuses it)" sh -c \
    "$PLACELAB train --help | grep -qF '(in [1, inf))' && ! $PLACELAB train --help | grep -q 'finetune='"
# --place all:DEVICE counts the ops it could not put there, a group's
# every op; a bad 'device' field names every kind
cat > "$tmp/pin.json" <<'JSON'
{"format": "placelab-graph/1", "name": "pin",
 "ops": [{"name": "a", "flops": 1e9, "group": "G", "device": "cpu"},
         {"name": "b", "flops": 1e9, "group": "G"},
         {"name": "c", "flops": 1e9, "device": "cpu"},
         {"name": "d", "flops": 1e9}],
 "edges": [["a", "b", 100], ["b", "c", 100], ["c", "d", 100]]}
JSON
$PLACELAB sim "$tmp/pin.json" -c k80x4 --place all:gpu0 >/dev/null 2>"$tmp/err"; rc=$?
check "sim --place all:gpu0: the ops it could not put there counted (3, a group of 2 and 1)" sh -c \
    "test $rc = 0 && grep -q 'all:gpu0: 3 ops cannot run there (their own constraint or their colocation group.s) and went to an allowed device' '$tmp/err'"
printf '{"format": "placelab-graph/1", "ops": [{"name": "a", "device": 5}]}' >"$tmp/dev5.json"
$PLACELAB info "$tmp/dev5.json" >/dev/null 2>"$tmp/err"; rc=$?
check "a 'device' field that is not a string: the kinds named, tpu too" sh -c \
    "test $rc = 2 && grep -q 'expected \"any\", \"cpu\", \"gpu\", \"tpu\" or a device name' '$tmp/err'"
# cluster and placement files: a syntax error after a byte-order mark is
# found where it is, a missing bracket is no "truncated file", a file of
# white space is empty, a device that is no object says so, and a long
# name never cuts the reason off
printf '\357\273\277{"format": "placelab-cluster/1",\n "devices": [\n  {"name": "/gpu:0" "peak_flops": 1e12}\n]}\n' >"$tmp/bomc.json"
$PLACELAB validate "$tmp/bomc.json" >/dev/null 2>"$tmp/err"; rc=$?
check "cluster file with a BOM: the syntax error at its line and column" sh -c \
    "test $rc = 2 && grep -q 'bomc.json:3:21: JSON syntax error near .\"peak_flops\". (expected .,. or .}.)' '$tmp/err'"
printf '{"format": "placelab-cluster/1",\n "devices": [\n  {"name": "/gpu:0", "peak_flops": 1e12, "mem_bytes": 1, "mem_bw": 1e9},\n "links": {"bandwidth": 1e9}\n}\n' >"$tmp/nobr.json"
$PLACELAB validate "$tmp/nobr.json" >/dev/null 2>"$tmp/err"; rc=$?
printf '{"format": "placelab-cluster/1", "devices": [{"name": "/gpu:0",' >"$tmp/cut.json"
$PLACELAB validate "$tmp/cut.json" >/dev/null 2>"$tmp/err2"; rc2=$?
check "a missing ']' is a syntax error where it shows; a file cut after a comma is cut short" sh -c \
    "test $rc = 2 && grep -q 'nobr.json:4:9: JSON syntax error near' '$tmp/err' && ! grep -q 'end of file' '$tmp/err' && test $rc2 = 2 && grep -q 'cut.json:1:[0-9]*: unexpected end of file' '$tmp/err2'"
printf '  \n\n' >"$tmp/blank.json"
$PLACELAB sim "$PL_SRCDIR/samples/chain.json" -c "$tmp/blank.json" --place all:0 >/dev/null 2>"$tmp/err"; rc=$?
check "a cluster file of white space: empty" sh -c "test $rc = 2 && grep -q 'blank.json: empty file (expected a JSON object)' '$tmp/err'"
printf '{"format": "placelab-cluster/1", "devices": ["/gpu:0"]}' >"$tmp/strdev.json"
$PLACELAB sim "$PL_SRCDIR/samples/chain.json" -c "$tmp/strdev.json" --place all:0 >/dev/null 2>"$tmp/err"; rc=$?
check "a device that is a string: an object expected" sh -c "test $rc = 2 && grep -q 'strdev.json:1:46: devices\[0\]: expected an object such as' '$tmp/err'"
python3 -c "
import json
json.dump({'format': 'placelab-cluster/1', 'devices': [{'name': 'x' * 300, 'kind': 'gpu', 'peak_flops': -1, 'mem_bytes': 1, 'mem_bw': 1e9}]}, open('$tmp/longdev.json', 'w'))"
$PLACELAB sim "$PL_SRCDIR/samples/chain.json" -c "$tmp/longdev.json" --place all:0 >/dev/null 2>"$tmp/err"; rc=$?
check "a long device name: cut in the message, the reason whole" sh -c "test $rc = 2 && grep -q \"xxx…': peak_flops -1 (expected FLOP/s in \\[1e6, 1e18\\])\" '$tmp/err'"
python3 -c "
import json
json.dump({'format': 'placelab-placement/1', 'devices': {'x' * 1100: '/gpu:0'}}, open('$tmp/longop.json', 'w'))"
$PLACELAB sim "$PL_SRCDIR/samples/chain.json" -p "$tmp/longop.json" >/dev/null 2>"$tmp/err"; rc=$?
check "a placement's op of a 1100-byte name not in the graph: the reason whole" sh -c \
    "test $rc = 2 && grep -q \"x' is not in graph 'chain'\" '$tmp/err'"
# BRKGA's status gives its best in the objective's unit: ms for the run
# time (the step time's figure), the fullest device's memory
$PLACELAB run -a brkga "$PL_SRCDIR/samples/teach.json" -c k80x4 --evals 300 -q >"$tmp/out" 2>&1
st=$(sed -n 's/^step time *\([0-9.]*\) ms.*/\1/p' "$tmp/out")
check "brkga status: its best in ms, the step time's figure ($st)" sh -c \
    "test -n '$st' && grep -q '^status *generation [0-9]*: best $st ms, [0-9]* evals$' '$tmp/out'"
$PLACELAB run -a brkga "$PL_SRCDIR/samples/teach.json" -c k80x4 --evals 300 -q --objective memory >"$tmp/out" 2>&1
check "brkga status, memory objective: its best in bytes' units" sh -c \
    "grep -q '^status *generation [0-9]*: best [0-9.]* [KMG]iB, [0-9]* evals$' '$tmp/out'"
# Scotch takes every bit of the seed: 2^32 + 1 is not seed 1
$PLACELAB run -a scotch "$PL_SRCDIR/samples/nmt2.json" --seed 1 -q -o "$tmp/s1.json" >/dev/null 2>&1
$PLACELAB run -a scotch "$PL_SRCDIR/samples/nmt2.json" --seed 4294967297 -q -o "$tmp/s2.json" >/dev/null 2>&1
check "scotch --seed 4294967297: another placement than --seed 1 (the high bits count)" sh -c \
    "test -s '$tmp/s1.json' && test -s '$tmp/s2.json' && ! cmp -s '$tmp/s1.json' '$tmp/s2.json'"
# run --json records null for an option that does nothing (refused if
# given back): episodes with a policy, finetune without one
$PLACELAB run -a placeto "$PL_SRCDIR/samples/nmt2.json" --policy "$PL_SRCDIR/samples/policies/nmt.plw" --json -q >"$tmp/zs.json" 2>/dev/null
$PLACELAB run -a placeto "$PL_SRCDIR/samples/chain.json" --episodes 2 --json -q >"$tmp/fs.json" 2>/dev/null
check "run --json: Placeto's episodes null with a policy, finetune null without one" sh -c \
    "test \"\$(jq -c '[.options.episodes, .options.finetune]' '$tmp/zs.json')\" = '[null,0]' && test \"\$(jq -c '[.options.episodes, .options.finetune]' '$tmp/fs.json')\" = '[2,null]'"
# a graph no episode played has no best, and nothing out of memory
$PLACELAB train placeto "$PL_SRCDIR/samples/chain.json" "$PL_SRCDIR/samples/teach.json" --episodes 1 --workers 1 \
    -o "$tmp/two.plw" >"$tmp/out" 2>&1
check "train: a graph never played shows no best and no OOM" sh -c \
    "grep -q '^  teach  *best seen  *inf ms   greedy' '$tmp/out'"
exit 0
