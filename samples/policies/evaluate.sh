#!/bin/sh
# evaluate.sh — zero-shot evaluation of a shipped Placeto policy on the
# held-out members of its family, against random, expert, HEFT, and
# optionally Placeto fine-tuned from the policy and trained per graph.
#
# usage: samples/policies/evaluate.sh FAMILY POLICY [FINETUNE [PERGRAPH [LOCAL]]]
#   FAMILY    enas-cnn, enas-rnn or nmt (graphs samples/families/FAMILY/FAMILY-24..31.json
#             of the build tree, made by `make`)
#   POLICY    the .plw file
#   FINETUNE  fine-tuning episodes (0: skip)
#   PERGRAPH  episodes of a per-graph Placeto trained from scratch (0: skip)
#   LOCAL     episodes of a per-graph Placeto as a policy-guided local search
#             (accept=improve, init=best; 0: skip)
# Environment: PLACELAB (default ./placelab), FAMDIR (default samples/families),
# CLUSTER (default k80x4), SEED (default 1).
# Prints a Markdown table of simulated step times (ms, native simulator).
set -eu
fam=$1
policy=$2
finetune=${3:-0}
pergraph=${4:-0}
local_ep=${5:-0}
pl=${PLACELAB:-./placelab}
famdir=${FAMDIR:-samples/families}
cluster=${CLUSTER:-k80x4}
seed=${SEED:-1}
improved="--mp mean --pool mean --reward relative --entropy 0.01"

# makespan in ms of one run (the "makespan_us" field of --json)
ms() {
	"$pl" run "$@" -c "$cluster" --seed "$seed" --json -q |
	    sed -n 's/^[[:space:]]*"makespan_us":[[:space:]]*\([0-9.e+]*\),*$/\1/p' |
	    awk '{ printf "%.1f", $1 / 1000 }'
}

printf '| graph | ops | random | expert | HEFT | Placeto zero-shot |'
[ "$finetune" -gt 0 ] && printf ' fine-tuned (%s ep.) |' "$finetune"
[ "$pergraph" -gt 0 ] && printf ' per-graph Placeto (%s ep.) |' "$pergraph"
[ "$local_ep" -gt 0 ] && printf ' per-graph, accept=improve (%s ep.) |' "$local_ep"
printf '\n|---|---:|---:|---:|---:|---:|'
[ "$finetune" -gt 0 ] && printf -- '---:|'
[ "$pergraph" -gt 0 ] && printf -- '---:|'
[ "$local_ep" -gt 0 ] && printf -- '---:|'
printf '\n'
for i in 24 25 26 27 28 29 30 31; do
	g=$famdir/$fam/$fam-$i.json
	ops=$("$pl" info "$g" | awk '$1 == "ops" { print $2 }')
	printf '| %s-%s | %s | %s | %s | %s | %s |' "$fam" "$i" "$ops" \
	    "$(ms -a random "$g")" "$(ms -a expert "$g")" "$(ms -a heft "$g")" \
	    "$(ms -a placeto "$g" --policy "$policy")"
	[ "$finetune" -gt 0 ] && printf ' %s |' "$(ms -a placeto "$g" --policy "$policy" --finetune "$finetune" \
	    --reward relative --entropy 0.01)"
	# shellcheck disable=SC2086
	[ "$pergraph" -gt 0 ] && printf ' %s |' "$(ms -a placeto "$g" --episodes "$pergraph" $improved)"
	# shellcheck disable=SC2086
	[ "$local_ep" -gt 0 ] && printf ' %s |' "$(ms -a placeto "$g" --episodes "$local_ep" $improved \
	    --accept improve --init best)"
	printf '\n'
done
