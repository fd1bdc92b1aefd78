#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of pmcstat on the running kernel (root): counts against
# `perf stat` over the same workloads (tests/helpers/pmcload), system-wide
# clocks against the time elapsed, exact tracepoint counts, per-task sums
# against the per-CPU totals, output forms, bad input and signals.
#
# Tolerances (the issue's): page-faults and msr/tsc/ rates within 2% of
# perf stat's, times (task-clock, cpu-clock) within 10%. Tracepoint counts
# and --per-task sums are exact. Where this machine has a hardware PMU
# (not here: a VM), the tests that expect hardware events to fail expect
# them to count instead; where it has no msr PMU, msr/tsc/ must be refused.
. "$(dirname "$0")/../lib.sh"

PS="$KFIT_BIN/pmcstat"
# With a COMMAND the report goes to stderr (the command owns stdout):
# "${PSC[@]}" ARGS runs pmcstat --output FILE ARGS, then prints FILE on
# stdout, and exits with pmcstat's status
PSC=(sh -c 'p=$1; shift; f=$(mktemp) || exit 99
	"$p" --output "$f" "$@"; rc=$?; cat "$f"; rm -f "$f"; exit $rc' sh "$PS")
PL="$KFIT_HELPERS/pmcload"
PAGES=20000		# pages touched: startup faults are small beside them
PF_PCT=2		# page-faults, msr/tsc/ rates: percent
TIME_PCT=10		# cpu-clock, task-clock: percent
EVENTS_DIR=/sys/bus/event_source/devices

need_tool() {
	t_need_root
	[ -x "$PS" ] || t_fail "$PS not built"
	[ -x "$PL" ] || t_fail "$PL not built"
}

# perf is compared against: the host needs linux-perf, the VM has a copy
need_perf() {
	command -v perf >/dev/null ||
		t_fail "perf not found: install the Debian package linux-perf (kfit-vm copies it into the VM)"
}

# ---- this machine ---------------------------------------------------------

# The online CPUs, one per line
online_cpus() {
	local r a b
	for r in $(tr ',' ' ' </sys/devices/system/cpu/online); do
		a=${r%-*} b=${r#*-}
		while [ "$a" -le "$b" ]; do
			echo "$a"
			a=$((a + 1))
		done
	done
}

ncpus() { online_cpus | wc -l | tr -d ' '; }

# A core PMU in sysfs: hardware events can be counted
has_hw_pmu() {
	[ -d "$EVENTS_DIR/cpu" ] || [ -d "$EVENTS_DIR/cpu_core" ] || [ -d "$EVENTS_DIR/cpu_atom" ]
}

has_msr_tsc() { [ -e "$EVENTS_DIR/msr/events/tsc" ]; }

tracepoint_exists() {	# category:name
	[ -d "/sys/kernel/tracing/events/${1%%:*}/${1#*:}" ] ||
		[ -d "/sys/kernel/debug/tracing/events/${1%%:*}/${1#*:}" ]
}

# ---- perf stat --------------------------------------------------------------

# perf stat -x, ARGS..., its CSV in $T_TMP/perf.csv; it must exit 0
perf_stat() {
	local rc
	need_perf
	echo "+ perf stat -x, $*"
	timeout "$T_CMD_TIMEOUT" perf stat -x, -o "$T_TMP/perf.csv" "$@" \
		>"$T_TMP/perf.out" 2>"$T_TMP/perf.err" </dev/null
	rc=$?
	[ "$rc" = 0 ] || {
		t_show_file "$T_TMP/perf.err" "perf stat's stderr"
		t_fail "perf stat -x, $* exited $rc"
	}
	grep -v '^#' "$T_TMP/perf.csv" | grep .
}

# The count of EVENT in perf.csv (aggregated: "value,unit,event,run_ns,...")
# in ns for msec values; fails unless it is a number
perf_value() {	# EVENT
	local v
	v=$(awk -F, -v e="$1" '$3 == e {
		if ($2 == "msec") printf "%.0f\n", $1 * 1000000; else print $1 }' "$T_TMP/perf.csv")
	_t_is_num "$v" || {
		t_show_file "$T_TMP/perf.csv" "perf stat's CSV"
		t_fail "perf stat counted no number for $1: '$v'"
	}
	echo "$v"
}

# ---- pmcstat in the background ---------------------------------------------

bg_start() { t_bg_start "$PS" "$@"; }
bg_wait_tracing() { t_bg_wait_tracing 30; }

# End it with SIGINT unless it already ended by itself (its -p/-t target
# exited); either way it must exit 0. Sets BG_RC.
bg_end() {
	local i=0
	kill -INT "$BG" 2>/dev/null
	while kill -0 "$BG" 2>/dev/null; do
		[ "$i" -ge 300 ] && t_fail "still running 30 s after SIGINT"
		t_pause 0.1
		i=$((i + 1))
	done
	wait "$BG"
	BG_RC=$?
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "pmcstat exited $BG_RC, expected 0"
	}
}

# pmcload -w ARGS in the background, waiting for SIGUSR1; sets PL_PID and
# PL_WORKER (threads and pingpong)
pl_start() {	# pmcload args...
	local HELD_WANT=
	case $1 in threads | pingpong) HELD_WANT='^worker ' ;; esac
	t_held_start "$PL" -w "$@"
	PL_PID=$HELD_PID
	PL_WORKER=$(sed -n 's/^worker //p' "$T_TMP/held.out")
}

pl_go() { t_held_go; }

# ---- JSON -------------------------------------------------------------------
# jq is slow under emulation (the VM): a document is checked and flattened
# by one jq run into FILE.kv, lines of tab-separated fields:
#   d KEY VALUE         target elapsed_ns time_ns exit_status tasks_dropped
#                       read_errors ntasks ("null" when absent)
#   c CPU EVENT VALUE RAW ENABLED_NS RUNNING_NS UNIT STATUS
#                       one per count record, CPU "total" for the totals
#   u EVENT REASON      unsupported events
#   r NAME VALUE        ratios
#   t TID PID COMM EVENT VALUE   --per-task: each task's counts

