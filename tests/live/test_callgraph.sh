#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of callgraph on the running kernel (root): the uprobe call
# trees of tests/helpers/cgshape, whose shape is known (its header lists
# the tree of each scenario), checked exactly, and against uftrace's trees
# of the same program built with -pg (tests/helpers/uftrace-canon, on the
# host only: the VM has no uftrace); sampled mode on tests/helpers/cghot;
# a forced overflow; the output forms; bad usage.
#
# Most tests start `cgshape -w SCENARIO N` (it waits for SIGUSR1), then
# `callgraph -j -p PID CGSHAPE:cg_*` in the background, wait for its
# "Tracing" line and let cgshape run; callgraph ends with it, so the trees
# are whole. Trees are compared in the canonical form of uftrace-canon
# ("TASK DEPTH NAME [incomplete]" per call in pre-order, then "count NAME
# N"; tests/callgraph-lib.sh). Durations are only bounded from below
# (a 20 ms sleep is at least 20 ms off CPU), never from above.
# shellcheck disable=SC2016,SC2046 # awk conditions in single quotes; cg_targets' words
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/callgraph-lib.sh"
. "$T_REPO/tests/errwork-lib.sh"

export LC_ALL=C	# sort and awk compare bytes, as jq does
: "${CG_WAIT:=30}"	# seconds to wait for the "Tracing" line
CGHOT="$KFIT_HELPERS/cghot"

need_tool() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$CGS" ] || t_fail "$CGS not built"
}

# ---- callgraph in the background -------------------------------------------

bg_start() { t_bg_start "$CG" "$@"; }
bg_wait_tracing() { t_bg_wait_tracing "$CG_WAIT"; }

# With -p PID it ends by itself once cgshape has (t_held_go waits for
# it), with status 0
bg_end() {
	t_bg_wait_exit 30
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "callgraph exited $BG_RC once its process had ended, expected 0"
	}
}

# cgshape -w SCENARIO N; sets CGS_PID
cgs_start() {	# SCENARIO N
	t_held_start "$CGS" -w "$1" "$2"
	CGS_PID=$HELD_PID
}

# cgshape SCENARIO N under `callgraph -p PID ARGS... CGSHAPE:cg_*`, which
# ends when cgshape does; its output is in bg.out
traced_run() {	# SCENARIO N callgraph-args...
	local sc=$1 n=$2
	shift 2
	cgs_start "$sc" "$n"
	bg_start -p "$CGS_PID" "$@" $(cg_targets "$sc")
	bg_wait_tracing
	t_held_go
	bg_end
}

# The same with -j: the document checked and flattened (bg.out.kv)
json_run() {	# SCENARIO N callgraph-args...
	traced_run "$@" -j
	cg_json "$T_TMP/bg.out" "callgraph -j ($1 $2)"
	t_assert_eq "$(cg_d bg.out mode)" exact "mode"
	t_assert_match "$(cg_d bg.out mechanism)" uprobe "mechanism"
	t_assert_eq "$(cg_d bg.out lost)" 0 "lost"
	# every call traced is in a tree: none is dropped or lost here
	t_assert_eq "$(cg_d bg.out calls)" "$(cg_ncalls bg.out '$18 != "true"')" \
		"calls against the calls in the trees"
	t_assert_eq "$(cg_d bg.out orphans)" 0 "orphans"
	[ -z "$(awk -F'\t' -v p="$CGS_PID" '$1 == "T" && $3 != p' bg.out.kv)" ] ||
		[ "$1" = fork ] || t_fail "a thread of another process than $CGS_PID: $(grep '^T' bg.out.kv)"
}

# ---- the trees cgshape makes (its header), in canonical form ---------------

fib_lines() {	# K DEPTH: cg_fib(K)'s calls in pre-order
	echo "$2 cg_fib"
	[ "$1" -lt 2 ] && return
	fib_lines $(($1 - 1)) $(($2 + 1))
	fib_lines $(($1 - 2)) $(($2 + 1))
}

# Blocks (tasks) separated by empty lines, in canon_sort's input form
expect_blocks() {	# SCENARIO N
	local n=$2 i k j
	case $1 in
	nest)
		for ((i = 0; i < n; i++)); do
			printf '0 cg_a\n1 cg_b\n2 cg_c\n1 cg_d\n1 cg_c\n'
		done ;;
	recurse)
		for ((i = 0; i < n; i++)); do
			printf '0 cg_rec\n1 cg_rec\n2 cg_rec\n3 cg_rec\n'
			fib_lines 5 0
		done ;;
	threads)
		for ((k = 0; k < 4; k++)); do
			for ((i = 0; i < n; i++)); do
				echo "0 cg_thread_$k"
				for ((j = 0; j <= k; j++)); do echo "1 cg_leaf"; done
			done
			echo
		done ;;
	fork)
		for ((i = 0; i < n; i++)); do printf '0 cg_forker\n1 cg_wait\n'; done
		for ((i = 0; i < n; i++)); do
			printf '\n0 cg_forker\n1 cg_child\n2 cg_leaf\n2 cg_leaf\n2 cg_leaf\n'
		done ;;
	signal)
		for ((i = 0; i < n; i++)); do
			printf '0 cg_sig_victim\n1 cg_handler\n2 cg_leaf\n'
		done ;;
	exit)
		printf '0 cg_leaf\n0 cg_exit_outer incomplete\n1 cg_exit_mid incomplete\n'
		printf '2 cg_leaf\n2 cg_exit_inner incomplete\n' ;;
	longjmp)
		for ((i = 0; i < n; i++)); do
			printf '0 cg_jmp_outer\n1 cg_jmp_mid incomplete\n2 cg_jmp_inner incomplete\n'
			printf '1 cg_after_jump\n2 cg_leaf\n'
		done ;;
	sleep)
		for ((i = 0; i < n; i++)); do
			printf '0 cg_sleep_outer\n1 cg_leaf\n1 cg_nap\n'
		done ;;
	*) t_fail "expect_blocks: no tree for scenario $1" ;;
	esac
}

expect_canon() { expect_blocks "$@" | canon_sort; }	# SCENARIO N

# The scenarios and counts compared with uftrace
SCENARIOS="nest:3 recurse:2 threads:10 fork:2 signal:2 exit:1 longjmp:2 sleep:1"

need_uftrace() {
	command -v uftrace >/dev/null || t_skip "uftrace not installed (make deps installs it)"
	[ -x "$CGS_PG" ] || t_fail "$CGS_PG not built"
}

# ---- the oracle: uftrace's trees are cgshape's documented ones -------------

# Not for callgraph: this checks the oracle itself (uftrace-canon's reading
# of uftrace's records of fork, signal handlers, exit and longjmp), with
# no root needed. uftrace runs on the host only.
t_in_vm || test_uftrace_oracle() {
	need_uftrace
	local sn sc n got
	for sn in $SCENARIOS; do
		sc=${sn%:*} n=${sn#*:}
		got=$("$UCANON" -- "$CGS_PG" "$sc" "$n" 2>"$T_TMP/uf.err") || {
			cat "$T_TMP/uf.err"
			t_fail "uftrace-canon $sc $n failed"
		}
		canon_assert_eq "$got" "$(expect_canon "$sc" "$n")" "uftrace's $sc $n"
		echo "uftrace $sc $n: $(printf '%s\n' "$got" | grep -vc '^count') calls as documented"
	done
}

# ---- trees: nesting, order, counts -----------------------------------------

test_nest_order() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	json_run nest 3
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon nest 3)" "nest 3"
	t_assert_eq "$(cg_d bg.out incomplete)" 0 "incomplete"
	t_assert_eq "$(cg_d bg.out dropped)" 0 "dropped"
	t_assert_eq "$(awk -F'\t' '$1 == "T" { print $2 "/" $3 }' bg.out.kv)" "$CGS_PID/$CGS_PID" \
		"threads (tid/pid): the main thread only"
	t_assert_eq "$(awk -F'\t' '$1 == "T" { print $4 }' bg.out.kv)" cgshape "comm"
	t_bpf_assert_same "$snap" "after callgraph -p"
}

