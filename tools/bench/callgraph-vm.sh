#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: BPF run time per traced call of vfs_read, callgraph
# against funcdur (fentry, then kprobes), each alone, both filtered to the
# load's command name (--comm cgshape): every BPF program of the tool is
# counted (callgraph's scheduler and task programs too), over the N calls
# of `cgshape io N` (N reads of /dev/zero, N writes to /dev/null).
# BENCH_CALLGRAPH_B: a second callgraph binary (e.g. a change to its BPF
# side, copied into build/static/bin), measured in the same rounds.
set -u
. /kfit/tools/bench/lib.sh
N=${BENCH_READS:-20000}
CGS=/kfit/build/tests/cgshape
CG_B=${BENCH_CALLGRAPH_B:-}

# measure NAME CMD...: "NAME PROGS RUNS BPF_NS NS/CALL" over cgshape io N
measure() {
	local name=$1
	shift
	bench_bpf_per_call "$name" "$N" "$CGS io $N" "$@"
}

ROUNDS=${BENCH_ROUNDS:-3}	# interleaved rounds: emulation is noisy, the median is kept

# median FILE...: the line of each file whose last field is the median
median() {
	sort -n -k "$(awk '{ print NF; exit }' "$1")" "$@" | awk '{ l[NR] = $0 } END { if (NR) print l[int((NR + 1) / 2)] }'
}

bench_stats_on
clock=$(bench_vm_clock)
echo "== callgraph against funcdur, kernel function vfs_read, in the VM ($(uname -r), TCG, $clock): $N calls, median of $ROUNDS rounds =="
printf '%-24s %6s %10s %12s %12s\n' TRACER PROGS "BPF RUNS" "BPF NS" "BPF NS/CALL"
status=0
rm -f /tmp/fd1.* /tmp/cg1.* /tmp/fd2.* /tmp/cg2.* /tmp/cb1.* /tmp/cb2.*
tracers="fd1 cg1 fd2 cg2${CG_B:+ cb1 cb2}"
for ((r = 0; r < ROUNDS; r++)); do
	measure "funcdur (fentry)" funcdur --comm cgshape vfs_read >/tmp/fd1.$r || status=1
	measure "callgraph (fentry)" callgraph --comm cgshape vfs_read >/tmp/cg1.$r || status=1
	measure "funcdur -k (kprobes)" funcdur -k --comm cgshape vfs_read >/tmp/fd2.$r || status=1
	measure "callgraph -k (kprobes)" callgraph -k --comm cgshape vfs_read >/tmp/cg2.$r || status=1
	[ -n "$CG_B" ] || continue
	measure "B (fentry)" "$CG_B" --comm cgshape vfs_read >/tmp/cb1.$r || status=1
	measure "B -k (kprobes)" "$CG_B" -k --comm cgshape vfs_read >/tmp/cb2.$r || status=1
done
bench_stats_restore
for t in $tracers; do
	median /tmp/$t.* >/tmp/$t
	echo "  $(awk '{ printf "%s ", $NF }' /tmp/$t.*)" >/tmp/$t.all
done
for t in $tracers; do cat /tmp/$t; done
echo "(ns per call of each round: funcdur fentry$(cat /tmp/fd1.all); callgraph fentry$(cat /tmp/cg1.all);"
echo " funcdur -k$(cat /tmp/fd2.all); callgraph -k$(cat /tmp/cg2.all))"
# the ratio of each mechanism measured on both sides
ratio() {	# LABEL CALLGRAPH FUNCDUR
	[ -s "$2" ] && [ -s "$3" ] || { echo "ratio $1: not measured"; return; }
	awk -v l="$1" -v a="$2" -v b="$3" 'FNR == 1 { v[FILENAME] = $NF } END {
		printf "ratio BPF time per call, callgraph/funcdur, %s: %.2f (goal: at most 1.25)\n", l, v[a] / v[b] }' "$2" "$3"
}
ratio fentry /tmp/cg1 /tmp/fd1
ratio kprobes /tmp/cg2 /tmp/fd2
if [ -n "$CG_B" ]; then
	echo "(B: $CG_B, ns per call of each round: fentry$(cat /tmp/cb1.all); -k$(cat /tmp/cb2.all))"
	ratio "fentry, B" /tmp/cb1 /tmp/fd1
	ratio "kprobes, B" /tmp/cb2 /tmp/fd2
fi

# Streaming: every call of 5 functions on the read/write path recorded
# (3 calls per system call), cgshape io as fast as it goes
stream() {	# MODE
	local pid t0 t1 calls lost
	callgraph $1 --summary --comm cgshape vfs_read vfs_write rw_verify_area read_zero \
		write_null >/tmp/stream.out 2>/tmp/stream.err &
	pid=$!
	bench_wait_progs "$pid" 2 300 || { tail -n 5 /tmp/stream.err >&2; return 1; }
	sleep 1
	t0=$(date +%s%N)
	"$CGS" io "$N" >/dev/null
	t1=$(date +%s%N)
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	calls=$(sed -nE 's/^([0-9]+) calls, ([0-9]+) lost.*/\1/p' /tmp/stream.out)
	lost=$(sed -nE 's/^([0-9]+) calls, ([0-9]+) lost.*/\2/p' /tmp/stream.out)
	if [ -z "$calls" ] || [ "$calls" -lt $((6 * N)) ]; then
		echo "streamed (${1:-fentry}): ${calls:-no} calls for the $((6 * N)) made: not every call traced" >&2
		grep -E 'refused|warning|Tracing' /tmp/stream.err | head -n 5 >&2
		return 1
	fi
	awk -v m="${1:-fentry}" -v c="${calls:-0}" -v l="${lost:-?}" -v t=$((t1 - t0)) 'BEGIN {
		printf "streamed (%s): %d calls in %.2f s, %.0f calls/s, %s lost\n", m, c, t / 1e9, c / (t / 1e9), l }'
}
stream "" || status=1
stream -k || status=1
exit $status
