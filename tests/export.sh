#!/bin/sh
# export — `placelab export` from the outside: every format starts with its
# magic and is not trivially small, the DOT reads back as a graph with the
# expected node count (full, per device, within a budget), the timeline has
# its lanes and axis, tables come from the compare writers, a PNG bigger
# than cairo draws, a layout too much work for dot (unless --force) and
# bad usage exit 2 with a message.  Prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else notok "$desc"; fi; }
# is FILE HEX MIN: the file starts with the bytes HEX and has more than MIN bytes
is() {
	test -f "$1" && test "$(od -An -tx1 -N$((${#2} / 2)) "$1" | tr -d ' \n')" = "$2" &&
	    test "$(wc -c < "$1")" -gt "$3"
}
# ops FILE: the op count `placelab info` reads back from a DOT file
ops() { $PLACELAB info "$1" | sed -n 's/^ops *//p'; }
# fails_with WORD CMD...: CMD exits 2 and its message contains WORD
fails_with() {
	word=$1; shift
	"$@" >/dev/null 2>"$tmp/err"; rc=$?
	test "$rc" = 2 && grep -q -- "$word" "$tmp/err"
}

teach=$PL_SRCDIR/samples/teach.json
nmt4=$PL_SRCDIR/samples/nmt4.json
echo "1..72"

check "--help shows the options" sh -c "$PLACELAB export --help | grep -q -- '--max-nodes'"
# synopsis_lists_all: every option the help describes is in its usage lines
# (by its long name, or by its short one as the first lines give it)
synopsis_lists_all() {
	$PLACELAB export --help > "$tmp/help" || return 1
	sed -n '/^usage:/,/^$/p' "$tmp/help" > "$tmp/synopsis"
	grep -E '^ +(-[a-zA-Z], )?--[a-z-]+ ' "$tmp/help" | while read -r first second _; do
		case $first in
		--*) long=$first short= ;;
		*) long=$second short=${first%,} ;;
		esac
		grep -q -- "$long" "$tmp/synopsis" ||
		    { test -n "$short" && grep -q -- "$short " "$tmp/synopsis"; } ||
		    { echo "# $long is missing from the usage lines"; return 1; }
	done
}
check "the usage lines list every option the help describes" synopsis_lists_all

# A hand-made placement of the teaching graph: one tower per GPU.
{
	echo '{"format": "placelab-placement/1", "devices": {'
	echo '"input/read": "/cpu:0", "input/decode": "/cpu:0",'
	for k in 0 1 2 3 4; do echo "\"tower_a/conv$k\": \"/gpu:0\", \"tower_b/conv$k\": \"/gpu:1\","; done
	echo '"head/concat": "/gpu:0", "head/loss": "/gpu:0"}}'
} > "$tmp/p.json"

for fmt in svg pdf png dot; do
	$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/d.$fmt" 2>"$tmp/err"
	check "diagram .$fmt exits 0" test $? = 0
done
check "svg starts with <?xml" is "$tmp/d.svg" 3c3f786d6c 5000
check "svg holds an <svg> element" grep -q '<svg' "$tmp/d.svg"
check "pdf starts with %PDF" is "$tmp/d.pdf" 25504446 5000
check "png starts with \\x89PNG" is "$tmp/d.png" 89504e47 5000
check "dot starts with digraph" is "$tmp/d.dot" 64696772617068 2000
check "dot reads back with the 14 ops and 3 device headers" test "$(ops "$tmp/d.dot")" = 17
check "dot has the three device clusters" test "$(grep -c 'subgraph cluster_d' "$tmp/d.dot")" = 3

$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/l0.dot" --level 0
check "--level 0: one node (and a header) per device" test "$(ops "$tmp/l0.dot")" = 6
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/tb.dot" --rankdir TB
check "--rankdir TB reaches the graph" grep -q 'rankdir=TB' "$tmp/tb.dot"
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/sfdp.svg" --layout sfdp
check "--layout sfdp renders" is "$tmp/sfdp.svg" 3c3f786d6c 5000

