#!/bin/sh
# torch-export — tools/placelab-torch against `placelab gen`: the PyTorch
# exporter's figures for ResNet-50, Inception-V3 and the Transformer body
# agree with the generator's, its training step has the same FLOPs, and
# the files it writes load; then small models of its own: shared and tied
# parameters, functional forms, one type per operation, -o as placelab
# writes, and bad input refused on one line.  Needs python3-torch and
# python3-torchvision (Debian); prints TAP.
set -u
: "${PLACELAB:=./placelab}"
: "${PL_SRCDIR:=.}"
tool="$PL_SRCDIR/tools/placelab-torch"
py=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import torch, torchvision, torch.fx' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP python3-torch / python3-torchvision not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else notok "$desc"; fi; }

# field FILE KEY: the value of a --stats line.
field() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# near A B TOL: |A/B - 1| <= TOL.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a == "" || b == "" || b == 0) exit 1; r = a / b - 1; exit !(r <= t && r >= -t) }'; }
# run TAG ARGS...: run the exporter: its output in $tmp/TAG.out, its
# messages in $tmp/TAG.err, its exit status in $tmp/TAG.rc.
run() { tag=$1; shift; "$py" "$tool" "$@" > "$tmp/$tag.out" 2> "$tmp/$tag.err"; echo $? > "$tmp/$tag.rc"; }
# refused TAG STATUS [TEXT]: the run exited with STATUS and said why on one
# line (holding TEXT), no traceback.
refused() {
	[ "$(cat "$tmp/$1.rc")" = "$2" ] && [ "$(wc -l < "$tmp/$1.err")" -eq 1 ] &&
	    grep -q "^placelab-torch: .*${3:-}" "$tmp/$1.err"
}
# valid FILE: placelab loads the graph.
valid() { "$PLACELAB" validate "$1" 2>&1 | grep -q ': ok'; }
# graph TAG CODE: CODE holds (Python: the graph $tmp/TAG.out as g, its
# ops by name in ops, feeds(a, b): op a's output reaches op b, directly or
# through gradient sums).
graph() {
	"$py" - "$tmp/$1.out" "$2" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = {o['name']: o for o in g['ops']}
out = {}
for s, d, b, k in g['edges']:
    out.setdefault(s, []).append(d)
def feeds(a, b):
    return any(d == b or (d.endswith('_accum') and feeds(d, b)) for d in out.get(a, []))
exec(sys.argv[2])
PY
}
# mode FILE: its permissions as ls shows them (-rw-r--r--).
mode() { ls -l "$1" | cut -c1-10; }

# Small models for the checks below.
cat > "$tmp/m.py" <<'PY'
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


def tiny():
    return Tiny(), torch.zeros(1, 4)


class Shared(nn.Module):
    """fc called twice, and a module named as fc's second call would be
    in a naive renaming."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.fc_1 = nn.Linear(16, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(self.fc_1(self.fc(self.fc(x))))


def shared():
    return Shared(), torch.zeros(1, 16)


class Tied(nn.Module):
    """proj's weight is emb's."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 16)
        self.mid = nn.Linear(16, 16)
        self.proj = nn.Linear(16, 10, bias=False)
        self.proj.weight = self.emb.weight

    def forward(self, x):
        return self.proj(self.mid(self.emb(x)))


def tied():
    return Tied(), torch.zeros(1, 3, dtype=torch.long)


class Functional(nn.Module):
    """F.linear, F.conv1d, F.conv2d and torch.addmm on parameters."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(32, 64))
        self.b = nn.Parameter(torch.zeros(32))
        self.w2 = nn.Parameter(torch.zeros(64, 32))
        self.k1 = nn.Parameter(torch.zeros(8, 4, 3))
        self.k2 = nn.Parameter(torch.zeros(8, 4, 3, 3))

    def forward(self, x, seq, img):
        return (F.linear(x, self.w, self.b), torch.addmm(self.b, x, self.w2),
                F.conv1d(seq, self.k1, padding=1), F.conv2d(img, self.k2, padding=1))


def functional():
    return Functional(), (torch.zeros(1, 64), torch.zeros(1, 4, 16), torch.zeros(1, 4, 8, 8))


class Modules(nn.Module):
    """The same as modules."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(64, 32)
        self.l2 = nn.Linear(64, 32)
        self.c1 = nn.Conv1d(4, 8, 3, padding=1, bias=False)
        self.c2 = nn.Conv2d(4, 8, 3, padding=1, bias=False)

    def forward(self, x, seq, img):
        return self.l(x), self.l2(x), self.c1(seq), self.c2(img)


