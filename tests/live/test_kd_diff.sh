#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kd --diff on two recordings of a real program made here (root: callgraph
# -o through uprobes): durtarget's spin scenario, N calls of dt_short (10 us)
# and N of dt_long (2 ms), then again with dt_long made slower
# (DURTARGET_LONG_US). The slower function must come out on top, per
# function and per call path, and the unchanged one must not pass the
# threshold; a function traced in one run only is listed as such. In the
# differential flame graph (--svg) the slower one is red, the other white
# or near it.
. "$(dirname "$0")/../lib.sh"

export LC_ALL=C
CG=$KFIT_BIN/callgraph
KD=$KFIT_BIN/kd
DT=$KFIT_HELPERS/durtarget
N=20

need() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$KD" ] || t_fail "$KD not built"
	[ -x "$DT" ] || t_fail "$DT not built"
}

# durtarget spin N recorded into FILE, tracing FUNCS; LONG_US: dt_long's time.
# It spins at a real-time priority (chrt -f): no other task of the machine
# preempts a call, so a call's time is the workload's, under any load
record() {	# FILE LONG_US FUNCS...
	local f=$1 us=$2
	shift 2
	DURTARGET_LONG_US=$us t_expect_exit 0 "$CG" -o "$f" "${@/#/$DT:}" -- \
		chrt -f 10 "$DT" spin "$N"
	[ -s "$f" ] || t_fail "no recording $f: $(cat "$T_ERR")"
}

# The rows of the function table (after the header, before the blank line)
functions() { awk 'NR > 3 && /^$/ { exit } NR > 3' "$T_OUT"; }

# The rows of the call path table
paths() { awk 'seen && NR > h { print } /^CALL PATH/ { seen = 1; h = NR }' "$T_OUT" | grep -v '^[0-9]'; }

test_slower_on_top() {
	need
	record before.kft 2000 dt_short dt_long
	record after.kft 4000 dt_short dt_long
	t_expect_exit 0 "$KD" --diff before.kft after.kft --min-change 50
	t_assert_match "$(head -n 1 "$T_OUT")" "^Before: before.kft, $((2 * N)) calls in" "header"
	t_assert_eq "$(functions | awk 'NR == 2 { print $1 }')" dt_long "the first row"
	# twice as long: TOTAL +100% give or take the tracing's own cost
	t_assert_match "$(functions | awk '$1 == "dt_long"')" \
		"$N -> $N \\+0\\.0% +[0-9.]+ms -> [0-9.]+ms \\+(9[0-9]|10[0-9])\\.[0-9]%" "dt_long's row"
	[ -n "$(functions | awk '$1 == "dt_short"')" ] &&
		t_fail "dt_short (unchanged) passed --min-change 50: $(functions)"
	t_assert_match "$(cat "$T_OUT")" "^1 function changed less than 50% or past -n: not shown$" \
		"the note of what was left out"
	t_assert_eq "$(paths | awk 'NR == 1 { print $1 }')" dt_long "the first call path"
	# without a threshold both, the slower first
	t_expect_exit 0 "$KD" --diff before.kft after.kft
	t_assert_eq "$(functions | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" "dt_long dt_short " \
		"the order without a threshold"
	# -s count: by the change of the calls, none changed: by name
	t_expect_exit 0 "$KD" --diff before.kft after.kft -s count -f count,time
	t_assert_eq "$(functions | awk 'NR == 1 { print $1, $2, $3 }')" "FUNCTION COUNT TOTAL" "-f"
	t_assert_eq "$(functions | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" "dt_long dt_short " \
		"-s count: ties by name"
}

test_one_run_only() {
	need
	record before.kft 2000 dt_short
	record after.kft 2000 dt_short dt_long
	t_expect_exit 0 "$KD" --diff before.kft after.kft
	t_assert_match "$(cat "$T_OUT")" "^only in after: dt_long \\($N calls, [0-9.]+ms\\)$" \
		"dt_long, after only"
	t_assert_match "$(cat "$T_OUT")" "^0 paths in before only, 1 in after only$" "paths"
	# the other way round
	t_expect_exit 0 "$KD" --diff after.kft before.kft
	t_assert_match "$(cat "$T_OUT")" "^only in before: dt_long" "dt_long, before only"
}

