#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What pmcstat --per-task costs on a context-switch-heavy workload, beside
# a plain count and its floors, in one run: two threads of
# tests/helpers/pmcload passing a byte back and forth over pipes on one CPU
# (two switches per pass), under
#   no tool
#   perf stat -a -e context-switches            (a plain count)
#   perf stat -a -e context-switches,cpu-clock  (the anchor: the same events)
#   pmcstat -a -e context-switches,cpu-clock    (a plain count: no BPF)
#   pmcfloor empty  (the same counters, and a sched_switch program that
#                    does nothing: the tracepoint's own cost)
#   pmcfloor read   (the counters read at each switch with their times,
#                    bpf_perf_event_read_value, no bookkeeping)
#   pmcfloor count  (the same with bpf_perf_event_read, as --per-task reads
#                    counters that are never multiplexed: its floor)
#   pmcstat --per-task -a -e context-switches,cpu-clock
# Runs are repeated and interleaved (the order rotates each round); the
# table shows medians. Wall time per switch is the workload's own time for
# its passes over the switches /proc/stat counted meanwhile (every CPU),
# with BPF statistics off; BPF time per switch is the run time of the BPF
# programs (kernel.bpf_stats_enabled) over the switches of one more run of
# each BPF mode per round, with statistics on (they add clock reads to
# every program run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PASSES=${BENCH_PASSES:-100000}
ROUNDS=${BENCH_ROUNDS:-5}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
LOAD=$HELPERS/pmcload
PS=$BIN/pmcstat
FLOOR=$BENCH_TOP/build/bench/pmcfloor
tmp=$(mktemp -d)
tool=""

cleanup() {
	[ -n "$tool" ] && kill -INT "$tool" 2>/dev/null
	wait 2>/dev/null
	bench_stats_restore
	rm -rf "$tmp"
}
trap cleanup EXIT

for f in "$LOAD" "$PS" "$FLOOR"; do
	[ -x "$f" ] || { echo "pmcstat bench: $f not built (make all $FLOOR)" >&2; exit 1; }
done
if ! command -v perf >/dev/null; then
	echo "pmcstat bench: perf missing (Debian package linux-perf)" >&2
	exit 1
fi

ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

# Wait until a process holds a perf event open (up to $2 seconds)
wait_perf_fds() {
	local i fd
	for i in $(seq 1 $(( ${2:-10} * 10 ))); do
		for fd in /proc/"$1"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:[perf_event]" ] && return 0
		done
		sleep 0.1
	done
	echo "pmcstat bench: process $1 opened no perf event in ${2:-10}s" >&2
	return 1
}

# Start the tool of MODE in the background and wait until it counts
start_tool() {	# MODE
	case $1 in
	none) tool="" ;;
	perf | perf2)
		local ev=context-switches
		[ "$1" = perf2 ] && ev=context-switches,cpu-clock
		perf stat -a -e "$ev" -x, -o "$tmp/perf.csv" >/dev/null 2>"$tmp/perf.err" &
		tool=$!
		wait_perf_fds "$tool" 10 || { cat "$tmp/perf.err" >&2; return 1; }
		;;
	plain | pertask)
		local extra=""
		[ "$1" = pertask ] && extra=--per-task
		# shellcheck disable=SC2086
		"$PS" $extra -a -e context-switches,cpu-clock >"$tmp/$1.out" 2>"$tmp/$1.err" &
		tool=$!
		bench_wait_for "$tmp/$1.err" Tracing 20 || { cat "$tmp/$1.err" >&2; return 1; }
		;;
	floor-*)
		"$FLOOR" "${1#floor-}" >"$tmp/$1.out" 2>"$tmp/$1.err" &
		tool=$!
		bench_wait_for "$tmp/$1.err" attached 20 || { cat "$tmp/$1.err" >&2; return 1; }
		;;
	esac
	sleep 0.3
}

stop_tool() {
	[ -n "$tool" ] || return 0
	kill -INT "$tool" 2>/dev/null
	wait "$tool" 2>/dev/null
	tool=""
}

# One run of MODE: appends "NS_PER_SWITCH SWITCHES" to $tmp/MODE.runs, or
# with STATS (BPF statistics on) "BPF_NS_PER_SWITCH BPF_RUNS_PER_SWITCH" to
# $tmp/MODE.bpf
run_one() {	# MODE [STATS]
	local mode=$1 stats=${2:-} c0 c1 r0=0 t0=0 r1=0 t1=0 n wall
	sysctl -q -w kernel.bpf_stats_enabled="$([ -n "$stats" ] && echo 1 || echo 0)"
	start_tool "$mode" || return 1
	[ -n "$stats" ] && read -r r0 t0 _ < <(bench_prog_stats "$tool")
	c0=$(ctxt)
	wall=$("$LOAD" pingpong "$PASSES" "$CPU" | awk '$1 == "passes" { print $4 }')
	c1=$(ctxt)
	[ -n "$stats" ] && read -r r1 t1 _ < <(bench_prog_stats "$tool")
	stop_tool
	[ -n "$wall" ] || { echo "pmcstat bench: pmcload pingpong failed" >&2; return 1; }
	n=$((c1 - c0))
	if [ -n "$stats" ]; then
		awk -v n="$n" -v t=$((t1 - t0)) -v r=$((r1 - r0)) 'BEGIN {
			printf "%.1f %.2f\n", t / n, r / n }' >>"$tmp/$mode.bpf"
	else
		awk -v w="$wall" -v n="$n" 'BEGIN { printf "%.1f %d\n", w / n, n }' >>"$tmp/$mode.runs"
	fi
}

