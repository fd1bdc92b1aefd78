#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tools run as nobody (no capabilities, started by root): each exits 1
# and names what is missing, checked against what the system says
# (kernel.perf_event_paranoid, tracefs's mode as stat and ls as nobody
# see it). softirqlat's own case is in test_softirqlat.sh.
. "$(dirname "$0")/../lib.sh"

TC="$KFIT_BIN/tracecheck"
FD="$KFIT_BIN/funcdur"
PMC="$KFIT_BIN/pmcstat"

need() {	# tool...
	local t
	t_need_root
	for t in "$@"; do
		[ -x "$t" ] || t_fail "$t not built"
	done
	t_nobody
}

tracefs_dir() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events" ] && { echo "$d"; return; }
	done
	t_fail "no tracefs with an events directory (as root)"
}

# Whether nobody may list DIR
nobody_reads() {	# DIR
	"${NOBODY[@]}" ls "$1" >/dev/null 2>&1
}

# What keeps nobody out of tracefs's events: "DIR MODE UID", MODE as
# %04o, DIR the tracefs root or, if nobody may enter that, events itself
tracefs_lock() {	# TRACEFS
	local d=$1
	"${NOBODY[@]}" test -x "$d" && d=$d/events
	printf '%s %04o %s\n' "$d" "0$(stat -c %a "$d")" "$(stat -c %u "$d")"
}

# Field $2 of check $1 in tracecheck's JSON in $T_OUT
check_field() {	# name field
	jq -r --arg n "$1" "[.checks[] | select(.name == \$n)][0].$2" "$T_OUT"
}

test_tracecheck_names_capabilities() {
	need "$TC"
	t_expect_exit 1 "${NOBODY[@]}" "$TC"
	t_assert_match "$(cat "$T_ERR")" \
		'needs CAP_BPF and CAP_PERFMON \(or CAP_SYS_ADMIN\); this process lacks CAP_BPF CAP_PERFMON CAP_SYS_ADMIN' \
		"tracecheck's message as nobody"
	t_assert_match "$(cat "$T_OUT")" \
		'^tracepoint +no +not tried: this process lacks CAP_BPF and CAP_PERFMON' \
		"the tracepoint row as nobody"
	t_assert_match "$(cat "$T_OUT")" \
		'^capabilities +no +CAP_BPF no, CAP_PERFMON no, CAP_SYS_ADMIN no' \
		"the capabilities row as nobody"
}

# perf_event_open counting the kernel: EACCES from perf_event_paranoid 2
# and up without CAP_PERFMON (Debian's 3 refuses everything); the reason
# names the value, never the BPF verifier
test_tracecheck_perf_hw_paranoid() {
	need "$TC"
	local paranoid detail errno
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) ||
		t_fail "cannot read kernel.perf_event_paranoid"
	t_expect_exit 1 "${NOBODY[@]}" "$TC" -j
	detail=$(check_field perf_hw detail)
	errno=$(check_field perf_hw errno)
	echo "perf_event_paranoid $paranoid; perf_hw: errno $errno, $detail"
	case $detail in *verifier*) t_fail "perf_hw blames the BPF verifier: $detail" ;; esac
	if [ "$paranoid" -ge 2 ]; then
		t_assert_eq "$errno" 13 "perf_hw errno (EACCES) with perf_event_paranoid $paranoid"
		t_assert_match "$detail" "perf_event_paranoid is $paranoid\\): needs root or CAP_PERFMON" \
			"perf_hw detail as nobody"
	else
		[ "$errno" != 13 ] || t_fail "EACCES with perf_event_paranoid $paranoid: $detail"
	fi
}

test_tracecheck_tracefs_mode() {
	need "$TC"
	local tfs d mode uid
	tfs=$(tracefs_dir)
	t_expect_exit 1 "${NOBODY[@]}" "$TC" -j
	if nobody_reads "$tfs/events"; then
		t_assert_eq "$(check_field tracefs ok)" true "tracefs, readable by nobody"
		return
	fi
	read -r d mode uid <<<"$(tracefs_lock "$tfs")"
	t_assert_eq "$(check_field tracefs ok)" false "tracefs, closed to nobody"
	t_assert_match "$(check_field tracefs detail)" \
		"^mounted, but closed to this process: $d is mode $mode \\(uid $uid, .*\\(uid 65534\\) lacks CAP_DAC_READ_SEARCH" \
		"tracefs detail as nobody"
}

test_funcdur_syscall_names_what_is_missing() {
	need "$FD"
	local tfs d mode uid
	tfs=$(tracefs_dir)
	t_expect_exit 1 "${NOBODY[@]}" "$FD" sys:read -d 1
	if nobody_reads "$tfs/events"; then
		t_assert_match "$(cat "$T_ERR")" 'lacks CAP_BPF CAP_PERFMON CAP_SYS_ADMIN' \
			"funcdur sys:read as nobody, tracefs readable"
		return
	fi
	read -r d mode uid <<<"$(tracefs_lock "$tfs")"
	t_assert_match "$(cat "$T_ERR")" \
		"cannot trace 'sys:read': cannot read $tfs/events: permission denied: $d is mode $mode \\(uid $uid, .*\\(uid 65534\\) lacks CAP_DAC_READ_SEARCH: run it as root" \
		"funcdur sys:read as nobody"
}

# A tracepoint event is looked up in tracefs while -e is parsed (exit 2)
test_pmcstat_tracepoint_names_what_is_missing() {
	need "$PMC"
	local tfs d mode uid
	tfs=$(tracefs_dir)
	if nobody_reads "$tfs/events"; then
		"${NOBODY[@]}" "$PMC" -e sched:sched_switch -d 1 >/dev/null 2>"$T_ERR"
		grep -q 'cannot look up' "$T_ERR" &&
			t_fail "nobody reads $tfs/events, yet: $(cat "$T_ERR")"
		return 0
	fi
	read -r d mode uid <<<"$(tracefs_lock "$tfs")"
	t_expect_exit 2 "${NOBODY[@]}" "$PMC" -e sched:sched_switch -d 1
	t_assert_match "$(cat "$T_ERR")" \
		"cannot look up tracepoint 'sched:sched_switch': $d is mode $mode \\(uid $uid, .*\\(uid 65534\\) lacks CAP_DAC_READ_SEARCH" \
		"pmcstat -e sched:sched_switch as nobody"
}

t_run_all