# One line per problem of a pmcstat -j report
# shellcheck disable=SC2016
JQ_SCHEMA='
def statuses: ["counted", "not counted", "not supported"];
if type != "object" then "the report is not an object"
else
	(select((.target | type) != "string" or
		(.target | test("^(system wide|pid [0-9]+|tid [0-9]+|command)$") | not))
		| "target: \(.target | tojson)"),
	(select((.elapsed_ns | type) != "number") | "elapsed_ns is not a number: \(.elapsed_ns | tojson)"),
	(select(has("time_ns") and (.time_ns | type) != "number") | "time_ns is not a number"),
	(select(has("exit_status") and (.exit_status | type) != "number") | "exit_status is not a number"),
	(if (.counts | type) != "array" then "counts is not an array"
	 elif (.counts | length) == 0 then "counts is empty"
	 else
		(.counts[] | (.event | tostring) as $e | (if has("cpu") then "cpu \(.cpu)" else "total" end) as $c |
			(select((.event | type) != "string") | "a count without an event name: \(tojson)"),
			(select(has("cpu") and ((.cpu | type) != "number" or .cpu < 0 or .cpu != (.cpu | floor)))
				| "\($e): bad cpu \(.cpu | tojson)"),
			(select(.status as $s | statuses | index([$s]) | not)
				| "\($e) \($c): bad status \(.status | tojson)"),
			(select(.status == "counted" and ((.value | type) != "number" or .value < 0 or .value != (.value | floor)))
				| "\($e) \($c): counted, but value \(.value | tojson) is not a count"),
			(select(.status != "counted" and .value != null)
				| "\($e) \($c): \(.status), but value \(.value | tojson) is not null"),
			(select(has("raw") | not) | "\($e) \($c): no raw"),
			(["enabled_ns", "running_ns"][] as $f | select((.[$f] | type) != "number")
				| "\($e) \($c): \($f) is not a number: \(.[$f] | tojson)"),
			(select((.running_ns | type) == "number" and (.enabled_ns | type) == "number" and
				.running_ns > .enabled_ns) | "\($e) \($c): running_ns > enabled_ns"),
			(select((.unit | type) != "string") | "\($e) \($c): unit is not a string"),
			(select((.group | type) != "string") | "\($e) \($c): group is not a string"),
			(select((.event | tostring | test("^(cpu|task)-clock")) and .unit != "ns")
				| "\($e) \($c): unit \(.unit | tojson), expected \"ns\"")),
		(. as $d | [.counts[] | [.group, .event]] | unique[] as $k | ($k | map(tostring) | join("/")) as $e |
			[$d.counts[] | select([.group, .event] == $k and has("cpu"))] as $rows |
			[$d.counts[] | select([.group, .event] == $k and (has("cpu") | not))] as $tot |
			(select(($tot | length) < 1) | "\($e): no total record"),
			(select(($rows | map(.cpu) | length) != ($rows | map(.cpu) | unique | length) * ($tot | length))
				| "\($e): CPUs not once per total record (the same event given \($tot | length) times)"),
			(select(($tot | length) == 1 and ($rows | length) > 0 and $tot[0].status == "counted" and
				($rows | all(.status == "counted" and .running_ns == .enabled_ns)) and
				($rows | map(.value) | add) != $tot[0].value)
				| "\($e): total \($tot[0].value) is not the sum of the CPUs, \($rows | map(.value) | add)"))
	 end),
	(select(has("unsupported") and (.unsupported | type) != "array") | "unsupported is not an array"),
	(select((.unsupported | type) == "array") | .unsupported[]
		| select((.event | type) != "string" or (.reason | type) != "string" or .reason == "")
		| "unsupported entry malformed: \(tojson)"),
	(select(has("ratios") and (.ratios | type) != "array") | "ratios is not an array"),
	(select((.ratios | type) == "array") | .ratios[]
		| select((.name | type) != "string" or (.value | type) != "number")
		| "ratio malformed: \(tojson)"),
	(select(has("tasks")) |
		(select((.tasks | type) != "array") | "tasks is not an array"),
		(select((.tasks_dropped | type) != "number") | "tasks_dropped is not a number"),
		(select((.cpus_not_switched | type) != "number") | "cpus_not_switched is not a number"),
		(select((.read_errors | type) != "number") | "read_errors is not a number"),
		(select((.tasks | type) == "array") | .tasks[]
			| select((.tid | type) != "number" or (.pid | type) != "number" or
				(.comm | type) != "string" or (.counts | type) != "array" or
				(.counts | any((.event | type) != "string" or
					((.value | type) != "number" and .value != null))))
			| "task malformed: \(tojson | .[0:300])"))
end'

# shellcheck disable=SC2016
JQ_FLAT='
	(["target", "elapsed_ns", "time_ns", "exit_status", "tasks_dropped", "cpus_not_switched", "read_errors"][] as $k
		| "d\t\($k)\t\(.[$k])"),
	"d\tntasks\t\(.tasks | if type == "array" then length else null end)",
	(.counts[]? | "c\t\(if has("cpu") then .cpu else "total" end)\t\(.event)\t\(.value)\t\(.raw)\t\(.enabled_ns)\t\(.running_ns)\t\(.unit)\t\(.status)"),
	(.unsupported[]? | "u\t\(.event)\t\(.reason)"),
	(.ratios[]? | "r\t\(.name)\t\(.value)"),
	(.tasks[]? | . as $t | .counts[]? | "t\t\($t.tid)\t\($t.pid)\t\($t.comm)\t\(.event)\t\(.value)")'

# FILE holds one report, on one line: check it, flatten it into FILE.kv
assert_json_doc() {	# file what
	local out
	rm -f "$1.kv"
	[ -s "$1" ] || t_fail "$2: no output"
	[ "$(grep -c . "$1")" = 1 ] || {
		t_show_file "$1" "$2"
		t_fail "$2: $(grep -c . "$1") lines, expected one JSON object on one line"
	}
	out=$(jq -r "(([$JQ_SCHEMA] | map(\"!\" + .) | .[]), $JQ_FLAT)" "$1" 2>&1) || {
		t_show_file "$1" "$2"
		t_fail "$2: not valid JSON: $(echo "$out" | head -n 1)"
	}
	if printf '%s\n' "$out" | grep -q '^!'; then
		printf '%s\n' "$out" | sed -n 's/^!//p' | head -n 20
		t_fail "$2: $(printf '%s\n' "$out" | sed -n 's/^!//p' | head -n 1) ($(printf '%s\n' "$out" | grep -c '^!') problems)"
	fi
	printf '%s\n' "$out" >"$1.kv"
}

# A document field ("null" if absent)
dv() {	# FILE KEY
	awk -F'\t' -v k="$2" '$1 == "d" && $2 == k { print $3; f = 1 } END { if (!f) print "missing" }' "$1.kv"
}

# A field of a count record: value raw enabled running unit status
cv() {	# FILE CPU|total EVENT [FIELD, default value]
	awk -F'\t' -v c="$2" -v e="$3" -v f="${4:-value}" '
		BEGIN { col["value"] = 4; col["raw"] = 5; col["enabled"] = 6
			col["running"] = 7; col["unit"] = 8; col["status"] = 9 }
		$1 == "c" && $2 == c && $3 == e { print $(col[f]); found = 1; exit }
		END { if (!found) print "missing" }' "$1.kv"
}

# The total of EVENT, which must be counted
total() {	# FILE EVENT
	local v
	v=$(cv "$1" total "$2")
	_t_is_num "$v" || {
		grep -P '^c\t' "$1.kv" | head -n 20 >&2
		t_fail "total of $2 is not a number: '$v' (status $(cv "$1" total "$2" status))"
	}
	echo "$v"
}

# The CPUs of EVENT's per-CPU records, sorted, on one line
cpus_of() {	# FILE EVENT
	awk -F'\t' -v e="$2" '$1 == "c" && $3 == e && $2 != "total" { print $2 }' "$1.kv" |
		sort -n | tr '\n' ' '
}

# The event names of the totals, sorted, comma-separated
events_of() {	# FILE
	awk -F'\t' '$1 == "c" && $2 == "total" { print $3 }' "$1.kv" | sort | paste -sd, -
}

# The only total record's event name (a report of one event)
only_event() {	# FILE
	local e
	e=$(awk -F'\t' '$1 == "c" && $2 == "total" { print $3 }' "$1.kv")
	[ "$(printf '%s\n' "$e" | grep -c .)" = 1 ] || t_fail "$(basename "$1"): expected one event, got: $e"
	echo "$e"
}

# pmcstat ARGS: it must exit 0 with one report on stdout, checked and
# flattened into FILE
run_json() {	# FILE pmcstat-args...
	local f=$1
	shift
	t_expect_exit 0 "${PSC[@]}" "$@"
	cp "$T_OUT" "$f"
	cp "$T_ERR" "$f.err"
	assert_json_doc "$f" "pmcstat $*"
}

# ---- counts against perf stat ------------------------------------------------

# page-faults of a command that touches PAGES pages
test_page_faults_vs_perf() {
	need_tool
	local pm pf
	run_json pm.json -j -e page-faults -- "$PL" -q pages "$PAGES"
	t_assert_eq "$(dv pm.json target)" command "target"
	t_assert_eq "$(dv pm.json exit_status)" 0 "exit_status of pmcload"
	t_assert_eq "$(only_event pm.json)" page-faults "event"
	pm=$(total pm.json page-faults)
	perf_stat -e page-faults -- "$PL" -q pages "$PAGES"
	pf=$(perf_value page-faults)
	echo "page-faults of pmcload pages $PAGES: pmcstat $pm, perf stat $pf"
	[ "$pm" -ge "$PAGES" ] || t_fail "page-faults $pm < $PAGES, the pages touched"
	t_within_pct "$pm" "$pf" "$PF_PCT" "page-faults against perf stat"
}

