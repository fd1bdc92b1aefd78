#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of funcdur on the running kernel (root): user functions of
# tests/helpers/durtarget through uprobes, syscalls through their
# tracepoints, bad input, signals, and kernel functions where this kernel
# cannot trace them.
#
# Most tests start `durtarget -w SCENARIO N` (it waits for SIGUSR1), then
# `funcdur -p PID ...` in the background, wait for its "Tracing" line, and
# let durtarget run; funcdur ends with it: the counts are then exact.
. "$(dirname "$0")/../lib.sh"

FD="$KFIT_BIN/funcdur"
. "$T_REPO/tests/errwork-lib.sh"
DT="$KFIT_HELPERS/durtarget"
# Durations. A busy-wait never ends early, so nominal times are exact
# lower bounds; from above, uprobes, preemption and emulation lengthen
# calls by any amount. So no assertion here bounds a duration from above:
# local time and max-sub are checked by what nesting makes exact (a
# caller's total minus local is its traced callees' total; an outermost
# call is at least its inner calls' busy-waits longer than the innermost).
: "${FD_WAIT:=30}"	# seconds to wait for the "Tracing" line

need_tool() {
	t_need_root
	[ -x "$FD" ] || t_fail "$FD not built"
	[ -x "$DT" ] || t_fail "$DT not built"
}

# ---- funcdur in the background ------------------------------------------

bg_start() {	# args...
	rm -f "$T_TMP/bg.out.kv"
	t_bg_start "$FD" "$@"
}

bg_wait_tracing() { t_bg_wait_tracing "$FD_WAIT"; }

bg_stop() { t_bg_stop_ok "$1" 30; }	# funcdur must end with status 0

# With -p PID or -t TID it ends by itself once that process or thread has
# (durtarget has: t_held_go waits for it), with status 0
bg_end() {
	t_bg_wait_exit 30
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "funcdur exited $BG_RC once its process had ended, expected 0"
	}
}

# durtarget -w SCENARIO N, prefixed by a command if given; sets DT_PID
dt_start() {	# SCENARIO N [command...]
	local sc=$1 n=$2
	shift 2
	t_held_start "$@" "$DT" -w "$sc" "$n"
	DT_PID=$HELD_PID
}

dt_go() { t_held_go; }

# durtarget SCENARIO N under `funcdur -p PID ARGS...`, which ends when
# durtarget does; the report is in bg.out
traced_run() {	# SCENARIO N funcdur-args...
	local sc=$1 n=$2
	shift 2
	dt_start "$sc" "$n"
	bg_start -p "$DT_PID" "$@"
	bg_wait_tracing
	dt_go
	bg_end
}

# ---- JSON -----------------------------------------------------------------
# jq costs about 0.4 s a run under emulation (the VM): a document is
# checked and flattened by one jq run into FILE.kv, "NAME<TAB>KEY<TAB>VALUE"
# lines that fv reads with builtins. Keys: every scalar field, max_sub
# (null or object), max_sub.name, max_sub.total_ns, hist.length, hist.sum;
# NAME "-" holds the document's mode, lost, nfunctions and names (in order).

# shellcheck disable=SC2016
JQ_FLAT='
	"-\tmode\t\(.mode)", "-\tlost\t\(.lost)",
	"-\tnfunctions\t\(.functions | length)",
	"-\tnames\t\([.functions[].name] | join(","))",
	(.functions[] | .name as $n |
		(to_entries[] | select(.value | type != "object" and type != "array")
			| "\($n)\t\(.key)\t\(.value)"),
		"\($n)\tmax_sub\t\(if .max_sub == null then "null" else "object" end)",
		"\($n)\tmax_sub.name\t\(.max_sub.name?)",
		"\($n)\tmax_sub.total_ns\t\(.max_sub.total_ns?)",
		"\($n)\thist.length\t\(.hist | length)",
		"\($n)\thist.sum\t\([.hist[]?.count] | add // 0)")'

# The value of KEY of function NAME ("-": the document), "missing" if none
fv() {	# FILE NAME KEY
	local n k v
	[ -f "$1.kv" ] || assert_json_doc "$1" "funcdur's output ($(basename "$1"))"
	while IFS=$'\t' read -r n k v; do
		[ "$n" = "$2" ] && [ "$k" = "$3" ] && { printf '%s\n' "$v"; return 0; }
	done <"$1.kv"
	echo missing
}

# The sum of KEY over the functions whose name matches the glob
fsum() {	# FILE GLOB KEY
	local n k v sum=0
	[ -f "$1.kv" ] || assert_json_doc "$1" "funcdur's output ($(basename "$1"))"
	while IFS=$'\t' read -r n k v; do
		# shellcheck disable=SC2254
		case $n in $2) [ "$k" = "$3" ] && sum=$((sum + v)) ;; esac
	done <"$1.kv"
	echo "$sum"
}

# The same, which must be a number
fnum() {	# FILE NAME KEY
	local v
	v=$(fv "$1" "$2" "$3")
	_t_is_num "$v" || {
		grep -E "^-|	count	" "$1.kv" >&2
		t_fail "$2.$3 is not a number: '$v'"
	}
	echo "$v"
}

# Prints one line per problem of a funcdur -j document
# shellcheck disable=SC2016
JQ_SCHEMA='
def fields: ["count", "total_ns", "avg_ns", "min_ns", "max_ns", "local_ns",
	"p50_ns", "p99_ns", "filtered"];
