#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two callgraph binaries compared on this host: the BPF run time per traced
# call (kernel.bpf_stats_enabled) of a user function through uprobes
# (cgshape's cg_leaf) and of a system call through its tracepoints
# (pmcload's getppid), ROUNDS rounds interleaved (A, B, A, B...), the
# median of each. For a change to the BPF side, e.g. issue 20's return
# value in every call record: build the old tree's callgraph, copy it aside,
# then
#   tools/bench/callgraph-ab.sh OLD-CALLGRAPH build/bin/callgraph
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
A=${1:?usage: callgraph-ab.sh CALLGRAPH-A CALLGRAPH-B}
B=${2:?usage: callgraph-ab.sh CALLGRAPH-A CALLGRAPH-B}
CALLS=${BENCH_CALLS:-200000}
ROUNDS=${BENCH_ROUNDS:-5}
CGS=$HELPERS/cgshape
PMC=$HELPERS/pmcload

for t in "$A" "$B" "$CGS" "$PMC"; do
	[ -x "$t" ] || { echo "callgraph-ab: $t is not built (make)" >&2; exit 1; }
done

# One round of one binary on one load: its ns per call
one() {	# CALLGRAPH LOAD TARGET
	local comm=${2%% *}
	bench_bpf_per_call cg "$CALLS" "$2" "$1" --summary --comm "${comm##*/}" "$3" |
		awk '{ print $NF }'
}

# ab NAME LOAD TARGET: the rounds of both, their medians and the ratio B/A
ab() {
	local name=$1 load=$2 target=$3 i a b ra="" rb=""
	for ((i = 0; i < ROUNDS; i++)); do
		a=$(one "$A" "$load" "$target") || return 1
		b=$(one "$B" "$load" "$target") || return 1
		ra="$ra $a"
		rb="$rb $b"
	done
	a=$(tr ' ' '\n' <<<"$ra" | grep . | bench_median)
	b=$(tr ' ' '\n' <<<"$rb" | grep . | bench_median)
	printf '%-34s %10.1f %10.1f %6s\n' "$name" "$a" "$b" "$(bench_ratio "$b" "$a")"
	echo "  (ns per call of each round: A$ra; B$rb)"
}

echo "== callgraph A ($A) and B ($B): BPF ns per call, median of $ROUNDS interleaved rounds of $CALLS calls, host $(uname -r) =="
printf '%-34s %10s %10s %6s\n' LOAD A B "B/A"
bench_stats_on
status=0
# --comm: the load's name (cgshape, pmcload), so that nothing else counts
ab "user function (uprobes)" "$CGS loop $CALLS" "$CGS:cg_leaf" || status=1
ab "system call (tracepoints)" "$PMC getppid $CALLS" sys:getppid || status=1
bench_stats_restore
exit $status