test_page_faults_user_vs_perf() {
	need_tool
	local pm pf ev
	run_json pm.json -j -e page-faults:u -- "$PL" -q pages "$PAGES"
	ev=$(only_event pm.json)
	t_assert_match "$ev" '^page-faults' "event of -e page-faults:u"
	pm=$(total pm.json "$ev")
	perf_stat -e page-faults:u -- "$PL" -q pages "$PAGES"
	pf=$(perf_value page-faults:u)
	echo "page-faults:u of pmcload pages $PAGES: pmcstat $pm, perf stat $pf"
	[ "$pm" -ge "$PAGES" ] || t_fail "page-faults:u $pm < $PAGES, the pages touched (from user mode)"
	t_within_pct "$pm" "$pf" "$PF_PCT" "page-faults:u against perf stat"
}

# msr/tsc/ counted system wide for 2 s: the rate per second against perf
# stat's (per CPU, count / running time, added up)
test_tsc_rate_vs_perf() {
	need_tool
	if ! has_msr_tsc; then
		echo "no msr/tsc/ here: it must be refused as a PMU that does not exist"
		t_expect_exit 2 "$PS" -a -d 1 -e msr/tsc/
		t_assert_match "$(cat "$T_ERR")" 'msr' "message for msr/tsc/ without an msr PMU"
		return
	fi
	local pm el rate prate n
	n=$(ncpus)
	run_json pm.json -j -a -d 2 -e msr/tsc/
	t_assert_eq "$(dv pm.json target)" "system wide" "target of -a"
	t_assert_eq "$(only_event pm.json)" msr/tsc/ "event"
	t_assert_eq "$(cpus_of pm.json msr/tsc/)" "$(online_cpus | tr '\n' ' ')" "CPUs of msr/tsc/ with -a"
	el=$(dv pm.json elapsed_ns)
	_t_is_num "$el" || t_fail "elapsed_ns '$el'"
	[ "$el" -ge 1980000000 ] || t_fail "elapsed_ns $el for -d 2: under 2 s"
	rate=$(awk -v v="$(total pm.json msr/tsc/)" -v t="$el" 'BEGIN { printf "%.0f", v * 1e9 / t }')
	perf_stat -a -A -e msr/tsc/ sleep 2
	prate=$(awk -F, '$4 == "msr/tsc/" && $5 > 0 { r += $2 * 1e9 / $5; n++ }
		END { if (n) printf "%.0f", r }' perf.csv)
	_t_is_num "$prate" || { t_show_file perf.csv; t_fail "no msr/tsc/ rows in perf stat -A's CSV"; }
	echo "msr/tsc/ per second, $n CPUs: pmcstat $rate, perf stat $prate"
	t_within_pct "$rate" "$prate" "$PF_PCT" "msr/tsc/ rate against perf stat"
}

# task-clock of 500 ms of CPU time
test_task_clock_vs_perf() {
	need_tool
	local pm pf
	run_json pm.json -j -e task-clock -- "$PL" -q spin 500
	t_assert_eq "$(cv pm.json total task-clock unit)" ns "unit of task-clock"
	pm=$(total pm.json task-clock)
	perf_stat -e task-clock -- "$PL" -q spin 500
	pf=$(perf_value task-clock)
	echo "task-clock of pmcload spin 500: pmcstat $pm ns, perf stat $pf ns"
	[ "$pm" -ge 500000000 ] || t_fail "task-clock $pm ns < the 500 ms of CPU time burnt"
	t_within_pct "$pm" "$pf" "$TIME_PCT" "task-clock against perf stat"
}

# -a cpu-clock: every CPU's clock runs the whole time
test_cpu_clock_all_cpus() {
	need_tool
	local n el c v
	n=$(ncpus)
	run_json pm.json -j -a -d 2 -e cpu-clock
	el=$(dv pm.json elapsed_ns)
	_t_is_num "$el" || t_fail "elapsed_ns '$el'"
	[ "$el" -ge 1980000000 ] || t_fail "elapsed_ns $el for -d 2: under 2 s"
	t_assert_eq "$(cpus_of pm.json cpu-clock)" "$(online_cpus | tr '\n' ' ')" "CPUs of cpu-clock with -a"
	echo "cpu-clock total $(total pm.json cpu-clock) ns over $el ns on $n CPUs"
	t_within_pct "$(total pm.json cpu-clock)" $((n * el)) "$TIME_PCT" "cpu-clock total against CPUs x elapsed"
	for c in $(online_cpus); do
		v=$(cv pm.json "$c" cpu-clock)
		t_within_pct "$v" "$el" "$TIME_PCT" "cpu-clock of CPU $c against elapsed_ns"
	done
}

# ---- tracepoints: exact counts -----------------------------------------------

tp_exact() {	# EVENT N pmcload-args...
	local ev=$1 n=$2 pm pf
	shift 2
	run_json "tp.json" -j -e "$ev" -- "$PL" -q "$@"
	t_assert_eq "$(only_event tp.json)" "$ev" "event"
	pm=$(total tp.json "$ev")
	perf_stat -e "$ev" -- "$PL" -q "$@"
	pf=$(perf_value "$ev")
	echo "$ev of pmcload $*: pmcstat $pm, perf stat $pf"
	t_assert_eq "$pm" "$n" "$ev of pmcload $*"
	t_assert_eq "$pf" "$n" "$ev of pmcload $* by perf stat"
}

test_tracepoint_fork_exact() {
	need_tool
	tracepoint_exists sched:sched_process_fork || t_fail "no tracepoint sched:sched_process_fork"
	tp_exact sched:sched_process_fork 50 forks 50
}

test_tracepoint_syscall_exact() {
	need_tool
	if ! tracepoint_exists syscalls:sys_enter_getppid; then
		echo "no syscalls:sys_enter_getppid here: it must be refused as an unknown event"
		t_expect_exit 2 "$PS" -e syscalls:sys_enter_getppid -- true
		t_assert_match "$(cat "$T_ERR")" 'sys_enter_getppid' "message for a missing tracepoint"
		return
	fi
	tp_exact syscalls:sys_enter_getppid 1000 getppid 1000
}

# ---- breakpoints and tracepoint globs ------------------------------------------

BW="$KFIT_HELPERS/bpwrite"

# The values of the total records, in the order of the events
totals_in_order() {	# FILE
	awk -F'\t' '$1 == "c" && $2 == "total" { print $4 }' "$1.kv"
}

# The labels of the total records, in order
labels_in_order() {	# FILE
	awk -F'\t' '$1 == "c" && $2 == "total" { print $3 }' "$1.kv"
}

# perf.csv's values, in the order of its lines
perf_in_order() {
	grep -v '^#' "$T_TMP/perf.csv" | grep . | cut -d, -f1
}

# bpwrite writes a variable W times, reads it R times and calls a function
# W times, at addresses fixed at build time: breakpoints on them count
# exactly that, in pmcstat and in perf stat alike
test_breakpoint_counts_writes() {
	need_tool
	local w=5000 r=3000 var fn spec want got pf
	[ -x "$BW" ] || t_fail "$BW not built"
	[ -d "$EVENTS_DIR/breakpoint" ] || t_fail "no breakpoint PMU in $EVENTS_DIR"
	var=$("$BW" -a 2>&1 | sed -n 's/^var //p')
	fn=$("$BW" -a 2>&1 | sed -n 's/^func //p')
	[ -n "$var" ] && [ -n "$fn" ] || t_fail "bpwrite -a printed no addresses"
	spec="mem:$var:w,mem:$var/4:rw:u,mem:$fn:x"
	run_json bp.json -j -e "$spec" -- "$BW" "$w" "$r"
	t_assert_match "$(cat bp.json.err)" "^var $var\$" "bpwrite's variable at the address given"
	t_assert_match "$(cat bp.json.err)" "^done $w $r\$" "bpwrite's end"
	t_assert_eq "$(labels_in_order bp.json | paste -sd, -)" "$spec" "labels: the events as written"
	want="$w $((w + r)) $w"
	# QEMU's emulated CPU (the VM) triggers a read/write watchpoint on
	# reads only: perf stat counts R there too
	t_in_vm && want="$w $r $w"
	got=$(totals_in_order bp.json | paste -sd' ' -)
	echo "$spec over bpwrite $w $r: pmcstat $got"
	t_assert_eq "$got" "$want" "writes, reads+writes (user), calls"
	perf_stat -e "$spec" -- "$BW" "$w" "$r"
	pf=$(perf_in_order | paste -sd' ' -)
	echo "perf stat: $pf"
	t_assert_eq "$pf" "$want" "perf stat's counts of $spec"
}

# What x86 cannot do is refused with its reason, the rest counted: reads
# alone, a fifth breakpoint (4 debug registers)
test_breakpoint_refusals() {
	need_tool
	local var
	var=$("$BW" -a 2>&1 | sed -n 's/^var //p')
	run_json bpr.json -j -e "mem:$var:r,mem:$var:w" -- "$BW" 10
	t_assert_eq "$(cv bpr.json total "mem:$var:r" status)" "not supported" "status of :r"
	t_assert_match "$(cat bpr.json.err)" "^pmcstat: mem:$var:r: .*reads alone" "reason for :r"
	t_assert_eq "$(total bpr.json "mem:$var:w")" 10 "writes beside it"
	run_json bp5.json -j -e "mem:$var:w,mem:$var:w,mem:$var:w,mem:$var:w,mem:$var:w" -- "$BW" 10
	# QEMU's emulated CPU fires only the first of watchpoints on one
	# address: perf stat counts "10 0 0 0" there too
	if t_in_vm; then
		t_assert_eq "$(totals_in_order bp5.json | paste -sd' ' -)" "10 0 0 0 null" "five breakpoints"
	else
		t_assert_eq "$(totals_in_order bp5.json | paste -sd' ' -)" "10 10 10 10 null" "five breakpoints"
	fi
	t_assert_match "$(cat bp5.json.err)" "^pmcstat: mem:$var:w: no debug register left" "reason for the fifth"
}

# Every CPU has a few debug registers: two breakpoints, system wide, are
# counted on each CPU (the address belongs to no one here: 0 each)
test_breakpoint_all_cpus() {
	need_tool
	local var
	var=$("$BW" -a 2>&1 | sed -n 's/^var //p')
	run_json bpa.json -j -e "mem:$var:w,mem:$var:rw" -a -d 0.3
	t_assert_eq "$(cpus_of bpa.json "mem:$var:w")" "$(online_cpus | sort -n | tr '\n' ' ')" "CPUs counted"
	t_assert_eq "$(cv bpa.json total "mem:$var:w" status)" counted "status"
}

# One counter per tracepoint the glob matches, each equal to perf stat's
# count of the same glob over the same workload
glob_vs_perf() {	# GLOB SKIP-REGEX pmcload-args...
	local glob=$1 skip=$2 dir n ev pm pf line
	shift 2
	dir=/sys/kernel/tracing/events
	[ -d "$dir" ] || dir=/sys/kernel/debug/tracing/events
	# shellcheck disable=SC2086
	n=$(cd "$dir" && ls -d ${glob%%:*}/${glob#*:} 2>/dev/null | wc -l)
	[ "$n" -gt 1 ] || t_fail "$glob matches $n tracepoints in $dir"
	run_json gl.json -j -e "$glob" -- "$PL" -q "$@"
	t_assert_eq "$(labels_in_order gl.json | wc -l)" "$n" "events of $glob (the tracepoints it matches)"
	perf_stat -e "$glob" -- "$PL" -q "$@"
	t_assert_eq "$(perf_in_order | wc -l)" "$n" "perf stat's events of $glob"
	while IFS=, read -r pf _ ev _; do
		case $ev in "" | "#"*) continue ;; esac
		pm=$(cv gl.json total "$ev")
		line="$ev: pmcstat $pm, perf stat $pf"
		if printf '%s\n' "$ev" | grep -Eq "$skip"; then
			echo "$line (not compared: not the workload's)"
			continue
		fi
		[ "$pm" != 0 ] || [ "$pf" != 0 ] && echo "$line"
		t_assert_eq "$pm" "$pf" "$ev over pmcload $* against perf stat"
	done <"$T_TMP/perf.csv"
}

test_tracepoint_glob_syscalls_vs_perf() {
	need_tool
	tracepoint_exists syscalls:sys_enter_getppid || t_skip "no syscalls tracepoints here"
	glob_vs_perf 'syscalls:sys_enter_get*' '^$' getppid 1000
	t_assert_eq "$(total gl.json syscalls:sys_enter_getppid)" 1000 "getppid calls"
}

test_tracepoint_glob_sched_vs_perf() {
	need_tool
	# a task's struct is freed later, from RCU, in whatever task runs then
	glob_vs_perf 'sched:sched_process_*' 'sched_process_free' forks 50
	t_assert_eq "$(total gl.json sched:sched_process_fork)" 50 "forks"
	# 51: the 50 children and pmcload; 6.1 removes an exiting task's
	# inherited counters before its exit event fires, and perf stat
	# counts 0 there too (glob_vs_perf compared them)
	case $(total gl.json sched:sched_process_exit) in
	51|0) ;;
	*) t_fail "exits: $(total gl.json sched:sched_process_exit), expected 51 (or 0 as on 6.1)" ;;
	esac
}

