#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: BPF run time per traced call of vfs_read, funcdur (fentry,
# then kprobes) against funclatency (kprobes), each alone under the same load.
set -u
. /kfit/tools/bench/lib.sh
N=${BENCH_READS:-20000}
# the arguments' rounds: with the host's clock a run under TCG moves by
# 20%, their median less; counted (bench_vm_counted), rounds agree
ROUNDS=${BENCH_ROUNDS:-5}
ARG_READS=${BENCH_ARG_READS:-200000}
READS=$N

load() {
	dd if=/dev/zero of=/dev/null bs=1 count="$READS" 2>/dev/null
}

# measure NAME CMD...: prints "NAME RUNS NS/RUN NS/CALL" over READS reads
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
clock=$(bench_vm_clock)
echo "== funcdur, kernel function vfs_read, in the VM ($(uname -r), TCG, $clock): $N reads =="
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
# pointer and the integer; medians of ROUNDS interleaved rounds
args_round() {
	measure fentry funcdur vfs_read
	measure fentry-count funcdur 'vfs_read(count)'
	measure fentry-fpos funcdur 'vfs_read(file->f_pos, count)'
	measure kprobes funcdur -k vfs_read
	measure kprobes-count funcdur -k 'vfs_read(count)'
	measure kprobes-fpos funcdur -k 'vfs_read(file->f_pos, count)'
}

READS=$ARG_READS
bench_stats_on
for r in $(seq 1 "$ROUNDS"); do
	args_round
done >/tmp/args
bench_stats_restore
echo
echo "== funcdur, arguments of vfs_read, in the VM: $ARG_READS reads, BPF ns per call (median of $ROUNDS) =="
sort -k1,1 -k4,4n /tmp/args | awk -v unit="${BENCH_CLOCK:+ (in instructions: a clock read or an atomic counts as one, see docs/bench.md)}" '
	{ k = $1; n[k]++; v[k, n[k]] = $4 }
	END {
		split("fentry fentry-count fentry-fpos kprobes kprobes-count kprobes-fpos", order, " ")
		split("fentry|fentry (count)|fentry (f_pos, count)|kprobes|kprobes (count)|kprobes (f_pos, count)", label, "|")
		for (i = 1; i <= 6; i++) { k = order[i]; m[k] = v[k, int((n[k] + 1) / 2)] }
		printf "%-24s %12s %8s %17s\n", "TRACER", "NS/CALL", "RATIO", "RANGE"
		for (i = 1; i <= 6; i++) {
			k = order[i]; b = i <= 3 ? m["fentry"] : m["kprobes"]
			printf "%-24s %12.1f %8.2f %17s\n", label[i], m[k], m[k] / b,
				sprintf("%.1f-%.1f", v[k, 1], v[k, n[k]])
		}
		a = m["fentry-count"] / m["fentry"]; b = m["fentry-fpos"] / m["fentry"]
		c = m["kprobes-count"] / m["kprobes"]; d = m["kprobes-fpos"] / m["kprobes"]
		printf "ratio BPF time per call to funcdur alone: fentry %.2f (count), %.2f (f_pos, count); kprobes %.2f, %.2f\n", a, b, c, d
		printf "goal: capturing adds at most 15%%%s: an integer %s, a field through a pointer %s\n", unit,
			(a <= 1.15 && c <= 1.15) ? "met" : "NOT met", (b <= 1.15 && d <= 1.15) ? "met" : "NOT met"
	}'