$PLACELAB export "$nmt4" -c k80x4 -a expert -o "$tmp/nmt4.dot" --max-nodes 40
k=$(ops "$tmp/nmt4.dot")
check "nmt4 within --max-nodes 40 ($k nodes with 5 headers)" test "${k:-999}" -le 45 -a "${k:-0}" -ge 10
# nodes FILE: the node count the diagram's legend gives
nodes() { sed -n 's/.* \([0-9]*\) nodes for [0-9]* ops.*/\1/p' "$1"; }
$PLACELAB export "$nmt4" -c k80x4 -a expert -o "$tmp/nmt4-l2.dot" --level 2
$PLACELAB export "$nmt4" -c k80x4 -a expert -o "$tmp/nmt4-400.dot" --max-nodes 400
l2=$(nodes "$tmp/nmt4-l2.dot") k=$(nodes "$tmp/nmt4-400.dot")
check "nmt4 within --max-nodes 400 ($k nodes) is at least as fine as --level 2 ($l2)" \
    test "${k:-999}" -le 400 -a "${k:-0}" -ge "${l2:-999}"
# the DOT of a big diagram carries the layout limits placelab renders it
# with (dot on the file lays it out the same, as fast); a small one none,
# and no box of the pass that measured it
check "a big diagram's DOT has its layout limits, a small one's none" sh -c \
    "grep -q 'nslimit=2' '$tmp/nmt4-400.dot' && grep -q 'splines=line' '$tmp/nmt4-400.dot' &&
     ! grep -q 'bb=' '$tmp/nmt4-400.dot' && ! grep -q nslimit '$tmp/d.dot'"

$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/t.svg" --timeline
check "timeline svg with lanes and a time axis" sh -c \
    "grep -q '/gpu:1' '$tmp/t.svg' && grep -q 'time (ms)' '$tmp/t.svg' && grep -q 'D00000' '$tmp/t.svg'"
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/t.png" --timeline --width 3.4
check "timeline png" is "$tmp/t.png" 89504e47 2000

$PLACELAB export "$teach" -c k80x2 -a expert,heft -o "$tmp/cmp.md"
check "table: one row per method from compare" sh -c \
    "grep -q '^| method' '$tmp/cmp.md' && test \$(grep -c '^| ' '$tmp/cmp.md') = 3"
# .txt is the text table, as compare -o x.txt (and the explorer) write it
$PLACELAB export "$teach" -c k80x2 -a expert,heft -o "$tmp/cmp.txt"; rc=$?
check "table: .txt writes the text table" sh -c \
    "test $rc = 0 && grep -q '^method  *step time (ms)' '$tmp/cmp.txt' && grep -q '^human expert ' '$tmp/cmp.txt'"
# a table as compare writes it: a method that found no placement is named
# on stderr, and when none found one the exit status is 1
table_failures() {
	c=$PL_SRCDIR/samples/clusters/heft3.json h=$PL_SRCDIR/samples/heft.json
	$PLACELAB export "$h" -c "$c" -a single-gpu -o "$tmp/none.md" 2>"$tmp/err"
	test $? = 1 && grep -q 'export: single-gpu found no placement' "$tmp/err" &&
	    grep -q 'no method found a placement' "$tmp/err" && test -f "$tmp/none.md" || return 1
	$PLACELAB export "$h" -c "$c" -a single-gpu,heft -o "$tmp/some.md" 2>"$tmp/err" &&
	    grep -q 'single-gpu found no placement' "$tmp/err" &&
	    ! grep -q 'no method found' "$tmp/err"
}
check "table: methods without a placement named, exit 1 when none found one" table_failures
# --sim placeto keeps the native memory model, as sim and compare do;
# --mem placeto asks for Placeto's (its peaks leave out parameters)
peaks() { grep -o 'peak mem [^<]*' "$1"; }
mem_model() {
	$PLACELAB export "$teach" -c k80x2 -a heft --sim placeto --mem native -o "$tmp/mn.dot" &&
	$PLACELAB export "$teach" -c k80x2 -a heft --sim placeto -o "$tmp/mp.dot" &&
	$PLACELAB export "$teach" -c k80x2 -a heft --sim placeto --mem placeto -o "$tmp/mpp.dot" &&
	$PLACELAB export "$teach" -c k80x2 -a heft --sim placeto -o "$tmp/mp.md" &&
	test "$(peaks "$tmp/mn.dot")" = "$(peaks "$tmp/mp.dot")" &&
	test "$(peaks "$tmp/mp.dot")" != "$(peaks "$tmp/mpp.dot")" &&
	grep -q 'placeto simulator, native memory model' "$tmp/mp.md"
}
check "--sim placeto keeps the native memory model; --mem placeto changes the peaks" mem_model
# a title in another encoding (Latin-1 "Résumé") is refused, not drawn
# as a broken SVG or dropped with the legend by Graphviz
check "--title that is not UTF-8 is refused" fails_with "--title: byte 2 (0xE9) is not UTF-8" \
    $PLACELAB export "$teach" -a heft --title "$(printf 'R\351sum\351')" -o "$tmp/latin1.svg"