def check_fn:
	(.name | tostring) as $w |
	(select((.name | type) != "string") | "function name is not a string: \(.name)"),
	(fields[] as $f | select((.[$f] | type) != "number")
		| "\($w).\($f) is not a number: \(.[$f] | tojson)"),
	(select((.hist | type) != "array") | "\($w).hist is not an array"),
	(select(has("max_sub") | not) | "\($w): no max_sub"),
	(select(.max_sub != null and ((.max_sub | type) != "object" or
		(.max_sub.name | type) != "string" or (.max_sub.total_ns | type) != "number"))
		| "\($w).max_sub malformed: \(.max_sub | tojson)"),
	(if ([fields[] as $f | .[$f] | type] | unique) == ["number"] and (.hist | type) == "array"
	 then
		(select(.hist[] | (.lower_ns | type) != "number" or (.count | type) != "number")
			| "\($w).hist entry malformed"),
		(select(.count > 0 and (.min_ns > .avg_ns or .avg_ns > .max_ns))
			| "\($w): not min <= avg <= max: \(.min_ns) \(.avg_ns) \(.max_ns)"),
		(select(.count > 0 and (.p50_ns > .p99_ns or .p99_ns > .max_ns))
			| "\($w): not p50 <= p99 <= max: \(.p50_ns) \(.p99_ns) \(.max_ns)"),
		(select(.count > 0 and ((.avg_ns - .total_ns / .count) | fabs) > 1)
			| "\($w): avg_ns \(.avg_ns) but total_ns/count = \(.total_ns / .count)"),
		(select(.count > 0 and .total_ns < .max_ns)
			| "\($w): total_ns \(.total_ns) < max_ns \(.max_ns)"),
		(select(.count == 0 and (.total_ns != 0 or .max_ns != 0 or .local_ns != 0))
			| "\($w): count 0 with total_ns \(.total_ns), max_ns \(.max_ns), local_ns \(.local_ns)"),
		(select(.local_ns > .total_ns)
			| "\($w): local_ns \(.local_ns) > total_ns \(.total_ns)"),
		(select(.max_sub != null and (.max_sub.total_ns | type) == "number" and
			.max_sub.total_ns > .total_ns - .local_ns + 1)
			| "\($w): max_sub.total_ns \(.max_sub.total_ns) > total - local \(.total_ns - .local_ns)"),
		(select(([.hist[].count] | add // 0) != .count)
			| "\($w): hist counts sum to \([.hist[].count] | add // 0), count is \(.count)"),
		(select([.hist[].lower_ns] as $l | $l != ($l | sort) or $l != ($l | unique))
			| "\($w): hist lower_ns not increasing"),
		(select(.count > 0 and (.hist | length) > 0 and .hist[-1].lower_ns > .max_ns)
			| "\($w): last bucket starts at \(.hist[-1].lower_ns) above max_ns \(.max_ns)")
	 else empty end);
(select((.mode | type) != "string") | "mode is not a string: \(.mode | tojson)"),
(select((.lost | type) != "number") | "lost is not a number: \(.lost | tojson)"),
(select((.skipped | type) != "array") | "skipped is not an array"),
(select((.skipped | type) == "array") | .skipped[]
	| select((.name | type) != "string" or (.reason | type) != "string")
	| "skipped entry malformed: \(tojson)"),
(if (.functions | type) != "array" then "functions is not an array"
 else
	(.functions[] | check_fn),
	(select([.functions[].name] | length != (unique | length)) | "a function is listed twice")
 end)'

# One JSON document with the schema above; flattened into FILE.kv
assert_json_doc() {	# file what
	local out
	rm -f "$1.kv"
	[ -s "$1" ] || t_fail "$2: no output"
	out=$(jq -s -r "if length != 1 then \"!\(length) JSON documents, expected 1\"
		else (.[0] | ([$JQ_SCHEMA] | map(\"!\" + .) | .[]), $JQ_FLAT) end" "$1" 2>&1) || {
		t_show_file "$1" "$2"
		t_fail "$2: not valid JSON: $(echo "$out" | head -n 1)"
	}
	if printf '%s\n' "$out" | grep -q '^!'; then
		printf '%s\n' "$out" | sed -n 's/^!//p'
		t_fail "$2: $(printf '%s\n' "$out" | sed -n 's/^!//p' | head -n 1) ($(printf '%s\n' "$out" | grep -c '^!') problems)"
	fi
	printf '%s\n' "$out" >"$1.kv"
}

# ---- BPF objects ----------------------------------------------------------

# Is function tracing (fentry or kprobes) possible on this kernel?
kernel_tracing_works() {
	local tc=$KFIT_BIN/tracecheck
	[ -x "$tc" ] || t_fail "$tc not built"
	timeout "$T_CMD_TIMEOUT" "$tc" -j 2>/dev/null </dev/null |
		jq -e '[.checks[] | select(.name == "fentry" or .name == "kprobe") | .ok] | any' \
			>/dev/null
}

# ---- user functions: counts and durations --------------------------------

# nest: dt_outer = 100 us own + 3 x dt_inner (one through mid_untraced)
test_nest_counts_local_max_sub() {
	need_tool
	local n=20 f=bg.out outer_local inner_total
	traced_run nest "$n" -j "$DT:dt_outer" "$DT:dt_inner"
	assert_json_doc "$f" "funcdur -j (nest)"
	t_assert_eq "$(fnum $f dt_outer count)" "$n" "dt_outer count"
	t_assert_eq "$(fnum $f dt_inner count)" $((3 * n)) "dt_inner count (2 direct + 1 through mid_untraced)"
	t_assert_eq "$(fv $f dt_outer filtered)" 0 "dt_outer filtered"
	# a busy-wait never ends early
	[ "$(fnum $f dt_inner min_ns)" -ge 200000 ] ||
		t_fail "dt_inner min_ns $(fv $f dt_inner min_ns) < 200 us, its busy-wait"
	[ "$(fnum $f dt_outer min_ns)" -ge 700000 ] ||
		t_fail "dt_outer min_ns $(fv $f dt_outer min_ns) < 700 us, its busy-waits"
	# every dt_inner call is inside a dt_outer call
	[ "$(fnum $f dt_outer max_ns)" -gt "$(fnum $f dt_inner max_ns)" ] ||
		t_fail "dt_outer max_ns not above dt_inner's, which it contains"
	# 100 us of its own; 300 us if the call through mid_untraced were
	# not subtracted, 700 us if none were
	outer_local=$(($(fnum $f dt_outer local_ns) / n))
	[ "$outer_local" -ge 100000 ] ||
		t_fail "dt_outer local time per call ${outer_local}ns < 100 us, its own busy-wait"
	# dt_inner calls nothing traced: all its time is its own
	t_assert_eq "$(fnum $f dt_inner local_ns)" "$(fnum $f dt_inner total_ns)" "dt_inner local_ns = total_ns"
	t_assert_eq "$(fv $f dt_inner max_sub)" null "dt_inner max_sub"
	# every dt_inner call is inside a dt_outer: outer's total - local = inner's total
	inner_total=$(fnum $f dt_inner total_ns)
	t_within_pct $(($(fnum $f dt_outer total_ns) - $(fnum $f dt_outer local_ns))) "$inner_total" 1 \
		"dt_outer total_ns - local_ns against dt_inner total_ns"
	t_assert_eq "$(fv $f dt_outer max_sub.name)" dt_inner "dt_outer max_sub"
	t_within_pct "$(fv $f dt_outer max_sub.total_ns)" "$inner_total" 1 \
		"dt_outer max_sub.total_ns against dt_inner total_ns"
	[ "$(fv $f dt_outer max_sub.total_ns)" -ge $((600000 * n)) ] ||
		t_fail "dt_outer max_sub.total_ns $(fv $f dt_outer max_sub.total_ns) < $n x 600 us"
	t_assert_eq "$(fv $f - mode)" uprobe "mode"
	t_assert_eq "$(fv $f - lost)" 0 "lost"
}

# recurse: dt_recurse(4) = calls of 200, 150, 100, 50 us, 50 us own each
test_recurse_nested_durations() {
	need_tool
	local n=10 f=bg.out
	traced_run recurse "$n" -j "$DT:dt_recurse"
	assert_json_doc "$f" "funcdur -j (recurse)"
	t_assert_eq "$(fnum $f dt_recurse count)" $((4 * n)) "dt_recurse count"
	# calls of 200, 150, 100 and 50 us, 50 us of each its own
	[ "$(fnum $f dt_recurse min_ns)" -ge 50000 ] || t_fail "dt_recurse min_ns < 50 us"
	[ "$(fnum $f dt_recurse max_ns)" -ge 200000 ] ||
		t_fail "dt_recurse max_ns $(fv $f dt_recurse max_ns) < 200 us: the outermost call is not measured whole"
	[ "$(fnum $f dt_recurse total_ns)" -ge $((500000 * n)) ] ||
		t_fail "dt_recurse total_ns $(fv $f dt_recurse total_ns) < $n x 500 us"
	[ "$(fnum $f dt_recurse local_ns)" -ge $((200000 * n)) ] ||
		t_fail "dt_recurse local_ns $(fv $f dt_recurse local_ns) < $n x 4 x 50 us"
	t_assert_eq "$(fv $f dt_recurse max_sub.name)" dt_recurse "dt_recurse max_sub (its own recursion)"
	t_within_pct "$(fv $f dt_recurse max_sub.total_ns)" \
		$(($(fnum $f dt_recurse total_ns) - $(fnum $f dt_recurse local_ns))) 1 \
		"dt_recurse max_sub.total_ns against total_ns - local_ns"
	# innermost calls measured apart: each outermost call is at least
	# 150 us (three inner busy-waits) longer than its innermost one
	[ $(($(fnum $f dt_recurse max_ns) - $(fnum $f dt_recurse min_ns))) -ge 150000 ] ||
		t_fail "dt_recurse max_ns - min_ns < 150 us: the innermost calls are not measured apart"
	# local time sums to the outermost calls' durations, each at most
	# max_ns; at least the three inner calls' 300 us were subtracted
	[ "$(fnum $f dt_recurse local_ns)" -le $(($(fnum $f dt_recurse max_ns) * n)) ] ||
		t_fail "dt_recurse local_ns $(fv $f dt_recurse local_ns) > $n x max_ns: inner calls not subtracted"
	[ $(($(fnum $f dt_recurse total_ns) - $(fnum $f dt_recurse local_ns))) -ge $((300000 * n)) ] ||
		t_fail "dt_recurse total_ns - local_ns < $n x 300 us: inner calls not subtracted"
}

# deep: dt_deep(40) nests deeper than the stacks keep (32): the 8
# innermost calls are counted too deep, and their exits (50 us apart)
# pop no outer frame: each kept call ends at its own exit
test_deeper_than_stack() {
	need_tool
	local n=3 f=bg.out
	traced_run deep "$n" -j "$DT:dt_deep"
	assert_json_doc "$f" "funcdur -j (deep)"
	t_assert_eq "$(fnum $f dt_deep count)" $((32 * n)) "dt_deep count"
	t_assert_eq "$(jq .too_deep "$f")" $((8 * n)) "too_deep"
	# the innermost kept call, the 32nd, returns after 9 x 50 us, the
	# outermost after 40 x 50 us
	[ "$(fnum $f dt_deep min_ns)" -ge 450000 ] ||
		t_fail "dt_deep min_ns $(fv $f dt_deep min_ns) < 450 us: a deeper call's exit popped a kept frame"
	[ "$(fnum $f dt_deep max_ns)" -ge 2000000 ] ||
		t_fail "dt_deep max_ns $(fv $f dt_deep max_ns) < 2 ms: the outermost call ended early"
}

# threads: 4 threads on a stack each; preemption only lengthens calls
test_threads_counts() {
	need_tool
	local n=20 f=bg.out
	traced_run threads "$n" -j "$DT:dt_inner"
	assert_json_doc "$f" "funcdur -j (threads)"
	t_assert_eq "$(fnum $f dt_inner count)" $((4 * n)) "dt_inner count over 4 threads"
	[ "$(fnum $f dt_inner min_ns)" -ge 200000 ] ||
		t_fail "dt_inner min_ns $(fv $f dt_inner min_ns) < 200 us, its busy-wait"
	t_assert_eq "$(fv $f dt_inner local_ns)" "$(fv $f dt_inner total_ns)" "dt_inner local_ns = total_ns"
}

# sleep: wall time, so the sleeps are in the durations
test_sleep_wall_time() {
	need_tool
	local n=10 f=bg.out
	traced_run sleep "$n" -j "$DT:dt_sleep"
	assert_json_doc "$f" "funcdur -j (sleep)"
	t_assert_eq "$(fnum $f dt_sleep count)" "$n" "dt_sleep count"
	[ "$(fnum $f dt_sleep min_ns)" -ge 1000000 ] ||
		t_fail "dt_sleep min_ns $(fv $f dt_sleep min_ns) < 1 ms: the sleep is not in the wall time"
}

# With --min/--max: every call is kept or filtered, the kept ones within
# the bounds. KEPT is exact only where the busy-waits make it so (a 2 ms
# call is never under 1 ms); a 10 us call may be preempted past any bound,
# so for it KEPT is "-".
split_check() {	# FILE FUNC CALLS MIN_NS MAX_NS KEPT what
	local f=$1 fn=$2 calls=$3 lo=$4 hi=$5 kept=$6 what=$7 count filtered
	count=$(fnum "$f" "$fn" count)
	filtered=$(fnum "$f" "$fn" filtered)
	echo "$what: $fn count $count, filtered $filtered"
	t_assert_eq $((count + filtered)) "$calls" "$what: $fn count + filtered"
	t_assert_eq "$(fv "$f" "$fn" hist.sum)" "$count" "$what: $fn histogram counts"
	if [ "$count" -gt 0 ]; then
		[ "$(fnum "$f" "$fn" min_ns)" -ge "$lo" ] ||
			t_fail "$what: $fn min_ns $(fv "$f" "$fn" min_ns) below $lo"
		[ -z "$hi" ] || [ "$(fnum "$f" "$fn" max_ns)" -le "$hi" ] ||
			t_fail "$what: $fn max_ns $(fv "$f" "$fn" max_ns) above $hi"
	fi
	[ "$kept" = - ] || t_assert_eq "$count" "$kept" "$what: $fn count"
}

# --min/--max: dt_short (10 us) and dt_long (2 ms), bounds far from both
test_min_max_filters() {
	need_tool
	local n=15 f=bg.out
	traced_run spin "$n" -j --min 1ms "$DT:dt_short" "$DT:dt_long"
	split_check $f dt_short "$n" 1000000 "" - "--min 1ms"
	split_check $f dt_long "$n" 1000000 "" "$n" "--min 1ms"
	traced_run spin "$n" -j --max 1ms "$DT:dt_short" "$DT:dt_long"
	split_check $f dt_short "$n" 0 1000000 - "--max 1ms"
	split_check $f dt_long "$n" 0 1000000 0 "--max 1ms"
	traced_run spin "$n" -j --min 5us --max 1ms "$DT:dt_short" "$DT:dt_long"
	split_check $f dt_short "$n" 5000 1000000 - "--min 5us --max 1ms"
	split_check $f dt_long "$n" 5000 1000000 0 "--min 5us --max 1ms"
}

# --events: one line per call with its return value
test_events_json_ret() {
	need_tool
	local n=25 f=bg.out out
	kv() { printf '%s\n' "$out" | sed -n "s/^$1 //p"; }
	traced_run ret "$n" --events -j "$DT:dt_ret"
	# one jq run (slow under emulation): "KEY VALUE" lines
	out=$(jq -s -r --argjson pid "$DT_PID" '
		def bad: select((.time_ns | type) != "number" or (.cpu | type) != "number" or
			.pid != $pid or .tid != $pid or .comm != "durtarget" or
			.function != "dt_ret" or (.duration_ns | type) != "number" or
			.duration_ns <= 0 or (.ret | type) != "number");
		[.[] | select(.type == "call")] as $c |
		"calls \($c | length)",
		"bad \([$c[] | bad] | length) \([$c[] | bad][0] | tojson)",
		"rets \([$c[].ret] | sort | map(tostring) | join(" "))",
		"ordered \([$c[].time_ns] | . == sort)",
		"summary \([.[] | select(.type == "summary") | [.events, .lost]] | tojson)",
		"last \(.[-1].type)"' "$f" 2>&1) || {
		t_show_file "$f" "--events -j"
		t_fail "--events -j: not JSON lines: $(echo "$out" | head -n 1)"
	}
	t_assert_eq "$(kv calls)" "$n" "call lines"
	t_assert_eq "$(kv bad)" "0 null" "call lines not as expected (pid/tid $DT_PID, comm durtarget, function dt_ret): count, first"
	t_assert_eq "$(kv rets)" "$(seq 0 $((n - 1)) | awk '{ print 2 * $1 }' | sort -n | tr '\n' ' ' | sed 's/ $//')" \
		"ret values of dt_ret(0..$((n - 1))), sorted"
	t_assert_eq "$(kv ordered)" true "call lines in time order"
	t_assert_eq "$(kv summary)" "[[$n,0]]" "summary lines' [events, lost]"
	t_assert_eq "$(kv last)" summary "last line's type"
}

test_events_text() {
	need_tool
	local n=12 f=bg.out rows
	traced_run ret "$n" --events "$DT:dt_ret"
	rows=$(awk -v pid="$DT_PID" '$3 == pid && $4 == pid && $5 == "durtarget" &&
		$6 == "dt_ret"' "$f")
	t_assert_eq "$(printf '%s\n' "$rows" | grep -c .)" "$n" \
		"lines 'TIME CPU $DT_PID $DT_PID durtarget dt_ret DURATION RET'"
	t_assert_eq "$(printf '%s\n' "$rows" | awk '{ print $8 }' | sort -n | tr '\n' ' ')" \
		"$(seq 0 $((n - 1)) | awk '{ print 2 * $1 }' | sort -n | tr '\n' ' ')" "RET column"
	t_assert_match "$(printf '%s\n' "$rows" | awk '{ print $7 }')" '^[0-9.]+(ns|us|ms|s)$' \
		"DURATION column"
	t_assert_match "$(tail -n 1 "$f")" "^$n events, 0 lost\$" "last line"
}

# --start-at / --stop-at: only the dt_short calls between the markers
test_start_stop_triggers() {
	need_tool
	local n=10 f=bg.out
	traced_run start-stop "$n" -j --start-at dt_start_marker --stop-at dt_stop_marker \
		"$DT:dt_short" "$DT:dt_start_marker" "$DT:dt_stop_marker"
	assert_json_doc "$f" "funcdur -j --start-at --stop-at"
	t_assert_eq "$(fnum $f dt_short count)" "$n" "dt_short count between the markers (3 x $n calls made)"
	t_assert_eq "$(fnum $f dt_start_marker count)" 1 "dt_start_marker count"
	t_assert_eq "$(fnum $f dt_stop_marker count)" 1 "dt_stop_marker count (its own call is counted)"
}

test_start_at_only() {
	need_tool
	local n=10 f=bg.out
	traced_run start-stop "$n" -j --start-at dt_start_marker "$DT:dt_short" "$DT:dt_start_marker"
	assert_json_doc "$f" "funcdur -j --start-at"
	t_assert_eq "$(fnum $f dt_short count)" $((2 * n)) "dt_short count from the start marker on"
}

test_stop_at_only() {
	need_tool
	local n=10 f=bg.out
	traced_run start-stop "$n" -j --stop-at dt_stop_marker "$DT:dt_short" "$DT:dt_stop_marker"
	assert_json_doc "$f" "funcdur -j --stop-at"
	t_assert_eq "$(fnum $f dt_short count)" $((2 * n)) "dt_short count up to the stop marker"
	t_assert_eq "$(fnum $f dt_stop_marker count)" 1 "dt_stop_marker count"
}

# A glob resolves every dt_* function and none other
test_glob_user_functions() {
	need_tool
	local n=5 f=bg.out want got ntrace
	traced_run nest "$n" -j "$DT:dt_*"
	assert_json_doc "$f" "funcdur -j $DT:dt_*"
	got=$(fv $f - names | tr ',' '\n' | sort | tr '\n' ' ')
	t_assert_match "$got" '(^| )dt_outer ' "functions of dt_*"
	t_assert_match "$got" '(^| )dt_inner ' "functions of dt_*"
	t_assert_match "$got" '(^| )dt_spin ' "functions of dt_*"
	case " $got " in *" mid_untraced "*) t_fail "mid_untraced is in dt_*: $got" ;; esac
	if command -v nm >/dev/null; then
		want=$(nm "$DT" | awk '$2 == "T" && $3 ~ /^dt_/ { print $3 }' | sort | tr '\n' ' ')
		t_assert_eq "$got" "$want" "functions of dt_* (nm)"
	fi
	ntrace=$(sed -nE 's/^Tracing ([0-9]+) functions?.*/\1/p' bg.err)
	t_assert_eq "$ntrace" "$(fv $f - nfunctions)" "N of 'Tracing N functions'"
	t_assert_eq "$(fnum $f dt_outer count)" "$n" "dt_outer count"
	t_assert_eq "$(fnum $f dt_spin count)" $((4 * n)) "dt_spin count (1 + 3 dt_inner per dt_outer)"
	t_assert_eq "$(fnum $f dt_short count)" 0 "dt_short count (not called by nest)"
	# dt_spin is traced too now: dt_inner has no time of its own left to speak of
	[ "$(fnum $f dt_inner local_ns)" -lt "$(fnum $f dt_inner total_ns)" ] ||
		t_fail "dt_inner local_ns not below total_ns while dt_spin is traced"
	t_assert_eq "$(fv $f dt_inner max_sub.name)" dt_spin "dt_inner max_sub with dt_spin traced"
}

# ---- output forms --------------------------------------------------------

test_default_table() {
	need_tool
	local n=8 f=bg.out row
	traced_run nest "$n" "$DT:dt_outer" "$DT:dt_inner"
	t_assert_match "$(cat "$f")" '^ *FUNCTION +COUNT +TOTAL +AVG +MIN +MAX +LOCAL +P50 +P99 +MAX-SUB *$' \
		"table header"
	row=$(awk '$1 == "dt_outer"' "$f")
	[ -n "$row" ] || { t_show_file "$f" "table"; t_fail "no dt_outer row"; }
	t_assert_eq "$(echo "$row" | awk '{ print $2 }')" "$n" "dt_outer COUNT column"
	t_assert_eq "$(echo "$row" | awk '{ print $10 }')" dt_inner "dt_outer MAX-SUB column"
	t_assert_match "$(echo "$row" | awk '{ for (i = 3; i <= 9; i++) print $i }' | sort -u | tr '\n' ' ')" \
		'^([0-9.]+(ns|us|ms|s) )+$' "dt_outer duration columns (human-scaled)"
	t_assert_match "$(echo "$row" | awk '{ print $4 }')" '^[0-9.]+(us|ms)$' "dt_outer AVG (about 700us)"
	t_assert_eq "$(awk '$1 == "dt_inner" { print $2 }' "$f")" $((3 * n)) "dt_inner COUNT column"
}

# -H: log2 buckets whose counts add up to the calls
test_hist_log2() {
	need_tool
	local n=10 f=bg.out bad
	traced_run nest "$n" -H "$DT:dt_inner"
	t_assert_match "$(cat "$f")" 'distribution' "-H output"
	grep -q -- '->' "$f" || { t_show_file "$f" "-H"; t_fail "no bucket lines in -H output"; }
	bad=$(awk '/->/ && $4 == ":" { lo = $1; hi = $3
		if (!(lo == 0 && hi == 1) && hi + 1 != 2 * lo) print }' "$f")
	[ -z "$bad" ] || t_fail "buckets that are not log2: $bad"
	t_assert_eq "$(awk '/->/ && $4 == ":" { s += $5 } END { print s + 0 }' "$f")" $((3 * n)) \
		"bucket counts of dt_inner"
	t_assert_match "$(awk '/->/ && $4 == ":" && $5 > 0 { print $1 }' "$f")" '^(131072|262144)$' \
		"a bucket around 200 us"
}

test_hist_linear() {
	need_tool
	local n=10 f=bg.out bad
	traced_run nest "$n" -H --linear 100us "$DT:dt_inner"
	grep -q '^ *>=' "$f" || { t_show_file "$f" "--linear"; t_fail "no bucket lines in --linear output"; }
	bad=$(awk '$1 == ">=" && $3 == "<" && $2 + 100000 != $4' "$f")
	[ -z "$bad" ] || t_fail "buckets not 100us wide: $bad"
	t_assert_eq "$(awk '$1 == ">=" && $3 == "<" { s += $6 } $1 == ">=" && $3 == ":" { s += $4 }
		END { print s + 0 }' "$f")" $((3 * n)) "linear bucket counts of dt_inner"
}

# -s and -n: dt_inner has the most calls, dt_outer the longest
test_sort_and_top() {
	need_tool
	local n=6 f=bg.out
	traced_run nest "$n" -j -s count -n 1 "$DT:dt_outer" "$DT:dt_inner"
	t_assert_eq "$(fv "$f" - names)" dt_inner "-s count -n 1"
	traced_run nest "$n" -j -s avg "$DT:dt_outer" "$DT:dt_inner"
	t_assert_eq "$(fv "$f" - names)" dt_outer,dt_inner "-s avg"
	traced_run nest "$n" -j -s local "$DT:dt_outer" "$DT:dt_inner"
	t_assert_eq "$(fv "$f" - names)" dt_inner,dt_outer "-s local"
	traced_run nest "$n" -s max -n 1 "$DT:dt_outer" "$DT:dt_inner"
	t_assert_eq "$(awk '$1 ~ /^dt_/ { print $1 }' "$f" | tr '\n' ' ')" "dt_outer " "table rows of -s max -n 1"
}

# -i with --count: one JSON document per interval
test_interval_count() {
	need_tool
	local i=0 line docs
	t_expect_exit 0 "$FD" -j -i 300ms --count 2 "$DT:dt_inner"
	docs=$(jq -c . "$T_OUT") || t_fail "-j -i 300ms --count 2: not JSON"
	t_assert_eq "$(printf '%s\n' "$docs" | grep -c .)" 2 "documents of -j -i 300ms --count 2"
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s\n' "$line" >"doc$i.json"
		assert_json_doc "doc$i.json" "interval report $i"
	done <<<"$docs"
}

test_duration_ends() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	dt_start idle 0
	t_expect_exit 0 "$FD" -j -d 500ms -p "$DT_PID" "$DT:dt_inner"
	assert_json_doc "$T_OUT" "funcdur -j -d 500ms"
	t_assert_eq "$(fv "$T_OUT" dt_inner count)" 0 "dt_inner count of a durtarget that waits"
	dt_go
	t_bpf_assert_same "$snap" "after -d 500ms"
}

# ---- filters ----------------------------------------------------------------

# -p: another durtarget runs meanwhile, unfiltered
test_pid_filter() {
	need_tool
	local f=bg.out
	dt_start nest 4
	bg_start -j -p "$DT_PID" "$DT:dt_outer"
	bg_wait_tracing
	"$DT" nest 7 >other.out 2>&1 || t_fail "the other durtarget failed: $(cat other.out)"
	dt_go
	bg_end
	assert_json_doc "$f" "funcdur -j -p"
	t_assert_eq "$(fnum $f dt_outer count)" 4 "dt_outer count of pid $DT_PID only"
}

# --comm: the same binary under two names (symlinks)
test_comm_filter() {
	need_tool
	local f=bg.out
	ln -s "$DT" "$T_TMP/fdcomm_yes" || t_fail "ln -s failed"
	ln -s "$DT" "$T_TMP/fdcomm_no" || t_fail "ln -s failed"
	bg_start -j --comm fdcomm_yes "$DT:dt_outer"
	bg_wait_tracing
	"$T_TMP/fdcomm_no" nest 5 >no.out 2>&1 || t_fail "fdcomm_no failed"
	"$T_TMP/fdcomm_yes" nest 3 >yes.out 2>&1 || t_fail "fdcomm_yes failed"
	bg_stop INT
	assert_json_doc "$f" "funcdur -j --comm"
	t_assert_eq "$(fnum $f dt_outer count)" 3 "dt_outer count of comm fdcomm_yes only"
}

# -t: the main thread of threads calls no dt_inner, its 4 workers do
test_tid_filter() {
	need_tool
	local f=bg.out
	dt_start nest 5
	bg_start -j -t "$DT_PID" "$DT:dt_outer"
	bg_wait_tracing
	dt_go
	bg_end
	t_assert_eq "$(fnum $f dt_outer count)" 5 "-t main thread, nest 5: dt_outer count"
	dt_start threads 5
	bg_start -j -t "$DT_PID" "$DT:dt_inner"
	bg_wait_tracing
	dt_go
	bg_end
	t_assert_eq "$(fnum $f dt_inner count)" 0 "-t main thread, threads 5: dt_inner count (workers only call it)"
}

# uprobes run in task context only
test_ints_filters_user() {
	need_tool
	local n=5 f=bg.out
	traced_run nest "$n" -j --noints "$DT:dt_outer"
	t_assert_eq "$(fnum $f dt_outer count)" "$n" "--noints: dt_outer count"
	traced_run nest "$n" -j --onlyints "$DT:dt_outer"
	t_assert_eq "$(fnum $f dt_outer count)" 0 "--onlyints: dt_outer count (uprobes are task context)"
}

# -C: durtarget pinned to one CPU
test_cpu_filter() {
	need_tool
	command -v taskset >/dev/null || t_skip "no taskset"
	[ "$(nproc)" -ge 2 ] || t_skip "one CPU"
	local f=bg.out
	dt_start nest 3 taskset -c 1
	bg_start -j -C 0 -p "$DT_PID" "$DT:dt_outer"
	bg_wait_tracing
	dt_go
	bg_end
	t_assert_eq "$(fnum $f dt_outer count)" 0 "-C 0, durtarget on CPU 1: dt_outer count"
	dt_start nest 3 taskset -c 1
	bg_start -j -C 1 -p "$DT_PID" "$DT:dt_outer"
	bg_wait_tracing
	dt_go
	bg_end
	t_assert_eq "$(fnum $f dt_outer count)" 3 "-C 1, durtarget on CPU 1: dt_outer count"
}

# --cgroup: only the tasks of that cgroup (v2)
test_cgroup_filter() {
	need_tool
	local root cg f=bg.out
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || t_skip "no cgroup2 mounted"
	cg=$root/kfit-funcdur-$$
	mkdir "$cg" || t_skip "cannot create $cg"
	t_on_exit "rmdir $cg 2>/dev/null"
	dt_start nest 3
	echo "$DT_PID" >"$cg/cgroup.procs" || t_skip "cannot move $DT_PID into $cg"
	bg_start -j --cgroup "$cg" "$DT:dt_outer"
	bg_wait_tracing
	"$DT" nest 4 >other.out 2>&1 || t_fail "the other durtarget failed"
	dt_go
	bg_stop INT
	t_assert_eq "$(fnum $f dt_outer count)" 3 "--cgroup: dt_outer count of the process in $cg"
}

# ---- syscalls (tracepoints) ----------------------------------------------

test_sys_nanosleep() {
	need_tool
	local n=10 f=bg.out calls name
	traced_run sleep "$n" -j sys:nanosleep sys:clock_nanosleep
	assert_json_doc "$f" "funcdur -j sys:nanosleep sys:clock_nanosleep"
	t_assert_eq "$(fv $f - mode)" tracepoint "mode"
	calls=$(fsum $f '*nanosleep' count)
	t_assert_eq "$calls" "$n" "nanosleep + clock_nanosleep calls of durtarget sleep $n"
	for name in $(fv $f - names | tr ',' ' '); do
		[ "$(fnum $f "$name" count)" = 0 ] || [ "$(fnum $f "$name" min_ns)" -ge 1000000 ] ||
			t_fail "$name: min_ns $(fv $f "$name" min_ns) < 1 ms for 1 ms sleeps"
	done
}

# A shell stopped before it execs head: -p knows its pid
test_sys_read() {
	need_tool
	local f=bg.out pid
	t_stopped_start 'head -c 1000 /dev/zero'
	pid=$STOPPED_PID
	bg_start -j -p "$pid" sys:read
	bg_wait_tracing
	kill -CONT "$pid"
	wait "$pid" || t_fail "head -c 1000 /dev/zero failed"
	bg_end
	assert_json_doc "$f" "funcdur -j sys:read"
	[ "$(fsum $f '*' count)" -ge 1 ] ||
		t_fail "no read syscall counted for head -c 1000 /dev/zero"
	t_assert_eq "$(fv $f - mode)" tracepoint "mode"
}

# ---- return values (--by ret, --errors) -----------------------------------

# A shell that opens files that are there and files that are not
BY_WORK='cat /nonexistent-a /etc/hostname /nonexistent-b; ls -d /nonexistent-c / ; true'

# openat's results as strace saw them: "VALUE COUNT" lines, errors as
# funcdur names them (-ENOENT), sorted
strace_openat() {
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	strace -f -qq -e trace=openat -o "$T_TMP/strace.out" sh -c "$BY_WORK" \
		>/dev/null 2>&1 || t_fail "the workload failed under strace"
	# a call and its result on one line, or on a "resumed" one under -f
	sed -n -E '/openat(\(| resumed>)/ s/.*\) += (-1 (E[A-Z0-9]+)|([0-9]+)).*/\2\3/p' \
		"$T_TMP/strace.out" | sed 's/^E/-E/' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort
}

# Every value openat returned, how often: the same as strace's, call for
# call (a shell and cat and ls opening their libraries and the files)
test_by_ret_like_strace() {
	need_tool
	local want got
	want=$(strace_openat)
	[ "$(printf '%s\n' "$want" | grep -c '^-ENOENT ')" = 1 ] ||
		t_fail "strace saw no ENOENT: $(cat "$T_TMP/strace.out")"
	"$FD" -j --by ret --output "$T_TMP/by.json" sys:openat -- sh -c "$BY_WORK" \
		>/dev/null 2>"$T_TMP/by.err" ||
		t_fail "funcdur --by ret failed: $(cat "$T_TMP/by.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.count)"' "$T_TMP/by.json" | sort) ||
		t_fail "not JSON: $(head -c 300 "$T_TMP/by.json")"
	t_assert_eq "$got" "$want" "openat's return values and their counts (strace's)"
	t_assert_eq "$(jq -r '[.functions[] | select(.as_shown == "-ENOENT") | .ret] | .[0]' \
		"$T_TMP/by.json")" -2 "-ENOENT's ret"
}

# The table: a RET column; errors by name, each function's rows together
test_by_ret_table() {
	need_tool
	local n
	n=$(strace_openat | awk '$1 == "-ENOENT" { print $2 }')
	"$FD" --by ret --output "$T_TMP/by.txt" sys:openat sys:close -- sh -c "$BY_WORK" \
		>/dev/null 2>&1 ||
		t_fail "funcdur --by ret failed: $(cat "$T_TMP/by.txt")"
	t_assert_match "$(grep '^FUNCTION' "$T_TMP/by.txt")" '^FUNCTION +RET +COUNT +TOTAL' \
		"the header"
	t_assert_eq "$(grep -cE "^sys:openat +-ENOENT +$n " "$T_TMP/by.txt")" 1 \
		"sys:openat's -ENOENT row, $n calls (strace's): $(cat "$T_TMP/by.txt")"
	# rows of one function are not split by the other's
	t_assert_eq "$(awk '/^sys:/ { print $1 }' "$T_TMP/by.txt" | uniq | sort | tr '\n' ' ')" \
		"sys:close sys:openat " "each function's rows together"
}

# openat's calls per task name as strace saw them: "COMM COUNT" lines,
# sorted. A pid's name is its parent's from the clone, then its exec's
# file (15 bytes, as the kernel keeps it) or what PR_SET_NAME gave it; a
# call is counted where it
# starts (under -f, a call may end on a "resumed" line)
strace_openat_comms() {
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	strace -f -qq -e trace=openat,execve,clone,clone3,fork,vfork,prctl -o "$T_TMP/strace.c" \
		sh -c "$BY_WORK" >/dev/null 2>&1 || t_fail "the workload failed under strace"
	awk 'NR == 1 { comm[$1] = "sh" }
	{
		pid = $1; line = $0; sub(/^[0-9]+ +/, "", line)
		if (line ~ /^<\.\.\. [a-z0-9]+ resumed>/) {
			call = line; sub(/^<\.\.\. /, "", call); sub(/ .*/, "", call)
			if (pending[pid] != "") line = pending[pid] line
			pending[pid] = ""
		} else if (line ~ /<unfinished \.\.\.>$/) {
			sub(/ *<unfinished \.\.\.>$/, "", line)
			pending[pid] = line
			if (line ~ /^openat\(/) n[comm[pid]]++
			next
		} else if (line ~ /^openat\(/) {
			n[comm[pid]]++
		}
		if (line ~ /^execve\("/ && line ~ /= 0$/) {
			f = line; sub(/^execve\("/, "", f); sub(/".*/, "", f); sub(/.*\//, "", f)
			comm[pid] = substr(f, 1, 15)
		}
		# busybox re-executes itself (/proc/self/exe), then names itself
		if (line ~ /^prctl\(PR_SET_NAME, "/ && line ~ /= 0$/) {
			f = line; sub(/^prctl\(PR_SET_NAME, "/, "", f); sub(/".*/, "", f)
			comm[pid] = substr(f, 1, 15)
		}
		if (line ~ /^(clone|clone3|fork|vfork)\(/ && match(line, /= [0-9]+$/))
			comm[substr(line, RSTART + 2)] = comm[pid]
	}
	END { for (c in n) print c, n[c] }' "$T_TMP/strace.c" | sort
}

# --by comm: a row per task name, each with strace's count of its calls
test_by_comm_like_strace() {
	need_tool
	local want got
	want=$(strace_openat_comms)
	# busybox's sh (the VM's) may run cat and ls in itself, without exec
	t_in_vm || [ "$(printf '%s\n' "$want" | wc -l)" -ge 3 ] ||
		t_fail "strace saw fewer than 3 names (sh, cat, ls): $want"
	"$FD" -j --by comm --output "$T_TMP/comm.json" sys:openat -- sh -c "$BY_WORK" \
		>/dev/null 2>"$T_TMP/comm.err" ||
		t_fail "funcdur --by comm failed: $(cat "$T_TMP/comm.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.count)"' "$T_TMP/comm.json" | sort) ||
		t_fail "not JSON: $(head -c 300 "$T_TMP/comm.json")"
	t_assert_eq "$got" "$want" "openat's calls per task name (strace's)"
	"$FD" --by comm --output "$T_TMP/comm.txt" sys:openat -- sh -c "$BY_WORK" \
		>/dev/null 2>&1
	t_assert_match "$(grep '^FUNCTION' "$T_TMP/comm.txt")" '^FUNCTION +COMM +COUNT' "the header"
}

# --errors: only the calls that failed; those that did not are counted
test_errors_only() {
	need_tool
	local want fails oks
	want=$(strace_openat)
	fails=$(printf '%s\n' "$want" | awk '$1 ~ /^-E/ { n += $2 } END { print n + 0 }')
	oks=$(printf '%s\n' "$want" | awk '$1 !~ /^-E/ { n += $2 } END { print n + 0 }')
	"$FD" -j --errors --output "$T_TMP/err.json" sys:openat -- sh -c "$BY_WORK" \
		>/dev/null 2>"$T_TMP/err.err" ||
		t_fail "funcdur --errors failed: $(cat "$T_TMP/err.err")"
	t_assert_eq "$(jq -r '.functions[0].count' "$T_TMP/err.json")" "$fails" \
		"calls counted: those that failed (strace's)"
	t_assert_eq "$(jq -r '.not_failed' "$T_TMP/err.json")" "$oks" \
		"not_failed: the calls that succeeded (strace's)"
	"$FD" --errors --by ret --output "$T_TMP/err.txt" sys:openat -- sh -c "$BY_WORK" \
		>/dev/null 2>&1
	t_assert_eq "$(awk '/^sys:openat/ { print $2 }' "$T_TMP/err.txt" | sort -u)" -ENOENT \
		"the only value left: -ENOENT"
	t_assert_match "$(cat "$T_TMP/err.txt")" "^$oks calls? that did not fail left out" "the note"
}

# EROFS (a read-only bind mount), ENOSPC (a full tmpfs), ENOENT: --errors
# --by ret's rows are strace's failures, function by function, errno by errno
# (host only: its workload is coreutils', the VM's busybox fails otherwise)
t_in_vm || test_errors_erofs_enospc() {
	need_tool
	local want got
	errw_setup
	want=$(errw_strace_fails openat,write | tr ' ' '\n' | sed 's/:/ -/' | sort | uniq -c |
		awk '{ print "sys:" $2, $3, $1 }' | sort)
	t_assert_match "$want" "sys:openat -EROFS 1" "strace saw EROFS: $want"
	t_assert_match "$want" "sys:write -ENOSPC 1" "strace saw ENOSPC: $want"
	"$FD" -j --errors --by ret --output "$T_TMP/err.json" sys:openat sys:write \
		-- sh -c "$ERRW" >/dev/null 2>"$T_TMP/err.err" ||
		t_fail "funcdur --errors --by ret failed: $(cat "$T_TMP/err.err")"
	got=$(jq -r '.functions[] | "\(.name) \(.as_shown) \(.count)"' "$T_TMP/err.json" | sort) ||
		t_fail "not JSON: $(head -c 300 "$T_TMP/err.json")"
	t_assert_eq "$got" "$want" "the failures by function and value (strace's)"
}

# A user function's failures are its own: --errors refuses, exit 2
test_errors_user_refused() {
	need_tool
	local out st=0
	out=$("$FD" --errors "$DT:dt_ret" -- "$DT" ret 1 2>&1) || st=$?
	t_assert_eq "$st" 2 "exit status"
	t_assert_match "$out" "dt_ret is a user function.*--errors 'ret == 0'" "message: $out"
	st=0
	out=$("$FD" --by size sys:openat -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "--by size: exit status"
	t_assert_match "$out" "--by size: no traced function captures 'size'" "message: $out"
}

# A user function's values as its DWARF types them: up_status's int -1
# (4 of 10 calls) is -1, not the register's 4294967295; the same binary
# without DWARF (objcopy --strip-debug) reads the whole register, as before
# (host only: objcopy, which the VM lacks)
t_in_vm || test_by_ret_user_dwarf() {
	need_tool
	local up=$KFIT_HELPERS/uparams nodw=$T_TMP/uparams-nodw got
	[ -x "$up" ] || t_fail "$up not built"
	"$FD" -j --by ret --output "$T_TMP/up.json" "$up:up_status" -- "$up" status 10 \
		>/dev/null 2>"$T_TMP/up.err" ||
		t_fail "funcdur --by ret failed: $(cat "$T_TMP/up.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.ret) \(.count)"' "$T_TMP/up.json" |
		sort | tr '\n' ' ') || t_fail "not JSON: $(head -c 300 "$T_TMP/up.json")"
	t_assert_eq "$got" "-1 -1 4 1 1 3 2 2 3 " "up_status's values, as shown, ret and count"
	"$FD" --by ret --output "$T_TMP/up.txt" "$up:up_status" -- "$up" status 10 \
		>/dev/null 2>&1 || t_fail "funcdur --by ret failed: $(cat "$T_TMP/up.txt")"
	t_assert_eq "$(grep -cE '^up_status +-1 +4 ' "$T_TMP/up.txt")" 1 \
		"the table's -1 row: $(cat "$T_TMP/up.txt")"
	objcopy --strip-debug "$up" "$nodw" || t_fail "objcopy --strip-debug failed"
	readelf -S "$nodw" | grep -q debug_info && t_fail "$nodw still has DWARF"
	"$FD" -j --by ret --output "$T_TMP/nodw.json" "$nodw:up_status" -- "$nodw" status 10 \
		>/dev/null 2>"$T_TMP/nodw.err" ||
		t_fail "funcdur --by ret failed: $(cat "$T_TMP/nodw.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.count)"' "$T_TMP/nodw.json" | sort |
		tr '\n' ' ')
	t_assert_eq "$got" "1 3 2 3 4294967295 4 " "without DWARF: the whole register"
}

# ---- kernel functions, bad input -------------------------------------------

# Here neither fentry nor kprobes: one clear message, exit 1. Where either
# works (the VM), the same command must work.
test_kernel_target_refused_here() {
	need_tool
	local snap err
	snap=$(t_bpf_snapshot)
	if kernel_tracing_works; then
		echo "fentry or kprobes work here: vfs_read must be traced"
		t_expect_exit 0 "$FD" -j -d 1s vfs_read
		assert_json_doc "$T_OUT" "funcdur -j -d 1s vfs_read"
		t_assert_match "$(fv "$T_OUT" - mode)" '^(fentry|kprobe)$' "mode for vfs_read"
		t_bpf_assert_same "$snap" "after funcdur vfs_read"
		return
	fi
	t_expect_exit 1 "$FD" -d 1s vfs_read
	err=$(cat "$T_ERR")
	echo "--- stderr of funcdur vfs_read:"
	echo "$err"
	t_assert_match "$err" 'EPERM' "message for vfs_read"
	t_assert_match "$err" '[Kk]probe' "message for vfs_read"
	t_assert_match "$err" 'sys:' "message for vfs_read (pointing to sys: targets)"
	t_assert_match "$err" '[Uu]ser|uprobe|BINARY:|:FUNC' "message for vfs_read (pointing to user targets)"
	[ -s "$T_OUT" ] && t_fail "output on stdout for a refused kernel target: $(head -n 1 "$T_OUT")"
	t_bpf_assert_same "$snap" "after a refused kernel target"
	t_expect_exit 1 "$FD" -k -d 1s vfs_read
	echo "--- stderr of funcdur -k vfs_read:"
	cat "$T_ERR"
	t_assert_match "$(cat "$T_ERR")" '[Kk]probe' "message for -k vfs_read"
	t_assert_match "$(cat "$T_ERR")" 'sys:' "message for -k vfs_read (pointing to sys: targets)"
	t_bpf_assert_same "$snap" "after a refused kernel target (-k)"
}

# bad_input CODE REGEX what args...: exit CODE, stderr matches, nothing on
# stdout, nothing left attached (against the test's first snapshot:
# listing BPF objects is slow under emulation)
bad_input() {
	local code=$1 re=$2 what=$3
	shift 3
	[ -n "${SNAP:-}" ] || SNAP=$(t_bpf_snapshot)
	t_expect_exit "$code" "$FD" "$@"
	t_assert_match "$(cat "$T_ERR")" "$re" "message for $what"
	[ -s "$T_OUT" ] && t_fail "$what: output on stdout: $(head -n 1 "$T_OUT")"
	t_bpf_assert_same "$SNAP" "after $what"
}

test_unknown_kernel_function() {
	need_tool
	bad_input 2 'closest' "an unknown kernel function" vfs_raed
	t_assert_match "$(cat "$T_ERR")" 'vfs_read' "closest names for vfs_raed"
	bad_input 2 'no_such_fn_zz' "a glob that matches nothing" 'no_such_fn_zz*'
}

test_bad_duration() {
	need_tool
	bad_input 2 '5x' "--min 5x" --min 5x "$DT:dt_short"
	bad_input 2 '5x' "-d 5x" -d 5x "$DT:dt_short"
	bad_input 2 'zz' "--linear zz" -H --linear zz "$DT:dt_short"
}

test_binary_without_symbol() {
	need_tool
	bad_input 2 'no_such_function' "a binary without the symbol" "$DT:no_such_function"
	bad_input 2 'nope_\*|nope_' "a user glob that matches nothing" "$DT:nope_*"
}

test_binary_missing() {
	need_tool
	bad_input 2 '/nonexistent/bin' "a binary that does not exist" /nonexistent/bin:main
}

test_pid_missing() {
	need_tool
	local p
	p=$(t_free_pid)
	bad_input 2 "$p" "-p of no process" -p "$p" "$DT:dt_short"
}

test_no_target() {
	need_tool
	bad_input 2 '.' "no target"
}

# ---- the end of the process traced -----------------------------------------

# -p with a long -d: funcdur ends when durtarget does, as strace -p and
# perf stat -p, with its whole report and a note on stderr
test_pid_exit_ends_run() {
	need_tool
	local n=5 f=bg.out snap
	snap=$(t_bpf_snapshot)
	dt_start sleep "$n"
	bg_start -j -d 60s -p "$DT_PID" sys:nanosleep sys:clock_nanosleep
	bg_wait_tracing
	dt_go
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "funcdur's status once pid $DT_PID had exited"
	assert_json_doc "$f" "funcdur -j -d 60s -p after its process exited"
	t_assert_eq "$(fsum $f '*nanosleep' count)" "$n" "nanosleep + clock_nanosleep calls of durtarget sleep $n"
	t_assert_match "$(cat bg.err)" "^funcdur: process $DT_PID exited\$" "the note on stderr"
	t_bpf_assert_same "$snap" "after the end of pid $DT_PID"
}

# -t: the thread's end ends it too (here the main thread's, at exit)
test_tid_exit_ends_run() {
	need_tool
	local n=3 f=bg.out
	dt_start nest "$n"
	bg_start -d 60s -t "$DT_PID" "$DT:dt_outer"
	bg_wait_tracing
	dt_go
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "funcdur's status once tid $DT_PID had exited"
	t_assert_match "$(cat bg.err)" "^funcdur: thread $DT_PID exited\$" "the note on stderr"
	t_assert_match "$(cat "$f")" 'FUNCTION +COUNT' "the report"
	t_assert_eq "$(awk '$1 == "dt_outer" { print $2 }' "$f")" "$n" "dt_outer count in the report"
}

# ---- signals ----------------------------------------------------------------

test_sigint_text_report() {
	need_tool
	local snap f=bg.out
	snap=$(t_bpf_snapshot)
	bg_start "$DT:dt_inner" "$DT:dt_outer"
	bg_wait_tracing
	t_assert_match "$(cat bg.err)" '^Tracing 2 functions' "the Tracing line"
	"$DT" nest 3 >/dev/null || t_fail "durtarget failed"
	bg_stop INT
	t_assert_match "$(cat "$f")" 'FUNCTION +COUNT' "report after SIGINT"
	[ "$(awk '$1 == "dt_inner" { print $2 }' "$f")" -ge 9 ] 2>/dev/null ||
		t_fail "report after SIGINT: no dt_inner row with >= 9 calls"
	t_bpf_assert_same "$snap" "after SIGINT"
}

test_sigterm_json_report() {
	need_tool
	local snap f=bg.out
	snap=$(t_bpf_snapshot)
	bg_start -j "$DT:dt_inner"
	bg_wait_tracing
	"$DT" nest 2 >/dev/null || t_fail "durtarget failed"
	bg_stop TERM
	assert_json_doc "$f" "funcdur -j after SIGTERM"
	[ "$(fnum $f dt_inner count)" -ge 6 ] || t_fail "dt_inner count after SIGTERM < 6"
	t_bpf_assert_same "$snap" "after SIGTERM"
}

# ---- a signal during start-up -----------------------------------------------

# leasehold FILE in the background: wait for WORD in its output (bounded),
# while funcdur (BG) still runs
lease_wait() {	# WORD
	local i=0
	until grep -q "^$1\$" lease.out; do
		kill -0 "$LH" 2>/dev/null || t_fail "leasehold exited: $(cat lease.out)"
		[ "$1" = opened ] && ! kill -0 "$BG" 2>/dev/null && {
			t_show_file bg.err "funcdur's stderr"
			t_fail "funcdur ended before it opened its target's binary"
		}
		[ "$i" -ge 300 ] && t_fail "no '$1' from leasehold in 30 s: $(cat lease.out)"
		t_pause 0.1
		i=$((i + 1))
	done
}

# A signal while funcdur resolves its targets (here: it waits in the open()
# of its target's BINARY, on which leasehold holds a lease) ends it at
# once, as the signal's default action, with one line that says so and
# nothing on stdout: nothing is loaded yet. Before, the signal was only
# noted and start-up went on (a glob over every kernel function could not
# be interrupted); then it ended silently.
test_signal_during_startup() {
	need_tool
	local lh=$KFIT_HELPERS/leasehold bin=$T_TMP/dtcopy lbt snap sig num
	[ -x "$lh" ] || t_fail "$lh not built"
	snap=$(t_bpf_snapshot)
	# the open waits up to lease-break-time: longer than the bound below
	lbt=$(cat /proc/sys/fs/lease-break-time)
	if [ "$lbt" -lt 45 ]; then
		echo 45 >/proc/sys/fs/lease-break-time || t_fail "cannot raise fs.lease-break-time"
		t_on_exit "echo $lbt >/proc/sys/fs/lease-break-time"
	fi
	for sig in INT TERM; do
		cp "$DT" "$bin" || t_fail "cp $DT failed"
		"$lh" "$bin" >lease.out 2>&1 &
		LH=$!
		t_on_exit "kill -KILL $LH 2>/dev/null"
		lease_wait held
		bg_start "$bin:dt_inner"
		lease_wait opened
		t_bg_stop "$sig" 30
		num=$(kill -l "$sig")
		t_assert_eq "$BG_RC" $((128 + num)) "funcdur's status after SIG$sig during start-up (killed by it)"
		[ -s bg.out ] && t_fail "SIG$sig during start-up: output on stdout: $(head -n 1 bg.out)"
		t_assert_eq "$(cat bg.err)" "funcdur: SIG$sig during start-up: ended before tracing" \
			"SIG$sig during start-up: stderr"
		kill -KILL "$LH"
		wait "$LH" 2>/dev/null
		rm -f "$bin"
	done
	t_bpf_assert_same "$snap" "after signals during start-up"
}

# SIGINT while durtarget is still running its calls
test_sigint_mid_run() {
	need_tool
	local snap f=bg.out
	snap=$(t_bpf_snapshot)
	bg_start -j "$DT:dt_long"
	bg_wait_tracing
	"$DT" spin 400 >/dev/null &
	t_on_exit "kill -KILL $! 2>/dev/null"
	sleep 0.3
	bg_stop INT
	assert_json_doc "$f" "funcdur -j after SIGINT mid-run"
	t_bpf_assert_same "$snap" "after SIGINT mid-run"
}

# ---- arguments ---------------------------------------------------------------

# openat's "DFD "NAME" FLAGS" lines as strace read them (-X raw: numbers,
# not names; its hex flags in decimal)
strace_openat_args() {
	local dfd name flags
	strace -f -qq -X raw -e trace=openat -o "$T_TMP/strace.out" sh -c "$BY_WORK" \
		>/dev/null 2>&1 || t_fail "the workload failed under strace"
	sed -n 's/^[0-9]* *openat(\(-*[0-9]*\), \("[^"]*"\), \(0x[0-9a-f]*\|0\)[,)].*/\1 \2 \3/p' \
		"$T_TMP/strace.out" | while read -r dfd name flags; do
		echo "$dfd $name $((flags))"
	done
}

# openat's file names and flags, call for call, as strace read them; the
# directory fd too
test_args_sys_like_strace() {
	need_tool
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	local want got
	want=$(strace_openat_args)
	t_assert_match "$want" '"/nonexistent-b" 0' "strace saw the missing files opened: $want"
	"$FD" -j --events --output "$T_TMP/args.json" 'sys:openat(dfd, filename, flags)' -- \
		sh -c "$BY_WORK" >/dev/null 2>&1
	got=$(jq -r 'select(.type == "call") | .args | "\(.dfd) \"\(.filename)\" \(.flags)"' \
		"$T_TMP/args.json")
	t_assert_eq "$got" "$want" "each openat's dfd, file name and flags, in order (strace's)"
}

# The text form: names, quoted strings, --by a number
test_args_sys_text_and_by() {
	need_tool
	"$FD" --events --output "$T_TMP/ev.txt" 'sys:openat(filename, flags)' -- \
		cat /nonexistent-a /etc/hostname >/dev/null 2>&1
	t_assert_match "$(cat "$T_TMP/ev.txt")" 'sys:openat .* -ENOENT +filename="/nonexistent-a" flags=0$' \
		"a failed open, its arguments after the return value: $(tail -3 "$T_TMP/ev.txt")"
	"$FD" -j --by flags --output "$T_TMP/by.json" 'sys:openat(filename, flags)' -- \
		sh -c "$BY_WORK" >/dev/null 2>&1
	t_assert_eq "$(jq -r '.functions[] | "\(.flags) \(.count)"' "$T_TMP/by.json" | sort -n)" \
		"$(strace_openat_args | awk '{ n[$3]++ } END { for (f in n) print f, n[f] }' | sort -n)" \
		"--by flags: a row per value, as many calls as strace saw with it"
}

# --by a string: a row per file name openat was given, as many calls as
# strace saw given it (its names cut at 63 bytes, as funcdur keeps them)
test_by_string_like_strace() {
	need_tool
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	local w='cat /etc/hostname /nonexistent-a /etc/hostname; cat /etc/hostname /nonexistent-a; true'
	local want got
	strace -f -qq -s 256 -e trace=openat -o "$T_TMP/st.out" sh -c "$w" >/dev/null 2>&1 ||
		t_fail "the workload failed under strace"
	want=$(sed -n 's/^[0-9]* *openat([^,]*, "\([^"]*\)",.*/\1/p' "$T_TMP/st.out" |
		awk '{ n[substr($0, 1, 63)]++ } END { for (f in n) print f, n[f] }' | sort)
	t_assert_match "$want" '^/etc/hostname 3$' "strace saw /etc/hostname opened 3 times: $want"
	t_assert_match "$want" '^/nonexistent-a 2$' "and /nonexistent-a twice: $want"
	"$FD" -j --by filename --output "$T_TMP/bs.json" 'sys:openat(filename)' -- sh -c "$w" \
		>/dev/null 2>"$T_TMP/bs.err" || t_fail "funcdur failed: $(cat "$T_TMP/bs.err")"
	got=$(jq -r '.functions[] | "\(.filename) \(.count)"' "$T_TMP/bs.json" | sort) ||
		t_fail "not JSON: $(head -c 300 "$T_TMP/bs.json")"
	t_assert_eq "$got" "$want" "a row per file name, its count (strace's)"
	t_assert_eq "$(jq -r '.functions[] | select(.filename == "/etc/hostname") | .as_shown' \
		"$T_TMP/bs.json")" '"/etc/hostname"' "as_shown: quoted"
	t_assert_eq "$(jq -r '.not_grouped' "$T_TMP/bs.json")" 0 "every call in a row"
	"$FD" --by filename --output "$T_TMP/bs.txt" 'sys:openat(filename)' -- sh -c "$w" \
		>/dev/null 2>&1
	t_assert_match "$(grep '^FUNCTION' "$T_TMP/bs.txt")" '^FUNCTION +filename +COUNT +TOTAL' \
		"the header: $(head -2 "$T_TMP/bs.txt")"
	t_assert_eq "$(grep -cE '^sys:openat +"/etc/hostname" +3 ' "$T_TMP/bs.txt")" 1 \
		"the text row of /etc/hostname: $(cat "$T_TMP/bs.txt")"
}

# --by a user function's string, its parameter's and a field's through a
# pointer (DWARF): argcalls gives each of its 5 names to 1 call in 5
test_by_string_user() {
	need_tool
	local b="$KFIT_HELPERS/argcalls" got want
	[ -x "$b" ] || t_fail "$b not built"
	want=$(printf '%s 8\n' '""' '"a"' '"eth0"' '"/etc/hostname"' '"a longer name"' | sort)
	"$FD" -j --by s --output "$T_TMP/u.json" "$b:ac_name(s, c)" -- "$b" 40 \
		>/dev/null 2>"$T_TMP/u.err" || t_fail "funcdur failed: $(cat "$T_TMP/u.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.count)"' "$T_TMP/u.json" | sort)
	t_assert_eq "$got" "$want" "ac_name's s: 8 calls each of 40"
	"$FD" -j --by 'req->name' --output "$T_TMP/r.json" "$b:ac_req(req->name, req->hdr.len)" \
		-- "$b" req 40 >/dev/null 2>"$T_TMP/r.err" || t_fail "funcdur failed: $(cat "$T_TMP/r.err")"
	got=$(jq -r '.functions[] | "\(.as_shown) \(.count)"' "$T_TMP/r.json" | sort)
	t_assert_eq "$got" "$want" "ac_req's req->name: 8 calls each of 40"
	t_assert_eq "$(jq -r '.functions[] | select(.as_shown == "\"eth0\"") | .["req->name"]' \
		"$T_TMP/r.json")" eth0 "the JSON's value: the string"
}

# Every call's arguments and return value as uftrace reads them from the
# same program built with -pg: ints of both signs, a long past 32 bits, a
# string, an unsigned char, a bool and a short, by their DWARF names
# (host only: uftrace)
t_in_vm || test_args_user_like_uftrace() {
	need_tool
	command -v uftrace >/dev/null || t_fail "uftrace not installed (make deps)"
	local b="$KFIT_HELPERS/argcalls-pg" want got
	(cd "$T_TMP" && uftrace record -d uft.data -A 'ac_sum@arg1/i32,arg2/i64' \
		-A 'ac_name@arg1/s,arg2/u8' -A 'ac_flag@arg1/u8,arg2/i16' \
		-R 'ac_sum@retval/i32' -R 'ac_name@retval/u64' -R 'ac_flag@retval/u8' \
		"$b" 40 >/dev/null 2>&1) || t_fail "uftrace record failed"
	want=$(uftrace replay -d "$T_TMP/uft.data" --no-pager -f none -N strlen 2>/dev/null |
		sed -n 's/^ *\(ac_[a-z]*(.*)\) = \(.*\);$/\1 = \2/p')
	t_assert_match "$want" 'ac_sum\(-5, 0\) = -5' "uftrace saw the calls: $(echo "$want" | head -3)"
	"$FD" -j --events --output "$T_TMP/ac.json" "$b:ac_sum(a, b)" "$b:ac_name(s, c)" \
		"$b:ac_flag(on, level)" -- "$b" 40 >/dev/null 2>&1
	got=$(jq -r 'select(.type == "call") | "\(.function)(\(.args | to_entries |
		map(.value | if type == "string" then "\"\(.)\"" elif type == "boolean" then
		(if . then "1" else "0" end) else tostring end) | join(", "))) = \(.ret)"' \
		"$T_TMP/ac.json")
	t_assert_eq "$(echo "$got" | wc -l)" 120 "40 rounds of 3 calls"
	t_assert_eq "$got" "$want" "each call's arguments and return value, in order (uftrace's)"
}

# A real program: the size of every malloc of a python run, in order, as
# ltrace -x reads it (libc's DWARF names the parameter: libc6-dbg)
# (host only: ltrace, python3 and libc's DWARF)
t_in_vm || test_args_malloc_like_ltrace() {
	need_tool
	command -v ltrace >/dev/null || t_fail "ltrace not installed (make deps)"
	local py=/usr/bin/python3.11 w='import json; d=[json.dumps({"k": i, "v": "x" * i}) for i in range(50)]'
	PYTHONHASHSEED=0 ltrace -x malloc -e '' -o "$T_TMP/lt.txt" "$py" -c "$w" >/dev/null 2>&1 ||
		t_fail "ltrace failed"
	sed -n 's/^malloc@libc.so.6(\([0-9]*\)).*/\1/p' "$T_TMP/lt.txt" >"$T_TMP/want"
	[ "$(wc -l <"$T_TMP/want")" -gt 500 ] || t_fail "ltrace saw few mallocs: $(head "$T_TMP/lt.txt")"
	PYTHONHASHSEED=0 "$FD" -j --events --output "$T_TMP/m.json" 'c:malloc(bytes)' -- \
		"$py" -c "$w" >/dev/null 2>&1
	jq -r 'select(.type == "call") | .args.bytes' "$T_TMP/m.json" >"$T_TMP/got"
	t_assert_eq "$(cmp "$T_TMP/got" "$T_TMP/want" 2>&1)" "" \
		"every malloc's size, in order ($(wc -l <"$T_TMP/want") calls, ltrace's)"
	# the sizes' histogram (--by log2(bytes)): ltrace's sizes in the same buckets
	PYTHONHASHSEED=0 "$FD" -j --output "$T_TMP/l.json" --by 'log2(bytes)' 'c:malloc(bytes)' -- \
		"$py" -c "$w" >/dev/null 2>&1 || t_fail "funcdur --by log2(bytes) failed"
	t_assert_eq "$(jq -r '.functions[] | "\(.bytes) \(.bytes_max) \(.count)"' "$T_TMP/l.json")" \
		"$(awk '{ lo = 0; hi = 0; if ($1 > 0) { lo = 1; while (lo * 2 <= $1) lo *= 2; hi = 2 * lo - 1 }
			n[lo] += 1; h[lo] = hi } END { for (k in n) print k, h[k], n[k] }' "$T_TMP/want" |
			sort -n)" "each power-of-2 bucket's count of sizes (ltrace's sizes)"
}

# funcdur's calls of FILE (-j --events) the same way: each argument named as
# NAMES says, in order; strings quoted, bools 1 or 0
funcdur_probe_values() {	# FILE NAMES...
	local f=$1
	shift
	jq -r 'select(.type == "call") | [$ARGS.positional, (.args | to_entries)] |
		transpose | map("\(.[0])=\(.[1].value | if type == "string" then "\"\(.)\""
		elif type == "boolean" then (if . then 1 else 0 end) else tostring end)") |
		join(" ")' --args "$@" <"$f"
}

# Fields of a user function's parameter through pointers, typed by DWARF,
# call for call against perf probe's DWARF probes of the same program: a
# nested structure's u16 and s16, a string through a pointer and one in a
# char array, members of an anonymous union and of a struct in it, a bool,
# an enum, and fields of a second structure through the first's pointer
# (host only: perf)
t_in_vm || test_args_user_fields_like_perf_probe() {
	need_tool
	command -v perf >/dev/null || t_fail "perf not installed (make deps)"
	local b="$KFIT_HELPERS/argcalls" want got k
	local -a pp=('name=req->name:string len=req->hdr.len:u16 tag=req->tag:string
		prio=req->hdr.prio:s16' 'lo=req->lo:s32 hi=req->hi:s32 urgent=req->urgent:u8
		kind=req->hdr.kind:s32' 'nname=req->next->name:string nlen=req->next->hdr.len:u16
		id=req->id:s64 cookie=req->cookie:u64')
	local -a fd=('req->name, req->hdr.len, req->tag, req->hdr.prio'
		'req->lo, req->hi, req->urgent, req->hdr.kind:s32'
		'req->next->name, req->next->hdr.len, req->id, req->cookie')
	for k in 0 1 2; do
		# perf script prints an s16 as unsigned (its %d of 2 bytes): signed again
		t_perf_probe "$T_TMP/pp.out" "$b" ac_req "$(echo ${pp[$k]})" "$b" req 30
		want=$(awk '{ if (match($0, / prio=[0-9]+$/)) { v = substr($0, RSTART + 6) + 0
				if (v >= 32768) $NF = "prio=" v - 65536 } print }' "$T_TMP/pp.out")
		t_assert_eq "$(echo "$want" | wc -l)" 30 "perf saw 30 calls: $(echo "$want" | head -3)"
		"$FD" -j --events --output "$T_TMP/f$k.json" "$b:ac_req(${fd[$k]})" -- \
			"$b" req 30 >/dev/null 2>&1 || t_fail "funcdur failed: $(head -c 300 "$T_TMP/f$k.json")"
		got=$(funcdur_probe_values "$T_TMP/f$k.json" $(echo ${pp[$k]} | sed 's/=[^ ]*//g'))
		t_assert_eq "$got" "$want" "ac_req($(echo ${fd[$k]})), call for call (perf probe's)"
	done
}

# A user enum's values by name, from DWARF (argcalls' kinds: AC_GET, AC_PUT,
# AC_DEL = -3, in turn); ':s32' reads the number
test_args_user_enum_names() {
	need_tool
	local b="$KFIT_HELPERS/argcalls" got="" k
	[ -x "$b" ] || t_fail "$b not built"
	for k in 'req->hdr.kind' 'req->hdr.kind:s32'; do
		"$FD" -j --events --output "$T_TMP/e.json" "$b:ac_req($k)" -- "$b" req 6 \
			>/dev/null 2>&1 || t_fail "funcdur failed: $(head -c 300 "$T_TMP/e.json")"
		got="$got$(jq -r 'select(.type == "call") | .args["req->hdr.kind"]' "$T_TMP/e.json" |
			tr '\n' ' ')"
	done
	t_assert_eq "$got" "AC_GET AC_PUT AC_DEL AC_GET AC_PUT AC_DEL 1 2 -3 1 2 -3 " \
		"each call's kind by name, then as a number (:s32)"
	"$FD" --by 'req->hdr.kind' --output "$T_TMP/e.txt" "$b:ac_req(req->hdr.kind)" -- "$b" req 9 \
		>/dev/null 2>&1
	t_assert_eq "$(awk '/^ac_req/ { print $2, $3 }' "$T_TMP/e.txt" | sort | tr '\n' ' ')" \
		"AC_DEL 3 AC_GET 3 AC_PUT 3 " "--by the enum: a row per name: $(cat "$T_TMP/e.txt")"
}