# The median of column COL of FILE
median() {	# FILE COL
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The median of column COL of MODE's BPF runs, "-" for a mode without
bpf_median() {	# MODE COL
	if [ -s "$tmp/$1.bpf" ]; then median "$tmp/$1.bpf" "$2"; else echo -; fi
}

bench_stats_on
modes="none perf perf2 plain floor-empty floor-read floor-count pertask"
bpf_modes="floor-empty floor-read floor-count pertask"
# shellcheck disable=SC2086
set -- $modes
for round in $(seq 1 "$ROUNDS"); do
	# rotate the order each round
	for i in $(seq 0 $(($# - 1))); do
		k=$(( (i + round - 1) % $# + 1 ))
		run_one "${!k}" || exit 1
	done
	for m in $bpf_modes; do
		run_one "$m" stats || exit 1
	done
done

base=$(median "$tmp/none.runs" 1)
label() {
	case $1 in
	none) echo "no tool" ;;
	perf) echo "perf stat -a -e cs" ;;
	perf2) echo "perf stat -a -e cs,cpu-clock" ;;
	plain) echo "pmcstat -a" ;;
	floor-empty) echo "floor: empty program" ;;
	floor-read) echo "floor: read_value" ;;
	floor-count) echo "floor: read" ;;
	pertask) echo "pmcstat --per-task -a" ;;
	esac
}
added() { awk -v a="$1" -v b="$base" 'BEGIN { printf "%.1f", a - b }'; }
add() { added "$(median "$tmp/$1.runs" 1)"; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

echo "== pmcstat --per-task: pmcload pingpong $PASSES on CPU $CPU, $ROUNDS runs of each, interleaved (medians) =="
printf '%-30s %10s %10s %12s %14s %14s\n' MODE SWITCHES "NS/SWITCH" "ADDED NS" "BPF NS/SWITCH" "BPF RUNS/SW"
for m in $modes; do
	printf '%-30s %10s %10s %12s %14s %14s\n' "$(label "$m")" "$(median "$tmp/$m.runs" 2)" \
		"$(median "$tmp/$m.runs" 1)" "$(add "$m")" "$(bpf_median "$m" 1)" "$(bpf_median "$m" 2)"
done
c_add=$(add plain)
t_over=$(minus "$(add pertask)" "$c_add")
e_over=$(minus "$(add floor-empty)" "$c_add")
r_over=$(minus "$(add floor-read)" "$c_add")
f_over=$(minus "$(add floor-count)" "$c_add")
p2_add=$(add perf2)
echo "wall time added per switch: pmcstat --per-task $(add pertask) ns, pmcstat $c_add ns," \
	"perf stat (same events) $p2_add ns, perf stat -e cs $(add perf) ns"
echo "over a plain count (pmcstat -a), per switch: --per-task +$t_over ns;" \
	"floors: an empty sched_switch program +$e_over ns, the counters read +$f_over ns" \
	"(with their times +$r_over ns)"
echo "BPF run time per switch: --per-task $(bpf_median pertask 1) ns; floors: empty $(bpf_median floor-empty 1) ns," \
	"read $(bpf_median floor-count 1) ns, read_value $(bpf_median floor-read 1) ns"
echo "ratio of wall time per switch to no tool: perf stat -e cs $(bench_ratio "$(median "$tmp/perf.runs" 1)" "$base")," \
	"perf stat (same events) $(bench_ratio "$(median "$tmp/perf2.runs" 1)" "$base")," \
	"pmcstat $(bench_ratio "$(median "$tmp/plain.runs" 1)" "$base"), --per-task $(bench_ratio "$(median "$tmp/pertask.runs" 1)" "$base")"
echo "noise: no-tool runs from $(awk '{ print $1 }' "$tmp/none.runs" | sort -g | head -n 1) to" \
	"$(awk '{ print $1 }' "$tmp/none.runs" | sort -g | tail -n 1) ns per switch"
echo "(a plain count reads its counters once, at the end; --per-task reads both at every switch on every CPU)"
bench_goal pmcstat "--per-task ns/switch over plain count" "$t_over" 150 \
	"counters read at each switch +$f_over ns, empty sched_switch program +$e_over ns (over plain count)" \
	"perf stat same events +$p2_add ns over no tool" "$f_over"