# A glob of hundreds: one row per event, and as many fds as it needs
test_tracepoint_glob_wide() {
	need_tool
	local n
	tracepoint_exists syscalls:sys_enter_getppid || t_skip "no syscalls tracepoints here"
	run_json all.json -j -e 'syscalls:*' -a -d 0.2
	n=$(labels_in_order all.json | wc -l)
	[ "$n" -gt 100 ] || t_fail "syscalls:* gave $n events"
	t_assert_eq "$(awk -F'\t' '$1 == "c" && $9 != "counted"' all.json.kv | head -n 3)" "" "events not counted"
	t_expect_exit 0 "${PSC[@]}" -e 'syscalls:*' -- "$PL" -q getppid 10
	t_assert_match "$(head -n 3 "$T_OUT")" '^EVENT +total$' "the table's header: one row per event"
	t_assert_match "$(cat "$T_OUT")" '^syscalls:sys_enter_getppid +10$' "getppid's row"
	t_assert_eq "$(grep -c '^syscalls:' "$T_OUT")" "$n" "rows"
}

# name= names the column and the JSON key; a named group shows its name
test_labels_and_named_groups() {
	need_tool
	run_json lab.json -j -e 'page-faults/name=pf/,g1{cs,cpu-clock/name=clk/},g2{cs}' -- "$PL" -q pages 100
	t_assert_eq "$(labels_in_order lab.json | paste -sd, -)" pf,cs,clk,cs "labels"
	t_assert_eq "$(jq -r '[.counts[] | select(has("cpu") | not) | .group] | join(",")' lab.json)" ",g1,g1,g2" "groups"
	[ "$(total lab.json pf)" -ge 100 ] || t_fail "pf (page-faults) below the 100 pages touched"
	t_expect_exit 0 "${PSC[@]}" -e 'page-faults/name=pf/,g1{cs,cpu-clock/name=clk/},g2{cs}' -- "$PL" -q pages 100
	t_assert_match "$(head -n 2 "$T_OUT")" '^CPU +pf +g1\{cs\} +g1\{clk\} \(ms\) +g2\{cs\}' "the table's columns"
	t_expect_exit 0 "${PSC[@]}" -x, -e 'g1{cs,page-faults/name=pf/}' -- "$PL" -q pages 100
	t_assert_match "$(cat "$T_OUT")" '^total,g1\{pf\},[0-9]+,' "CSV"
}

