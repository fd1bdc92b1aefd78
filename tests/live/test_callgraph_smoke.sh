#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Quick checks of callgraph on the running kernel (root): its command
# line, user-function trees of durtarget through uprobes, a COMMAND and
# -p followed, the end by signal, sampled mode where kernel functions
# cannot be traced, and system calls' return values against strace. tests/live/test_callgraph.sh has the full suite.
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/callgraph-lib.sh"

DT="$KFIT_HELPERS/durtarget"

need_tool() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$DT" ] || t_fail "$DT not built"
}

test_help() {
	t_expect_exit 0 "$CG" -h
	t_assert_match "$(cat "$T_OUT")" '^Usage: callgraph ' "usage line"
	t_assert_match "$(cat "$T_OUT")" 'callgraph --root vfs_read' "examples"
}

test_unknown_event() {
	need_tool
	t_expect_exit 2 "$CG" -e 'sched:sched_no_such_event'
	t_assert_match "$(cat "$T_ERR")" "no tracepoint matches 'sched:sched_no_such_event'" "message"
}

# nest: each dt_outer calls dt_inner twice, and once more through an
# untraced function: 3 children at depth 1, in a tree per call
test_command_nest_tree() {
	need_tool
	local f=$T_TMP/out.json
	t_expect_exit 0 "$CG" -j "$DT:dt_outer" "$DT:dt_inner" -- "$DT" nest 3
	# stdout is durtarget's; the report is on stderr
	grep '^{' "$T_ERR" >"$f"
	t_assert_eq "$(jq -r .mode "$f")" exact "mode"
	t_assert_eq "$(jq .calls "$f")" 12 "calls"
	t_assert_eq "$(jq .lost "$f")" 0 "lost"
	t_assert_eq "$(jq '[.threads[].calls[] | select(.name == "dt_outer")] | length' "$f")" 3 \
		"dt_outer at the root"
	t_assert_eq "$(jq '[.threads[].calls[] | select(.name == "dt_outer") |
		[.children[] | select(.name == "dt_inner")] | length] | unique' -c "$f")" '[3]' \
		"dt_inner children of each dt_outer"
	t_assert_eq "$(jq '[.threads[].calls[] | .. | objects | select(.complete == false)] | length' "$f")" 0 \
		"incomplete calls"
}

# -p: the process's calls, the run ends with it
test_pid_follows() {
	need_tool
	t_held_start "$DT" -w recurse 2
	t_bg_start "$CG" -p "$HELD_PID" "$DT:dt_recurse"
	t_bg_wait_tracing 60
	t_held_go
	t_bg_wait_exit 60
	t_assert_eq "$BG_RC" 0 "exit status"
	t_assert_match "$(cat "$T_TMP/bg.out")" '^8 calls, 0 lost' "counts line"
	# after the CPU column, two spaces and two more per depth
	t_assert_eq "$(grep -Ec '[0-9]  dt_recurse( => .*)?$' "$T_TMP/bg.out")" 2 "outermost calls"
	t_assert_eq "$(grep -Ec '[0-9]        dt_recurse( => .*)?$' "$T_TMP/bg.out")" 2 \
		"innermost calls (depth 3)"
}

# SIGINT and SIGTERM end a system-wide run with its report
test_signals_report() {
	need_tool
	local sig
	for sig in INT TERM; do
		t_bg_start "$CG" -j "$DT:dt_inner"
		t_bg_wait_tracing 60
		t_bg_stop_ok "$sig" 60
		t_assert_eq "$(jq -r .mode "$T_TMP/bg.out")" exact "mode after SIG$sig"
	done
}

# ---- return values (issue 20) ----------------------------------------------

# "RANK VALUE" per openat that strace -f logged in FILE, in its order
# (cg_rets' form): VALUE a descriptor, or -ENAME for -1 with errno ENAME
strace_rets() {	# FILE
	awk '/ openat\(|<\.\.\. openat resumed>/ && !/<unfinished \.\.\.>$/ {
		r = substr($0, index($0, ") = ") + 4)
		split(r, w, " ")
		print $1, (w[1] == "-1" ? "-" w[2] : w[1])
	}' "$1" | cg_rank_pids
}

# sys:openat's return values, call for call in each process, as strace -f
# sees them: a shell, cat of a missing file and of a present one, ls of a
# missing path (descriptors, -ENOENT); live in -j and the tree, and from
# -o's file through kd
test_openat_returns_strace() {
	need_tool
	command -v strace >/dev/null || t_skip "no strace (apt-get install strace)"
	local cmd want got n
	echo present >"$T_TMP/present"
	cmd="cat $T_TMP/missing-a $T_TMP/present; ls $T_TMP/missing-b; exit 0"
	strace -f -qq -e trace=openat -o "$T_TMP/st.txt" sh -c "$cmd" >/dev/null 2>&1 ||
		t_fail "strace -f failed"
	want=$(strace_rets "$T_TMP/st.txt")
	t_assert_match "$want" '-ENOENT' "strace saw a failed openat"
	t_expect_exit 0 "$CG" -j --output "$T_TMP/cg.json" -o "$T_TMP/cg.kft" --tree sys:openat -- \
		sh -c "$cmd"
	cg_json "$T_TMP/cg.json" "callgraph -j sys:openat"
	got=$(cg_rets "$T_TMP/cg.json" sys:openat)
	n=$(wc -l <<<"$want")
	echo "openat of sh -c '$cmd': $n calls; strace's failures: $(grep -c ENOENT <<<"$want")"
	t_assert_eq "$got" "$want" "callgraph -j's openat returns (strace -f's)"
	t_expect_exit 0 "$KFIT_BIN/kd" -j "$T_TMP/cg.kft"
	t_assert_eq "$(cg_rets "$T_OUT" sys:openat)" "$want" "kd -j's openat returns (strace -f's)"
	t_expect_exit 0 "$KFIT_BIN/kd" "$T_TMP/cg.kft"
	t_assert_eq "$(grep -c ' sys:openat => -ENOENT$' "$T_OUT")" "$(grep -c ENOENT <<<"$want")" \
		"kd's tree: the failures as -ENOENT"
	t_assert_eq "$(grep -Ec ' sys:openat => [0-9]+$' "$T_OUT")" "$(grep -Ec ' [0-9]+$' <<<"$want")" \
		"kd's tree: the descriptors"
}

# Where fentry and kprobes are refused, a kernel TARGET falls back to
# sampled mode with the reason; elsewhere it is traced exactly
test_kernel_or_sampled() {
	need_tool
	t_expect_exit 0 "$CG" -j -d 1 vfs_read
	case $(jq -r .mode "$T_OUT") in
	exact) t_assert_match "$(jq -r .mechanism "$T_OUT")" '^(fentry|kprobe|kprobe_multi)$' "mechanism" ;;
	sampled) t_assert_match "$(cat "$T_ERR")" 'sampling stacks instead' "fallback note" ;;
	*) t_fail "mode: $(jq -r .mode "$T_OUT")" ;;
	esac
}

t_run_all