def modules():
    return Modules(), (torch.zeros(1, 64), torch.zeros(1, 4, 16), torch.zeros(1, 4, 8, 8))


def module_only():
    return Tiny()


def wrong_example():
    return Tiny(), torch.zeros(1, 5)


class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


def branchy():
    return Branchy(), torch.zeros(1, 4)


class LossNamed(nn.Module):
    """Modules named as the ops --train adds."""
    def __init__(self):
        super().__init__()
        self.loss = nn.ModuleDict({'labels': nn.Linear(4, 4), 'xent': nn.Linear(4, 4)})

    def forward(self, x):
        return self.loss['xent'](self.loss['labels'](x))


def loss_named():
    return LossNamed(), torch.zeros(1, 4)


def huge():
    """2^50 parameters (on the meta device: shapes, no data)."""
    return (nn.Linear(1 << 25, 1 << 25, bias=False, device='meta'),
            torch.zeros(1, 1 << 25, device='meta'))


class Kinds(nn.Module):
    """1-d and 3-d convolutions and pooling; ReLU in its four forms."""
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 2, 3, padding=1)
        self.p1 = nn.MaxPool1d(2)
        self.c3 = nn.Conv3d(1, 1, 3, padding=1)
        self.p3 = nn.AvgPool3d(2)
        self.act = nn.ReLU()

    def forward(self, seq, vol):
        a = self.p1(self.act(self.c1(seq)))
        b = self.p3(F.relu(self.c3(vol))).relu_()
        return a.relu(), torch.relu(b)


def kinds():
    return Kinds(), (torch.zeros(1, 2, 8), torch.zeros(1, 1, 4, 4, 4))


def batched():
    """An example of 4."""
    return nn.Linear(1000, 1000), torch.zeros(4, 1000)


def heavy():
    """2^48 parameters, 1.15e18 FLOPs at batch 2048."""
    return (nn.Linear(1 << 24, 1 << 24, bias=False, device='meta'),
            torch.zeros(1, 1 << 24, device='meta'))
PY

echo "1..39"
"$py" "$tool" resnet50 --stats > "$tmp/t-resnet" 2> "$tmp/err" || cat "$tmp/err" >&2
"$PLACELAB" gen resnet50 --stats > "$tmp/g-resnet"
check "resnet50: multiply-adds per image match gen (1%)" \
	near "$(field "$tmp/t-resnet" fwd_gmacs_per_sample)" "$(field "$tmp/g-resnet" fwd_gmacs_per_sample)" 0.01
check "resnet50: parameters match gen (0.1%)" \
	near "$(field "$tmp/t-resnet" params_m)" "$(field "$tmp/g-resnet" params_m)" 0.001
check "resnet50: published ~4.1 G multiply-adds per image (10%)" \
	near "$(field "$tmp/t-resnet" fwd_gmacs_per_sample)" 4.1 0.10

"$py" "$tool" resnet50 --train --stats > "$tmp/t-resnet-train" 2> "$tmp/err" || cat "$tmp/err" >&2
check "resnet50 --train: training-step FLOPs match gen's (2%)" \
	near "$(field "$tmp/t-resnet-train" step_gflops)" "$(field "$tmp/g-resnet" step_gflops)" 0.02
# One op per module call and its gradients: between gen's layer graph and
# gen's op graph (TF's unfused batch norm, variables, weight decay).
"$PLACELAB" gen resnet50 --granularity layer --stats > "$tmp/g-resnet-layer"
check "resnet50 --train: op count between gen's layer and op graphs" \
	awk -v t="$(field "$tmp/t-resnet-train" ops)" -v l="$(field "$tmp/g-resnet-layer" ops)" \
	    -v o="$(field "$tmp/g-resnet" ops)" 'BEGIN { exit !(t > l && t < o) }'

"$py" "$tool" inception_v3 --stats > "$tmp/t-incep" 2> "$tmp/err" || cat "$tmp/err" >&2
"$PLACELAB" gen inception_v3 --stats > "$tmp/g-incep"
check "inception_v3: multiply-adds and parameters match gen" sh -c "
	awk -v a='$(field "$tmp/t-incep" fwd_gmacs_per_sample)' -v b='$(field "$tmp/g-incep" fwd_gmacs_per_sample)' 'BEGIN { exit !(a > 0 && a / b < 1.01 && a / b > 0.99) }' &&
	awk -v a='$(field "$tmp/t-incep" params_m)' -v b='$(field "$tmp/g-incep" params_m)' 'BEGIN { exit !(a > 0 && a / b < 1.001 && a / b > 0.999) }'"