test_recursion_counts() {
	need_tool
	json_run recurse 3
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon recurse 3)" "recurse 3"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "cg_fib"')" 45 "cg_fib calls (3 x fib(5): 15)"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "cg_rec" && $3 == 3')" 3 "cg_rec at depth 3"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "cg_fib" && $3 == 4')" 6 "cg_fib at depth 4"
}

# Four threads, interleaved (they start together): each its own tree
test_threads_own_trees() {
	need_tool
	local n=40 tids t
	json_run threads "$n"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon threads "$n")" "threads $n"
	tids=$(cg_calls bg.out '$3 == 0' | cut -f2 | sort -u)
	t_assert_eq "$(printf '%s\n' "$tids" | grep -c .)" 4 "threads with calls"
	printf '%s\n' "$tids" | grep -qx "$CGS_PID" && t_fail "the main thread has calls"
	for t in $tids; do
		[ "$(cg_calls bg.out "\$2 == $t && \$3 == 0" | cut -f5 | sort -u | grep -c .)" = 1 ] ||
			t_fail "thread $t runs more than one cg_thread_k"
	done
}

# The children of -p's process are traced; each starts with the frame it
# inherited from its parent (the fork happened inside cg_forker): the same
# call as the parent's, with the parent's entry time, returning in the child
test_fork_child_tree() {
	need_tool
	local n=2 kids k starts s
	json_run fork "$n"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon fork "$n")" "fork $n"
	kids=$(awk -F'\t' -v p="$CGS_PID" '$1 == "T" && $3 != p { print $2 }' bg.out.kv)
	t_assert_eq "$(printf '%s\n' "$kids" | grep -c .)" "$n" "child processes with a tree"
	t_assert_eq "$(cg_ncalls bg.out '$17 == "true"')" "$n" "inherited frames (one per child)"
	starts=$(cg_calls bg.out "\$2 == $CGS_PID && \$5 == \"cg_forker\"" | cut -f6)
	for k in $kids; do
		t_assert_eq "$(awk -F'\t' -v t="$k" '$1 == "T" && $2 == t { print $3 }' bg.out.kv)" "$k" \
			"child $k: a process of its own (pid = tid)"
		s=$(cg_calls bg.out "\$2 == $k && \$3 == 0" | cut -f5,6,12,17)
		t_assert_match "$s" '^cg_forker	[0-9]+	true	true$' \
			"child $k: its root (name, start, complete, inherited)"
		printf '%s\n' "$starts" | grep -qx "$(cut -f2 <<<"$s")" ||
			t_fail "child $k: its inherited cg_forker starts at $(cut -f2 <<<"$s"), not at a start of its parent's ($starts)"
	done
}

# The tasks of a -j document: "COMM CONTEXT CALLS" a line, sorted (tids
# differ from run to run)
cg_task_names() {	# FILE
	awk -F'\t' '$1 == "T" { t[$2] = $4 " " $5; n[$2] = 0 }
		$1 == "C" && $18 != "true" { n[$2]++ }
		END { for (k in t) print t[k], n[k] }' "$1.kv" | sort
}

# --rings N: each task's records in one of N ring buffers, read one ring
# after the other; the trees (names, nesting, counts) and the task names
# are those of one ring. 4 rings on any host: the children's records come
# before their fork's, the threads' in any order between them.
test_rings_same_trees() {
	need_tool
	local sc n one names
	for sc in threads:10 fork:3; do
		n=${sc#*:}
		sc=${sc%:*}
		json_run "$sc" "$n" --rings 1 -v
		grep -q '^callgraph: 1 ring buffer of ' "$T_TMP/bg.err" ||
			{ t_show_file "$T_TMP/bg.err" stderr; t_fail "$sc: not one ring with --rings 1"; }
		one=$(cg_canon bg.out)
		canon_assert_eq "$one" "$(expect_canon "$sc" "$n")" "$sc $n, 1 ring"
		names=$(cg_task_names bg.out)
		json_run "$sc" "$n" --rings 4 -v
		grep -q '^callgraph: 4 ring buffers of ' "$T_TMP/bg.err" ||
			{ t_show_file "$T_TMP/bg.err" stderr; t_fail "$sc: not 4 rings with --rings 4"; }
		canon_assert_eq "$(cg_canon bg.out)" "$one" "$sc $n, 4 rings against 1"
		t_assert_eq "$(cg_task_names bg.out)" "$names" "$sc $n: the tasks, 4 rings against 1"
	done
}

# The same from the exec of a command after --: its children too
test_command_fork() {
	need_tool
	local f=$T_TMP/out.json
	t_expect_exit 0 "$CG" -j $(cg_targets fork) -- bash -c 'exec "$0" "$@" >/dev/null' "$CGS" fork 2
	# the report is on stderr: stdout is the command's
	grep '^{' "$T_ERR" >"$f"
	cg_json "$f" "callgraph -j -- cgshape fork 2"
	canon_assert_eq "$(cg_canon "$f")" "$(expect_canon fork 2)" "-- cgshape fork 2"
	t_assert_eq "$(cg_d "$f" lost)" 0 "lost"
}

# The handler runs on the thread's stack while cg_sig_victim is in raise()
test_signal_handler_inside() {
	need_tool
	json_run signal 3
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon signal 3)" "signal 3"
	t_assert_eq "$(cg_calls bg.out '$5 == "cg_handler"' | cut -f4 | sort -u)" \
		cg_sig_victim/cg_handler "cg_handler's callers"
}

# exit() from 3 frames deep: they never return, incomplete "exited"
test_exit_incomplete() {
	need_tool
	json_run exit 1
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon exit 1)" "exit"
	t_assert_eq "$(cg_d bg.out incomplete)" 3 "incomplete"
	t_assert_eq "$(cg_calls bg.out '$12 == "false"' | cut -f5,13 | tr '\t\n' ' ')" \
		"cg_exit_outer exited cg_exit_mid exited cg_exit_inner exited " "incomplete calls and reasons"
}

# longjmp out of 2 frames: they are incomplete "longjmp", and the call
# made after the jump is cg_jmp_outer's, not under the abandoned frames
test_longjmp_incomplete() {
	need_tool
	json_run longjmp 3
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon longjmp 3)" "longjmp 3"
	t_assert_eq "$(cg_d bg.out incomplete)" 6 "incomplete"
	t_assert_eq "$(cg_calls bg.out '$12 == "false"' | cut -f13 | sort -u)" longjmp "incomplete_reason"
	t_assert_eq "$(cg_calls bg.out '$5 == "cg_after_jump"' | cut -f4 | sort -u)" \
		cg_jmp_outer/cg_after_jump "cg_after_jump's callers"
}

# cg_nap sleeps 20 ms: at least 20 ms of it is off CPU, blocked, and so
# for its caller; a context switch is marked inside it
test_sleep_offcpu() {
	need_tool
	local n=2 bad
	json_run sleep "$n"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon sleep "$n")" "sleep $n"
	# The call lasts at least the 20 ms; off CPU is from the switch out,
	# which comes after the timer was armed (under emulation, a fraction
	# of a millisecond later): most of it, and never more than the call
	bad=$(cg_calls bg.out '($5 == "cg_nap" || $5 == "cg_sleep_outer") &&
		($7 < 20000000 || $10 < 10000000 || $9 > $7 || $10 > $9)' | cut -f5,7,9,10)
	[ -z "$bad" ] || t_fail "calls around a 20 ms sleep: not at least 20 ms long, 10 ms blocked, off CPU within the call (duration, off-CPU, blocked): $bad"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "cg_nap" && $16 > 0')" "$n" "cg_nap calls with a context switch marked inside"
	traced_run sleep 1
	t_assert_match "$(cat bg.out)" 'off CPU [0-9.]+ms \(blocked\)' "the off-CPU line of the text tree"
}