# libc's FILE through fclose's pointer (libc6-dbg's DWARF), against perf
# probe on the same command: each fclose's descriptor and flags in order
# (host only: perf, libc's DWARF, coreutils' ls)
t_in_vm || test_args_libc_fields_like_perf_probe() {
	need_tool
	command -v perf >/dev/null || t_fail "perf not installed (make deps)"
	local libc want got
	libc=$(ldd /bin/ls | awk '/libc.so/ { print $3 }')
	# fclose is _IO_new_fclose in libc's DWARF: perf probe knows it so
	t_perf_probe "$T_TMP/pp.out" "$libc" _IO_new_fclose \
		'fd=fp->_fileno:s32 flags=fp->_flags:s32' ls -l / /etc/hostname
	want=$(cat "$T_TMP/pp.out")
	[ "$(echo "$want" | wc -l)" -ge 3 ] || t_fail "perf saw few fcloses: $want"
	"$FD" -j --events --output "$T_TMP/fc.json" 'c:fclose(fp->_fileno, fp->_flags)' -- \
		ls -l / /etc/hostname >/dev/null 2>&1
	got=$(funcdur_probe_values "$T_TMP/fc.json" fd flags)
	t_assert_eq "$got" "$want" "each fclose's fp->_fileno and fp->_flags (perf probe's)"
}