# torch.nn.Transformer has no embeddings or output projection: compare
# with gen's body (total minus the tied 37000 x 512 embedding and the
# projection's multiply-adds).
"$py" "$tool" transformer --stats > "$tmp/t-tf" 2> "$tmp/err" || cat "$tmp/err" >&2
"$PLACELAB" gen transformer --stats > "$tmp/g-tf"
gp=$(field "$tmp/g-tf" params_m)
gm=$(field "$tmp/g-tf" fwd_gmacs)
check "transformer: parameters match gen's body (0.1%)" \
	near "$(field "$tmp/t-tf" params_m)" "$(awk -v p="$gp" 'BEGIN { print p - 37000 * 512 / 1e6 }')" 0.001
check "transformer: multiply-adds match gen's body (1%)" \
	near "$(field "$tmp/t-tf" fwd_gmacs)" "$(awk -v m="$gm" 'BEGIN { print m - 32 * 128 * 512 * 37000 / 1e9 }')" 0.01

"$py" "$tool" mobilenet_v2 --train -o "$tmp/mnv2.json" 2> "$tmp/err" || cat "$tmp/err" >&2
check "mobilenet_v2 --train writes a graph placelab validates" \
	sh -c "'$PLACELAB' validate '$tmp/mnv2.json' | grep -q ': ok'"
check "mobilenet_v2: backward ops are colocated with their forward ops" \
	sh -c "python3 - '$tmp/mnv2.json' <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
grp = {o['name']: o.get('group') for o in g['ops']}
grads = [o for o in g['ops'] if '/grad' in o['name']]
assert len(grads) > 100
for o in grads:
    f = o['name'].split('/grad')[0]
    assert grp[f] is not None and grp[f] == o['group'], o['name']
assert any(o['type'] == 'ApplyMomentum' for o in g['ops'])
EOF"

# -o writes as placelab writes its files (docs/placelab.1, FILES).
o=$tmp/o
mkdir "$o"
echo mine > "$o/old.json.tmp"
echo old > "$o/old.json"
chmod 600 "$o/old.json"
run o-old "$tmp/m.py:tiny" -o "$o/old.json"
(umask 027 && run o-new "$tmp/m.py:tiny" -o "$o/new.json")
check "-o keeps a file's permissions, gives a new one the umask's, leaves FILE.tmp alone" \
	eval 'valid "$o/old.json" && [ "$(mode "$o/old.json")" = -rw------- ] &&
	    [ "$(mode "$o/new.json")" = -rw-r----- ] && [ "$(cat "$o/old.json.tmp")" = mine ] &&
	    [ "$(ls "$o" | tr "\n" " ")" = "new.json old.json old.json.tmp " ]'
ln -s target.json "$o/link.json"
run o-link "$tmp/m.py:tiny" -o "$o/link.json"
check "-o through a symbolic link writes its target, the link stays" \
	eval '[ -L "$o/link.json" ] && valid "$o/target.json"'
mkfifo "$o/fifo"
cat "$o/fifo" > "$tmp/fifo.got" &
reader=$!
run o-fifo "$tmp/m.py:tiny" -o "$o/fifo"
if [ -p "$o/fifo" ]; then
	: 1<> "$o/fifo"	# (a reader still waiting gets an end of file)
	wait $reader
else
	kill $reader
fi
check "-o to a FIFO writes into it, not over it" \
	eval '[ -p "$o/fifo" ] && valid "$tmp/fifo.got"'
# a read-only file of the user's own, in a folder the user may write;
# root may write any file, so as root the tool runs as nobody
ro=$(mktemp -d)
chmod 1777 "$ro"
cp "$tmp/m.py" "$ro/m.py"
chmod 644 "$ro/m.py"
echo old > "$ro/ro.json"
chmod 444 "$ro/ro.json"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$ro/ro.json"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$ro" \
	    "$py" "$tool" "$ro/m.py:tiny" -o "$ro/ro.json" > "$tmp/o-ro.out" 2> "$tmp/o-ro.err"
	echo $? > "$tmp/o-ro.rc"
else
	run o-ro "$ro/m.py:tiny" -o "$ro/ro.json"
fi
check "-o refuses a read-only file" \
	eval 'refused o-ro 2 "cannot write to it" && [ "$(cat "$ro/ro.json")" = old ]'
rm -rf "$ro"
mkdir "$o/adir"
run o-dir "$tmp/m.py:tiny" -o "$o/adir"
check "-o on a directory is an error on one line, nothing left" \
	eval 'refused o-dir 2 "is a directory" && [ -z "$(ls "$o/adir")" ] && [ ! -e "$o/adir.tmp" ]'
