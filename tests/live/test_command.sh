#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of `TOOL -- COMMAND` on real programs (sh, cat, gzip, false):
# the command owns stdin, stdout and stderr (the report goes to stderr or
# --output FILE), every process it or -p PID creates is followed (strace
# -f is the oracle), the tool exits with its status, a command that
# cannot run is said before any BPF program is loaded, and pmcstat -a/-C
# count the machine while a command runs (perf stat -a agrees).
. "$(dirname "$0")/../lib.sh"

FD="$KFIT_BIN/funcdur"
CG="$KFIT_BIN/callgraph"
PS="$KFIT_BIN/pmcstat"

need_strace() {
	command -v strace >/dev/null || t_skip "no strace (apt-get install strace)"
}

# The JSON lines of a report on stderr (the other lines are messages)
json_of() {	# FILE
	grep '^{' "$1"
}

# Every tool that takes a COMMAND, with arguments that trace something
tool_args() {	# TOOL -> its arguments before --
	case $1 in
	funcdur) echo "sys:openat" ;;
	callgraph) echo "sys:openat" ;;
	pmcstat) echo "-e context-switches" ;;
	esac
}

# ---- the command's stdout and stdin ---------------------------------------

# Exactly the command's output on stdout, the report (text, JSON) on stderr
test_stdout_is_the_commands() {
	t_need_root
	local tool args
	for tool in funcdur callgraph pmcstat; do
		args=$(tool_args $tool)
		# shellcheck disable=SC2086
		t_expect_exit 0 "$KFIT_BIN/$tool" $args -- sh -c 'printf data'
		t_assert_eq "$(od -An -c "$T_OUT" | tr -s ' ')" " d a t a" "$tool: stdout"
		t_assert_match "$(cat "$T_ERR")" "sys:openat|context-switches" "$tool: report on stderr"
		# shellcheck disable=SC2086
		t_expect_exit 0 "$KFIT_BIN/$tool" -j $args -- sh -c 'printf data'
		t_assert_eq "$(od -An -c "$T_OUT" | tr -s ' ')" " d a t a" "$tool -j: stdout"
		json_of "$T_ERR" | jq -e . >/dev/null ||
			t_fail "$tool -j: the JSON on stderr does not parse: $(cat "$T_ERR")"
		[ "$(json_of "$T_ERR" | wc -l)" -ge 1 ] || t_fail "$tool -j: no JSON on stderr"
	done
}

# --output FILE: the report there (0600), nothing of it on stdout or stderr
test_output_file() {
	t_need_root
	local tool args
	for tool in funcdur callgraph pmcstat; do
		args=$(tool_args $tool)
		rm -f rep.json
		# shellcheck disable=SC2086
		t_expect_exit 0 "$KFIT_BIN/$tool" -j --output rep.json $args -- sh -c 'printf data'
		t_assert_eq "$(cat "$T_OUT")" "data" "$tool --output: stdout"
		jq -e . rep.json >/dev/null || t_fail "$tool --output: rep.json does not parse"
		json_of "$T_ERR" | grep -q . && t_fail "$tool --output: JSON on stderr too"
		t_assert_eq "$(stat -c %a rep.json)" 600 "$tool --output: mode"
	done
	# the JSON says how many: funcdur's count is the one of sys:openat
	t_expect_exit 0 "$FD" -j --output rep.json sys:openat -- cat /dev/null
	t_assert_match "$(jq '.functions[0].count' rep.json)" '^[1-9][0-9]*$' "funcdur's count in the file"
}

# Tools without a COMMAND write their report there too; a symlink is refused
test_output_without_command() {
	t_need_root
	t_expect_exit 0 "$KFIT_BIN/tracecheck" -j --output tc.json
	t_assert_eq "$(cat "$T_OUT")" "" "tracecheck --output: stdout"
	jq -e .kernel tc.json >/dev/null || t_fail "tracecheck --output: tc.json: $(head -c 200 tc.json)"
	t_expect_exit 0 "$KFIT_BIN/softirqlat" -d 0.2 -j --output sl.json
	t_assert_eq "$(cat "$T_OUT")" "" "softirqlat --output: stdout"
	jq -e . sl.json >/dev/null || t_fail "softirqlat --output: sl.json does not parse"
	"$KFIT_HELPERS/kftgen" -n 3 g.kft || t_fail "kftgen failed"
	t_expect_exit 0 "$KFIT_BIN/kd" -j --output kd.json g.kft
	t_assert_eq "$(cat "$T_OUT")" "" "kd --output: stdout"
	jq -e . kd.json >/dev/null || t_fail "kd --output: kd.json does not parse"
	echo "keep me" >victim
	ln -s victim planted
	t_expect_exit 1 "$KFIT_BIN/tracecheck" --output planted
	t_assert_eq "$(cat victim)" "keep me" "the symlink's target"
	t_assert_match "$(cat "$T_ERR")" "cannot write planted: a symbolic link" "the error"
}

