#!/bin/sh
# torch-export — tools/placelab-torch against `placelab gen`: the PyTorch
# exporter's figures for ResNet-50, Inception-V3 and the Transformer body
# agree with the generator's, its training step has the same FLOPs, and
# the files it writes load.  Needs python3-torch and python3-torchvision
# (Debian); prints TAP.
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

echo "1..10"
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