# Wrong names and types: the real parameters named, exit 2
test_args_usage_errors() {
	need_tool
	local out st
	for spec in 'sys:openat(fname)' 'c:malloc(size)' 'sys:openat(filename' \
		'sys:openat(a,,b)' 'sys:openat(u99 x)' 'sys:openat(filename->x)'; do
		st=0
		out=$("$FD" "$spec" -- true 2>&1) || st=$?
		t_assert_eq "$st" 2 "'$spec': exit status ($out)"
	done
	out=$("$FD" 'sys:openat(fname)' -- true 2>&1)
	t_assert_match "$out" "its parameters: dfd, filename, flags, mode" "sys: the real ones"
	# libc's DWARF (libc6-dbg): the host's
	if ! t_in_vm; then
		out=$("$FD" 'c:malloc(size)' -- true 2>&1)
		t_assert_match "$out" "malloc has no parameter 'size'; its parameters: bytes" "DWARF's"
	fi
}

# A user function's fields: a member it lacks names those it has (those of
# its anonymous union's in their place), exit 2; so do paths that cannot be read
test_args_user_fields_errors() {
	need_tool
	local b="$KFIT_HELPERS/argcalls" out st spec
	[ -x "$b" ] || t_fail "$b not built"
	for spec in 'ac_req(req->nme)' 'ac_req(req->hdr.ln)' 'ac_req(req.id)' \
		'ac_req(req->hdr->len)' 'ac_req(req->hdr)' 'ac_req(rq)' \
		'ac_req(req->next->next->next->next->id)'; do
		st=0
		out=$("$FD" "$b:$spec" -- true 2>&1) || st=$?
		t_assert_eq "$st" 2 "'$spec': exit status ($out)"
	done
	out=$("$FD" "$b:ac_req(req->nme)" -- true 2>&1)
	t_assert_match "$out" "struct ac_req has no field 'nme'; its fields: id, hdr, name, tag, urgent, cookie, lo, hi, next$" \
		"the real members: $out"
	out=$("$FD" "$b:ac_req(req->hdr.ln)" -- true 2>&1)
	t_assert_match "$out" "struct ac_hdr has no field 'ln'; its fields: len, prio, kind$" \
		"a nested structure's: $out"
	out=$("$FD" "$b:ac_req(req->hdr)" -- true 2>&1)
	t_assert_match "$out" "'hdr' is not a number, pointer or string: name a field of it" "$out"
	out=$("$FD" "$b:ac_req(rq)" -- true 2>&1)
	t_assert_match "$out" "ac_req has no parameter 'rq'; its parameters: req" "$out"
}

