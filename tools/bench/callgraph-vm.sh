#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: BPF run time per traced call of vfs_read, callgraph
# against funcdur (fentry, then kprobes), each alone, both filtered to the
# load's command name (--comm cgshape): every BPF program of the tool is
# counted (callgraph's scheduler and task programs too), over the N calls
# of `cgshape io N` (N reads of /dev/zero, N writes to /dev/null).
set -u
. /kfit/tools/bench/lib.sh
N=${BENCH_READS:-20000}
CGS=/kfit/build/tests/cgshape

# measure NAME CMD...: prints "NAME PROGS RUNS BPF_NS NS/CALL"
measure() {
	local name=$1 pid c0 t0 c1 t1 np
	shift
	"$@" >/dev/null 2>"/tmp/$name.err" &
	pid=$!
	bench_wait_progs "$pid" 2 300 || { tail -n 5 "/tmp/$name.err" >&2; return 1; }
	sleep 1
	read -r c0 t0 np < <(bench_prog_stats "$pid")
	"$CGS" io "$N" >/dev/null
	read -r c1 t1 np < <(bench_prog_stats "$pid")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	awk -v name="$name" -v p="$np" -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v n="$N" 'BEGIN {
		printf "%-24s %6d %10d %12d %12.1f\n", name, p, c, t, t / n }'
}

bench_stats_on
echo "== callgraph against funcdur, kernel function vfs_read, in the VM ($(uname -r), TCG): $N calls =="
printf '%-24s %6s %10s %12s %12s\n' TRACER PROGS "BPF RUNS" "BPF NS" "BPF NS/CALL"
measure "funcdur (fentry)" funcdur --comm cgshape vfs_read | tee /tmp/fd1
measure "callgraph (fentry)" callgraph --comm cgshape vfs_read | tee /tmp/cg1
measure "funcdur -k (kprobes)" funcdur -k --comm cgshape vfs_read | tee /tmp/fd2
measure "callgraph -k (kprobes)" callgraph -k --comm cgshape vfs_read | tee /tmp/cg2
bench_stats_restore
awk 'FNR == 1 { v[FILENAME] = $NF } END {
	printf "ratio BPF time per call, callgraph/funcdur: fentry %.2f, kprobes %.2f (goal: at most 1.5)\n",
		v["/tmp/cg1"] / v["/tmp/fd1"], v["/tmp/cg2"] / v["/tmp/fd2"] }' /tmp/fd1 /tmp/cg1 /tmp/fd2 /tmp/cg2

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
	awk -v m="${1:-fentry}" -v c="${calls:-0}" -v l="${lost:-?}" -v t=$((t1 - t0)) 'BEGIN {
		printf "streamed (%s): %d calls in %.2f s, %.0f calls/s, %s lost\n", m, c, t / 1e9, c / (t / 1e9), l }'
}
stream ""
stream -k