# The event strings of the issue (perf's parser tests and common ones),
# tests/fixtures/event-strings.txt's "s" ones: whatever perf stat accepts
# pmcstat accepts (never a usage error); it counts what perf counts and
# refuses with a reason what perf marks <not supported>, exiting 1 only
# when nothing could be counted
ISSUE_STRINGS=$(sed -n 's/^.s //p' "$T_REPO/tests/fixtures/event-strings.txt")

# One string: perf stat's verdict against pmcstat's
issue_string() {	# STRING
	local s=$1 prc pn pns popen rc n ns
	timeout "$T_CMD_TIMEOUT" perf stat -x, -o "$T_TMP/perf.csv" -e "$s" true \
		>/dev/null 2>"$T_TMP/perf.err" </dev/null
	prc=$?
	pn=$(perf_in_order | wc -l)
	pns=$(perf_in_order | grep -c '^<not supported>$')
	popen=$((pn - pns))
	timeout "$T_CMD_TIMEOUT" "${PSC[@]}" -j -e "$s" -- true >"$T_TMP/s.json" 2>"$T_TMP/s.err" </dev/null
	rc=$?
	case $rc in
	0)
		n=$(jq '[.counts[] | select(has("cpu") | not)] | length' "$T_TMP/s.json")
		ns=$(jq '[.counts[] | select((has("cpu") | not) and .status == "not supported")] | length' "$T_TMP/s.json")
		[ "$(jq '.unsupported | length' "$T_TMP/s.json")" = "$ns" ] ||
			t_fail "'$s': $ns events not supported, $(jq '.unsupported | length' "$T_TMP/s.json") in \"unsupported\""
		;;
	1)
		# every event refused, each on its line, then the conclusion
		n=$(grep -vc '^pmcstat: no event could be counted$' "$T_TMP/s.err")
		ns=$n
		grep -q '^pmcstat: no event could be counted$' "$T_TMP/s.err" ||
			t_fail "'$s': exit 1 without 'no event could be counted': $(head -n 3 "$T_TMP/s.err")"
		;;
	*)
		cat "$T_TMP/s.err"
		t_fail "'$s': pmcstat exited $rc (perf stat $prc)"
		;;
	esac
	printf '%-60s perf %3d: %d events, %d not supported | pmcstat %d: %d events, %d not supported\n' \
		"$s" "$prc" "$pn" "$pns" "$rc" "$n" "$ns"
	[ "$rc" = 1 ] && sed 's/^/    /' "$T_TMP/s.err" | head -n 3
	# perf stops at a group it cannot open whole; pmcstat counts the rest
	[ "$prc" = 0 ] || return 0
	t_assert_eq "$n" "$pn" "'$s': events"
	t_assert_eq "$ns" "$pns" "'$s': events not supported"
	if [ "$popen" -gt 0 ]; then
		t_assert_eq "$rc" 0 "'$s': exit status (perf opened $popen)"
	else
		t_assert_eq "$rc" 1 "'$s': exit status (perf opened none)"
	fi
}

test_issue_strings_vs_perf() {
	need_tool
	need_perf
	local s
	while IFS= read -r s; do
		issue_string "$s"
	done <<<"$ISSUE_STRINGS"
}

# ---- groups, targets ------------------------------------------------------------

test_group_both_counted() {
	need_tool
	local pf
	run_json g.json -j -e '{cpu-clock,page-faults}' -- "$PL" -q pages "$PAGES"
	t_assert_eq "$(events_of g.json)" cpu-clock,page-faults "events of the group"
	t_assert_eq "$(cv g.json total cpu-clock status)" counted "cpu-clock in the group"
	t_assert_eq "$(cv g.json total page-faults status)" counted "page-faults in the group"
	pf=$(total g.json page-faults)
	[ "$pf" -ge "$PAGES" ] || t_fail "page-faults $pf in the group < $PAGES"
	t_within_pct "$pf" "$PAGES" "$PF_PCT" "page-faults in the group against the pages touched"
	[ "$(total g.json cpu-clock)" -gt 0 ] || t_fail "cpu-clock 0 in the group"
}

# -p: both threads of pmcload threads (20000 + 10000 pages)
test_pid_counts_all_threads() {
	need_tool
	local a=$PAGES b=$((PAGES / 2)) v
	pl_start threads "$a" "$b"
	bg_start -j -p "$PL_PID" -e page-faults
	bg_wait_tracing
	pl_go
	bg_end
	assert_json_doc bg.out "pmcstat -j -p"
	t_assert_eq "$(dv bg.out target)" "pid $PL_PID" "target of -p"
	# a task is counted wherever it runs: totals only (per-CPU counters of a
	# task would read as multiplexed whenever it ran on another CPU)
	[ -z "$(cpus_of bg.out page-faults)" ] || t_fail "per-CPU records with -p: $(cpus_of bg.out page-faults)"
	v=$(total bg.out page-faults)
	echo "page-faults of pid $PL_PID ($a + $b pages): $v"
	[ "$v" -ge $((a + b)) ] || t_fail "page-faults $v < $((a + b)), the pages both threads touched"
	t_within_pct "$v" $((a + b)) "$PF_PCT" "page-faults of -p against the pages touched"
}

# -t: the worker thread only (10000 pages; the main thread touches 20000)
test_tid_counts_one_thread() {
	need_tool
	local a=$PAGES b=$((PAGES / 2)) v
	pl_start threads "$a" "$b"
	[ -n "$PL_WORKER" ] || t_fail "pmcload printed no worker tid"
	bg_start -j -t "$PL_WORKER" -e page-faults
	bg_wait_tracing
	pl_go
	bg_end
	assert_json_doc bg.out "pmcstat -j -t"
	t_assert_eq "$(dv bg.out target)" "tid $PL_WORKER" "target of -t"
	# a task is counted wherever it runs: totals only (per-CPU counters of a
	# task would read as multiplexed whenever it ran on another CPU)
	[ -z "$(cpus_of bg.out page-faults)" ] || t_fail "per-CPU records with -t: $(cpus_of bg.out page-faults)"
	v=$(total bg.out page-faults)
	echo "page-faults of tid $PL_WORKER ($b pages; its process's other thread $a): $v"
	[ "$v" -ge "$b" ] || t_fail "page-faults $v < $b, the pages the thread touched"
	t_within_pct "$v" "$b" "$PF_PCT" "page-faults of -t against the thread's pages"
}

# -p with a long -d: pmcstat ends when its process does, as perf stat -p,
# with its whole report and a note on stderr
test_pid_exit_ends_run() {
	need_tool
	local v
	pl_start pages "$PAGES"
	bg_start -j -d 60s -p "$PL_PID" -e page-faults
	bg_wait_tracing
	pl_go
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "pmcstat's status once pid $PL_PID had exited"
	assert_json_doc bg.out "pmcstat -j -d 60s -p after its process exited"
	t_assert_eq "$(dv bg.out target)" "pid $PL_PID" "target of -p"
	v=$(total bg.out page-faults)
	[ "$v" -ge "$PAGES" ] || t_fail "page-faults $v < $PAGES, the pages pmcload touched"
	t_assert_match "$(cat bg.err)" "^pmcstat: process $PL_PID exited\$" "the note on stderr"
}

# -t: the end of the thread ends it (the worker of pmcload threads)
test_tid_exit_ends_run() {
	need_tool
	local b=$((PAGES / 2)) v
	pl_start threads "$PAGES" "$b"
	bg_start -d 60s -t "$PL_WORKER" -e page-faults
	bg_wait_tracing
	pl_go
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "pmcstat's status once tid $PL_WORKER had exited"
	t_assert_match "$(cat bg.err)" "^pmcstat: thread $PL_WORKER exited\$" "the note on stderr"
	t_show_file bg.out "report"
	v=$(awk '$1 == "total" { print $2 }' bg.out)
	[ "$v" -ge "$b" ] 2>/dev/null || t_fail "page-faults '$v' < $b, the pages the worker touched"
}