# gzip -c > FILE: FILE is gzip's output alone, it decompresses as it was
test_gzip_output_intact() {
	t_need_root
	command -v gzip >/dev/null || t_skip "no gzip"
	seq 1 200000 >big
	t_expect_exit 0 "$PS" -e page-faults -- gzip -c big
	gzip -dc <"$T_OUT" | cmp -s - big || t_fail "pmcstat -- gzip -c: the output is not gzip's"
	t_assert_match "$(cat "$T_ERR")" "page-faults" "pmcstat's table on stderr"
	t_expect_exit 0 "$FD" sys:write -- gzip -c big
	gzip -dc <"$T_OUT" | cmp -s - big || t_fail "funcdur -- gzip -c: the output is not gzip's"
	# stdin is the command's too
	"$FD" sys:read -- gzip -c <big >big.gz 2>err || t_fail "funcdur -- gzip <big failed: $(cat err)"
	gzip -dc big.gz | cmp -s - big || t_fail "funcdur -- gzip <big: not gzip's output"
}

# ---- children ---------------------------------------------------------------

# openat calls of a command and its children, as strace -f counts them
strace_openat() {	# COMMAND...
	strace -f -qq -e trace=openat -o st.txt "$@" >/dev/null 2>&1 ||
		t_fail "strace -f $* failed"
	grep -c ' openat(' st.txt
}

test_command_children_followed() {
	t_need_root
	need_strace
	local want got
	echo a >a
	echo b >b
	want=$(strace_openat sh -c 'cat a; cat b')
	t_expect_exit 0 "$FD" -j --output fd.json sys:openat -- sh -c 'cat a; cat b'
	got=$(jq '.functions[0].count' fd.json)
	echo "openat of sh -c 'cat a; cat b': strace -f $want, funcdur $got"
	t_assert_eq "$got" "$want" "funcdur's openat count (strace -f's)"
	t_expect_exit 0 "$CG" -j --output cg.json sys:openat -- sh -c 'cat a; cat b'
	got=$(jq '.calls' cg.json)
	t_assert_eq "$got" "$want" "callgraph's openat count (strace -f's)"
}

# -p PID: strace -f -p and funcdur -p on one process, released once both are there
test_pid_children_followed() {
	t_need_root
	need_strace
	local pid spid i got want
	echo a >a
	echo b >b
	# read-write: opening the FIFO does not block, sh waits in read
	mkfifo go
	exec 3<>go
	sh -c 'read x; cat a; cat b' <&3 &
	pid=$!
	t_on_exit "kill -KILL $pid 2>/dev/null"
	# not -q: its "Process N attached" says when it is there
	strace -f -e trace=openat -o st.txt -p "$pid" 2>strace.err &
	spid=$!
	t_on_exit "kill -KILL $spid 2>/dev/null"
	t_bg_start "$FD" -j sys:openat -p "$pid"
	t_bg_wait_tracing
	for i in $(seq 100); do
		grep -q "attached" strace.err && break
		sleep 0.1
	done
	echo go >&3
	t_bg_wait_exit 30
	wait "$spid"
	t_assert_eq "$BG_RC" 0 "funcdur -p's status"
	want=$(grep -c ' openat(' st.txt)
	got=$(json_of bg.out | jq '.functions[0].count')
	echo "openat after the release: strace -f -p $want, funcdur -p $got"
	[ "$want" -gt 4 ] || t_fail "strace saw only $want openat calls"
	t_assert_eq "$got" "$want" "funcdur -p's openat count (strace -f -p's)"
}

# pmcstat --per-task -- COMMAND: the command's tasks only, each of them
test_per_task_lists_the_commands() {
	t_need_root
	local listed printed
	echo a >a
	t_expect_exit 0 "$PS" --per-task -n 1000 -j -e context-switches -- \
		sh -c 'echo $$; cat a >/dev/null & echo $!; wait; cat a >/dev/null & echo $!; wait'
	printed=$(sort -n "$T_OUT" | tr '\n' ' ')
	listed=$(json_of "$T_ERR" | jq -r '.tasks[].pid' | sort -nu | tr '\n' ' ')
	echo "pids printed by the command: $printed; listed by pmcstat: $listed"
	t_assert_eq "$listed" "$printed" "the processes pmcstat --per-task lists"
}

# ---- exit status --------------------------------------------------------------

