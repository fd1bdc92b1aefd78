#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softirqlat against libbpf-tools' `softirqs -d`, all attached at once under
# the same load: BPF run time per softirq and peak RSS, side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
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
"$BIN/softirqlat" -d $((SECS + 5))s >/dev/null 2>"$tmp/kfit.err" &
kfit=$!
"$BIN/softirqlat" --no-queue -d $((SECS + 5))s >/dev/null 2>"$tmp/kfitnq.err" &
kfitnq=$!
"$SOFTIRQS" -d $((SECS + 5)) 1 >/dev/null 2>"$tmp/anchor.err" &
anchor=$!
pids="$kfit $kfitnq $anchor"
bench_wait_for "$tmp/kfit.err" Tracing 10 || { cat "$tmp/kfit.err" >&2; exit 1; }
bench_wait_for "$tmp/kfitnq.err" Tracing 10 || { cat "$tmp/kfitnq.err" >&2; exit 1; }
bench_wait_progs $anchor 2 10 || { cat "$tmp/anchor.err" >&2; exit 1; }
sleep 0.5	# the anchor attaches its programs one after the other

read -r k0 kt0 kn < <(bench_prog_stats $kfit)
read -r q0 qt0 qn < <(bench_prog_stats $kfitnq)
read -r a0 at0 an < <(bench_prog_stats $anchor)
sirq0=$(bench_softirqs_total)
"$HELPERS/softirqload" -d "$SECS" >/dev/null
sirq1=$(bench_softirqs_total)
read -r k1 kt1 kn < <(bench_prog_stats $kfit)
read -r q1 qt1 qn < <(bench_prog_stats $kfitnq)
read -r a1 at1 an < <(bench_prog_stats $anchor)
k_rss=$(bench_rss_kib $kfit)
q_rss=$(bench_rss_kib $kfitnq)
a_rss=$(bench_rss_kib $anchor)
kill -INT $pids 2>/dev/null
wait
pids=""

n=$((sirq1 - sirq0))
per() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.1f", n ? t / n : 0 }'; }
k_ns=$(per $((kt1 - kt0)) $n)
q_ns=$(per $((qt1 - qt0)) $n)
a_ns=$(per $((at1 - at0)) $n)
row() {
	printf '%-24s %6s %12s %14s %12s %12s %8sKiB\n' "$1" "$2" "$3" "$4" "$5" \
		"$(per "$4" "$3")" "$6"
}
echo "== softirqlat vs softirqs -d: ${SECS}s of softirqload, $n softirqs, all attached at once =="
printf '%-24s %6s %12s %14s %12s %12s %11s\n' TOOL PROGS "BPF RUNS" "BPF TIME (ns)" \
	"NS/SOFTIRQ" "NS/RUN" "PEAK RSS"
row "softirqlat" "$kn" $((k1 - k0)) $((kt1 - kt0)) "$k_ns" "$k_rss"
row "softirqlat --no-queue" "$qn" $((q1 - q0)) $((qt1 - qt0)) "$q_ns" "$q_rss"
row "softirqs -d" "$an" $((a1 - a0)) $((at1 - at0)) "$a_ns" "$a_rss"
echo "ratio to softirqs -d, BPF time per softirq: softirqlat $(bench_ratio "$k_ns" "$a_ns")," \
	"softirqlat --no-queue $(bench_ratio "$q_ns" "$a_ns"); peak RSS $(bench_ratio "$k_rss" "$a_rss")"
echo "(the queue delay needs a third program and clock read per softirq, on softirq_raise)"