if [ -w /dev/full ]; then
	"$py" "$tool" "$tmp/m.py:tiny" > /dev/full 2> "$tmp/o-full.err"
	echo $? > "$tmp/o-full.rc"
	check "a full disk on standard output is an error on one line" \
		refused o-full 2 "standard output: write failed: No space left on device"
else
	ok "a full disk on standard output is an error on one line # SKIP no /dev/full"
fi

# Parameters count once each.
run shared-stats "$tmp/m.py:shared" --stats
check "a module called twice: its parameters and another module's counted once" \
	eval '[ "$(field "$tmp/shared-stats.out" params_m)" = 0.000612 ]'
run shared "$tmp/m.py:shared" --train
check "--train: a module's second call lives with its first, its weight gradient summed into the one update" \
	graph shared "
calls = [n for n in ops if n == 'fc_2' or n.startswith('fc_2/')]
assert all(ops[n].get('group') == 'fc' for n in calls), calls
assert feeds('fc/grad', 'fc/update') and feeds('fc_2/grad_w', 'fc/update')
assert sorted(n for n, o in ops.items() if o['type'] == 'ApplyAdam') == ['fc/update', 'fc_1/update', 'out/update']"
run tied "$tmp/m.py:tied" --train
check "--train: a weight tied in two modules is counted, held and updated once" \
	graph tied "
fwd = [o for o in g['ops'] if '/grad' not in o['name'] and '/update' not in o['name']]
assert sum(o.get('param_bytes', 0) for o in fwd) == 4 * (160 + 272)
assert sorted(n for n, o in ops.items() if o['type'] == 'ApplyAdam') == ['emb/update', 'mid/update']
assert ops['proj']['group'] == ops['emb']['group'] == 'emb'
assert feeds('proj/grad_w', 'emb/update') and feeds('emb/grad', 'emb/update')"

# Functional forms cost as their modules.
run functional "$tmp/m.py:functional" --stats -b 32
run modules "$tmp/m.py:modules" --stats -b 32
check "F.linear, torch.addmm, F.conv1d, F.conv2d: the multiply-adds and FLOPs of their modules" \
	eval '[ "$(field "$tmp/functional.out" fwd_gmacs)" = "$(field "$tmp/modules.out" fwd_gmacs)" ] &&
	    [ "$(field "$tmp/functional.out" fwd_gflops)" = "$(field "$tmp/modules.out" fwd_gflops)" ] &&
	    [ "$(field "$tmp/modules.out" fwd_gmacs)" = 0.000770 ]'
run swin swin_t --stats
check "swin_t: torchvision's 4.49 G multiply-adds per image (1%)" \
	near "$(field "$tmp/swin.out" fwd_gmacs_per_sample)" 4.49 0.01

# Bad input: one line saying what is wrong, exit status 2.  The cases run
# in one process (the exporter's main() called for each), their exit
# status and messages in $tmp/TAG.rc and $tmp/TAG.err as run() leaves them.
cat > "$tmp/cases" <<EOF
tv-resnet resnet --stats
tv-detection detection --stats
tv-class ResNet --stats
tv-getter get_model --stats
untraceable shufflenet_v2_x0_5 --stats
trace-branch $tmp/m.py:branchy
no-file $tmp/nothing.py:make
no-factory $tmp/m.py:nothing
not-pair $tmp/m.py:module_only
bad-example $tmp/m.py:wrong_example
heads transformer -H 200
zero-h transformer -H 0
neg-t transformer -T -1
zero-l transformer -L 0
zero-i resnet18 -I 0
zero-b resnet18 -b 0
tv-t resnet18 -T 16
tv-l resnet18 -L 2
tf-i transformer -I 64
file-h $tmp/m.py:tiny -H 64
huge $tmp/m.py:huge
heavy $tmp/m.py:heavy -b 2048
EOF
"$py" - "$tool" "$tmp/cases" "$tmp" <<'PY'
import contextlib, importlib.machinery, importlib.util, io, sys
loader = importlib.machinery.SourceFileLoader('placelab_torch', sys.argv[1])
tool = importlib.util.module_from_spec(importlib.util.spec_from_loader('placelab_torch', loader))
loader.exec_module(tool)
cases, out = sys.argv[2:4]
for line in open(cases):
    tag, *argv = line.split()
    sys.argv = ['placelab-torch'] + argv
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            tool.main()
            rc = 0
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) or e.code is None else 1
            if isinstance(e.code, str):
                err.write(e.code + '\n')
        except Exception as e:
            rc = 'traceback'
            err.write('Traceback: %r\n' % e)
    open('%s/%s.rc' % (out, tag), 'w').write('%s\n' % (rc or 0))
    open('%s/%s.err' % (out, tag), 'w').write(err.getvalue())