# ---- KFI's filters ------------------------------------------------------------

# --min 10ms: cg_leaf (short) dropped, counted, its time in its caller's local
test_min_drops() {
	need_tool
	local n=3
	json_run sleep "$n" --min 10ms
	canon_assert_eq "$(cg_canon bg.out)" \
		"$(for ((i = 0; i < n; i++)); do printf '0 cg_sleep_outer\n1 cg_nap\n'; done | canon_sort)" \
		"sleep $n --min 10ms"
	t_assert_eq "$(cg_d bg.out dropped)" "$n" "dropped"
	t_assert_eq "$(cg_calls bg.out '$5 == "cg_sleep_outer"' | cut -f14 | sort -u)" 1 \
		"cg_sleep_outer's dropped"
}

# -D 2: two levels; cg_b's cg_c dropped
test_depth_limit() {
	need_tool
	local n=3
	json_run nest "$n" -D 2
	canon_assert_eq "$(cg_canon bg.out)" \
		"$(for ((i = 0; i < n; i++)); do printf '0 cg_a\n1 cg_b\n1 cg_d\n1 cg_c\n'; done | canon_sort)" \
		"nest $n -D 2"
	t_assert_eq "$(cg_d bg.out dropped)" "$n" "dropped"
	t_assert_eq "$(cg_calls bg.out '$5 == "cg_b"' | cut -f14 | sort -u)" 1 "cg_b's dropped"
}

# ---- -e, --comm, -t, -C ---------------------------------------------------------

# "PATH EVENT" of each event node of the -j document (PATH: the names of
# the calls around it, "/"-separated)
cg_events() {	# FILE
	jq -r 'def ev($p): if has("event") then "\($p | join("/")) \(.event)"
		elif has("name") then (.name as $n | .children[]? | ev($p + [$n]))
		else (.children[]? | ev($p)) end;
		.threads[].calls[] | ev([])' "$1"
}

# -e: tracepoints where they happened: cg_nap's nanosleep (clock_nanosleep
# in glibc) and the switch away when it blocks, inside cg_nap; a glob
test_events_in_tree() {
	need_tool
	local n=3 e
	json_run sleep "$n" -e 'syscalls:sys_enter_clock_nanosleep' -e sched:sched_switch
	cg_events bg.out >ev.txt
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon sleep "$n")" "sleep $n with -e"
	t_assert_eq "$(grep -c ' syscalls:sys_enter_clock_nanosleep$' ev.txt)" "$n" "clock_nanosleep events"
	t_assert_eq "$(grep ' syscalls:' ev.txt | cut -d' ' -f1 | sort -u)" cg_sleep_outer/cg_nap \
		"where the clock_nanosleep events are"
	# each 20 ms sleep blocks: a sched_switch inside each cg_nap (more
	# may come where cgshape was preempted)
	[ "$(grep -c '^cg_sleep_outer/cg_nap sched:sched_switch$' ev.txt)" -ge "$n" ] ||
		{ cat ev.txt; t_fail "fewer than $n sched_switch events inside cg_nap"; }
	e=$(grep -c . ev.txt)
	echo "sleep $n: $e events"
	json_run sleep "$n" -e 'syscalls:sys_*_clock_nano*'
	cg_events bg.out >ev.txt
	t_assert_eq "$(sort ev.txt | uniq -c | sed 's/^ *//')" \
		"$n cg_sleep_outer/cg_nap syscalls:sys_enter_clock_nanosleep
$n cg_sleep_outer/cg_nap syscalls:sys_exit_clock_nanosleep" "events of the glob, and where"
}

# --comm NAME (no -p): cgshape's calls, not those of the same binary run
# under another name (a symbolic link: comm is the name executed; the
# uprobes, on the file, fire in both)
test_comm_filter() {
	need_tool
	local other=$T_TMP/cgother opid
	ln -s "$CGS" "$other" || t_fail "ln -s failed"
	bg_start -j --comm cgshape $(cg_targets nest)
	bg_wait_tracing
	cgs_start nest 2
	"$other" nest 3 >other.out 2>&1 || t_fail "cgother nest 3 failed: $(cat other.out)"
	t_held_go
	t_bg_stop_ok INT
	cg_json "$T_TMP/bg.out" "callgraph -j --comm cgshape"
	t_assert_eq "$(awk -F'\t' '$1 == "T" { print $3 " " $4 }' bg.out.kv | sort -u)" \
		"$CGS_PID cgshape" "threads (pid comm)"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon nest 2)" "--comm cgshape: cgshape's nest 2 only"
	# and the other name: its calls only
	bg_start -j --comm cgother $(cg_targets nest)
	bg_wait_tracing
	"$other" nest 3 >other.out 2>&1 || t_fail "cgother nest 3 failed: $(cat other.out)"
	cgs_start nest 2
	t_held_go
	t_bg_stop_ok INT
	cg_json "$T_TMP/bg.out" "callgraph -j --comm cgother"
	opid=$(awk -F'\t' '$1 == "T" { print $4 }' bg.out.kv | sort -u)
	t_assert_eq "$opid" cgother "comm of the threads with --comm cgother"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon nest 3)" "--comm cgother: its nest 3 only"
}

# -t TID: one thread's tree. fork: the parent's cg_forker[cg_wait], not
# its child's (another tid); threads: the main thread calls no cg_*, so
# none of its 4 threads' calls
test_tid_filter() {
	need_tool
	local n=2
	cgs_start fork "$n"
	bg_start -j -t "$CGS_PID" $(cg_targets fork)
	bg_wait_tracing
	t_held_go
	bg_end
	cg_json "$T_TMP/bg.out" "callgraph -j -t (fork $n)"
	canon_assert_eq "$(cg_canon bg.out)" \
		"$(for ((i = 0; i < n; i++)); do printf '0 cg_forker\n1 cg_wait\n'; done | canon_sort)" \
		"-t PID, fork $n: the parent's tree only"
	t_assert_eq "$(awk -F'\t' '$1 == "T" { print $2 }' bg.out.kv | sort -u)" "$CGS_PID" "threads"
	cgs_start threads 5
	bg_start -j -t "$CGS_PID" $(cg_targets threads)
	bg_wait_tracing
	t_held_go
	bg_end
	cg_json "$T_TMP/bg.out" "callgraph -j -t (threads 5)"
	t_assert_eq "$(cg_d bg.out calls)" 0 "calls with -t of the main thread (threads 5: all in the 4 threads)"
	t_assert_eq "$(cg_ncalls bg.out)" 0 "calls in the trees"
}