# a one-op graph: the legends say "1 op", not "1 ops"
printf '{"format": "placelab-graph/1", "name": "one", "ops": [{"name": "x", "flops": 1e9}], "edges": []}\n' > "$tmp/one.json"
check "a critical path of one op is '1 op' in the diagram and the timeline" sh -c \
    "$PLACELAB export '$tmp/one.json' -a heft -o '$tmp/one.dot' &&
     $PLACELAB export '$tmp/one.json' -a heft --timeline -o '$tmp/one.svg' &&
     grep -q 'critical path (1 op)' '$tmp/one.dot' && grep -q 'critical path (1 op)' '$tmp/one.svg'"
# a timeline as PDF goes through a temporary SVG in $TMPDIR
check "a PDF timeline's temporary file is made in \$TMPDIR" fails_with \
    "cannot create a temporary file in $tmp/no-such-dir" \
    env TMPDIR="$tmp/no-such-dir" $PLACELAB export "$teach" -a heft --timeline -o "$tmp/tl.pdf"
check "a list of methods and an unknown suffix: the suffix is what is said" fails_with \
    "cannot tell the format of '$tmp/a.text'" $PLACELAB export "$teach" -a heft,expert -o "$tmp/a.text"
# control characters (JSON allows \u0001) in an op's name and type and in
# the graph's name: the SVG is still well-formed XML
printf '{"format": "placelab-graph/1", "name": "g\\u0001h", "ops": [{"name": "a\\u0001b", "type": "T\\u0001x"}, {"name": "c"}], "edges": [["a\\u0001b", "c", 10, 0]]}\n' > "$tmp/ctl.json"
check "control characters in names and types: the diagram's SVG is well-formed" sh -c \
    "$PLACELAB export '$tmp/ctl.json' -c k80x2 -a random -o '$tmp/ctl.svg' &&
     python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' '$tmp/ctl.svg'"
# Graphviz decodes character entities in plain labels; names are drawn
# as written, and U+FFFF (which no XML may hold) as U+FFFD
python3 -c "import json; json.dump({'format': 'placelab-graph/1', 'name': 'ent', 'ops': [
    {'name': '<tag>&amp;', 'scope': 'R&amp;D', 'flops': 1e9}, {'name': 'i&#65;j', 'scope': 'R&amp;D', 'flops': 1e9},
    {'name': 'a&#1;b', 'type': 'T&lt;', 'flops': 1e9}, {'name': 'x\\uffffy', 'flops': 1e9}],
    'edges': [['<tag>&amp;', 'i&#65;j', 10], ['i&#65;j', 'a&#1;b', 10], ['a&#1;b', 'x\\uffffy', 10]]},
    open('$tmp/ent.json', 'w'))"
cat > "$tmp/ent.py" <<'PYEOF'
import sys, xml.dom.minidom as m
texts = []
def walk(n):
    if n.nodeType == n.TEXT_NODE:
        texts.append(n.data)
    for c in n.childNodes:
        walk(c)
