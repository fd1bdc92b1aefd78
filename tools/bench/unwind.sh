#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Sampled user stacks, per sample, side by side on the same workload
# (Debian's python3.11, no frame pointers; a fresh process per run, 999 Hz
# of cpu-clock for BENCH_SECONDS, BENCH_ROUNDS interleaved rounds, medians):
#
#   kfit fp      callgraph --call-graph fp (frame pointers, in the kernel)
#   kfit dwarf   callgraph's default: the stack's top copied, unwound here
#   kfit kern    the other design: unwound in BPF from the same tables in
#                maps (tools/bench/uwkern), addresses alone sent
#   perf -g      perf record -g (frame pointers): the floor
#   perf dwarf   perf record --call-graph dwarf (8 KiB copied a sample)
#
# Columns: the share of samples reaching __libc_start_call_main (under
# main), bytes a sample through the ring (kfit: what -v says it read;
# perf: perf.data, which is what it writes), bytes a sample in the
# recording (-o FILE, perf.data), CPU a sample: the tool's own process
# (user + system) plus, for kfit, its BPF programs' run time
# (kernel.bpf_stats_enabled); perf's in-kernel part (its own NMI-time
# copy or walk) has no counter and is left out, in perf's favour.
# Goals (issue 33): kfit dwarf's CPU a named sample (the whole run: it
# names the frames as it goes) <= 1.5 x perf -g's (record, then report to
# name them); its recording <= 10% of perf dwarf's perf.data; completeness
# >= perf dwarf's.
set -u
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-4}
HZ=999
PY=/usr/bin/python3.11
WORK='
import hashlib, json
d = {"k%d" % i: [i, str(i) * 3] for i in range(2000)}
while True:
    hashlib.sha256(json.dumps(d).encode()).hexdigest()
    sorted(d.items(), key=lambda kv: kv[1][1])'
TMP=$(mktemp -d)
trap 'bench_stats_restore; rm -rf "$TMP"' EXIT

command -v perf >/dev/null || { echo "unwind: no perf (make deps)"; exit 1; }
command -v $PY >/dev/null || { echo "unwind: no $PY"; exit 1; }

# CPU ns process PID has used so far, its threads summed (schedstat's
# run time is in ns; /proc/PID/stat's ticks are 10 ms, coarser than a
# run's whole cost)
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}

# The steady state: CPU ns PID used from 1 s after its start to 1 s before
# its end (SECS in all), its start-up (symbols, tables) and its end (the
# report) left out; and the fraction of the run that window is
STEADY=$(awk -v s="$SECS" 'BEGIN { printf "%.3f", (s - 2) / s }')
steady_cpu() {	# PID
	local a b
	sleep 1
	a=$(cpu_ns "$1")
	sleep "$(awk -v s="$SECS" 'BEGIN { print s - 2 }')"
	b=$(cpu_ns "$1")
	echo $((b - a))
}

# A process's BPF programs' "RUN_CNT RUN_TIME_NS NPROGS", read until it
# closes them (at its exit): the last read
stats_until_exit() {	# PID
	local last cur
	last=$(bench_prog_stats "$1")
	while kill -0 "$1" 2>/dev/null; do
		cur=$(bench_prog_stats "$1")
		[ "${cur%% *}" != 0 ] && last=$cur
		sleep 0.05
	done
	echo "$last"
}

# A tool started under /usr/bin/time (TPID), once its ERR says PATTERN:
# its BPF stats before (bpf0) and at the end (bpf1), its steady CPU; the
# workload stopped after it
watch_tool() {	# TPID ERR PATTERN
	local pid
	bench_wait_for "$2" "$3" 60 || { cat "$2"; work_stop; return 1; }
	pid=$(pgrep -P "$1")
	bpf0=$(bench_prog_stats "$pid")
	steady=$(steady_cpu "$pid")
	bpf1=$(stats_until_exit "$pid")
	wait "$1"
	work_stop
}

work_start() {
	$PY -c "$WORK" >/dev/null 2>&1 &
	WPID=$!
	sleep 0.3
}

work_stop() {
	kill -KILL "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	return 0
}