# ---- --per-task -------------------------------------------------------------------

# Sums over the tasks against the totals, per event: exact when nothing
# was dropped, no read failed and every CPU was made to switch at the end
# (counters stopped first), else within 1%; never above the total
assert_task_sums() {	# FILE EVENTS...
	local f=$1 e sum tot dropped errs unsw
	shift
	dropped=$(dv "$f" tasks_dropped)
	errs=$(dv "$f" read_errors)
	unsw=$(dv "$f" cpus_not_switched)
	echo "tasks $(dv "$f" ntasks), tasks_dropped $dropped, read_errors $errs, cpus_not_switched $unsw"
	[ "$(dv "$f" ntasks)" -gt 0 ] 2>/dev/null || t_fail "no tasks in the --per-task report"
	for e in "$@"; do
		sum=$(awk -F'\t' -v e="$e" '$1 == "t" && $5 == e { s += $6 } END { printf "%.0f", s }' "$f.kv")
		tot=$(total "$f" "$e")
		echo "$e: sum over the tasks $sum, total $tot"
		if [ "$dropped" = 0 ] && [ "$errs" = 0 ] && [ "$unsw" = 0 ]; then
			t_assert_eq "$sum" "$tot" "$e: sum over the tasks against the total (nothing dropped, no read error)"
		elif [ "$unsw" != 0 ]; then
			[ "$sum" -le "$tot" ] || t_fail "$e: sum over the tasks $sum above the total $tot"
		else
			t_within_pct "$sum" "$tot" 1 "$e: sum over the tasks against the total ($dropped dropped, $errs read errors)"
		fi
	done
}

# The value of EVENT for task TID ("missing" if not listed)
task_val() {	# FILE TID EVENT
	awk -F'\t' -v t="$2" -v e="$3" '$1 == "t" && $2 == t && $5 == e { print $6; f = 1; exit }
		END { if (!f) print "missing" }' "$1.kv"
}

task_field() {	# FILE TID pid|comm
	awk -F'\t' -v t="$2" -v k="$3" '$1 == "t" && $2 == t { print (k == "pid" ? $3 : $4); f = 1; exit }
		END { if (!f) print "missing" }' "$1.kv"
}

# per_task_sums MODE [OPTION]: --per-task's sums against the totals and
# against pmcload's own count of its switches, attached as MODE says
per_task_sums() {
	local snap f=bg.out tid sw v lines=0 nulls
	snap=$(t_bpf_snapshot)
	# -n 1: the JSON lists every task all the same
	bg_start --per-task -a -n 1 -j -e context-switches,cpu-clock ${2:+"$2"}
	bg_wait_tracing
	"$PL" pingpong 2000 >pp.out 2>&1 || t_fail "pmcload pingpong failed: $(cat pp.out)"
	bg_end
	cat pp.out
	assert_json_doc "$f" "pmcstat --per-task -j $*"
	t_assert_eq "$(jq -r .mode "$f")" "$1" "the programs' mode"
	assert_task_sums "$f" context-switches cpu-clock
	# the helper's two threads, with their own count of their switches:
	# charged at least those, and at most a few more (after it read them)
	while read -r _ tid _ sw; do
		lines=$((lines + 1))
		v=$(task_val "$f" "$tid" context-switches)
		echo "pmcload tid $tid: $sw switches by getrusage, $v by pmcstat --per-task"
		_t_is_num "$v" || t_fail "pmcload's thread $tid is not among the tasks"
		[ "$v" -ge "$sw" ] || t_fail "tid $tid: context-switches $v < $sw, its own count"
		[ "$v" -le $((sw + sw / 100 + 10)) ] || t_fail "tid $tid: context-switches $v, far above its own count $sw"
		t_assert_eq "$(task_field "$f" "$tid" pid)" "$(sed -n 's/^pid //p' pp.out)" "pid of task $tid"
		[ "$(task_val "$f" "$tid" cpu-clock)" -gt 0 ] 2>/dev/null || t_fail "tid $tid: no cpu-clock"
	done < <(grep '^tid ' pp.out)
	t_assert_eq "$lines" 2 "threads reported by pmcload pingpong"
	t_assert_eq "$(task_field "$f" "$(sed -n 's/^worker //p' pp.out)" comm)" pmcload "comm of the worker thread"
	t_bpf_assert_same "$snap" "after pmcstat --per-task"
	# a task's counts are numbers (0 for a task that ran only after the
	# counters stopped), not null
	nulls=$(awk -F'\t' '$1 == "t" && $6 == "null" { print $2 " " $4 " " $5 }' "$f.kv")
	[ -z "$nulls" ] || t_fail "task values null, not numbers (tid comm event): ${nulls//$'\n'/, }"
}

test_per_task_sums_match_totals() {
	need_tool
	per_task_sums tp_btf
}

# --raw-tp: the raw tracepoints of kernels without tp_btf (their slots
# found by tid in a hash, not in task storage), the same sums
test_per_task_sums_raw_tp() {
	need_tool
	per_task_sums raw_tracepoint --raw-tp
}

# -p with --per-task filters the tasks listed, not what is counted
test_per_task_pid_filter() {
	need_tool
	local snap f=bg.out others sum tot
	snap=$(t_bpf_snapshot)
	pl_start pingpong 500
	bg_start --per-task -p "$PL_PID" -j -e context-switches
	bg_wait_tracing
	pl_go
	bg_end
	assert_json_doc "$f" "pmcstat --per-task -p -j"
	others=$(awk -F'\t' -v p="$PL_PID" '$1 == "t" && $3 != p' "$f.kv")
	[ -z "$others" ] || t_fail "tasks of other processes listed with -p $PL_PID: $(echo "$others" | head -n 3)"
	_t_is_num "$(task_val "$f" "$PL_PID" context-switches)" || t_fail "main thread $PL_PID not listed"
	_t_is_num "$(task_val "$f" "$PL_WORKER" context-switches)" || t_fail "worker thread $PL_WORKER not listed"
	sum=$(awk -F'\t' '$1 == "t" && $5 == "context-switches" { s += $6 } END { print s + 0 }' "$f.kv")
	tot=$(total "$f" context-switches)
	echo "context-switches: pid $PL_PID's tasks $sum, total on every CPU $tot"
	[ "$tot" -gt "$sum" ] || t_fail "total $tot not above pid $PL_PID's $sum: not counted on every CPU"
	t_bpf_assert_same "$snap" "after pmcstat --per-task -p"
}

# --comm: only the tasks of that name are listed
test_per_task_comm_filter() {
	need_tool
	local snap f=bg.out comms
	snap=$(t_bpf_snapshot)
	bg_start --per-task --comm pmcload -a -j -e context-switches
	bg_wait_tracing
	"$PL" pingpong 300 >pp.out 2>&1 || t_fail "pmcload pingpong failed: $(cat pp.out)"
	bg_end
	assert_json_doc "$f" "pmcstat --per-task --comm pmcload -j"
	comms=$(awk -F'\t' '$1 == "t" { print $4 }' "$f.kv" | sort -u | tr '\n' ' ')
	t_assert_eq "$comms" "pmcload " "comms listed with --comm pmcload"
	_t_is_num "$(task_val "$f" "$(sed -n 's/^worker //p' pp.out)" context-switches)" ||
		t_fail "pmcload's worker thread not listed"
	t_bpf_assert_same "$snap" "after pmcstat --per-task --comm"
}