# ---- --filter, --errors EXPR -------------------------------------------------

# strace's openat lines as "DFD "NAME" FLAGS RET" (-X raw; errors as -1)
strace_openat_full() {
	local dfd name flags ret
	strace -f -qq -X raw -e trace=openat -o "$T_TMP/strace.out" sh -c "$BY_WORK" \
		>/dev/null 2>&1 || t_fail "the workload failed under strace"
	sed -n 's/^[0-9]* *openat(\(-*[0-9]*\), \("[^"]*"\), \(0x[0-9a-f]*\|0\)[,)].* = \(-*[0-9]*\).*/\1 \2 \3 \4/p' \
		"$T_TMP/strace.out" | while read -r dfd name flags ret; do
		echo "$dfd $name $((flags)) $ret"
	done
}

# A return value and an argument, decided in BPF: the calls strace saw so
test_filter_like_strace() {
	need_tool
	local want got n
	want=$(strace_openat_full | awk '$3 == 0 && $4 >= 0 { print $2 }')
	t_assert_match "$want" '"/etc/hostname"' "strace saw /etc/hostname opened: $want"
	"$FD" -j --events --filter 'flags == 0 && ret >= 0' --output "$T_TMP/f.json" \
		'sys:openat(filename, flags)' -- sh -c "$BY_WORK" >/dev/null 2>&1
	got=$(jq -r 'select(.type == "call") | "\"\(.args.filename)\""' "$T_TMP/f.json")
	t_assert_eq "$got" "$want" "the opens with flags 0 that succeeded, in order (strace's)"
	n=$(strace_openat_full | awk '$4 == -1' | wc -l)
	"$FD" -j --filter 'ret == -ENOENT' --output "$T_TMP/e.json" sys:openat -- \
		sh -c "$BY_WORK" >/dev/null 2>&1
	t_assert_eq "$(jq -r '.functions[0].count' "$T_TMP/e.json")" "$n" \
		"ret == -ENOENT: the failed opens (strace's, all ENOENT)"
	t_assert_eq "$(jq -r '.filtered_out' "$T_TMP/e.json")" \
		"$(($(strace_openat_full | wc -l) - n))" "filtered_out: the others"
}