test_exit_status_is_the_commands() {
	t_need_root
	local tool args
	for tool in funcdur callgraph pmcstat; do
		args=$(tool_args $tool)
		# shellcheck disable=SC2086
		t_expect_exit 1 "$KFIT_BIN/$tool" $args -- false
		t_assert_match "$(cat "$T_ERR")" "'false' exited with status 1" "$tool: the note"
		# shellcheck disable=SC2086
		t_expect_exit 3 "$KFIT_BIN/$tool" $args -- sh -c 'exit 3'
		# shellcheck disable=SC2086
		t_expect_exit 139 "$KFIT_BIN/$tool" $args -- sh -c 'kill -SEGV $$'
		t_assert_match "$(cat "$T_ERR")" "^$tool: 'sh' killed by SIGSEGV\$" "$tool: the note"
		grep -q "status 139" "$T_ERR" && t_fail "$tool: said 'status 139'"
		# stopped by -d: the tool's own status
		# shellcheck disable=SC2086
		t_expect_exit 0 "$KFIT_BIN/$tool" -d 0.3 $args -- sleep 30
	done
	t_expect_exit 139 "$PS" -j -e context-switches -- sh -c 'kill -SEGV $$'
	t_assert_eq "$(json_of "$T_ERR" | jq -r '.exit_status, .signal' | tr '\n' ' ')" \
		"139 SEGV " "pmcstat -j: exit_status and signal"
}

# ---- a command that cannot run ------------------------------------------------

test_missing_command_attaches_nothing() {
	t_need_root
	need_strace
	local tool args cmd
	for tool in funcdur callgraph pmcstat; do
		args=$(tool_args $tool)
		[ $tool = pmcstat ] && args="--per-task $args"
		for cmd in /nonexistent/kfit-cmd kfit-no-such-cmd; do
			# shellcheck disable=SC2086
			t_expect_exit 1 strace -f -qq -e trace=bpf,perf_event_open -o st.txt \
				"$KFIT_BIN/$tool" $args -- $cmd
			t_assert_match "$(cat "$T_ERR")" "^$tool: cannot run '$cmd': No such file or directory\$" \
				"$tool: the error"
			grep -E 'BPF_PROG_LOAD|BPF_LINK_CREATE|perf_event_open' st.txt &&
				t_fail "$tool -- $cmd: loaded or opened something before finding the command missing"
		done
	done
	touch noexec
	chmod 644 noexec
	t_expect_exit 1 "$FD" sys:openat -- ./noexec
	t_assert_match "$(cat "$T_ERR")" "cannot run './noexec': Permission denied" "not executable"
}

# ---- pmcstat -a / -C with a COMMAND -------------------------------------------

# The machine while the command runs: at least the command's own count,
# as perf stat -a -- COMMAND counts it
test_pmcstat_all_cpus_with_command() {
	t_need_root
	local own all perf_all cpu0
	own=$("$PS" -j -e sched:sched_process_exec -- sh -c 'cat /dev/null; cat /dev/null' 2>&1 >/dev/null |
		json_of /dev/stdin | jq '.counts[-1].value')
	t_expect_exit 0 "$PS" -a -j -e sched:sched_process_exec -- sh -c 'cat /dev/null; cat /dev/null'
	all=$(json_of "$T_ERR" | jq '.counts[] | select(has("cpu") | not) | .value')
	t_assert_eq "$(json_of "$T_ERR" | jq -r .target)" "system wide" "pmcstat -a -- COMMAND's target"
	t_assert_eq "$own" 3 "the command's own execs (sh, cat, cat)"
	[ "$all" -ge "$own" ] || t_fail "pmcstat -a: $all execs, fewer than the command's $own"
	if command -v perf >/dev/null; then
		perf_all=$(perf stat -a -x, -e sched:sched_process_exec -- sh -c 'cat /dev/null; cat /dev/null' 2>&1 >/dev/null |
			awk -F, '/sched_process_exec/ { print $1 }')
		echo "sched_process_exec: command $own, pmcstat -a $all, perf stat -a $perf_all"
		[ "$perf_all" -ge "$own" ] || t_fail "perf stat -a: $perf_all"
	fi
	t_expect_exit 0 "$PS" -C 0 -j -e context-switches -- sleep 0.2
	t_assert_eq "$(json_of "$T_ERR" | jq '[.counts[] | select(has("cpu")) | .cpu] | unique | tostring' -r)" \
		"[0]" "pmcstat -C 0 -- COMMAND: the CPUs counted"
	t_expect_exit 3 "$PS" -a -e context-switches -- sh -c 'exit 3'
}

t_run_all
