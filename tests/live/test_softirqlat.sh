#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of softirqlat on the running kernel (root).
. "$(dirname "$0")/../lib.sh"

SL="$KFIT_BIN/softirqlat"
LOAD="$KFIT_HELPERS/softirqload"
MIN_EVENTS=200	# vectors with fewer events in the window are not compared
TOLERANCE=2	# percent

need_tool() {
	t_need_root
	[ -x "$SL" ] || t_fail "$SL not built"
}

need_load() {
	[ -x "$LOAD" ] || t_fail "$LOAD not built"
}

# ---- a softirqlat in the background -------------------------------------

bg_start() { t_bg_start "$SL" "$@"; }
bg_wait_tracing() { t_bg_wait_tracing 30; }
bg_stop() { t_bg_stop "$1" 30; }

# ---- /proc/softirqs -----------------------------------------------------

# "name total" per vector, summed over the CPUs, names in lower case
proc_softirqs() {
	awk 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i
		n = tolower($1); sub(":", "", n); print n, s }' /proc/softirqs
}

proc_names() { proc_softirqs | awk '{ print $1 }'; }

# ---- JSON checks ----------------------------------------------------------

# Prints one line per problem of a softirqlat -j document on stdin
# shellcheck disable=SC2016
JQ_SCHEMA='
def stat_fields: ["count", "total_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns"];
def check_stat($where):
	if type != "object" then "\($where): missing or not an object"
	else
		(stat_fields[] as $f | select((.[$f] | type) != "number")
			| "\($where).\($f) is not a number: \(.[$f] | tojson)"),
		(if (.hist | type) != "array" then "\($where).hist is not an array"
		 else (.hist[] | select((.lower_ns | type) != "number" or
				(.count | type) != "number")
			| "\($where).hist entry malformed: \(tojson)")
		 end),
		(if ([stat_fields[] as $f | .[$f] | type] | unique) == ["number"] and
		    (.hist | type) == "array" and
		    ([.hist[] | (.lower_ns | type), (.count | type)] | all(. == "number"))
		 then
			(select(.p50_ns > .p99_ns or .p99_ns > .max_ns)
				| "\($where): not p50 <= p99 <= max: \(.p50_ns) \(.p99_ns) \(.max_ns)"),
			(select(.count > 0 and ((.avg_ns - .total_ns / .count) | fabs) > 1)
				| "\($where): avg_ns \(.avg_ns) but total_ns/count = \(.total_ns / .count)"),
			(select(.count == 0 and (.total_ns != 0 or .max_ns != 0))
				| "\($where): count 0 with total_ns \(.total_ns), max_ns \(.max_ns)"),
			(select(([.hist[].count] | add // 0) != .count)
				| "\($where): hist counts sum to \([.hist[].count] | add // 0), count is \(.count)"),
			(select([.hist[].lower_ns] as $l | $l != ($l | sort) or $l != ($l | unique))
				| "\($where): hist lower_ns not increasing"),
			(select(.count > 0 and (.hist | length) > 0 and .hist[-1].lower_ns > .max_ns)
				| "\($where): last bucket starts at \(.hist[-1].lower_ns) above max_ns \(.max_ns)")
		 else empty end)
	end;
if (.vectors | type) != "array" then "vectors is not an array"
elif (.vectors | length) == 0 then "vectors is empty"
else
	(.vectors[] | (.vector | tostring) as $v |
		(select((.vector | type) != "string") | "vector name is not a string: \(.vector)"),
		(select(.vector as $n | $names | index([$n]) | not)
			| "\($v): not a /proc/softirqs name \($names)"),
		(select((.count | type) != "number") | "\($v).count is not a number"),
		(select(.count != .handler.count?) | "\($v).count \(.count) != handler.count \(.handler.count?)"),
		(.queue | check_stat("\($v).queue")),
		(.handler | check_stat("\($v).handler"))),
	(select([.vectors[] | [.vector, .cpu]] | length != (unique | length))
		| "a vector appears twice")
end'

json_problems() {	# file
	jq -r --argjson names "$(proc_names | jq -R . | jq -s -c .)" "$JQ_SCHEMA" "$1"
}

assert_json_doc() {	# file what
	local p
	jq -e . "$1" >/dev/null 2>"$T_TMP/jq.err" || {
		t_show_file "$1" "$2"
		t_fail "$2: not valid JSON: $(head -n 1 "$T_TMP/jq.err")"
	}
	p=$(json_problems "$1") || t_fail "$2: jq failed on the schema check"
	[ -z "$p" ] || { echo "$p"; t_fail "$2: $(echo "$p" | head -n 1) ($(echo "$p" | wc -l) problems)"; }
}

# ---- tests ----------------------------------------------------------------

test_json_schema() {
	need_tool
	need_load
	"$LOAD" -d 3 >load.out 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	t_expect_exit 0 "$SL" -j -d 2s
	cp "$T_OUT" doc.json
	assert_json_doc doc.json "softirqlat -j"
	# the load made both kinds of events, so the statistics are not all 0
	t_assert_match "$(jq -r '.vectors[] | select(.vector == "net_rx") | .handler.count' doc.json)" \
		'^[1-9]' "net_rx handler count under softirqload"
	t_assert_match "$(jq -r '.vectors[] | select(.vector == "timer") | .queue.count' doc.json)" \
		'^[1-9]' "timer queue count under softirqload"
}

# Handler counts per vector against /proc/softirqs over the same window:
# /proc/softirqs is read once tracing has started (1) and again right
# before SIGINT (2). softirqlat traces a little longer: from its attach to
# its last read of the maps (whose RCU wait makes softirqs itself), all
# inside a read before it starts (0) and one after it exits (3). A count
# must be within 2% of the 1-2 delta or, failing that, between the 1-2
# and the 0-3 deltas: what the longer window explains (slow VMs).
counts_match_proc_softirqs() {	# MODE [OPTION]
	local snap
	snap=$(t_bpf_snapshot)
	proc_softirqs >p0
	bg_start -j ${2:+"$2"}
	bg_wait_tracing
	proc_softirqs >p1
	"$LOAD" -d 5 >load.out 2>&1 || t_fail "softirqload failed: $(cat load.out)"
	proc_softirqs >p2
	bg_stop INT
	proc_softirqs >p3
	t_assert_eq "$BG_RC" 0 "exit status after SIGINT"
	cat load.out
	assert_json_doc bg.out "softirqlat -j $* (SIGINT)"
	t_assert_eq "$(jq -r .mode bg.out)" "$1" "the programs' mode"
	jq -r '.vectors[] | "\(.vector) \(.handler.count)"' bg.out >tool
	join_deltas p1 p2 >inner
	join_deltas p0 p3 >outer
	compare_counts inner outer tool
	t_bpf_assert_same "$snap" "after softirqlat"
}

test_counts_match_proc_softirqs() {
	need_tool
	need_load
	counts_match_proc_softirqs tp_btf
}

# --raw-tp: the raw tracepoints of kernels without tp_btf, the same counts
test_counts_match_proc_softirqs_raw_tp() {
	need_tool
	need_load
	counts_match_proc_softirqs raw_tracepoint --raw-tp
}

compare_counts() {	# inner outer tool: "name count" lines
	local name d outer got compared=""
	while read -r name d; do
		got=$(awk -v n="$name" '$1 == n { print $2 }' "$3")
		outer=$(awk -v n="$name" '$1 == n { print $2 }' "$2")
		echo "$name: /proc/softirqs $d (with the tool's start and end: $outer), softirqlat ${got:-none}"
		[ "$d" -ge "$MIN_EVENTS" ] || continue
		compared="$compared $name"
		[ -n "$got" ] || t_fail "$name: $d events in /proc/softirqs, none reported"
		t_is_within_pct "$got" "$d" "$TOLERANCE" && continue
		if [ "$got" -ge "$d" ] && [ "$got" -le "${outer:-0}" ]; then
			echo "  $name: off by more than $TOLERANCE%, but within what the tool's longer window saw"
			continue
		fi
		t_within_pct "$got" "$d" "$TOLERANCE" \
			"$name handler count against /proc/softirqs (and outside [$d, $outer])"
	done <"$1"
	for name in timer net_rx; do
		case " $compared " in
		*" $name "*) ;;
		*) t_fail "$name: fewer than $MIN_EVENTS events under softirqload, not compared" ;;
		esac
	done
}