for f in sys.argv[2:]:
    texts.clear()
    walk(m.parse(f))
    allt = "\n".join(texts)
    for want in sys.argv[1].encode().decode("unicode_escape").encode("latin-1").decode().split("|"):
        assert want in allt, (f, want)
    assert "iAj" not in allt and "<tag>&\n" not in allt and "\ufffe" not in allt, f
PYEOF
check "entities and U+FFFF in op names, types and scopes: drawn as written, SVG well-formed" sh -c \
    "$PLACELAB export '$tmp/ent.json' -c k80x2 -a heft --level full -o '$tmp/ent-full.svg' &&
     $PLACELAB export '$tmp/ent.json' -c k80x2 -a heft --level 1 -o '$tmp/ent-1.svg' &&
     $PLACELAB export '$tmp/ent.json' -c k80x2 -a heft --timeline -o '$tmp/ent-tl.svg' &&
     python3 '$tmp/ent.py' '<tag>&amp;|i&#65;j|a&#1;b|x\357\277\275y' '$tmp/ent-full.svg' '$tmp/ent-tl.svg' &&
     python3 '$tmp/ent.py' 'R&amp;D|a&#1;b' '$tmp/ent-1.svg' &&
     python3 '$tmp/ent.py' 'T&lt;' '$tmp/ent-full.svg'"
check "--mem none is refused for a diagram: it shows peaks" fails_with "expected native or placeto" \
    $PLACELAB export "$teach" -a heft --mem none -o "$tmp/none.svg"
check "--mem none makes a table without memory, as compare does" sh -c \
    "$PLACELAB export '$teach' -a heft,expert --mem none -o '$tmp/none.md' &&
     grep -q 'memory not modelled' '$tmp/none.md'"

# A chain of 300 ops laid out left to right: a PNG wider than cairo's
# 32767 pixels is refused with what to do (Graphviz would shrink it to fit
# and print "(null): graph is too large ..."), and the --dpi it suggests
# works.
awk 'BEGIN {
	printf "{\"format\": \"placelab-graph/1\", \"name\": \"chain300\", \"ops\": ["
	for (i = 0; i < 300; i++) printf "%s{\"name\": \"op%d\", \"flops\": 1e8}", (i ? ", " : ""), i
	printf "], \"edges\": ["
	for (i = 1; i < 300; i++) printf "%s[\"op%d\", \"op%d\", 1048576]", (i > 1 ? ", " : ""), i - 1, i
	print "]}"
}' > "$tmp/chain.json"
check "PNG too wide for cairo: exit 2, the size and the remedies named" \
    fails_with "pixels.*--dpi.*SVG or PDF" $PLACELAB export "$tmp/chain.json" -a single-gpu --level full -o "$tmp/wide.png"
check "... no Graphviz message and no file" sh -c "! grep -q 'null\|cairo-renderer' '$tmp/err' && test ! -e '$tmp/wide.png'"
cp "$tmp/err" "$tmp/err.chain"
dpi=$(sed -n 's/.*use --dpi \([0-9]*\) or less.*/\1/p' "$tmp/err")
$PLACELAB export "$tmp/chain.json" -a single-gpu --level full -o "$tmp/wide.png" --dpi "${dpi:-0}" 2>"$tmp/err"
check "... at the --dpi it suggests (${dpi:-none}) it is written, quietly" sh -c \
    "test -s '$tmp/wide.png' && ! test -s '$tmp/err'"

# The chain's advice includes drawing fewer nodes; a device name too
# long for a PNG by itself is said, and fewer nodes are not suggested.
check "... the chain's advice: fewer nodes" grep -q "draw fewer nodes (--max-nodes" "$tmp/err.chain"
python3 -c "import json; json.dump({'format': 'placelab-cluster/1', 'name': 'ln', 'devices': [
    {'name': '/cpu:0-' + 'W' * 3500, 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10},
    {'name': '/gpu:0', 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11}]},
    open('$tmp/ln.json', 'w'))"
check "PNG too wide because of a device's name: said, no fewer-nodes advice" sh -c \
    "! $PLACELAB export '$teach' -c '$tmp/ln.json' -a single-gpu -o '$tmp/ln.png' 2>'$tmp/err' && grep -q \"a device's name alone takes\" '$tmp/err' && ! grep -q 'fewer nodes' '$tmp/err' && grep -q 'use --dpi' '$tmp/err'"