# comm: only ls's opens, as strace saw them after ls's exec
# (host only: coreutils' ls; busybox runs its applets without exec)
t_in_vm || test_filter_comm() {
	need_tool
	local w='cat /etc/hostname; ls -d /' want
	strace -f -qq -X raw -e trace=openat,execve -o "$T_TMP/st.out" sh -c "$w" >/dev/null 2>&1
	want=$(awk '/execve\("[^"]*\/ls"/ { ls = $1 } $1 == ls && /openat\(/ { n++ } END { print n + 0 }' \
		"$T_TMP/st.out")
	[ "$want" -gt 0 ] || t_fail "strace saw no openat of ls: $(head "$T_TMP/st.out")"
	"$FD" -j --filter 'comm == "ls"' --output "$T_TMP/c.json" sys:openat -- \
		sh -c "$w" >/dev/null 2>&1
	t_assert_eq "$(jq -r '.functions[0].count' "$T_TMP/c.json")" "$want" "ls's opens (strace's)"
}

# A user function's failure as the user defines it: ac_sum's negative
# returns, as uftrace saw them
# (host only: uftrace)
t_in_vm || test_errors_expr_user() {
	need_tool
	command -v uftrace >/dev/null || t_fail "uftrace not installed (make deps)"
	local b="$KFIT_HELPERS/argcalls-pg" want
	(cd "$T_TMP" && uftrace record -d uft.data -R 'ac_sum@retval/i32' "$b" 30 \
		>/dev/null 2>&1) || t_fail "uftrace record failed"
	want=$(uftrace replay -d "$T_TMP/uft.data" --no-pager -f none 2>/dev/null |
		grep -c 'ac_sum(.*) = -')
	[ "$want" -gt 0 ] || t_fail "uftrace saw no negative ac_sum"
	"$FD" -j --errors 'ret < 0' --by ret --output "$T_TMP/u.json" "$b:ac_sum" -- "$b" 30 \
		>/dev/null 2>&1
	t_assert_eq "$(jq '[.functions[].count] | add' "$T_TMP/u.json")" "$want" \
		"the calls that returned < 0 (uftrace's)"
	t_assert_eq "$(jq -r '[.functions[].ret < 0] | all' "$T_TMP/u.json")" true "only negative rows"
	t_assert_eq "$(jq -r '.not_failed' "$T_TMP/u.json")" "$((30 - want))" "not_failed: the rest"
}