join_deltas() {	# before after -> "name delta"
	awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' "$1" "$2"
}

test_per_cpu_cpu0() {
	need_tool
	t_expect_exit 0 "$SL" -j -d 1s --per-cpu -C 0
	cp "$T_OUT" doc.json
	assert_json_doc doc.json "softirqlat -j --per-cpu -C 0"
	t_assert_eq "$(jq -r '[.vectors[].cpu] | unique | tojson' doc.json)" "[0]" \
		"CPUs reported with --per-cpu -C 0"
	t_assert_eq "$(jq -r '[.vectors[].vector] | length == (unique | length)' doc.json)" true \
		"each vector once for CPU 0"
}

test_per_cpu_all() {
	need_tool
	local n
	n=$(grep -c '^processor' /proc/cpuinfo)
	t_expect_exit 0 "$SL" -j -d 1s --per-cpu
	cp "$T_OUT" doc.json
	assert_json_doc doc.json "softirqlat -j --per-cpu"
	t_assert_eq "$(jq -r '[.vectors[].cpu | numbers] | length' doc.json)" \
		"$(jq -r '.vectors | length' doc.json)" "vector objects with a numeric cpu"
	t_assert_eq "$(jq -r '[.vectors[].cpu] | unique | length' doc.json)" "$n" \
		"CPUs reported (processors in /proc/cpuinfo)"
}