# nmt4 at full detail (1549 ops, 3 million layout nodes for dot) is
# refused at once, saying what to do, rather than laid out for hours.
$PLACELAB run -a heft "$nmt4" -c k80x4 -o "$tmp/h.json" >/dev/null
check "nmt4 --level full: exit 2 within a minute, --max-nodes and --force named" \
    fails_with "max-nodes.*--force" timeout 60 $PLACELAB export "$nmt4" -c k80x4 -p "$tmp/h.json" --level full -o "$tmp/full.svg"
check "... and no file" test ! -e "$tmp/full.svg"
# --seconds 0 (no limit: a reproducible BRKGA, bounded by its evaluations)
# is taken, and sets the method's own option as run's flag does: the
# drawing is that of run's placement.
$PLACELAB run -a brkga "$teach" -c k80x2 --seconds 0 -o "$tmp/b0.json" -q >/dev/null
$PLACELAB export "$teach" -c k80x2 -p "$tmp/b0.json" -o "$tmp/b0p.dot"
$PLACELAB export "$teach" -c k80x2 -a brkga --seconds 0 -o "$tmp/b0a.dot" 2>"$tmp/err"; rc=$?
check "export -a brkga --seconds 0: taken, the same drawing as run --seconds 0's placement" \
    sh -c "test $rc = 0 && cmp -s '$tmp/b0p.dot' '$tmp/b0a.dot'"
# A graph named with a trailing backslash still gives DOT that dot reads
# (the backslash used to escape the id's closing quote); the title keeps it.
sed 's/"name": "teach"/"name": "teach, $\\\\"/' "$teach" > "$tmp/bs.json"
$PLACELAB export "$tmp/bs.json" -c k80x2 -a heft -o "$tmp/bs.dot" 2>"$tmp/err"; rc=$?
check "a graph name ending in a backslash: DOT that dot reads, the title whole" \
    sh -c "test $rc = 0 && dot -Tsvg '$tmp/bs.dot' >'$tmp/bs.svg' 2>'$tmp/err2' && ! test -s '$tmp/err2' &&
           grep -q '>teach, \\$\\\\ on k80x2' '$tmp/bs.svg'"
# A diagram's PDF page is its drawing, as wide and high as the SVG (no
# half-inch page margin around it).
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/m.svg"
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/m.pdf"
svg_wh=$(sed -n 's/^<svg width="\([0-9]*\)pt" height="\([0-9]*\)pt".*/\1 \2/p' "$tmp/m.svg")
pdf_wh=$(tr -c '[:print:]' '\n' < "$tmp/m.pdf" | sed -n 's/.*MediaBox \[ *0 0 \([0-9]*\) \([0-9]*\) *\].*/\1 \2/p' | head -1)
check "the diagram's PDF page is the SVG's size, no margin (svg ${svg_wh:-?}, pdf ${pdf_wh:-?})" \
    sh -c "test -n '$svg_wh' && test '$svg_wh' = '$pdf_wh'"
# SOURCE_DATE_EPOCH dates a PDF in UTC (the program then runs in UTC), so
# runs in two time zones a second apart give the same bytes; a value that
# is no count of seconds is refused before the placement is read
SOURCE_DATE_EPOCH=86400 TZ=CET-1 $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/e1.pdf"
SOURCE_DATE_EPOCH=86400 TZ=EST5 $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" --timeline -o "$tmp/t1.pdf"
check "SOURCE_DATE_EPOCH sets a PDF's creation date, in UTC" \
    sh -c "grep -aq 'CreationDate (D:19700102000000Z)' '$tmp/e1.pdf' && grep -aq 'CreationDate (D:19700102000000Z)' '$tmp/t1.pdf'"
sleep 1
check "SOURCE_DATE_EPOCH: the same PDF bytes a second later, in another time zone" sh -c \
    "TZ=UTC0 SOURCE_DATE_EPOCH=86400 $PLACELAB export '$teach' -c k80x2 -p '$tmp/p.json' -o '$tmp/e3.pdf' && cmp -s '$tmp/e1.pdf' '$tmp/e3.pdf'"
