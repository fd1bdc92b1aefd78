#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kd reads a long recording in bounded memory: every view (--summary, the
# tree, --folded, --svg, -j, --perfetto) of kftgen --many --irqs files of N
# and 4N iterations (11 records each, a softirq among them:
# tests/helpers/kftgen's header), peak RSS by GNU time. Memory must grow with what is open (threads x depth, the
# functions), never with the records: the 4N runs' peak within MARGIN of
# the N runs', both under CAP. Each file is read twice: a peak varies by
# a few MB with the chunks inflated ahead on the other CPU, so the
# smaller of 4N's is held against the larger of N's. No BPF, no root; no
# timing is asserted.
. "$(dirname "$0")/../lib.sh"

KD=$KFIT_BIN/kd
GEN=$KFIT_HELPERS/kftgen
N=25000
MARGIN=8192	# KiB the 4N run may take above the N run
CAP=65536	# KiB: about 12 MB is what kd takes on these files

need() {
	[ -x "$KD" ] || t_fail "no $KD (make)"
	[ -x "$GEN" ] || t_fail "no $GEN (make)"
	[ -x /usr/bin/time ] || t_fail "no /usr/bin/time (make deps: time)"
	# busybox's time prints 4 times ru_maxrss for %M
	/usr/bin/time --version 2>&1 | grep -q 'GNU Time' ||
		t_fail "/usr/bin/time is not GNU time (make deps: time)"
	"$GEN" --many "$N" --irqs n.kft || t_fail "kftgen --many $N --irqs"
	"$GEN" --many $((4 * N)) --irqs 4n.kft || t_fail "kftgen --many $((4 * N)) --irqs"
}

# kd FILE VIEW... twice, its stdout in NAME.out; prints the peak RSS of
# each run in KiB, the smaller first
peaks() {	# NAME FILE VIEW...
	local name=$1 i
	shift
	for i in 1 2; do
		/usr/bin/time -f %M -o "$name.rss" "$KD" "$@" >"$name.out" 2>"$name.err" ||
			t_fail "kd $* failed: $(head -n 3 "$name.err")"
		tail -n 1 "$name.rss"
	done | sort -n | tr '\n' ' '
}

# The view's peaks on both files bounded; NAME.out and 4NAME.out kept
bounded() {	# NAME VIEW...
	local name=$1 a0 a b b1
	shift
	read -r a0 a <<<"$(peaks "$name" n.kft "$@")"
	read -r b b1 <<<"$(peaks "4$name" 4n.kft "$@")"
	echo "kd $*: peak RSS $a0, $a KiB for $N iterations; $b, $b1 KiB for $((4 * N))"
	[ "$a" -le "$CAP" ] && [ "$b1" -le "$CAP" ] ||
		t_fail "kd $*: peak RSS up to $a KiB, $b1 KiB: above ${CAP} KiB"
	[ "$b" -le $((a + MARGIN)) ] ||
		t_fail "kd $*: peak RSS grows with the records: up to $a KiB for $N iterations, at least $b KiB for $((4 * N))"
}

# A summary row's count: "FUNCTION COUNT ..."
count() {	# FUNCTION FILE
	awk -v f="$1" '$1 == f { print $2 }' "$2"
}

test_summary_bounded() {
	need
	bounded sum --summary
	t_assert_eq "$(count main_loop 4sum.out)" $((4 * N)) "main_loop's count, 4N"
	t_assert_eq "$(count leaf 4sum.out)" $((12 * N)) "leaf's count, 4N"
	t_assert_eq "$(count vfs_write 4sum.out)" $((8 * N)) "vfs_write's count, 4N (half in softirqs)"
}

test_tree_bounded() {
	need
	bounded tree
	t_assert_eq "$(grep -c ' main_loop$' 4tree.out)" $((4 * N)) "main_loop lines, 4N"
	t_assert_eq "$(grep -c '^== pid 100 tid 10[01] ' 4tree.out)" 2 "the threads' heads"
	t_assert_eq "$(grep -c '==> softirq NET_RX (cpu 0)$' 4tree.out)" $((4 * N)) "softirqs, 4N"
}

test_folded_bounded() {
	need
	bounded fold --folded
	t_assert_eq "$(grep -c '^gen;main_loop;work;leaf ' 4fold.out)" 1 "a stack, once"
	t_assert_eq "$(grep -c '^gen;main_loop;work;\[irq\] softirq NET_RX;vfs_write ' 4fold.out)" 1 \
		"the softirq's stack"
	t_assert_eq "$(wc -l <4fold.out)" "$(wc -l <fold.out)" "the same stacks for N and 4N"
}

test_svg_bounded() {
	need
	bounded svg --svg a.svg
	[ -s a.svg ] || t_fail "no SVG written"
	grep -q '<title>main_loop (' a.svg || t_fail "no main_loop frame in the SVG"
	t_assert_no_match "$(cat 4svg.out)" '<svg' "the SVG on stdout"
}

test_json_bounded() {
	need
	bounded json -j
	t_assert_eq "$(grep -o '"name":"main_loop"' 4json.out | wc -l)" $((4 * N)) \
		"main_loop calls in -j, 4N"
	t_assert_match "$(tail -c 2 4json.out)" '^}$' "-j's JSON ends"
}

test_perfetto_bounded() {
	need
	bounded perfetto --perfetto a.json
	[ -s a.json ] || t_fail "no Perfetto JSON written"
	t_assert_eq "$(grep -o '"ph":"X","name":"main_loop"' a.json | wc -l)" $((4 * N)) \
		"main_loop slices in the Perfetto JSON, 4N"
	t_assert_eq "$(grep -o '"ph":"X","name":"softirq NET_RX"' a.json | wc -l)" $((4 * N)) \
		"softirq slices on their track, 4N"
	t_assert_eq "$(grep -o '"name":"thread_name","pid":4194304,"tid":[0-9]*,"args":{"name":"softirq cpu 0"}' a.json | wc -l)" 1 \
		"the softirq track, once"
	t_assert_match "$(tail -c 2 a.json)" '^}$' "the Perfetto JSON ends"
	t_assert_no_match "$(cat 4perfetto.out)" 'traceEvents' "the JSON on stdout"
}

t_run_all
