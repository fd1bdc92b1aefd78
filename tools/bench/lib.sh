# SPDX-License-Identifier: GPL-2.0
# Helpers for the benchmarks: BPF run-time statistics per process, peak RSS.

# The tools and the test helpers: the build's, unless KFIT_BIN or
# KFIT_HELPERS say where
BENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${KFIT_BIN:-$BENCH_TOP/build/bin}
HELPERS=${KFIT_HELPERS:-$BENCH_TOP/build/tests}

# An awk program's start that reads funcdur -v's lines: n functions
# attached in a ms, with fds file descriptors; detached in d ms
BENCH_FD_VERBOSE_AWK='
	function ms(s) {	# "1.5s", "378ms", "631us" -> ms
		if (s ~ /ms$/) return s + 0
		if (s ~ /us$/) return s / 1000
		if (s ~ /ns$/) return s / 1e6
		return s * 1000
	}
	/attached [0-9]+ functions? in/ { n = $3; a = ms($6); fds = $(NF - 2) }
	/detached [0-9]+ functions? in/ { d = ms($6) }'

BENCH_STATS_WAS=""

bench_stats_on() {
	BENCH_STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q -w kernel.bpf_stats_enabled=1
}

bench_stats_restore() {
	[ -n "$BENCH_STATS_WAS" ] && sysctl -q -w kernel.bpf_stats_enabled="$BENCH_STATS_WAS"
}

# IDs of the BPF programs a process holds open, from its fdinfo (bpftool's
# own pid lookup needs a bpftool built with BPF skeletons; Debian's is not).
bench_prog_ids() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un
}

# "RUN_CNT RUN_TIME_NS NPROGS" summed over the BPF programs a process holds
bench_prog_stats() {
	local ids
	ids=$(bench_prog_ids "$1" | jq -s -c .)
	bpftool -j prog show 2>/dev/null | jq -r --argjson ids "$ids" '
		[.[] | select(.id as $i | $ids | index($i))] |
		"\(map(.run_cnt // 0) | add // 0) \(map(.run_time_ns // 0) | add // 0) \(length)"'
}

# Peak resident set size of a running process, in KiB
bench_rss_kib() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# Total softirqs of every vector over all CPUs, from /proc/softirqs
bench_softirqs_total() {
	awk 'NR > 1 { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' /proc/softirqs
}

# Wait until a file contains a line matching a pattern (up to $3 seconds)
bench_wait_for() {
	local i
	for i in $(seq 1 $(( ${3:-10} * 10 ))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Wait until a process holds at least N BPF programs (up to $3 seconds):
# tools that print their banner to a redirected, buffered stdout give no
# other sign of having attached.
bench_wait_progs() {
	local i
	for i in $(seq 1 $(( ${3:-10} * 10 ))); do
		[ "$(bench_prog_ids "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "bench: process $1 attached no BPF programs in ${3:-10}s" >&2
	return 1
}

# The median of the numbers on stdin, a line each
bench_median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A/B with two decimals
bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

# bench_bpf_per_call NAME CALLS LOAD TOOL...: runs TOOL in the background,
# once its programs are attached runs LOAD (a shell command making CALLS
# traced calls), and prints "NAME PROGS RUNS BPF_NS NS/CALL": the run time
# of every BPF program of TOOL over LOAD, per call (kernel.bpf_stats_enabled
# must be on). Fails when TOOL ran fewer than 2 programs per call (an entry
# and an exit): it did not trace every call.
bench_bpf_per_call() {
	local name=$1 n=$2 load=$3 pid c0 t0 c1 t1 np
	shift 3
	"$@" >/dev/null 2>"/tmp/$$.$name.err" &
	pid=$!
	bench_wait_progs "$pid" 2 300 || { tail -n 5 "/tmp/$$.$name.err" >&2; return 1; }
	sleep 1
	read -r c0 t0 np < <(bench_prog_stats "$pid")
	sh -c "$load" >/dev/null
	read -r c1 t1 np < <(bench_prog_stats "$pid")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	if [ $((c1 - c0)) -lt $((2 * n)) ]; then
		echo "$name: $((c1 - c0)) BPF runs for $n calls: not every call traced" >&2
		grep -E 'refused|warning|Tracing' "/tmp/$$.$name.err" | head -n 5 >&2
		rm -f "/tmp/$$.$name.err"
		return 1
	fi
	rm -f "/tmp/$$.$name.err"
	awk -v name="$name" -v p="$np" -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v n="$n" 'BEGIN {
		printf "%-24s %6d %10d %12d %12.1f\n", name, p, c, t, t / n }'
}

# bench_vm_counted TIMEOUT SCRIPT: bash SCRIPT (a path in the guest) run
# by tools/vm/kfit-vm with instruction-counted guest time (qemu -icount,
# BENCH_VM_ICOUNT; empty: the host's clock), which SCRIPT finds in
# BENCH_CLOCK (bench_vm_clock).
# Emulation's wall times move by 2x between rounds; counted, a BPF
# program's run time is the instructions it ran (1 ns each at shift=0),
# the same in every round. One vCPU: QEMU 7.2 hangs bringing up a second
# under -icount.
BENCH_VM_ICOUNT=${BENCH_VM_ICOUNT-shift=0,sleep=off}
bench_vm_counted() {
	local run=(run --timeout "$1" -- env BENCH_CLOCK="$BENCH_VM_ICOUNT" bash "$2")

	if [ -z "$BENCH_VM_ICOUNT" ]; then
		"$BENCH_TOP/tools/vm/kfit-vm" "${run[@]}"
		return
	fi
	KFIT_VM_SMP=1 KFIT_VM_ICOUNT=$BENCH_VM_ICOUNT "$BENCH_TOP/tools/vm/kfit-vm" "${run[@]}"
}

# bench_vm_clock: in the guest, what its BPF run times are, for a heading
bench_vm_clock() {
	if [ -n "${BENCH_CLOCK:-}" ]; then
		echo "instruction-counted time (qemu -icount $BENCH_CLOCK): BPF NS are instructions"
	else
		echo "the host's clock"
	fi
}

# bench_goal TOOL WHAT VALUE GOAL FLOOR ANCHOR [BOUND]: one row of make
# bench's final table, appended to $BENCH_SUMMARY when bench.sh set it.
# VALUE and GOAL are numbers (a ratio, or ns); the goal is met when VALUE
# <= GOAL. FLOOR and ANCHOR say what the value was measured against, in
# the same run ("-": none). BOUND, when given, is what the floor program
# itself scores on the same measure: above GOAL, no program can meet the
# goal, and the verdict says so. Prints the row's verdict too, for a part
# run on its own.
bench_goal() {
	local met
	met=$(awk -v v="$3" -v g="$4" -v b="${7:-}" 'BEGIN {
		if (v != "" && v + 0 == v && v + 0 <= g + 0) print "met"
		else if (b != "" && b + 0 == b && b + 0 > g + 0) print "floor-bound"
		else print "not met" }')
	echo "goal: $1, $2: $3 (goal <= $4${7:+, the floor alone $7}): $met"
	[ -n "${BENCH_SUMMARY:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$met" \
		>>"$BENCH_SUMMARY"
}