printf '{\n' > "$tmp/broken.json"
check "a SOURCE_DATE_EPOCH that is no count of seconds: exit 2, named, before the placement is read" sh -c \
    "SOURCE_DATE_EPOCH=yesterday $PLACELAB export '$teach' -c k80x2 -p '$tmp/broken.json' -o '$tmp/e4.pdf' 2>&1 >/dev/null | grep -q \"SOURCE_DATE_EPOCH: expected seconds since 1970\" && test ! -e '$tmp/e4.pdf'"
# A PNG too big at the default 60 nodes suggests fewer nodes than that.
$PLACELAB export "$nmt4" -c k80x4 -p "$tmp/h.json" --dpi 1200 -o "$tmp/big.png" 2>"$tmp/err"; rc=$?
fewer=$(sed -n 's/.*--max-nodes \([0-9]*\),.*/\1/p' "$tmp/err")
check "PNG too big at the default node budget: it suggests fewer nodes (--max-nodes ${fewer:-none}), not more" \
    sh -c "test $rc = 2 && test -n '$fewer' && test '${fewer:-99}' -lt 60 && test ! -e '$tmp/big.png'"
# 64 devices, three of them used, at --level 0 (one node per device used,
# the fewest drawn): the device legend flows onto more lines rather than
# widening the figure (in one line it was eight times as wide), and a PNG
# too big because of the legend says --no-legend, not fewer nodes.
awk 'BEGIN {
	printf "{\"format\": \"placelab-cluster/1\", \"name\": \"g64\", \"devices\": [{\"name\": \"/cpu:0\", \"kind\": \"cpu\", \"peak_flops\": 5e11, \"mem_bytes\": 68719476736, \"mem_bw\": 6e10}"
	for (i = 0; i < 63; i++) printf ", {\"name\": \"/gpu:%d\", \"kind\": \"gpu\", \"peak_flops\": 4e12, \"mem_bytes\": 17179869184, \"mem_bw\": 2e11}", i
	print "]}"
}' > "$tmp/g64.json"
svg_w() { sed -n 's/^<svg width="\([0-9]*\)pt".*/\1/p' "$1"; }
$PLACELAB export "$teach" -c "$tmp/g64.json" -p "$tmp/p.json" --level 0 -o "$tmp/g64.svg"
$PLACELAB export "$teach" -c "$tmp/g64.json" -p "$tmp/p.json" --level 0 --no-legend -o "$tmp/g64n.svg"
wl=$(svg_w "$tmp/g64.svg"); wn=$(svg_w "$tmp/g64n.svg")
check "64 devices: the legend leaves the figure at most 1.25 times as wide (${wl:-?}pt, ${wn:-?}pt without)" \
    sh -c "test -n '$wl' && test -n '$wn' && test $((${wl:-1} * 4)) -le $((${wn:-0} * 5))"
# the largest --dpi at which the drawing without its legend fits; with
# the legend it does not
$PLACELAB export "$teach" -c "$tmp/g64.json" -p "$tmp/p.json" --level 0 --no-legend --dpi 2000 -o "$tmp/g64.png" 2>"$tmp/err"
dpi=$(sed -n 's/.*use --dpi \([0-9]*\) or less.*/\1/p' "$tmp/err")
$PLACELAB export "$teach" -c "$tmp/g64.json" -p "$tmp/p.json" --level 0 --dpi "${dpi:-0}" -o "$tmp/g64.png" 2>"$tmp/err"; rc=$?
check "... a PNG too big for its legend (--dpi ${dpi:-none}): --no-legend named, no fewer nodes at the fewest" \
    sh -c "test $rc = 2 && grep -q 'leave the legend out (--no-legend)' '$tmp/err' && ! grep -q 'max-nodes\|fewer nodes' '$tmp/err' && test ! -e '$tmp/g64.png'"
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/forced.svg" --force
check "--force is taken" is "$tmp/forced.svg" 3c3f786d6c 5000

