#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softirqlat against libbpf-tools' `softirqs -d`, both attached at once under
# the same load: BPF run time per softirq and peak RSS, side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
BIN=${KFIT_BIN:-$here/../../build/bin}
HELPERS=${KFIT_HELPERS:-$here/../../build/tests}
SECS=${BENCH_SECS:-10}
SOFTIRQS=$(command -v softirqs || echo /usr/sbin/softirqs)
tmp=$(mktemp -d)
pids=""

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
bench_stats_on
"$BIN/softirqlat" -d $((SECS + 5))s >"$tmp/kfit.out" 2>"$tmp/kfit.err" &
kfit=$!
"$SOFTIRQS" -d $((SECS + 5)) 1 >"$tmp/anchor.out" 2>"$tmp/anchor.err" &
anchor=$!
pids="$kfit $anchor"
bench_wait_for "$tmp/kfit.err" Tracing 10 || { cat "$tmp/kfit.err" >&2; exit 1; }
bench_wait_for "$tmp/anchor.err" Tracing 10 || { cat "$tmp/anchor.err" >&2; exit 1; }

read -r k_cnt0 k_time0 k_n < <(bench_prog_stats $kfit)
read -r a_cnt0 a_time0 a_n < <(bench_prog_stats $anchor)
sirq0=$(bench_softirqs_total)
"$HELPERS/softirqload" -d "$SECS" >/dev/null
sirq1=$(bench_softirqs_total)
read -r k_cnt1 k_time1 k_n < <(bench_prog_stats $kfit)
read -r a_cnt1 a_time1 a_n < <(bench_prog_stats $anchor)
k_rss=$(bench_rss_kib $kfit)
a_rss=$(bench_rss_kib $anchor)
kill -INT $kfit $anchor 2>/dev/null
wait
pids=""

n=$((sirq1 - sirq0))
k_ns=$(awk -v t=$((k_time1 - k_time0)) -v n=$n 'BEGIN { printf "%.1f", n ? t / n : 0 }')
a_ns=$(awk -v t=$((a_time1 - a_time0)) -v n=$n 'BEGIN { printf "%.1f", n ? t / n : 0 }')
echo "== softirqlat vs softirqs -d: ${SECS}s of softirqload, $n softirqs, both attached =="
printf '%-14s %6s %12s %14s %14s %10s\n' TOOL PROGS "BPF RUNS" "BPF TIME (ns)" "NS/SOFTIRQ" "PEAK RSS"
printf '%-14s %6s %12s %14s %14s %8sKiB\n' softirqlat "$k_n" $((k_cnt1 - k_cnt0)) \
	$((k_time1 - k_time0)) "$k_ns" "$k_rss"
printf '%-14s %6s %12s %14s %14s %8sKiB\n' "softirqs -d" "$a_n" $((a_cnt1 - a_cnt0)) \
	$((a_time1 - a_time0)) "$a_ns" "$a_rss"
echo "ratio softirqlat/softirqs: BPF time per softirq $(bench_ratio "$k_ns" "$a_ns"), peak RSS $(bench_ratio "$k_rss" "$a_rss")"
echo "(softirqlat also measures the queue delay: it runs on softirq_raise as well)"