# kfit MODE: "SAMPLES REACHED RING_BYTES FILE_BYTES CPU_NS"
run_kfit() {	# fp|dwarf
	local out=$TMP/k.folded err=$TMP/k.err rec=$TMP/k.kft n reach ring size
	work_start
	/usr/bin/time -f '%U %S' -o "$TMP/k.time" "$BIN/callgraph" -v -S $HZ --call-graph "$1" \
		-p "$WPID" -d "$SECS" -o "$rec" --tree --folded --output "$out" 2>"$err" &
	watch_tool $! "$err" '^Tracing' || return 1
	n=$(awk '{ t += $NF } END { print t + 0 }' "$out")
	reach=$(awk '/;__libc_start_call_main;/ { s += $NF } END { print s + 0 }' "$out")
	ring=$(sed -n 's/.* records read (\([0-9]*\) bytes).*/\1/p' "$err" | tail -1)
	size=$(stat -c %s "$rec")
	awk -v n="$n" -v r="$reach" -v ring="${ring:-0}" -v size="$size" -v st="$steady" \
		-v w="$STEADY" -v b0="$bpf0" -v b1="$bpf1" '{
		split(b0, x, " "); split(b1, y, " ")
		print n, r, ring, size, ($1 + $2) * 1e9 + (y[2] - x[2]),
			st / w + (y[2] - x[2]), 0, y[2] - x[2] }' "$TMP/k.time"
}

# The in-kernel design (uwkern): the same columns, its BPF run time in
# CPU and BPF; the tables' load time and bytes into $TMP/kern.load
run_kern() {
	local out=$TMP/u.out
	work_start
	/usr/bin/time -f '%U %S' -o "$TMP/u.time" "$BENCH_TOP/build/bench/uwkern" "$WPID" $HZ "$SECS" \
		>"$out" 2>"$TMP/u.err" &
	watch_tool $! "$TMP/u.err" 'attached' || return 1
	awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		print v["load_ms"], v["table_bytes"], v["rows"] }' "$out" >>"$TMP/kern.load"
	awk -v st="$steady" -v w="$STEADY" -v b0="$bpf0" -v b1="$bpf1" -v t="$(cat "$TMP/u.time")" '{
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		split(b0, x, " "); split(b1, y, " "); split(t, c, " ")
		print v["samples"], v["whole"], v["ring_bytes"], 0,
			(c[1] + c[2]) * 1e9 + (y[2] - x[2]), st / w + (y[2] - x[2]), 0, y[2] - x[2] }' "$out"
}

# perf MODE: the same columns
run_perf() {	# -g|--call-graph=dwarf
	local data=$TMP/p.data n reach size tpid steady rep
	work_start
	rm -f "$data"
	/usr/bin/time -f '%U %S' -o "$TMP/p.time" perf record -q -e cpu-clock -F $HZ $1 \
		-p "$WPID" -o "$data" -- sleep "$SECS" >/dev/null 2>&1 &
	tpid=$!
	sleep 0.2
	steady=$(steady_cpu "$(pgrep -P "$tpid" -x perf)")
	wait "$tpid"
	work_stop
	# what naming the stacks costs perf: its report (kfit names them live)
	/usr/bin/time -f '%U %S' -o "$TMP/r.time" perf report -i "$data" --no-children --stdio \
		--sort sym >/dev/null 2>&1
	n=$(perf script -i "$data" -F comm 2>/dev/null | wc -l)
	reach=$(perf script -i "$data" --no-inline -F ip,sym 2>/dev/null | awk '
		/^$/ { s += st; st = 0; next } $2 == "__libc_start_call_main" { st = 1 }
		END { print s + st }')
	size=$(stat -c %s "$data")
	rep=$(awk '{ printf "%.0f", ($1 + $2) * 1e9 }' "$TMP/r.time")
	awk -v n="$n" -v r="$reach" -v size="$size" -v st="$steady" -v w="$STEADY" -v rep="$rep" \
		'{ print n, r, size, size, ($1 + $2) * 1e9, st / w, rep, 0 }' "$TMP/p.time"
}

# One run's row into rows: a run that fails ends the benchmark (exit 1)
row() {	# NAME CMD...
	local name=$1 out
	shift
	out=$("$@") && [ -n "$out" ] || { echo "unwind: $name failed: $out"; exit 1; }
	echo "$name $out" >>"$TMP/rows"
}

echo "== unwind: sampled user stacks of Debian's $PY (no frame pointers), $HZ Hz, ${SECS}s, $ROUNDS rounds =="
bench_stats_on
for r in $(seq "$ROUNDS"); do
	row kfit_fp run_kfit fp
	row kfit_dwarf run_kfit dwarf
	row kfit_kern run_kern
	row perf_g run_perf -g
	row perf_dwarf run_perf --call-graph=dwarf
	echo "round $r done"
done
bench_stats_restore

# Per tool, the medians of each round's per-sample figures
awk '{ if ($2 > 0) printf "%s %.1f %.0f %.0f %.0f %.0f %.0f %.0f\n", $1, 100 * $3 / $2, $4 / $2,
	$5 / $2, $7 / $2, $6 / $2, $8 / $2, $9 / $2 }' "$TMP/rows" | sort -k1,1 >"$TMP/per"