check "no -o: exit 2" fails_with "-o FILE" $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json"
check "-p and -a: exit 2" fails_with "exactly one" $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -a heft -o "$tmp/x.svg"
check "unknown layout: exit 2, named" fails_with "nosuch" $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/x.svg" --layout nosuch
check "unknown suffix: exit 2" fails_with "format" $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/x.xyz"
check "--format against the suffix: exit 2" fails_with "named for another format" \
    $PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/x.svg" --format png
$PLACELAB export "$teach" -c k80x2 -p "$tmp/p.json" -o "$tmp/fig" --format png
check "--format names the format of a FILE without a suffix" is "$tmp/fig" 89504e47 2000
check "failed export leaves no file" test ! -e "$tmp/x.svg"
check "unwritable path: exit 2, the path named once" sh -c \
    "$PLACELAB export '$teach' -c k80x2 -p '$tmp/p.json' -o '$tmp/no/dir/x.svg' 2>'$tmp/err'; test \$? = 2 &&
     test \"\$(grep -o 'no/dir/x.svg' '$tmp/err' | wc -l)\" = 1"
check "unknown method: exit 2, named" fails_with "unknown method 'nosuch'" $PLACELAB export "$teach" -c k80x2 -a nosuch -o "$tmp/x.svg"
# options that no placement can be drawn with are refused before the
# placement is read (or a placer runs): the broken placement is not reached
printf '{\n' > "$tmp/broken.json"
check "a timeline in DOT is refused before the placement is read" fails_with "DOT is not a timeline format" \
    $PLACELAB export "$teach" -c k80x2 -p "$tmp/broken.json" --timeline -o "$tmp/x.dot"
check "an unknown layout engine is refused before the placement is read" fails_with "layout 'nosuch': unknown" \
    $PLACELAB export "$teach" -c k80x2 -p "$tmp/broken.json" -L nosuch -o "$tmp/x.svg"
check "the nop layouts are refused: they keep positions a diagram does not have" fails_with "layout 'nop1': it keeps the positions" \
    $PLACELAB export "$teach" -c k80x2 -p "$tmp/broken.json" -L nop1 -o "$tmp/x.svg"
# Graphviz expands \G, \N, \\ in labels, HTML-like ones too: names and the
# title keep their backslashes
python3 -c "import json; json.dump({'format': 'placelab-cluster/1', 'name': 'bs', 'devices': [
    {'name': 'd\\\\G\\\\N', 'kind': 'cpu', 'peak_flops': 5e11, 'mem_bytes': 2**36, 'mem_bw': 6e10},
    {'name': 'x\\\\\\\\y', 'kind': 'gpu', 'peak_flops': 4e12, 'mem_bytes': 2**34, 'mem_bw': 2e11}]},
    open('$tmp/bsc.json', 'w'))"
check "backslashes in device names and the title are drawn as written" sh -c \
    "$PLACELAB export '$teach' -c '$tmp/bsc.json' -a heft --title 'A \\G \\\\ B' -o '$tmp/bs.svg' &&
     grep -q '>A \\\\G \\\\\\\\ B<' '$tmp/bs.svg' && grep -q '>d\\\\G\\\\N<' '$tmp/bs.svg' && grep -q '>x\\\\\\\\y<' '$tmp/bs.svg'"
check "--max-nodes below the devices used: drawn with one node per device, and a note" sh -c \
    "$PLACELAB export '$nmt4' -c k80x4 -a heft --max-nodes 3 -o '$tmp/mn.svg' 2>'$tmp/err' &&
     grep -q 'below the 5 devices this placement uses' '$tmp/err' && test -s '$tmp/mn.svg'"
check "--max-nodes at the devices used: no note" sh -c \
    "$PLACELAB export '$nmt4' -c k80x4 -a heft --max-nodes 5 -o '$tmp/mn.svg' 2>'$tmp/err' && ! grep -q note '$tmp/err'"