# Differential folded stacks: PATH BEFORE_NS AFTER_NS, flamegraph.pl's difffolded
test_folded() {
	need
	record before.kft 2000 dt_short dt_long
	record after.kft 4000 dt_short dt_long
	t_expect_exit 0 "$KD" --diff before.kft after.kft --folded
	t_assert_eq "$(awk '{ print $1 }' "$T_OUT" | sort | tr '\n' ' ')" "dt_long dt_short " "paths"
	t_assert_eq "$(awk '$1 == "dt_long" { print ($3 > 1.8 * $2) }' "$T_OUT")" 1 \
		"dt_long's local time about doubled: $(cat "$T_OUT")"
	t_assert_eq "$(awk '$1 == "dt_long" { print ($2 >= '$N' * 2000000) }' "$T_OUT")" 1 \
		"dt_long's time before: at least $N x 2 ms"
}

# -j: the rows of the tables as JSON (jq reads them)
test_json() {
	local q
	need
	record before.kft 2000 dt_short dt_long
	record after.kft 4000 dt_short dt_long
	t_expect_exit 0 "$KD" --diff before.kft after.kft --min-change 50 -j
	jq -e . "$T_OUT" >/dev/null || t_fail "not JSON: $(head -c 300 "$T_OUT")"
	q='[.before.calls, .after.calls, (.functions | length), .functions[0].name,
	    .functions[0].before.count, .functions[0].after.count, .functions_not_shown,
	    .paths[0].path] | map(tostring) | join(" ")'
	t_assert_eq "$(jq -r "$q" "$T_OUT")" "$((2 * N)) $((2 * N)) 1 dt_long $N $N 1 dt_long" \
		"runs, dt_long alone past 50%, dt_short left out"
	# busy-waits are lower bounds (a preempted call only lasts longer):
	# at least +90%, and the change is the totals' own
	t_assert_eq "$(jq -r '.functions[0] | .change_pct >= 90 and
		((.change_pct - (.after.total_ns - .before.total_ns) * 100 / .before.total_ns) |
		 fabs < 0.01)' "$T_OUT")" true \
		"dt_long +100% or more, as its totals say: $(jq -c '.functions[0]' "$T_OUT")"
	t_assert_eq "$(jq -r '.functions[0] | (.after.total_ns > 1.8 * .before.total_ns)' "$T_OUT")" \
		true "dt_long's total doubled"
}

# The "R G B" of the frame of the differential flame graph SVG named NAME
fill() {	# SVG NAME
	grep -F "<title>$2: before " "$1" | head -n 1 |
		sed -n 's/.* fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))".*/\1 \2 \3/p'
}

# --svg: a differential flame graph; dt_long's own time doubled is red,
# half-way deep (green and blue 150 at +100%; at most 180: +56%, room for
# a preempted call in the first run), dt_short's unchanged white or near
# it (at least 185: within -33% and +50%, the tracing's own cost on 10 us)
test_svg() {
	local r g b
	need
	record before.kft 2000 dt_short dt_long
	record after.kft 4000 dt_short dt_long
	t_expect_exit 0 "$KD" --diff before.kft after.kft --svg d.svg
	if command -v xmllint >/dev/null; then
		xmllint --noout d.svg || t_fail "xmllint rejects the SVG"
	elif ! t_in_vm; then
		t_fail "no xmllint (make deps)"
	fi
	t_assert_match "$(cat d.svg)" "<title>dt_long: before [0-9.]+ms, after [0-9.]+ms, \\+[0-9]+\\.[0-9]%; local: " \
		"dt_long's title"
	read -r r g b <<<"$(fill d.svg dt_long)"
	[ -n "$b" ] || t_fail "no frame dt_long: $(grep -o '<title>[^<]*' d.svg)"
	[ "$r" = 255 ] && [ "$g" = "$b" ] && [ "$g" -le 180 ] ||
		t_fail "dt_long's fill rgb($r,$g,$b): not red"
	read -r r g b <<<"$(fill d.svg dt_short)"
	[ -n "$b" ] || t_fail "no frame dt_short: $(grep -o '<title>[^<]*' d.svg)"
	[ "$g" -ge 185 ] && [ "$r" -ge 185 ] && [ "$b" -ge 185 ] ||
		t_fail "dt_short's fill rgb($r,$g,$b): not white or near it ($(grep -o '<title>dt_short[^<]*' d.svg))"
}

test_refused() {
	need
	record before.kft 2000 dt_short
	t_expect_exit 2 "$KD" --diff before.kft
	t_assert_match "$(cat "$T_ERR")" "^kd: --diff compares two files" "one file"
	t_expect_exit 2 "$KD" --diff before.kft before.kft --events
	t_expect_exit 1 "$KD" --diff before.kft before.kft --svg /nonexistent/d.svg
	t_assert_match "$(cat "$T_ERR")" "^kd: cannot write /nonexistent/d.svg: " "--svg's bad path"
	t_expect_exit 1 "$KD" --diff before.kft missing.kft
	t_assert_match "$(cat "$T_ERR")" "^kd: missing.kft: " "a missing file"
}

t_run_all