# An argument the filter reads that a function does not have: left out, counted
test_filter_noval() {
	need_tool
	"$FD" -j --filter 'count > 0' --output "$T_TMP/n.json" 'sys:write(fd, count)' sys:close -- \
		sh -c 'echo x >/dev/null' >/dev/null 2>&1
	t_assert_eq "$(jq -r '.functions[] | select(.name == "sys:close") | .count' "$T_TMP/n.json")" 0 \
		"sys:close has no count: none of its calls pass"
	[ "$(jq -r '.filter_noval' "$T_TMP/n.json")" -gt 0 ] ||
		t_fail "filter_noval counts sys:close's calls: $(cat "$T_TMP/n.json")"
}

test_filter_usage() {
	need_tool
	local out st=0
	out=$("$FD" --filter 'sizee > 1' 'sys:write(fd, count)' -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an unknown name: exit status"
	t_assert_match "$out" "at column 1: unknown name 'sizee' \(fd, count, ret" "the names it knows: $out"
	st=0
	out=$("$FD" --filter 'count >' 'sys:write(fd, count)' -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "a cut expression: exit status"
	t_assert_match "$out" "at column 8: the expression ends too early" "$out"
	st=0
	out=$("$FD" --errors 'ret == 0' -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "--errors EXPR without a target: exit status"
}

t_run_all