# A task's name is taken with its first switch and again when it is
# renamed (exec, /proc/PID/comm), not at every switch: sh renamed after its
# first switches is listed by its new name, its children by theirs (true:
# a last command sh would exec in its place, as busybox sh does)
test_per_task_renamed() {
	need_tool
	local snap comms
	snap=$(t_bpf_snapshot)
	# shellcheck disable=SC2016
	run_json r.json --per-task -j -e context-switches -- \
		sh -c 'sleep 0.05; printf kfitrenamed >/proc/$$/comm; sleep 0.05; true'
	comms=$(awk -F'\t' '$1 == "t" { print $4 }' r.json.kv | sort | tr '\n' ' ')
	t_assert_eq "$comms" "kfitrenamed sleep sleep " "comms of sh (renamed) and its two sleeps"
	t_bpf_assert_same "$snap" "after pmcstat --per-task (renamed)"
}

# The text report: a second table TID PID COMM, -n rows at most
test_per_task_table_top() {
	need_tool
	local snap rows
	snap=$(t_bpf_snapshot)
	bg_start --per-task -a -n 3 -e context-switches,cpu-clock
	bg_wait_tracing
	"$PL" pingpong 300 >/dev/null 2>&1 || t_fail "pmcload pingpong failed"
	t_bg_stop_ok TERM 30
	t_show_file bg.out "report"
	grep -Eq '^ *TID +PID +COMM' bg.out || t_fail "no 'TID PID COMM' table header"
	rows=$(awk '/^ *TID +PID +COMM/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ / { n++ }
		on && /^ *$/ { on = 0 } END { print n + 0 }' bg.out)
	if [ "$rows" -lt 1 ] || [ "$rows" -gt 3 ]; then
		t_fail "$rows task rows with -n 3, expected 1 to 3"
	fi
	t_bpf_assert_same "$snap" "after pmcstat --per-task (SIGTERM)"
}

# ---- intervals ---------------------------------------------------------------------

# Interval reports of cpu-clock on every CPU: one JSON line each, time_ns
# increasing, each interval's count that of its own length
check_intervals() {	# FILE N what
	local i=0 line prev=0 t len
	t_assert_eq "$(grep -c . "$1")" "$2" "reports of $3"
	while IFS= read -r line; do
		[ -n "$line" ] || continue	# told apart below
		i=$((i + 1))
		printf '%s\n' "$line" >"iv$i.json"
		assert_json_doc "iv$i.json" "$3: report $i"
		t=$(dv "iv$i.json" time_ns)
		_t_is_num "$t" || t_fail "$3: report $i has no time_ns ('$t')"
		[ "$t" -gt "$prev" ] || t_fail "$3: time_ns $t of report $i not above $prev"
		len=$((t - prev))
		echo "$3: report $i at $t ns: cpu-clock $(total "iv$i.json" cpu-clock) ns in $len ns"
		# counts per interval, not since the start
		t_within_pct "$(total "iv$i.json" cpu-clock)" $(($(ncpus) * len)) "$TIME_PCT" \
			"$3: cpu-clock of interval $i against CPUs x its length"
		prev=$t
	done <"$1"
	# one object per report, one per line: nothing in between
	t_assert_eq "$(wc -l <"$1" | tr -d ' ')" "$2" "lines of $3 (blank lines between the reports?)"
}

test_interval_json_count() {
	need_tool
	t_expect_exit 0 "$PS" -j -a -e cpu-clock -i 500ms --count 3
	cp "$T_OUT" i.json
	check_intervals i.json 3 "-j -i 500ms --count 3"
}

# -I is milliseconds
test_interval_ms_alias() {
	need_tool
	t_expect_exit 0 "$PS" -j -a -e cpu-clock -I 300 --count 2
	cp "$T_OUT" i.json
	check_intervals i.json 2 "-j -I 300 --count 2"
	[ "$(dv iv2.json time_ns)" -ge $(($(dv iv1.json time_ns) + 270000000)) ] ||
		t_fail "-I 300: the second report came less than 300 ms after the first"
}

# ---- CSV, --aggr, text ----------------------------------------------------------------

CSV_HEADER="cpu event value unit enabled_ns running_ns running_pct"

# Check -x output in FILE: the header (with SEP), then rows of 7 (8 with
# time) fields; writes the rows, fields tab-separated, to FILE.rows
check_csv() {	# FILE SEP TIMED(0|1) what
	local f=$1 sep=$2 timed=$3 header bad
	header=$CSV_HEADER
	[ "$timed" = 1 ] && header="time $header"
	header=$(echo "$header" | sed "s/ /$sep/g")
	t_assert_eq "$(head -n 1 "$f")" "$header" "$4: the header line"
	# rows, fields tab-separated (any repeated header left out)
	awk -v s="$sep" -v h="$header" 'NR > 1 && NF && $0 != h { n = split($0, a, s); o = a[1]
		for (i = 2; i <= n; i++) o = o "\t" a[i]; print o }' "$f" >"$f.rows"
	[ -s "$f.rows" ] || t_fail "$4: no rows"
	bad=$(awk -F'\t' -v n=$((7 + timed)) -v t="$timed" -v ncpu="$(ncpus)" '
		NF != n { print "fields " NF ": " $0; next }
		t && $1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ { print "time: " $0; next }
		{ c = $(1 + t); v = $(3 + t); p = $(7 + t) }
		c != "total" && c !~ /^[0-9]+$/ { print "cpu: " $0; next }
		v !~ /^[0-9]+$/ && v != "<not counted>" && v != "<not supported>" { print "value: " $0; next }
		$(5 + t) !~ /^[0-9]+$/ || $(6 + t) !~ /^[0-9]+$/ { print "enabled/running: " $0; next }
		p !~ /^[0-9]+(\.[0-9]+)?$/ { print "running_pct: " $0 }' "$f.rows")
	[ -z "$bad" ] || t_fail "$4: bad rows: $(echo "$bad" | head -n 3)"
}

test_csv_shape() {
	need_tool
	local sep e sum tot
	for sep in ',' ';'; do
		t_expect_exit 0 "$PS" -x "$sep" -a -d 1 -e cpu-clock,page-faults
		cp "$T_OUT" c.csv
		check_csv c.csv "$sep" 0 "-x '$sep'"
		for e in cpu-clock page-faults; do
			t_assert_eq "$(awk -F'\t' -v e="$e" '$2 == e && $1 != "total" { print $1 }' c.csv.rows |
				sort -n | tr '\n' ' ')" "$(online_cpus | tr '\n' ' ')" "-x '$sep': CPU rows of $e"
			t_assert_eq "$(awk -F'\t' -v e="$e" '$2 == e && $1 == "total"' c.csv.rows | wc -l | tr -d ' ')" 1 \
				"-x '$sep': total rows of $e"
			sum=$(awk -F'\t' -v e="$e" '$2 == e && $1 != "total" { s += $3 } END { printf "%.0f", s }' c.csv.rows)
			tot=$(awk -F'\t' -v e="$e" '$2 == e && $1 == "total" { print $3 }' c.csv.rows)
			t_assert_eq "$tot" "$sum" "-x '$sep': total of $e against its CPU rows"
		done
		t_assert_eq "$(awk -F'\t' '$2 == "cpu-clock" { print $4 }' c.csv.rows | sort -u)" ns "-x '$sep': unit of cpu-clock"
		t_assert_eq "$(awk -F'\t' '$2 == "page-faults" { print $4 }' c.csv.rows | sort -u)" "" "-x '$sep': unit of page-faults"
	done
}

test_csv_interval() {
	need_tool
	local n times t
	n=$(ncpus)
	t_expect_exit 0 "$PS" -x , -a -e cpu-clock -i 300ms --count 2
	cp "$T_OUT" c.csv
	check_csv c.csv , 1 "-x , -i 300ms --count 2"
	times=$(awk -F'\t' '{ print $1 }' c.csv.rows | uniq)
	t_assert_eq "$(echo "$times" | wc -l | tr -d ' ')" 2 "times of -x , -i 300ms --count 2 (${times//$'\n'/ })"
	[ "$(echo "$times" | sort -n | tr '\n' ' ')" = "$(echo "$times" | tr '\n' ' ')" ] ||
		t_fail "times not increasing: ${times//$'\n'/ }"
	for t in $times; do
		t_assert_eq "$(awk -F'\t' -v t="$t" '$1 == t' c.csv.rows | wc -l | tr -d ' ')" $((n + 1)) \
			"rows at time $t ($n CPUs and the total)"
	done
}