echo "per sample: CPU steady = the tool's process between 1 s after its start and 1 s"
echo "before its end, plus its BPF programs' run time; whole = the run; +report ="
echo "perf report naming the same samples (kfit names them as it runs); BPF ns: kfit's"
echo "programs alone (perf's in-kernel copy or walk has no counter: left out)"
printf '%-11s %7s %8s %8s %13s %12s %12s %8s\n' TOOL "REACH%" "RING B" "FILE B" \
	"CPU ns steady" "CPU ns whole" "+report ns" "BPF ns"
med() { cut -d' ' -f"$1" "$TMP/one" | bench_median; }
for t in kfit_fp kfit_dwarf kfit_kern perf_g perf_dwarf; do
	awk -v t="$t" '$1 == t' "$TMP/per" >"$TMP/one"
	printf '%-11s %7s %8s %8s %13s %12s %12s %8s\n' "$t" "$(med 2)" "$(med 3)" "$(med 4)" \
		"$(med 5)" "$(med 6)" "$(med 7)" "$(med 8)"
	eval "M_$t=\"$(med 2) $(med 4) $(med 5) $(awk -v a="$(med 6)" -v b="$(med 7)" 'BEGIN { print a + b }')\""
done
echo "kfit_kern: the in-kernel design (tools/bench/uwkern): no names, no recording (FILE 0);"
echo "its tables loaded into maps first: $(awk '{ ms += $1; b = $2; r = $3 } END {
	printf "%.0f ms, %.1f MiB (%d rows)", ms / NR, b / 1048576, r }' "$TMP/kern.load") for the process"
# shellcheck disable=SC2154 # M_* set by eval above
read -r kd_reach kd_file kd_steady kd_named <<<"$M_kfit_dwarf"
# shellcheck disable=SC2154
read -r pg_reach pg_file pg_steady pg_named <<<"$M_perf_g"
# shellcheck disable=SC2154
read -r pd_reach pd_file pd_steady pd_named <<<"$M_perf_dwarf"
: "$pg_reach" "$pg_file" "$kd_steady" "$pd_steady"
# A sample's cost to a named profile: kfit's whole run (it names as it
# goes), perf's record and report; perf's in-kernel part is not counted
bench_goal "callgraph -S" "CPU per named sample, dwarf / perf -g's" \
	"$(bench_ratio "$kd_named" "$pg_named")" 1.5 "perf -g ${pg_named} ns (record + report)" \
	"perf dwarf ${pd_named} ns"
bench_goal "callgraph -S -o" "recording per sample / perf dwarf's" \
	"$(bench_ratio "$kd_file" "$pd_file")" 0.10 "-" "perf dwarf ${pd_file} B"
bench_goal "callgraph -S" "samples not reaching main, / perf dwarf's" \
	"$(awk -v k="$kd_reach" -v p="$pd_reach" 'BEGIN { printf "%.2f", (100 - k) <= (100 - p) ? 0 : (100 - k) / (100 - p) }')" \
	1.0 "-" "perf dwarf ${pd_reach}% reach"
