# shellcheck shell=bash disable=SC2034 # variables for the files that source it
# SPDX-License-Identifier: GPL-2.0
# tests/vm/kret-lib.sh: kernel functions' return values against ftrace's
# kretprobe events, on the same calls (sourced after tests/lib.sh by
# tests/vm/test_funcdur_vm.sh and tests/vm/test_callgraph_vm.sh).
#
# kret_run FUNC TYPE WAIT TOOL ARGS...: one run of KRET_WORK (files there
# and not there, opened and looked at by busybox's cat and ls), stopped
# until both watch it: ftrace's kretprobe event on FUNC, $retval read as
# TYPE (s32, s64), for the process and its children (set_event_pid,
# event-fork), and `TOOL ARGS -p PID FUNC` (its stderr in
# $T_TMP/rets.err, its "Tracing" line awaited WAIT seconds). ftrace's
# trace ends up in $T_TMP/ftrace.out; kret_ftrace prints it as "PID
# VALUE" lines, in the order of the returns.
# kret_first FUNC...: the first of them that ftrace can trace.

KRET_WORK='for i in 1 2 3; do cat /nonexistent-$i /proc/version; ls /nonexistent-$i; done; true'
KRET_TR=/sys/kernel/tracing
KRET_EV=kfit_ret_$$

kret_first() {	# FUNC...
	local f
	for f in "$@"; do
		grep -qx "$f" "$KRET_TR/available_filter_functions" && { echo "$f"; return 0; }
	done
	t_fail "none of $* is in available_filter_functions"
}

kret_run() {	# FUNC TYPE WAIT TOOL ARGS...
	local f=$1 ty=$2
	shift 2
	kret_probe "r:$KRET_EV $f ret=\$retval:$ty" "$f" "$@"
}

# kret_probe DEF TARGET WAIT TOOL ARGS...: kret_run with ftrace's event
# defined as DEF (named $KRET_EV: "p:$KRET_EV FUNC ARGS..." reads arguments
# at the entry) and TARGET for the tool ("FUNC(ARGS)")
kret_probe() {	# DEF TARGET WAIT TOOL ARGS...
	local def=$1 target=$2 wait=$3 tool=$4 tr=$KRET_TR ev=$KRET_EV pid tp i=0
	shift 4
	t_stopped_start "$KRET_WORK"
	pid=$STOPPED_PID
	echo "$def" >>"$tr/kprobe_events" || t_fail "ftrace refused the event '$def'"
	t_on_exit "echo 0 > $tr/events/kprobes/$ev/enable; echo -:$ev >> $tr/kprobe_events; \
		echo > $tr/set_event_pid; echo 0 > $tr/options/event-fork"
	echo 1 >"$tr/options/event-fork"
	echo "$pid" >"$tr/set_event_pid"
	: >"$tr/trace"
	echo 1 >"$tr/events/kprobes/$ev/enable"
	"$tool" "$@" -p "$pid" "$target" >/dev/null 2>"$T_TMP/rets.err" &
	tp=$!
	until grep -q '^Tracing' "$T_TMP/rets.err"; do
		kill -0 "$tp" 2>/dev/null || t_fail "$tool -p $target: $(cat "$T_TMP/rets.err")"
		[ "$i" -ge "$((wait * 10))" ] && t_fail "$tool did not attach in ${wait}s"
		sleep 0.1
		i=$((i + 1))
	done
	kill -CONT "$pid"
	wait "$pid"
	wait "$tp" || t_fail "$tool -p $target exited $?: $(cat "$T_TMP/rets.err")"
	echo 0 >"$tr/events/kprobes/$ev/enable"
	echo >"$tr/set_event_pid"
	echo 0 >"$tr/options/event-fork"
	cp "$tr/trace" "$T_TMP/ftrace.out"
	echo "-:$ev" >>"$tr/kprobe_events"
}

# "PID VALUE" per return ftrace saw ("  cat-123  [000] ... kfit_ret_N: (...) ret=-2")
kret_ftrace() {
	sed -En "s/^ *[^ ]*-([0-9]+) +\[.* $KRET_EV: .*ret=(-?[0-9]+).*/\1 \2/p" "$T_TMP/ftrace.out"
}