test_aggr() {
	need_tool
	local el
	run_json a.json -j --aggr -a -d 1 -e cpu-clock
	t_assert_eq "$(cpus_of a.json cpu-clock)" "" "per-CPU records with --aggr"
	el=$(dv a.json elapsed_ns)
	t_within_pct "$(total a.json cpu-clock)" $(($(ncpus) * el)) "$TIME_PCT" "--aggr cpu-clock against CPUs x elapsed"
	t_expect_exit 0 "$PS" --aggr -a -d 1 -e cpu-clock,page-faults
	t_show_file "$T_OUT" "--aggr table"
	grep -Eq '^ *total( |$)' "$T_OUT" || t_fail "no total row in the --aggr table"
	grep -Eq '^ *[0-9]+ ' "$T_OUT" && t_fail "a per-CPU row in the --aggr table: $(grep -E '^ *[0-9]+ ' "$T_OUT" | head -n 1)"
	true
}

# -C 0: only CPU 0
test_cpu_list() {
	need_tool
	local el
	run_json c.json -j -C 0 -d 1 -e cpu-clock
	t_assert_eq "$(cpus_of c.json cpu-clock)" "0 " "CPUs with -C 0"
	el=$(dv c.json elapsed_ns)
	t_within_pct "$(total c.json cpu-clock)" "$el" "$TIME_PCT" "cpu-clock of -C 0 against elapsed"
}

# Without -e: the default events, system wide
test_default_events() {
	need_tool
	local want=context-switches,cpu-clock,cpu-migrations,page-faults
	has_hw_pmu && want=context-switches,cpu-clock,cpu-migrations,cycles,instructions,page-faults
	run_json d.json -j -d 1
	t_assert_eq "$(events_of d.json)" "$want" "default events"
	t_assert_eq "$(dv d.json target)" "system wide" "default target"
	t_assert_eq "$(cpus_of d.json cpu-clock)" "$(online_cpus | tr '\n' ' ')" "CPUs by default"
}

# COMMAND's status: pmcstat exits with it, as perf stat does
test_command_exit_status() {
	need_tool
	t_expect_exit 3 "${PSC[@]}" -j -e page-faults -- sh -c 'exit 3'
	cp "$T_OUT" s.json
	cp "$T_ERR" s.json.err
	assert_json_doc s.json "pmcstat -j -- sh -c 'exit 3'"
	t_assert_eq "$(dv s.json exit_status)" 3 "exit_status of sh -c 'exit 3'"
	t_assert_match "$(cat s.json.err)" '3' "the command's status on stderr"
}

test_list() {
	need_tool
	t_expect_exit 0 "$PS" -l
	local e
	for e in cpu-clock task-clock page-faults context-switches cpu-migrations; do
		grep -q -- "$e" "$T_OUT" || t_fail "-l does not list $e"
	done
	if has_msr_tsc; then
		grep -q 'msr' "$T_OUT" || t_fail "-l does not list the msr PMU"
	fi
	# --output: the list goes there, nothing to stdout
	t_expect_exit 0 "$PS" -l --output "$T_TMP/list.txt"
	t_assert_eq "$(wc -c <"$T_OUT")" 0 "stdout with -l --output"
	cmp -s "$T_TMP/list.txt" <("$PS" -l) || t_fail "-l --output FILE differs from -l"
}

# ---- hardware events ---------------------------------------------------------------

test_hw_events_alone() {
	need_tool
	local ev
	for ev in r13c cycles; do
		if has_hw_pmu; then
			echo "a core PMU here: $ev must count"
			run_json hw.json -j -e "$ev" -- "$PL" -q spin 50
			t_assert_eq "$(cv hw.json total "$ev" status)" counted "status of $ev"
			continue
		fi
		t_expect_exit 1 "${PSC[@]}" -e "$ev" -- "$PL" -q pages 10
		echo "--- stderr of pmcstat -e $ev:"
		cat "$T_ERR"
		t_assert_match "$(cat "$T_ERR")" "^pmcstat: $ev: " "the line for $ev"
		t_assert_match "$(cat "$T_ERR")" 'no hardware PMU' "reason for $ev"
	done
}

test_hw_event_with_software() {
	need_tool
	run_json m.json -j -e r13c,page-faults -- "$PL" -q pages 1000
	[ "$(total m.json page-faults)" -ge 1000 ] || t_fail "page-faults below the 1000 pages touched"
	if has_hw_pmu; then
		t_assert_eq "$(cv m.json total r13c status)" counted "status of r13c (a core PMU here)"
		return
	fi
	t_assert_eq "$(cv m.json total r13c status)" "not supported" "status of r13c"
	t_assert_eq "$(cv m.json total r13c value)" null "value of r13c"
	t_assert_match "$(awk -F'\t' '$1 == "u" && $2 == "r13c" { print $3 }' m.json.kv)" 'no hardware PMU' \
		"reason of r13c in \"unsupported\""
	t_assert_match "$(cat m.json.err)" '^pmcstat: r13c: .*no hardware PMU' "the line for r13c on stderr"
	# the text and CSV forms say it too
	t_expect_exit 0 "${PSC[@]}" -e r13c,page-faults -- "$PL" -q pages 10
	t_assert_match "$(cat "$T_OUT")" '<not supported>' "r13c in the table"
	t_expect_exit 0 "${PSC[@]}" -x , -e r13c,page-faults -- "$PL" -q pages 10
	t_assert_match "$(cat "$T_OUT")" '^total,r13c,<not supported>,' "r13c's total row in CSV"
}

# ---- bad input -------------------------------------------------------------------------

# bad_input REGEX what args...: exit 2, stderr matches, nothing on stdout
bad_input() {
	local re=$1 what=$2
	shift 2
	t_expect_exit 2 "$PS" "$@"
	echo "$what: $(head -n 1 "$T_ERR")"
	t_assert_match "$(cat "$T_ERR")" "$re" "message for $what"
	[ -s "$T_OUT" ] && t_fail "$what: output on stdout: $(head -n 1 "$T_OUT")"
	true
}

test_usage_errors() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	# the arguments refused whatever the machine: tests/cases/usage/pmcstat.case;
	# here those looked up in its tracefs (root) and its msr PMU
	bad_input 'no_such_tp' "an unknown tracepoint" -e sched:no_such_tp -d 1
	bad_input 'umask' "an unknown format field" -e msr/umask=1/ -d 1
	t_bpf_assert_same "$snap" "after bad input"
}

# ---- signals -----------------------------------------------------------------------------

test_sigint_text_report() {
	need_tool
	local snap c
	snap=$(t_bpf_snapshot)
	bg_start -a -e cpu-clock,page-faults
	bg_wait_tracing
	t_pause 1
	t_bg_stop_ok INT 30
	t_show_file bg.out "report after SIGINT"
	grep -q 'cpu-clock (ms)' bg.out || t_fail "no 'cpu-clock (ms)' column"
	grep -q 'page-faults' bg.out || t_fail "no page-faults column"
	grep -Eq '^ *CPU( |$)' bg.out || t_fail "no CPU column header"
	grep -Eq '^ *total ' bg.out || t_fail "no total row"
	for c in $(online_cpus); do
		grep -Eq "^ *$c " bg.out || t_fail "no row for CPU $c"
	done
	t_bpf_assert_same "$snap" "after SIGINT"
}

test_sigterm_json_report() {
	need_tool
	bg_start -j -a -e cpu-clock
	bg_wait_tracing
	t_pause 1
	t_bg_stop_ok TERM 30
	assert_json_doc bg.out "pmcstat -j after SIGTERM"
	[ "$(total bg.out cpu-clock)" -gt 0 ] || t_fail "cpu-clock 0 after SIGTERM"
}

t_run_all