# -C LIST: cgshape pinned to CPU 0: -C 1 sees none of its calls, -C 0 all
test_cpu_filter() {
	need_tool
	command -v taskset >/dev/null || t_skip "no taskset"
	[ "$(nproc)" -ge 2 ] || t_skip "one CPU"
	local n=3
	t_held_start taskset -c 0 "$CGS" -w nest "$n"
	CGS_PID=$HELD_PID
	bg_start -j -p "$CGS_PID" -C 1 $(cg_targets nest)
	bg_wait_tracing
	t_held_go
	bg_end
	cg_json "$T_TMP/bg.out" "callgraph -j -C 1 (nest $n on CPU 0)"
	t_assert_eq "$(cg_d bg.out calls)" 0 "calls with -C 1 of a process on CPU 0"
	t_held_start taskset -c 0 "$CGS" -w nest "$n"
	CGS_PID=$HELD_PID
	bg_start -j -p "$CGS_PID" -C 0 $(cg_targets nest)
	bg_wait_tracing
	t_held_go
	bg_end
	cg_json "$T_TMP/bg.out" "callgraph -j -C 0 (nest $n on CPU 0)"
	canon_assert_eq "$(cg_canon bg.out)" "$(expect_canon nest "$n")" "-C 0, nest $n on CPU 0"
	t_assert_eq "$(cg_calls bg.out | cut -f15 | sort -u)" 0 "the calls' CPU"
}

# ---- against uftrace -------------------------------------------------------------

