#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softirqlat against libbpf-tools' `softirqs -d` and against its floor
# (build/bench/floor softirq: three tp_btf programs, one clock read and
# one store each), all attached at once under the same load: BPF run time
# per softirq and peak RSS, side by side. Each round starts the four in a
# rotated order (programs on one tracepoint run in the order attached);
# the table shows each column's median over the rounds.
#   BENCH_SECS (5 per round), BENCH_ROUNDS (3)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
SECS=${BENCH_SECS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
SOFTIRQS=$(command -v softirqs || echo /usr/sbin/softirqs)
FLOOR=${KFIT_BENCH_BIN:-$top/build/bench}/floor
tmp=$(mktemp -d)
pids=""
ROWS="kfit kfitnq anchor floor"

cleanup() {
	[ -n "$pids" ] && kill -INT $pids 2>/dev/null
	wait 2>/dev/null
	bench_stats_restore
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -x "$SOFTIRQS" ]; then
	echo "softirqlat bench: $SOFTIRQS missing (Debian package libbpf-tools)" >&2
	exit 1
fi
[ -x "$FLOOR" ] || { echo "softirqlat bench: $FLOOR not built (make bench builds it)" >&2; exit 1; }

start() {	# ROW: started in the background, its pid in pid_ROW, once attached
	local p
	case $1 in
	kfit)	"$BIN/softirqlat" -d $((SECS + 30))s >/dev/null 2>"$tmp/$1.err" & ;;
	kfitnq)	"$BIN/softirqlat" --no-queue -d $((SECS + 30))s >/dev/null 2>"$tmp/$1.err" & ;;
	anchor)	"$SOFTIRQS" -d $((SECS + 30)) 1 >/dev/null 2>"$tmp/$1.err" & ;;
	floor)	"$FLOOR" softirq >/dev/null 2>"$tmp/$1.err" & ;;
	esac
	p=$!
	pids="$pids $p"
	eval "pid_$1=$p"
	case $1 in
	kfit|kfitnq) bench_wait_for "$tmp/$1.err" Tracing 10 ;;
	anchor) bench_wait_progs "$p" 2 10 && sleep 0.5 ;;	# attached one after the other
	floor) bench_wait_for "$tmp/$1.err" attached 10 ;;
	esac || { cat "$tmp/$1.err" >&2; exit 1; }
}

round() {	# N: appends "ROW NS/SOFTIRQ RSS PROGS NS/RUN" lines to $tmp/rows
	local i order r p n
	order=$(echo $ROWS | tr ' ' '\n' | awk -v k="$1" '{ a[NR - 1] = $0 } END {
		for (i = 0; i < NR; i++) print a[(i + k) % NR] }')
	for r in $order; do start "$r"; done
	for r in $ROWS; do
		p=$(eval echo "\$pid_$r")
		read -r "c0_$r" "t0_$r" _ < <(bench_prog_stats "$p")
	done
	sirq0=$(bench_softirqs_total)
	"$HELPERS/softirqload" -d "$SECS" >/dev/null
	sirq1=$(bench_softirqs_total)
	n=$((sirq1 - sirq0))
	for r in $ROWS; do
		p=$(eval echo "\$pid_$r")
		read -r c1 t1 np < <(bench_prog_stats "$p")
		t1=$((t1 - $(eval echo "\$t0_$r")))
		c1=$((c1 - $(eval echo "\$c0_$r")))
		echo "$r $(awk -v t=$t1 -v n="$n" -v c=$c1 'BEGIN { printf "%.1f", n ? t / n : 0 }') $(bench_rss_kib "$p") $np $(awk -v t=$t1 -v c=$c1 'BEGIN { printf "%.1f", c ? t / c : 0 }')" >>"$tmp/rows"
	done
	echo "round $1: $n softirqs, order: $(echo $order)"
	kill -INT $pids 2>/dev/null
	wait
	pids=""
}

bench_stats_on
echo "== softirqlat vs softirqs -d and its floor: $ROUNDS rounds of ${SECS}s of softirqload, all attached at once =="
for k in $(seq 0 $((ROUNDS - 1))); do
	round "$k"
done
med() { awk -v r="$1" -v c="$2" '$1 == r { print $c }' "$tmp/rows" | bench_median; }
for r in $ROWS; do
	eval "ns_$r=$(med "$r" 2)"
	eval "rss_$r=$(med "$r" 3)"
	eval "np_$r=$(med "$r" 4)"
	eval "run_$r=$(med "$r" 5)"
done
printf '%-36s %6s %12s %8s %11s\n' TOOL PROGS "NS/SOFTIRQ" "NS/RUN" "PEAK RSS"
row() {
	printf '%-36s %6s %12s %8s %8sKiB\n' "$1" "$(eval echo "\$np_$2")" "$(eval echo "\$ns_$2")" \
		"$(eval echo "\$run_$2")" "$(eval echo "\$rss_$2")"
}
row "softirqlat" kfit
row "softirqlat --no-queue" kfitnq
row "softirqs -d (libbpf-tools)" anchor
row "floor (3 programs: a clock, a store)" floor
echo "BPF time per softirq (medians): softirqlat / softirqs -d $(bench_ratio "$ns_kfit" "$ns_anchor")," \
	"softirqlat / floor $(bench_ratio "$ns_kfit" "$ns_floor"), floor / softirqs -d $(bench_ratio "$ns_floor" "$ns_anchor"); " \
	"--no-queue / softirqs -d $(bench_ratio "$ns_kfitnq" "$ns_anchor")"
echo "(the queue delay needs a third program and clock read per softirq, on softirq_raise; softirqs has two)"
bench_goal softirqlat "BPF time per softirq, / softirqs -d" "$(bench_ratio "$ns_kfit" "$ns_anchor")" 1.00 \
	"floor / softirqs -d $(bench_ratio "$ns_floor" "$ns_anchor")" "softirqs -d ${ns_anchor} ns" \
	"$(bench_ratio "$ns_floor" "$ns_anchor")"
bench_goal softirqlat "BPF time per softirq, / its floor" "$(bench_ratio "$ns_kfit" "$ns_floor")" 1.10 \
	"floor ${ns_floor} ns" "-"