PY
check "names in torchvision.models that are not classification models are refused" \
	eval 'refused tv-resnet 2 "no torchvision classification model" && refused tv-detection 2 &&
	    refused tv-class 2 && refused tv-getter 2'
check "a model torch.fx cannot trace is refused, saying why" \
	eval 'refused untraceable 2 "cannot trace it.*Proxy object cannot be iterated" &&
	    refused trace-branch 2 "cannot trace it (at .*m.py:[0-9]*).*control flow"'
check "a missing FILE.py is refused" refused no-file 2 "nothing.py: no such file"
check "a missing FACTORY is refused" refused no-factory 2 "no function 'nothing'"
check "a factory not returning (module, inputs) is refused" refused not-pair 2 "returned Tiny (expected (module, example inputs)"
check "an example the model cannot run is refused, naming the op" \
	refused bad-example 2 "example does not run through fc: RuntimeError"
check "-H that does not divide into the heads is refused" refused heads 2 "does not divide into its 3 attention heads"
check "zero or negative sizes are refused" \
	eval 'refused zero-h 2 "argument -H/--hidden: .0. (expected a whole number 1\.\." && refused neg-t 2 &&
	    refused zero-l 2 && refused zero-i 2 && refused zero-b 2'
check "-T, -H and -L are refused but for transformer, -I for transformer" \
	eval 'refused tv-t 2 "resnet18: -T is only for transformer" && refused tv-l 2 &&
	    refused tf-i 2 "-I is only for torchvision models" && refused file-h 2 "-H does not apply"'

# A model file imports the modules next to it.
mkdir "$tmp/um"
printf 'import torch.nn as nn\n\n\ndef block():\n    return nn.Linear(4, 4)\n' > "$tmp/um/helper.py"
printf 'import torch\nfrom helper import block\n\n\ndef make():\n    return block(), torch.zeros(1, 4)\n' > "$tmp/um/model.py"
run local "$tmp/um/model.py:make" --stats
check "FILE.py imports a module next to it" eval '[ "$(field "$tmp/local.out" params_m)" = 0.000020 ]'

# What placelab would refuse is not written.
run loss-named "$tmp/m.py:loss_named" --train -o "$tmp/loss-named.json"
check "--train: the loss ops take other names than modules named loss/xent, loss/labels" \
	valid "$tmp/loss-named.json"
check "sizes above placelab's limits are refused, naming the op and the limit" \
	eval 'refused huge 2 "op .weight.: param_bytes 4503599627370496, above placelab.s limit of 2^50 bytes" &&
	    refused heavy 2 "op .linear.: flops 1.153e+18, above placelab.s limit of 1e18"'

# One cost and one type per operation, whatever its form.
run kinds "$tmp/m.py:kinds" -o "$tmp/kinds.out"
check "pooling with an int kernel: k elements a window in 1-d, k^3 in 3-d" \
	graph kinds "
assert ops['p1']['flops'] == 2 * ops['p1']['out_bytes'] / 4, ops['p1']
assert ops['p3']['flops'] == 8 * ops['p3']['out_bytes'] / 4, ops['p3']"
check "Conv1d and Conv3d are Conv1D and Conv3D" \
	graph kinds "assert (ops['c1']['type'], ops['c3']['type']) == ('Conv1D', 'Conv3D')"
check "nn.ReLU, F.relu, torch.relu, .relu() and .relu_() are one op type" \
	graph kinds "
relu = [o['type'] for o in g['ops'] if 'relu' in o['type'].lower()]
assert relu == ['Relu'] * 5, relu"
check "a top-level module is in the model's scope, as top-level functions" \
	graph kinds "assert ops['c1']['scope'] == ops['relu_2']['scope'] == 'model', (ops['c1'], ops['relu_2'])"

# A factory's example is the batch; -b N makes N copies of it.
run batched "$tmp/m.py:batched" --stats
check "FILE.py:FACTORY: the figures are for the factory's example as it is" \
	eval '[ "$(field "$tmp/batched.out" fwd_gmacs)" = 0.004000 ]'
run batched-b "$tmp/m.py:batched" --train -b 2
check "FILE.py:FACTORY -b 2: two copies of the example, a label per row" \
	graph batched-b "
assert ops['linear']['flops'] == 2 * (2 * 4 * 1000 * 1000 + 4 * 1000), ops['linear']
assert ops['loss/labels']['out_bytes'] == 4 * 2 * 4, ops['loss/labels']"
