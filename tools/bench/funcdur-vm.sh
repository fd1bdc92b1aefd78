#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: BPF run time per traced call of vfs_read, funcdur (fentry,
# then kprobes) against funclatency (kprobes), each alone under the same load.
set -u
. /kfit/tools/bench/lib.sh
N=${BENCH_READS:-20000}

load() {
	dd if=/dev/zero of=/dev/null bs=1 count="$N" 2>/dev/null
}

# measure NAME CMD...: prints "NAME RUNS NS/RUN NS/CALL"
measure() {
	local name=$1 pid c0 t0 c1 t1 n
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	bench_wait_progs "$pid" 2 60 || return 1
	sleep 1
	read -r c0 t0 n < <(bench_prog_stats "$pid")
	load
	read -r c1 t1 n < <(bench_prog_stats "$pid")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	# two programs (entry and exit) run per call
	awk -v name="$name" -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN {
		printf "%-22s %10d %10.1f %12.1f\n", name, c, c ? t / c : 0, c ? 2 * t / c : 0 }'
}

bench_stats_on
echo "== funcdur, kernel function vfs_read, in the VM ($(uname -r), TCG): $N reads =="
printf '%-22s %10s %10s %12s\n' TRACER "BPF RUNS" "NS/RUN" "BPF NS/CALL"
measure "funcdur (fentry)" funcdur vfs_read | tee /tmp/fd1
measure "funcdur -k (kprobes)" funcdur -k vfs_read | tee /tmp/fd2
measure "funclatency (kprobes)" /usr/sbin/funclatency vfs_read | tee /tmp/fl
bench_stats_restore
awk 'FNR == 1 { v[FILENAME] = $NF } END {
	printf "ratio BPF time per call: funcdur fentry/funclatency %.2f, funcdur kprobes/funclatency %.2f\n",
		v["/tmp/fd1"] / v["/tmp/fl"], v["/tmp/fd2"] / v["/tmp/fl"] }' /tmp/fd1 /tmp/fd2 /tmp/fl

# Arguments (issue 20): BPF time per call with arguments captured against
# funcdur alone, fentry and kprobes: an integer, then a field through a
# pointer and the integer
bench_stats_on
echo
echo "== funcdur, arguments of vfs_read, in the VM: $N reads =="
printf '%-22s %10s %10s %12s\n' TRACER "BPF RUNS" "NS/RUN" "BPF NS/CALL"
measure "fentry" funcdur vfs_read | tee /tmp/a0
measure "fentry (count)" funcdur 'vfs_read(count)' | tee /tmp/a1
measure "fentry (f_pos, count)" funcdur 'vfs_read(file->f_pos, count)' | tee /tmp/a2
measure "kprobes" funcdur -k vfs_read | tee /tmp/k0
measure "kprobes (count)" funcdur -k 'vfs_read(count)' | tee /tmp/k1
measure "kprobes (f_pos, count)" funcdur -k 'vfs_read(file->f_pos, count)' | tee /tmp/k2
bench_stats_restore
awk 'FNR == 1 { v[FILENAME] = $NF } END {
	a = v["/tmp/a1"] / v["/tmp/a0"]; b = v["/tmp/a2"] / v["/tmp/a0"]
	c = v["/tmp/k1"] / v["/tmp/k0"]; d = v["/tmp/k2"] / v["/tmp/k0"]
	printf "ratio BPF time per call to funcdur alone: fentry %.2f (count), %.2f (f_pos, count); kprobes %.2f, %.2f\n", a, b, c, d
	printf "goal: capturing adds at most 15%%: %s\n", (a <= 1.15 && c <= 1.15) ? "met" : "NOT met" }' \
	/tmp/a0 /tmp/a1 /tmp/a2 /tmp/k0 /tmp/k1 /tmp/k2