# Every text of a timeline inside the figure, measured by Graphviz in
# the fonts this machine draws Helvetica with (tests/svg-text-fit.py):
# long device names in a narrow figure, a title without a break point,
# names of wide and accented characters.
python3 -c "import json
c = json.load(open('$PL_SRCDIR/samples/clusters/heft3.json'))
for d, n in zip(c['devices'], ['NVIDIA A100-SXM4-80GB #0', 'NVIDIA A100-SXM4-80GB #1', 'NVIDIA A100-SXM4-80GB #2']): d['name'] = n
json.dump(c, open('$tmp/a100.json', 'w'))
for d, n in zip(c['devices'], ['/gpu:\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9\u00c9:0', '\u8a08\u7b97\u6a5f\u8a08\u7b97\u6a5f\u8a08\u7b97\u6a5f:1', 'WWWWWWWWWWWWWWWWWWWW:2']): d['name'] = n
json.dump(c, open('$tmp/wide.json', 'w'))
g = json.load(open('$PL_SRCDIR/samples/heft.json')); g['name'] = 'M' * 300
json.dump(g, open('$tmp/longname.json', 'w'))"
check "timeline: long device names in a narrow figure stay inside it" sh -c \
    "$PLACELAB export '$PL_SRCDIR/samples/heft.json' -c '$tmp/a100.json' -a random --timeline --width 3.5 -o '$tmp/fit1.svg' &&
     python3 '$PL_SRCDIR/tests/svg-text-fit.py' '$tmp/fit1.svg'"
check "timeline: a title without spaces is broken onto lines at 8 pt, inside the figure" sh -c \
    "$PLACELAB export '$tmp/longname.json' -c '$PL_SRCDIR/samples/clusters/heft3.json' -a heft --timeline -o '$tmp/fit2.svg' &&
     python3 '$PL_SRCDIR/tests/svg-text-fit.py' '$tmp/fit2.svg' && test \$(grep -c 'font-size=\"8.00\" font-weight=\"bold\"' '$tmp/fit2.svg') -ge 3"
check "timeline: wide and accented names stay inside the figure" sh -c \
    "$PLACELAB export '$PL_SRCDIR/samples/heft.json' -c '$tmp/wide.json' -a random --timeline --width 3 -o '$tmp/fit3.svg' &&
     python3 '$PL_SRCDIR/tests/svg-text-fit.py' '$tmp/fit3.svg'"
check "a timeline an inch wide: the link labels cut in the middle" sh -c \
    "$PLACELAB export '$teach' -c k80x2 -a expert --timeline --width 1 -o '$tmp/n.svg' && grep -q '…' '$tmp/n.svg'"

# a method that finds nothing exits 1, as placelab run does; a bad
# method name is a usage error (2)
printf '{"format":"placelab-cluster/1","name":"cpu","devices":[{"name":"c0","kind":"cpu","peak_flops":1e12,"mem_bytes":1e10,"mem_bw":1e10}]}\n' > "$tmp/cpu.json"
check "a diagram whose method finds no placement: exit 1, the method's reason, no file" sh -c \
    "$PLACELAB export '$teach' -c '$tmp/cpu.json' -a single-gpu -o '$tmp/nt.svg' 2>'$tmp/err'; test \$? = 1 &&
     grep -q \"placer 'single-gpu': no gpu device in cluster 'cpu'\" '$tmp/err' && ! test -e '$tmp/nt.svg'"
check "a diagram of an unknown method: exit 2" sh -c \
    "$PLACELAB export '$teach' -c k80x2 -a nosuch -o '$tmp/nt.svg' 2>/dev/null; test \$? = 2"

# a PNG timeline whose SVG cannot be written says why (a file size limit
# stands in for a full disk)
sh -c "trap '' XFSZ; ulimit -f 8; TMPDIR='$tmp' exec $PLACELAB export '$PL_SRCDIR/samples/nmt4.json' -c k80x4 -a heft --timeline -o '$tmp/big.png'" 2>"$tmp/err"; rc=$?
check "a timeline's SVG that cannot be written: exit 2, with why, nothing left" sh -c \
    "test $rc = 2 && grep -q 'timeline: writing .* failed: File too large' '$tmp/err' && ! ls '$tmp' | grep -q placelab-timeline"

test "$fails" = 0