test_interval_count_3() {
	need_tool
	local i=0 line
	t_expect_exit 0 "$SL" -j -i 1s --count 3
	t_assert_eq "$(wc -l <"$T_OUT" | tr -d ' ')" 3 "lines of -j -i 1s --count 3"
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s\n' "$line" >"line$i.json"
		assert_json_doc "line$i.json" "interval report $i"
	done <"$T_OUT"
}

# bucket lines "LO -> HI : N": each a power-of-two range
test_hist_log2() {
	need_tool
	local bad
	t_expect_exit 0 "$SL" -H -d 1s
	t_assert_match "$(cat "$T_OUT")" 'distribution' "-H output"
	bad=$(awk '/->/ && $4 == ":" { lo = $1; hi = $3
		if (!(lo == 0 && hi == 1) && hi + 1 != 2 * lo) print }' "$T_OUT")
	[ -z "$bad" ] || t_fail "buckets that are not log2: $bad"
	grep -q -- '->' "$T_OUT" || { t_show_file "$T_OUT" "-H"; t_fail "no bucket lines in -H output"; }
}

# --linear 10us: buckets ">= LO < HI" 10000 ns wide
test_hist_linear() {
	need_tool
	local bad
	t_expect_exit 0 "$SL" -H --linear 10us -d 1s
	t_assert_match "$(cat "$T_OUT")" 'distribution' "--linear output"
	bad=$(awk '$1 == ">=" && $3 == "<" && $2 + 10000 != $4' "$T_OUT")
	[ -z "$bad" ] || t_fail "buckets not 10us wide: $bad"
	grep -q '^ *>=' "$T_OUT" || { t_show_file "$T_OUT" "--linear"; t_fail "no bucket lines in --linear output"; }
}

# --no-queue: handler rows and objects only, and no program on softirq_raise
test_no_queue() {
	need_tool
	need_load
	local raise
	"$LOAD" -d 3 >/dev/null 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	t_expect_exit 0 "$SL" --no-queue -j -d 2s
	cp "$T_OUT" doc.json
	t_assert_eq "$(jq '[.vectors[] | has("queue")] | any' doc.json)" false \
		"a queue object with --no-queue"
	t_assert_eq "$(jq '[.vectors[] | select(.vector == "net_rx") | .handler.count > 0] | any' doc.json)" true \
		"net_rx handler runs counted with --no-queue"
	t_expect_exit 0 "$SL" --no-queue -d 1s
	grep -q ' queue ' "$T_OUT" && t_fail "queue rows in the --no-queue table"
	bg_start --no-queue
	bg_wait_tracing
	raise=$(bpftool prog show | grep -c 'name raise_')
	bg_stop INT
	t_assert_eq "$raise" 0 "raise programs loaded with --no-queue"
}

# --linear without -H: the help says it implies -H; at least no crash
test_linear_without_H() {
	need_tool
	t_expect_exit 0 "$SL" --linear 10us -d 1s
	t_assert_match "$(cat "$T_OUT")" 'distribution' "--linear without -H output"
}

# A bad duration, unknown flags: tests/cases/usage/softirqlat.case. -C 99
# is refused where there is no CPU 99
test_bad_cpu() {
	need_tool
	[ -e /sys/devices/system/cpu/cpu99 ] && t_skip "this machine has a CPU 99"
	t_expect_exit 2 "$SL" -C 99
	t_assert_match "$(cat "$T_ERR")" '99' "message for -C 99"
}

test_sigterm_text_report() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	bg_start
	bg_wait_tracing
	sleep 1
	bg_stop TERM
	t_assert_eq "$BG_RC" 0 "exit status after SIGTERM"
	local out
	out=$(cat bg.out)
	[ -n "$out" ] || t_fail "no report on stdout after SIGTERM"
	t_assert_match "$out" '[Cc][Oo][Uu][Nn][Tt]' "report after SIGTERM"
	t_assert_match "$out" '[Pp]99' "report after SIGTERM"
	t_assert_match "$out" '[Mm][Aa][Xx]' "report after SIGTERM"
	t_bpf_assert_same "$snap" "after SIGTERM"
}

test_sigterm_json_report() {
	need_tool
	bg_start -j
	bg_wait_tracing
	sleep 1
	bg_stop TERM
	t_assert_eq "$BG_RC" 0 "exit status after SIGTERM"
	assert_json_doc bg.out "softirqlat -j after SIGTERM"
}

# As a user without capabilities: exit 1, naming CAP_BPF
test_unprivileged() {
	need_tool
	t_nobody
	t_expect_exit 1 "${NOBODY[@]}" "$SL" -d 1s
	t_assert_match "$(cat "$T_ERR")" 'CAP_BPF' "message as nobody"
}

t_run_all