# The same functions, nesting, order, counts and incomplete frames as
# uftrace shows for cgshape-pg (host only: the VM has no uftrace)
t_in_vm || test_uftrace_same_trees() {
	need_tool
	need_uftrace
	local sn sc n want
	for sn in $SCENARIOS; do
		sc=${sn%:*} n=${sn#*:}
		want=$("$UCANON" -- "$CGS_PG" "$sc" "$n" 2>"$T_TMP/uf.err") || {
			cat "$T_TMP/uf.err"
			t_fail "uftrace-canon $sc $n failed"
		}
		json_run "$sc" "$n"
		canon_assert_eq "$(cg_canon bg.out)" "$want" "callgraph against uftrace, $sc $n"
		echo "$sc $n: the same trees as uftrace's"
	done
}

# ---- the text tree ------------------------------------------------------------------

# The default output, read back: under each "== pid P tid T (comm) ==",
# call lines "ENTRY DURATION LOCAL OFF-CPU CPU FUNCTION", the name
# indented 2 spaces per depth (from the column of the block's outermost
# calls); in canonical form
text_canon() {	# FILE
	awk '
	/^== pid [0-9]+ tid [0-9]+ / { blk++; next }
	blk && $1 ~ /^[0-9.]+s$/ && $2 ~ /^>?[0-9.]+(ns|us|ms|s)$/ &&
	    match($0, /^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/) {
		name = substr($0, RLENGTH + 1); sub(/ .*/, "", name)
		if (name !~ /^cg_/) next
		n++; b[n] = blk; col[n] = RLENGTH; nm[n] = name
		inc[n] = index($0, "[incomplete: ") ? " incomplete" : ""
		if (!(blk in min) || RLENGTH < min[blk]) min[blk] = RLENGTH
	}
	END {
		for (i = 1; i <= n; i++)
			text[b[i]] = text[b[i]] (col[i] - min[b[i]]) / 2 " " nm[i] inc[i] "\n"
		for (i = 1; i <= blk; i++) if (text[i] != "") print text[i]
	}' "$1" | canon_sort
}

test_text_tree() {
	need_tool
	traced_run nest 2
	t_assert_match "$(cat bg.out)" "^== pid $CGS_PID tid $CGS_PID \\(cgshape\\) ==\$" "thread header"
	t_assert_match "$(cat bg.out)" 'ENTRY +DURATION +LOCAL +OFF-CPU +CPU +FUNCTION$' "column header"
	canon_assert_eq "$(text_canon bg.out)" "$(expect_canon nest 2)" "the text tree of nest 2"
	traced_run longjmp 1
	canon_assert_eq "$(text_canon bg.out)" "$(expect_canon longjmp 1)" "the text tree of longjmp 1"
	t_assert_match "$(grep -E ' cg_jmp_mid' bg.out)" '>[0-9.]+(ns|us|ms|s) .*\[incomplete: longjmp\]' \
		"cg_jmp_mid's line (duration as a lower bound, and the mark)"
	traced_run exit 1
	t_assert_match "$(grep -E ' cg_exit_inner' bg.out)" '\[incomplete: exited\]' "cg_exit_inner's line"
	traced_run fork 1
	canon_assert_eq "$(text_canon bg.out)" "$(expect_canon fork 1)" "the text tree of fork 1"
	t_assert_eq "$(grep -c ' cg_forker \[inherited\]' bg.out)" 1 "cg_forker lines marked [inherited]"
}

# ---- losses --------------------------------------------------------------------------

# Which caller each cgshape nest function may have (the stand-in of a
# lost caller, "[lost]" in paths, may have any)
NEST_PAIRS="cg_a>cg_b cg_a>cg_d cg_a>cg_c cg_b>cg_c"

# A ring buffer of one page against 5 x 20000 calls: records are lost,
# counted and shown; the tree stays consistent (the schema's invariants,
# and every call under a caller it really has)
test_overflow_tiny_buffer() {
	need_tool
	local n=20000 calls lost bad
	json_run_lossy() {
		cgs_start nest "$n"
		bg_start -p "$CGS_PID" -j -b 4k $(cg_targets nest)
		bg_wait_tracing
		t_held_go
		bg_end
		cg_json "$T_TMP/bg.out" "callgraph -j -b 4k (nest $n)"
	}
	json_run_lossy
	calls=$(cg_dnum bg.out calls)
	lost=$(cg_dnum bg.out lost)
	echo "nest $n with -b 4k: $calls calls, $lost lost of $((5 * n))"
	[ "$lost" -gt 0 ] || t_fail "nothing lost with a 4 KiB buffer and $((5 * n)) calls"
	[ "$calls" -le $((5 * n)) ] || t_fail "$calls calls, more than the $((5 * n)) made"
	[ $((calls + lost)) -ge $((5 * n)) ] || t_fail "calls $calls + lost $lost < the $((5 * n)) calls made"
	t_assert_eq "$(cg_ncalls bg.out '$18 != "true"')" "$calls" "calls against the calls in the trees"
	t_assert_eq "$(cg_ncalls bg.out '$18 != "true" && $5 !~ /^cg_[abcd]$/')" 0 "calls not of nest"
	bad=$(cg_calls bg.out '$18 != "true" && $3 > 0' | awk -F'\t' -v ok=" $NEST_PAIRS " '{
		n = split($4, p, "/"); c = p[n - 1]
		if (c != "[lost]" && index(ok, " " c ">" $5 " ") == 0) print $4 }' | sort | uniq -c)
	[ -z "$bad" ] || t_fail "calls under a caller they do not have: $bad"
	cgs_start nest "$n"
	bg_start -p "$CGS_PID" -b 4k $(cg_targets nest)
	bg_wait_tracing
	t_held_go
	bg_end
	t_assert_match "$(head -n 20 bg.out)" '[Ll]ost:? [1-9][0-9]*|[1-9][0-9]* lost' "the header's lost count"
}

# ---- sampled mode -----------------------------------------------------------------------

# tests/helpers/cghot SECONDS prints "pid PID", then computes: 9 units of
# work in 10 in hot_loop, under middle, under main (1 in cold_loop, under
# cold_path, under main)
CGHOT_HOT=hot_loop
CGHOT_CALLERS="main middle"

# The hottest node (most self samples) is CGHOT_HOT, under its callers
test_sampled_hot() {
	need_tool
	[ -x "$CGHOT" ] || t_fail "$CGHOT not built"
	local f=$T_TMP/s.json top
	t_held_start "$CGHOT" 4
	t_expect_exit 0 "$CG" -j -S 199 -p "$HELD_PID"
	cp "$T_OUT" "$f"
	jq -e '.mode == "sampled"' "$f" >/dev/null || { t_show_file "$f" "-S -j"; t_fail "mode is not sampled"; }
	# "PATH SELF SAMPLES" of the node with the most self samples
	top=$(jq -r '
		def nodes($p): (.name as $n | ($p + [$n]) as $q |
			"\($q | join(";"))\t\(.self)\t\(.samples)", (.children[]? | nodes($q)));
		[.threads[] | (.calls // .children)[]? | nodes([])] |
		map(split("\t")) | max_by(.[1] | tonumber) | join("\t")' "$f") ||
		t_fail "sampled JSON without threads of nodes (name, self, samples, children)"
	echo "hottest: $top"
	# work(), inlined into hot_loop, is a frame of its own (its DWARF is there)
	t_assert_match "$(cut -f1 <<<"$top")" "(^|;)${CGHOT_CALLERS// /;};$CGHOT_HOT(;work \\(inlined\\))?\$" \
		"the hottest node's stack"
	[ "$(cut -f2 <<<"$top")" -ge 50 ] || t_fail "only $(cut -f2 <<<"$top") samples in $CGHOT_HOT in about 3 s at 199 Hz"
	# without targets, sampled is the default
	t_held_start "$CGHOT" 2
	t_expect_exit 0 "$CG" -j -p "$HELD_PID"
	t_assert_eq "$(jq -r .mode "$T_OUT")" sampled "mode without targets"
}

# ---- the other output forms ----------------------------------------------------------------

# XML well-formedness without an XML library (the VM has none): tags
# balanced and named, attributes quoted, entities where & is, one root.
# The document is split at each "<" (never inside an attribute value in
# XML); comments, CDATA and <? ?> pieces are joined back.
xml_check() {	# FILE -> the root's name, or "!problem"
	awk '
	function bad(m) { print "!" m; err = 1; exit }
	function chars(t, what) {
		if (depth == 0 && t ~ /[^ \t\r\n]/) bad("text outside the root: " substr(t, 1, 30))
		gsub(/&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/, "", t)
		if (index(t, "&")) bad("a bare & in " what)
	}
	# part k starts with OP: join the parts up to CL; the text after it
	function skip(op, cl, what,    p) {
		p = part[k]
		while (!index(p, cl) && k < np) p = p "<" part[++k]
		if (!index(p, cl)) bad(what " not closed")
		return substr(p, index(p, cl) + length(cl))
	}
	function tag(p,    j, n, c, q, t, name, attrs, empty) {
		n = length(p); q = ""
		for (j = 1; j <= n; j++) {
			c = substr(p, j, 1)
			if (q != "") { if (c == q) q = ""; continue }
			if (c == "\"" || c == "\x27") q = c
			else if (c == ">") break
		}
		if (j > n) bad("a tag not closed: <" substr(p, 1, 30))
		t = substr(p, 1, j - 1); rest = substr(p, j + 1)
		if (t ~ /^\//) {
			name = substr(t, 2); sub(/[ \t\r\n]+$/, "", name)
			if (!depth || stack[depth] != name) bad("</" name "> closes <" stack[depth] ">")
			depth--
			return
		}
		empty = sub(/\/$/, "", t)
		if (!match(t, /^[A-Za-z_:][-A-Za-z0-9_:.]*/)) bad("a tag without a name: <" substr(t, 1, 20))
		name = substr(t, 1, RLENGTH); attrs = substr(t, RLENGTH + 1)
		while (attrs ~ /[^ \t\r\n]/) {
			if (!match(attrs, /^[ \t\r\n]+[A-Za-z_:][-A-Za-z0-9_:.]*[ \t\r\n]*=[ \t\r\n]*("[^"]*"|\x27[^\x27]*\x27)/))
				bad("a bad attribute in <" name ">: " substr(attrs, 1, 40))
			chars_attr = substr(attrs, 1, RLENGTH)
			gsub(/&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/, "", chars_attr)
			if (index(chars_attr, "&")) bad("a bare & in an attribute of <" name ">")
			attrs = substr(attrs, RLENGTH + 1)
		}
		if (!depth) { if (root != "") bad("a second root <" name ">"); root = name }
		if (!empty) stack[++depth] = name
	}
	BEGIN { RS = "\001" }	# the whole file as one record
	{ doc = doc $0 }
	END {
		if (err) exit
		np = split(doc, part, "<")
		chars(part[1], "the prologue")
		for (k = 2; k <= np; k++) {
			p = part[k]
			if (substr(p, 1, 3) == "!--") rest = skip("!--", "-->", "a comment")
			else if (substr(p, 1, 8) == "![CDATA[") {
				if (!depth) bad("CDATA outside the root")
				rest = skip("![CDATA[", "]]>", "CDATA")
			} else if (substr(p, 1, 1) == "?") rest = skip("?", "?>", "<?")
			else if (substr(p, 1, 8) == "!DOCTYPE") {
				if (root != "") bad("DOCTYPE after the root")
				rest = skip("!DOCTYPE", ">", "DOCTYPE")
			} else tag(p)
			chars(rest, "text")
		}
		if (depth) bad("<" stack[depth] "> not closed")
		if (root == "") bad("no root element")
		print root
	}' "$1"
}

test_svg() {
	need_tool
	local f=$T_TMP/cg.svg root
	traced_run nest 3 --svg "$f"
	[ -s "$f" ] || t_fail "no SVG written"
	root=$(xml_check "$f")
	t_assert_eq "$root" svg "the SVG's XML (root element, or the first problem)"
	for name in cg_a cg_b cg_c cg_d; do
		grep -q "<title>${name}[ (]" "$f" || t_fail "no frame titled $name"
	done
	[ "$(grep -c '<rect' "$f")" -ge 5 ] || t_fail "fewer than 5 rectangles in the flame graph"
	grep -q 'cg_a' bg.out && t_fail "--svg alone: a tree on stdout ($(grep -m1 cg_a bg.out))"
	# a broken file is seen as broken
	head -c $(($(wc -c <"$f") / 2)) "$f" >half.svg
	t_assert_match "$(xml_check half.svg)" '^!' "the checker on half an SVG"
}

# callgraph's SVG in headless Chromium (tools/svgshot.sh, as
# tests/live/test_svg_render.sh does for the export's own sample): the
# screenshot shows a flame graph (many colours, many warm pixels). Not in
# the VM: no Chromium there.
t_in_vm || test_svg_screenshot() {
	need_tool
	local f=$T_TMP/cg.svg w h colours warm
	command -v chromium >/dev/null || t_skip "no chromium (make deps installs Debian's chromium)"
	[ -x "$KFIT_HELPERS/pngstat" ] || t_fail "no $KFIT_HELPERS/pngstat (make)"
	traced_run recurse 20 --svg "$f"
	"$T_REPO/tools/svgshot.sh" "$f" "$T_TMP/cg.png" 2>"$T_TMP/shot.err" ||
		t_fail "svgshot.sh: $(head -c 300 "$T_TMP/shot.err")"
	read -r w h colours warm < <("$KFIT_HELPERS/pngstat" "$T_TMP/cg.png") ||
		t_fail "pngstat cannot read the screenshot"
	echo "screenshot ${w}x$h: $colours colours, $warm warm pixels per thousand"
	[ "$colours" -ge 50 ] || t_fail "the screenshot has $colours colours: blank?"
	[ "$warm" -ge 100 ] || t_fail "$warm pixels per thousand are warm: no flame graph?"
}

# The Perfetto JSON: tests/helpers/perfetto_check checks the structure
# (balanced, nested, monotonic per thread); here the events themselves:
# one complete event per call, per thread
test_perfetto() {
	need_tool
	local f=$T_TMP/cg.trace.json n=5 chk=$T_REPO/tests/helpers/perfetto_check out
	[ -x "$chk" ] || t_fail "no $chk"
	traced_run threads "$n" --perfetto "$f"
	[ -s "$f" ] || t_fail "no Perfetto JSON written"
	"$chk" "$f" >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejected it"; }
	out=$(jq -r '(if type == "array" then . else .traceEvents end) as $e |
		"X \([$e[] | select(.ph == "X" and (.name | startswith("cg_")))] | group_by(.name) |
			map("\(.[0].name):\(length):\(map(.tid) | unique | length)") | join(" "))",
		"M \([$e[] | select(.ph == "M") | .name] | unique | join(" "))"' "$f") ||
		t_fail "not trace-event JSON"
	echo "$out"
	t_assert_eq "$(sed -n 's/^X //p' <<<"$out")" \
		"cg_leaf:$((10 * n)):4 cg_thread_0:$n:1 cg_thread_1:$n:1 cg_thread_2:$n:1 cg_thread_3:$n:1" \
		"complete events (name:count:threads)"
	t_assert_match "$(sed -n 's/^M //p' <<<"$out")" 'process_name.*thread_name' "metadata events"
	grep -q 'cg_leaf' bg.out && t_fail "--perfetto alone: a tree on stdout"
	t_assert_match "$(cat bg.out)" '.' "the header on stdout"
}

# A system call is the kernel's work in the Perfetto JSON, as kd's reading
# of a recording says (it was "user" live)
test_perfetto_syscall_is_kernel() {
	need_tool
	local f=$T_TMP/sys.trace.json cats
	"$CG" --perfetto "$f" sys:openat -- cat /dev/null >/dev/null 2>bg.err ||
		t_fail "callgraph --perfetto sys:openat: $(head -n 3 bg.err)"
	cats=$(jq -r '(if type == "array" then . else .traceEvents end) |
		[.[] | select(.ph == "X" and .name == "sys:openat") | .cat] | unique | join(" ")' "$f") ||
		t_fail "not trace-event JSON"
	t_assert_eq "$cats" kernel "sys:openat's category"
}

# --summary: the kd table, as funcdur's
test_summary() {
	need_tool
	local head col
	traced_run nest 4 --summary
	head=$(grep -E '^FUNCTION +COUNT ' bg.out) || t_fail "no table header 'FUNCTION COUNT ...'"
	for col in TOTAL AVG LOCAL MAX MAX-SUB; do
		t_assert_match "$head" " $col( |\$)" "the table's header"
	done
	# every function traced has a row, called or not
	t_assert_eq "$(awk '$1 ~ /^cg_/ && $2 > 0 { print $1 ":" $2 }' bg.out | sort | tr '\n' ' ')" \
		"cg_a:4 cg_b:4 cg_c:8 cg_d:4 " "rows FUNCTION:COUNT of the functions called"
	traced_run nest 4 --summary -s count -n 1
	t_assert_eq "$(awk '$1 ~ /^cg_/ { print $1 }' bg.out)" cg_c "-s count -n 1"
}

# --folded: "comm;f1;f2 SELF_NS" lines; the stacks of nest
test_folded() {
	need_tool
	local stacks
	traced_run nest 3 --folded
	grep -vE '^[^ ].* [0-9]+$' bg.out | grep . && t_fail "lines not 'STACK VALUE' in --folded"
	t_assert_eq "$(cut -d';' -f1 bg.out | sort -u)" cgshape "the stacks' first frame (comm)"
	# off-CPU and interrupt frames ("[...]") may come and go: left out
	stacks=$(grep -v '\[' bg.out | sed 's/ [0-9]*$//' | cut -d';' -f2- | sort -u | tr '\n' ' ')
	t_assert_eq "$stacks" "cg_a cg_a;cg_b cg_a;cg_b;cg_c cg_a;cg_c cg_a;cg_d " "folded stacks"
	awk '$NF <= 0' bg.out | grep . && t_fail "stacks without self time"
	true
}

# ---- bad usage ------------------------------------------------------------------------------

bad_usage() {	# REGEX what args...
	local re=$1 what=$2
	shift 2
	t_expect_exit 2 "$CG" "$@"
	t_assert_match "$(cat "$T_ERR")" "$re" "message for $what"
	[ -s "$T_OUT" ] && t_fail "$what: output on stdout: $(head -n 1 "$T_OUT")"
	true
}

test_bad_usage() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	# the arguments refused whatever the machine: tests/cases/usage/callgraph.case
	bad_usage 'no_such_fn' "a binary without the symbol" "$CGS:no_such_fn"
	bad_usage "$(t_free_pid)" "-p of no process" -p "$(t_free_pid)" "$CGS:cg_a"
	t_bpf_assert_same "$snap" "after bad usage"
}

# ---- arguments ---------------------------------------------------------------

# A -j document's call trees in the form of `uftrace replay -f none`:
# "name(arg, ...) = ret;" for a leaf, "name(...) {" ... "} = ret; /* name */"
# around callees, two spaces a level
# shellcheck disable=SC2016
UF_FORM='def ind($d): [range($d)] | map("  ") | join("");
def iscall: type == "object" and (.name | type) == "string" and (has("irq") | not) and
	(has("switch") | not) and (has("event") | not);
def av: [(.args // {})[] | tostring] | join(", ");
def uf($d): [.children[]? | select(iscall)] as $c |
	if ($c | length) > 0 then "\(ind($d))\(.name)(\(av)) {", ($c[] | uf($d + 1)),
		"\(ind($d))} = \(.ret); /* \(.name) */"
	else "\(ind($d))\(.name)(\(av)) = \(.ret);" end;
.threads[] | .calls[] | select(iscall) | uf(0)'

# Recursive calls with an argument each, nested: the trees of callgraph -j
# and of kd -j on its recording are uftrace's, argument and return value
# of every call (cgshape-pg has no DWARF: the types are given)
t_in_vm || test_args_like_uftrace() {
	need_tool
	need_uftrace
	local want got
	(cd "$T_TMP" && uftrace record -d uft.data -A 'cg_rec@arg1/i32' -A 'cg_fib@arg1/i32' \
		-R 'cg_rec@retval/i32' -R 'cg_fib@retval/i32' "$CGS_PG" recurse 2 >/dev/null 2>&1) ||
		t_fail "uftrace record failed"
	want=$(uftrace replay -d "$T_TMP/uft.data" --no-pager -f none -F cg_rec -F cg_fib 2>/dev/null)
	t_assert_match "$want" '  cg_rec\(3\) \{' "uftrace saw the nested calls: $(echo "$want" | head -3)"
	"$CG" -j --output "$T_TMP/a.json" "$CGS_PG:cg_rec(int depth)" "$CGS_PG:cg_fib(s32 k)" -- \
		"$CGS_PG" recurse 2 >/dev/null 2>"$T_TMP/a.err" || t_fail "callgraph: $(cat "$T_TMP/a.err")"
	got=$(jq -r "$UF_FORM" "$T_TMP/a.json")
	t_assert_eq "$(echo "$got" | grep -c '(')" 38 "2 x 19 calls"
	t_assert_eq "$got" "$want" "each call's argument and return value, nested (uftrace's)"
	"$CG" -o "$T_TMP/a.kft" "$CGS_PG:cg_rec(int depth)" "$CGS_PG:cg_fib(s32 k)" -- \
		"$CGS_PG" recurse 2 >/dev/null 2>&1 || t_fail "callgraph -o failed"
	"$KFIT_BIN/kd" -j "$T_TMP/a.kft" >"$T_TMP/kd.json" 2>"$T_TMP/kd.err" ||
		t_fail "kd -j: $(cat "$T_TMP/kd.err")"
	t_assert_eq "$(jq -r "$UF_FORM" "$T_TMP/kd.json")" "$want" "kd -j of the recording: the same"
	t_assert_match "$("$KFIT_BIN/kd" "$T_TMP/a.kft")" ' cg_fib\(k=5\) => 5' "kd's text tree"
	t_assert_match "$("$KFIT_BIN/kd" --events "$T_TMP/a.kft")" 'call +cg_rec\(depth=1\) dur=' \
		"kd --events"
}

# callgraph's system-call arguments, strings among them: strace's
ARG_WORK='cat /nonexistent-a /etc/hostname /nonexistent-b; ls -d /nonexistent-c / ; true'

t_in_vm || test_args_sys_like_strace() {
	need_tool
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	local want got q
	strace -f -qq -X raw -e trace=openat -o "$T_TMP/strace.out" sh -c "$ARG_WORK" \
		>/dev/null 2>&1 || t_fail "the workload failed under strace"
	# "= 3", or "= -1 ENOENT (...)": callgraph's ret_str is -ENOENT
	want=$(sed -n 's/^[0-9]* *openat(\(-*[0-9]*\), \("[^"]*"\), \(0x[0-9a-f]*\|0\)[,)].* = \(-1 E[A-Z]*\|[0-9]*\).*/\1 \2 \3 \4/p' \
		"$T_TMP/strace.out" | sed 's/ -1 E\([A-Z]*\)$/ -E\1/' | while read -r dfd name flags ret; do
		echo "$dfd $name $((flags)) $ret"
	done)
	t_assert_match "$want" '"/nonexistent-b" 0 -ENOENT' "strace saw the missing files opened: $want"
	q='[.threads[].calls[] | .. | objects | select(.name == "sys:openat")] | sort_by(.start_ns)[]
		| "\(.args.dfd) \"\(.args.filename)\" \(.args.flags) \(.ret_str)"'
	"$CG" -j --output "$T_TMP/s.json" -o "$T_TMP/s.kft" 'sys:openat(dfd, filename, flags)' -- \
		sh -c "$ARG_WORK" >/dev/null 2>"$T_TMP/s.err" || t_fail "callgraph: $(cat "$T_TMP/s.err")"
	got=$(jq -r "$q" "$T_TMP/s.json")
	t_assert_eq "$got" "$want" "each openat's dfd, file name, flags and return, in order (strace's)"
	"$KFIT_BIN/kd" -j "$T_TMP/s.kft" >"$T_TMP/kd.json" || t_fail "kd -j failed"
	t_assert_eq "$(jq -r "$q" "$T_TMP/kd.json")" "$want" "kd -j of the recording: the same"
}

# A call still open when the capture ends keeps its arguments: sleep's
# clock_nanosleep, as strace shows it
t_in_vm || test_args_open_at_end() {
	need_tool
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	local want got
	strace -qq -X raw -e trace=clock_nanosleep -o "$T_TMP/strace.out" sleep 0.01 ||
		t_fail "sleep failed under strace"
	want=$(sed -n 's/^clock_nanosleep(\(0x[0-9a-f]*\|[0-9]*\), \(0x[0-9a-f]*\|[0-9]*\),.*/\1 \2/p' \
		"$T_TMP/strace.out" | while read -r c f; do echo "$((c)) $((f))"; done)
	[ -n "$want" ] || t_fail "strace saw no clock_nanosleep: $(cat "$T_TMP/strace.out")"
	"$CG" -d 1 -j --output "$T_TMP/e.json" 'sys:clock_nanosleep(which_clock, flags)' -- \
		sleep 5 >/dev/null 2>"$T_TMP/e.err" || t_fail "callgraph: $(cat "$T_TMP/e.err")"
	got=$(jq -r '.threads[].calls[] | select(.name == "sys:clock_nanosleep") |
		"\(.incomplete_reason) \(.args.which_clock) \(.args.flags)"' "$T_TMP/e.json")
	t_assert_eq "$got" "end $want" "the open call's arguments (strace's)"
}

# A user function's fields through pointers (DWARF) in callgraph's trees
# and in kd's of the recording, call for call as perf probe's DWARF probe
# read them; an enum by name, in the recording too
# (host only: perf)
t_in_vm || test_args_user_fields_like_perf_probe() {
	need_tool
	command -v perf >/dev/null || t_fail "perf not installed (make deps)"
	local b="$KFIT_HELPERS/argcalls" want q
	local t="$b:ac_req(req->name, req->hdr.len, req->tag, req->next->id)"
	t_perf_probe "$T_TMP/pp.out" "$b" ac_req \
		'name=req->name:string len=req->hdr.len:u16 tag=req->tag:string nid=req->next->id:s64' \
		"$b" req 20
	want=$(cat "$T_TMP/pp.out")
	t_assert_eq "$(echo "$want" | wc -l)" 20 "perf saw 20 calls: $(echo "$want" | head -3)"
	q='[.threads[].calls[] | .. | objects | select(.name == "ac_req")] | sort_by(.start_ns)[]
		| .args | "name=\"\(.["req->name"])\" len=\(.["req->hdr.len"])" +
		" tag=\"\(.["req->tag"])\" nid=\(.["req->next->id"])"'
	"$CG" -j --output "$T_TMP/u.json" -o "$T_TMP/u.kft" "$t" -- "$b" req 20 >/dev/null \
		2>"$T_TMP/u.err" || t_fail "callgraph: $(cat "$T_TMP/u.err")"
	t_assert_eq "$(jq -r "$q" "$T_TMP/u.json")" "$want" "each call's fields (perf probe's)"
	"$KFIT_BIN/kd" -j "$T_TMP/u.kft" >"$T_TMP/kd.json" || t_fail "kd -j failed"
	t_assert_eq "$(jq -r "$q" "$T_TMP/kd.json")" "$want" "kd -j of the recording: the same"
	"$CG" -o "$T_TMP/k.kft" "$b:ac_req(req->hdr.kind)" -- "$b" req 3 >/dev/null 2>&1 ||
		t_fail "callgraph -o failed"
	t_assert_eq "$("$KFIT_BIN/kd" "$T_TMP/k.kft" | grep -o 'ac_req(req->hdr.kind=[A-Z_]*)' |
		tr '\n' ' ')" "ac_req(req->hdr.kind=AC_GET) ac_req(req->hdr.kind=AC_PUT) ac_req(req->hdr.kind=AC_DEL) " \
		"the enum by name, kept in the recording"
}

# More calls open with arguments than a thread keeps places for: the outer
# KFIT_ARG_DEPTH (8) of cgshape's 12 nested cg_rec keep theirs, the 4
# inside show none, and are counted
test_args_deep_counted() {
	need_tool
	local want
	"$CG" -j --output "$T_TMP/d.json" "$CGS:cg_rec(depth)" -- "$CGS" deep 2 >/dev/null \
		2>"$T_TMP/d.err" || t_fail "callgraph: $(cat "$T_TMP/d.err")"
	want='[12,11,10,9,8,7,6,5,null,null,null,null,12,11,10,9,8,7,6,5,null,null,null,null]'
	t_assert_eq "$(jq -c '[.threads[].calls[] | .. | objects | select(.name == "cg_rec")
		| .args.depth]' "$T_TMP/d.json")" "$want" "each call's depth, in order"
	t_assert_eq "$(jq -c '[.no_args, .str_faults]' "$T_TMP/d.json")" "[8,0]" "the calls counted"
	t_assert_match "$("$CG" "$CGS:cg_rec(depth)" -- "$CGS" deep 1 2>&1)" \
		'4 calls without arguments: more than 8 open with arguments in one thread' "the note"
}

# Unknown names and bad lists: the real parameters named, exit 2
test_args_usage() {
	need_tool
	local out st=0
	out=$("$CG" 'sys:read(cnt)' -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an unknown parameter: exit status ($out)"
	t_assert_match "$out" "sys:read has no parameter 'cnt'; its parameters: fd, buf, count" \
		"the message names the real parameters"
	st=0
	out=$("$CG" "$CGS:cg_rec(dpth)" -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an unknown user parameter: exit status ($out)"
	t_assert_match "$out" "cg_rec has no parameter 'dpth'" "the message names the function"
	st=0
	out=$("$CG" 'sys:read(count' -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an unclosed list: exit status ($out)"
}

# ---- --errors: the trees where a call failed ---------------------------------

# The failed system calls of a workload (ENOENT, EROFS, ENOSPC), as
# strace saw them: --errors -j shows exactly those calls, each thread's
# in its order, each "failed"; the others counted as left out. A file
# recorded, kd --errors shows the same trees.
test_errors_like_strace() {
	need_tool
	local want got
	errw_setup
	want=$(errw_strace_fails openat,write,mkdirat)
	for e in ENOENT EROFS ENOSPC; do
		t_assert_match "$want" "$e" "strace saw $e: $(cat "$T_TMP/strace.out")"
	done
	"$CG" -j --errors --output "$T_TMP/err.json" sys:openat sys:write sys:mkdirat \
		-- sh -c "$ERRW" >/dev/null 2>"$T_TMP/err.err" ||
		t_fail "callgraph --errors failed: $(cat "$T_TMP/err.err")"
	got=$(jq -r '.threads[] | [.calls[] | "\(.name | ltrimstr("sys:")):\(.ret_str | ltrimstr("-"))"]
		| join(" ")' "$T_TMP/err.json" | sort) ||
		t_fail "not JSON: $(head -c 300 "$T_TMP/err.json")"
	t_assert_eq "$got" "$want" "each task's failed calls, in order (strace's)"
	t_assert_eq "$(jq '[.threads[].calls[] | select(.failed != true or (.children | length) > 0)]
		| length' "$T_TMP/err.json")" 0 "every call shown failed, alone in its tree"
	t_assert_eq "$(jq '.trees_failed + .trees_left_out == .calls and .trees_left_out > 0' \
		"$T_TMP/err.json")" true "the trees left out counted: $(jq -c \
		'{calls, trees_failed, trees_left_out}' "$T_TMP/err.json")"
	# the text: a line per failed call, "!" before its name, and the note
	"$CG" --errors -o "$T_TMP/e.kft" --tree --output "$T_TMP/err.txt" sys:openat sys:write \
		sys:mkdirat -- sh -c "$ERRW" >/dev/null 2>&1 ||
		t_fail "callgraph --errors -o --tree failed"
	t_assert_match "$(cat "$T_TMP/err.txt")" \
		"trees? with a failure shown, [0-9]+ trees? without a failure left out \(--errors\)" \
		"the header's count"
	t_assert_eq "$(grep -cE ' !sys:(openat|write) => -E(NOENT|ROFS|NOSPC)$' "$T_TMP/err.txt")" \
		"$(printf '%s\n' "$want" | wc -w)" "marked lines: $(cat "$T_TMP/err.txt")"
	"$KFIT_BIN/kd" "$T_TMP/e.kft" --errors -j >"$T_TMP/kd.json" ||
		t_fail "kd --errors failed"
	got=$(jq -r '.threads[] | [.calls[] | "\(.name | ltrimstr("sys:")):\(.ret_str | ltrimstr("-"))"]
		| join(" ")' "$T_TMP/kd.json" | sort)
	t_assert_eq "$got" "$want" "kd --errors of the file: the same failed calls"
}

# --errors EXPR: what failing is, for functions with no errno convention
# (cgshape's cg_fib returns 0 for fib(0)): exactly the calls that
# returned 0 fail, the paths to them marked, the trees without one left
# out; kd --errors EXPR on the recording the same. uftrace counts the
# calls that returned 0 (host).
test_errors_expr() {
	need_tool
	local q want=6 got
	if ! t_in_vm && command -v uftrace >/dev/null && [ -x "$CGS_PG" ]; then
		(cd "$T_TMP" && uftrace record -d uft0.data -A 'cg_fib@arg1/i32' \
			-R 'cg_fib@retval/i32' "$CGS_PG" recurse 2 >/dev/null 2>&1) ||
			t_fail "uftrace record failed"
		want=$(uftrace replay -d "$T_TMP/uft0.data" --no-pager -f none -F cg_fib 2>/dev/null |
			grep -c ' = 0;$')
	fi
	t_assert_eq "$want" 6 "calls that returned 0: 3 per cg_fib(5)"
	"$CG" -j --errors 'ret == 0' --output "$T_TMP/x.json" -o "$T_TMP/x.kft" --tree \
		"$CGS:cg_rec(depth)" "$CGS:cg_fib(k)" -- "$CGS" recurse 2 >/dev/null 2>"$T_TMP/x.err" ||
		t_fail "callgraph --errors EXPR: $(cat "$T_TMP/x.err")"
	# a failed call with no failed callee: one that returned 0 itself
	q='[.. | objects | select(.failed == true and ([.children[]? | select(.failed == true)]
		| length) == 0) | "\(.name)(\(.args.k)) \(.ret)"] | group_by(.) | map("\(.[0]) x\(length)")[]'
	got=$(jq -r "$q" "$T_TMP/x.json")
	t_assert_eq "$got" "cg_fib(0) 0 x$want" "the calls that failed: those that returned 0"
	t_assert_eq "$(jq -c '[.trees_failed, .trees_left_out]' "$T_TMP/x.json")" "[2,2]" \
		"the cg_fib trees shown, the cg_rec ones left out"
	"$KFIT_BIN/kd" -j --errors 'ret == 0' "$T_TMP/x.kft" >"$T_TMP/kx.json" ||
		t_fail "kd --errors EXPR failed"
	t_assert_eq "$(jq -r "$q" "$T_TMP/kx.json")" "$got" "kd --errors EXPR: the same calls"
	t_assert_eq "$(jq -c '[.. | objects | select(.failed == true) | .args.k]' "$T_TMP/kx.json")" \
		"$(jq -c '[.. | objects | select(.failed == true) | .args.k]' "$T_TMP/x.json")" \
		"kd --errors EXPR: the same paths"
	t_assert_eq "$("$KFIT_BIN/kd" -j --errors 'k == 1 && depth == 1' "$T_TMP/x.kft" |
		jq .trees_failed)" 0 "a call without an argument the expression reads has not failed"
}

test_errors_expr_usage() {
	need_tool
	local out st=0
	out=$("$CG" --errors 'kk == 0' "$CGS:cg_fib(k)" -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an unknown name: exit status ($out)"
	t_assert_match "$out" "unknown name 'kk' \(k, ret," "the names it may read"
	st=0
	out=$("$CG" --errors 'ret ==' "$CGS:cg_fib(k)" -- true 2>&1) || st=$?
	t_assert_eq "$st" 2 "an expression cut short: exit status ($out)"
}

# What --errors cannot honour is refused, exit 2
test_errors_refused() {
	need_tool
	local out st
	for opts in "--summary" "--folded" "--svg $T_TMP/x.svg" "--perfetto $T_TMP/x.json" \
		"-o $T_TMP/x.kft"; do
		st=0
		# shellcheck disable=SC2086 # the options' words
		out=$("$CG" --errors $opts sys:openat -- true 2>&1) || st=$?
		t_assert_eq "$st" 2 "--errors $opts: exit status ($out)"
		t_assert_match "$out" "--errors" "--errors $opts: the message names it"
	done
	st=0
	out=$("$CG" --errors -S 99 -d 1 2>&1) || st=$?
	t_assert_eq "$st" 2 "--errors -S: exit status ($out)"
}

t_run_all
