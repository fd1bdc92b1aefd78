#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Uprobes at scale on a real program, Debian's python3 (src/live/attach.c,
# src/live/uprobes.c): uprobe_multi links (one per binary and direction)
# with exact counts, the per-function fallback (--attach uprobe-single)
# with the same counts, Ctrl-C while attaching and while detaching (every
# breakpoint gone: the traced process's code is compared with the file),
# the refusal past --uprobe-limit on a binary other processes run, and
# other python3 processes started meanwhile: same output and status as
# alone, never counted.
# The host runs it (the VM's initramfs has no python3).
. "$(dirname "$0")/../lib.sh"

FD="$KFIT_BIN/funcdur"
CG="$KFIT_BIN/callgraph"
PY=$(readlink -f /usr/bin/python3 2>/dev/null)
export PYTHONHASHSEED=0

need_tool() {
	t_need_root
	[ -x "$FD" ] || t_fail "$FD not built"
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -n "$PY" ] && [ -x "$PY" ] || t_skip "no /usr/bin/python3"
}

# Bytes of PID's executable mappings of FILE that differ from FILE: each
# uprobe installed in that process is one (its breakpoint instruction)
text_diff() {	# PID FILE
	"$PY" - "$1" "$2" <<'EOF'
import sys
pid, path = sys.argv[1], sys.argv[2]
n = 0
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem, \
     open(path, "rb") as f:
    for line in maps:
        p = line.split()
        if len(p) < 6 or p[5] != path or "x" not in p[1]:
            continue
        lo, hi = (int(x, 16) for x in p[0].split("-"))
        mem.seek(lo)
        a = mem.read(hi - lo)
        f.seek(int(p[2], 16))
        b = f.read(hi - lo)
        n += sum(x != y for x, y in zip(a, b))
print(n)
EOF
}

# Wait until PID's code is the file's again (links are freed a little
# after their fds close); fails after 20 s
wait_text_clean() {	# PID what
	local i=0 d
	while :; do
		d=$(text_diff "$1" "$PY")
		[ "$d" = 0 ] && return 0
		[ "$i" -ge 100 ] && t_fail "$2: $d bytes of $PY's code in process $1 still patched (uprobes left)"
		sleep 0.2
		i=$((i + 1))
	done
}

# A python3 that sleeps: a process running the binary, as others' would
sleeper() {	# SECONDS -> SLEEPER
	"$PY" -c "import time; time.sleep($1)" &
	SLEEPER=$!
	t_on_exit "kill -KILL $SLEEPER 2>/dev/null"
	# mapped once it runs: wait for its maps to name the binary
	local i=0
	until grep -q "$PY" "/proc/$SLEEPER/maps" 2>/dev/null; do
		[ "$i" -ge 100 ] && t_fail "python3 did not start"
		sleep 0.05
		i=$((i + 1))
	done
}

fcount() {	# JSON-FILE FUNCTION
	jq -r --arg f "$2" '[.functions[] | select(.name == $f)][0].count' "$1"
}

# Functions python3 calls exactly once, and a glob called often
ONCE="Py_BytesMain Py_RunMain Py_FinalizeEx"
once_targets() { for f in $ONCE; do printf '%s\n' "$PY:$f"; done; }

test_multi_link_exact_counts() {
	need_tool
	local f R=$T_TMP/r.json	# the report: stdout is the command's
	t_expect_exit 0 "$FD" -j --output "$R" $(once_targets) -- "$PY" -c pass
	t_assert_eq "$(jq -r .attach.uprobes "$R")" uprobe_multi "uprobes attached through"
	# one link per direction for the binary: two file descriptors in all
	t_assert_eq "$(jq .attach.fds "$R")" 2 "file descriptors for 3 functions"
	t_assert_eq "$(jq .attach.functions "$R")" 3 "functions attached"
	for f in $ONCE; do
		t_assert_eq "$(fcount "$R" "$f")" 1 "$f calls"
	done
}

test_single_fallback_same_counts() {
	need_tool
	local f multi single R=$T_TMP/r.json
	t_expect_exit 0 "$FD" -j --output "$R" --attach uprobe-single $(once_targets) -- "$PY" -c pass
	t_assert_eq "$(jq -r .attach.uprobes "$R")" uprobe "uprobes attached through"
	# a perf event and a link per direction and function
	t_assert_eq "$(jq .attach.fds "$R")" 12 "file descriptors for 3 functions"
	for f in $ONCE; do
		t_assert_eq "$(fcount "$R" "$f")" 1 "$f calls"
	done
	# a glob called thousands of times: the same counts either way
	t_expect_exit 0 "$FD" -j --output "$R" "$PY:PyTuple_*" -- "$PY" -c 'import json; json.dumps(list(range(999)))'
	multi=$(jq -c '[.functions[] | [.name, .count]] | sort' "$R")
	t_expect_exit 0 "$FD" -j --output "$R" --attach uprobe-single "$PY:PyTuple_*" -- \
		"$PY" -c 'import json; json.dumps(list(range(999)))'
	single=$(jq -c '[.functions[] | [.name, .count]] | sort' "$R")
	t_assert_eq "$single" "$multi" "PyTuple_* counts, single uprobes vs uprobe_multi"
	[ "$(jq '[.functions[].count] | add' "$R")" -gt 100 ] || t_fail "PyTuple_* hardly called: $single"
}

# Ctrl-C while attaching one by one: it stops, detaches what it attached
# and exits 130 (128 + SIGINT); the process's code is the file's again
test_ctrl_c_while_attaching() {
	need_tool
	local i=0
	sleeper 300
	t_bg_start "$FD" --attach uprobe-single --force -p "$SLEEPER" -d 120 "$PY:*"
	# attaching: four file descriptors per function (perf events, links)
	while [ "$(ls "/proc/$BG/fd" 2>/dev/null | wc -l)" -lt 48 ]; do
		[ "$i" -ge 6000 ] && t_fail "not attaching after 30 s"
		kill -0 "$BG" 2>/dev/null || { t_show_file "$T_TMP/bg.err" stderr; t_fail "funcdur exited"; }
		sleep 0.005
		i=$((i + 1))
	done
	# held while the signal is sent, so that it comes in the middle of
	# attaching however fast this host attaches (one by one: 25 ms to 19 s
	# for 150 functions), and only the few attached so far are detached
	kill -STOP "$BG"
	grep -q '^Tracing' "$T_TMP/bg.err" && t_fail "attached everything before the test could interrupt it"
	kill -INT "$BG"
	kill -CONT "$BG"
	t_bg_wait_exit 150
	t_assert_eq "$BG_RC" 130 "exit status after Ctrl-C while attaching (128 + SIGINT)"
	t_assert_match "$(cat "$T_TMP/bg.err")" '^funcdur: interrupted while attaching \([1-9][0-9]* of [0-9]+ functions\): detaching them, nothing traced' "message"
	grep -q '^Tracing' "$T_TMP/bg.err" && t_fail "'Tracing' after the interruption"
	[ -s "$T_TMP/bg.out" ] && t_fail "a report after the interruption: $(head -3 "$T_TMP/bg.out")"
	wait_text_clean "$SLEEPER" "after Ctrl-C while attaching"
}

# Ctrl-C while detaching one by one: said, and every probe still removed
test_ctrl_c_while_detaching() {
	need_tool
	local i=0
	sleeper 300
	t_bg_start "$FD" --attach uprobe-single -p "$SLEEPER" -d 0.5 "$PY:PyLong_*"
	# the table comes out before the probes are detached
	until grep -q PyLong_ "$T_TMP/bg.out"; do
		[ "$i" -ge 600 ] && t_fail "no report in 60 s"
		sleep 0.1
		i=$((i + 1))
	done
	t_bg_stop INT 120
	t_assert_eq "$BG_RC" 0 "exit status (the trace was taken)"
	t_assert_match "$(cat "$T_TMP/bg.err")" '^funcdur: still detaching [0-9]+ of [0-9]+ probes: a signal cannot stop it, nothing may stay attached' "message"
	wait_text_clean "$SLEEPER" "after Ctrl-C while detaching"
}

# More than --uprobe-limit on a binary another process runs: refused where
# they go one by one (or would fire there: no process filter), said with
# the processes and the cost; uprobe_multi with a process filter is not
test_refused_on_shared_binary() {
	need_tool
	local err
	sleeper 120
	t_expect_exit 1 "$CG" --attach uprobe-single --uprobe-limit 20 "$PY:Py_*" -- "$PY" -c pass
	err=$(cat "$T_ERR")
	t_assert_match "$err" "^callgraph: refusing [0-9]+ uprobes on $PY \\(more than --uprobe-limit 20\\):" "message"
	t_assert_match "$err" "^  [0-9]+ other process(es)? runs? it:" "the count of processes"
	printf '%s\n' "$err" | grep -Eq "(^  | )$SLEEPER python3|and [0-9]+ more" ||
		t_fail "python3 $SLEEPER not named: $err"
	t_assert_match "$err" 'One by one .*attaching and' "the cost (one by one)"
	t_assert_match "$err" '--force' "the way out"
	t_assert_eq "$(text_diff "$SLEEPER" "$PY")" 0 "code of the other python3 (nothing attached)"
	# system-wide, one by one: every process's calls stop at them
	t_expect_exit 1 "$FD" --attach uprobe-single --uprobe-limit 20 "$PY:Py_*"
	t_assert_match "$(cat "$T_ERR")" 'Without a process filter' "the cost (no process filter)"
	# uprobe_multi with a process filter costs the others nothing: allowed
	t_expect_exit 0 "$FD" --uprobe-limit 20 "$PY:Py_*" -- "$PY" -c pass
	t_expect_exit 0 "$CG" --uprobe-limit 20 "$PY:Py_*" -- "$PY" -c pass
	# and --force
	t_expect_exit 0 "$CG" --attach uprobe-single --force --uprobe-limit 20 "$PY:Py_*" -- "$PY" -c pass
	wait_text_clean "$SLEEPER" "after callgraph --force"
}

# The command's children are followed into user functions, in their
# uprobes only: another python3 running meanwhile keeps its code as is.
# Py_FinalizeEx runs once per python3, at its end: after its uprobes are in.
test_children_followed_in_user_functions() {
	need_tool
	local tool mech n R=$T_TMP/r.json
	local kid="$PY -c 'import time; time.sleep(0.5)'"
	sleeper 120
	for tool in "$FD" "$CG"; do
		for mech in uprobe-multi uprobe-single; do
			t_bg_start "$tool" -j --attach "$mech" --output "$R" "$PY:Py_FinalizeEx" \
				-- sh -c "$kid; $kid"
			t_bg_wait_tracing 60
			t_assert_eq "$(text_diff "$SLEEPER" "$PY")" 0 \
				"${tool##*/} $mech: code of a python3 that is not followed"
			t_bg_wait_exit 60
			t_assert_eq "$BG_RC" 0 "${tool##*/} $mech: exit status"
			if [ "$tool" = "$FD" ]; then
				n=$(fcount "$R" Py_FinalizeEx)
			else
				n=$(jq '[.. | objects | select(.name? == "Py_FinalizeEx")] | length' "$R")
			fi
			t_assert_eq "$n" 2 "${tool##*/} $mech: Py_FinalizeEx in the two children"
			t_assert_no_match "$(cat "$T_TMP/bg.err")" 'were not traced' \
				"${tool##*/} $mech: no child missed"
		done
	done
	wait_text_clean "$SLEEPER" "after following children"
}

# What another python3 prints and its status, run alone
OTHER='import sys, json; print(json.dumps(sorted({i % 7: i for i in range(9999)}.items()))); sys.exit(3)'

check_others() {	# what (the tracer in the background, BG)
	local want rc i out
	want=$("$PY" -c "$OTHER")
	for i in 1 2 3; do
		out=$("$PY" -c "$OTHER")
		rc=$?
		t_assert_eq "$rc" 3 "$1: exit status of another python3 ($i)"
		t_assert_eq "$out" "$want" "$1: output of another python3 ($i)"
	done
	kill -0 "$BG" 2>/dev/null || t_fail "$1: the tracer ended before the others ran"
}

test_other_processes_unaffected() {
	need_tool
	local n R=$T_TMP/r.json	# the report: stdout is the command's
	sleeper 60
	# funcdur: uprobe_multi links with the command's pid
	t_bg_start "$FD" -j --output "$R" "$PY:Py*" -- "$PY" -c 'import time; time.sleep(4)'
	t_bg_wait_tracing 60
	t_assert_eq "$(text_diff "$SLEEPER" "$PY")" 0 "funcdur: code of a python3 running before"
	check_others funcdur
	t_bg_wait_exit 60
	t_assert_eq "$BG_RC" 0 "funcdur's exit status"
	t_assert_eq "$(fcount "$R" Py_BytesMain)" 1 "funcdur: Py_BytesMain calls (the command's only)"
	# callgraph: children followed, each in its own uprobes
	t_bg_start "$CG" -j --output "$R" "$PY:Py_*" -- "$PY" -c 'import time; time.sleep(4)'
	t_bg_wait_tracing 60
	t_assert_eq "$(text_diff "$SLEEPER" "$PY")" 0 "callgraph: code of a python3 running before"
	check_others callgraph
	t_bg_wait_exit 60
	t_assert_eq "$BG_RC" 0 "callgraph's exit status"
	n=$(jq '[.. | objects | select(.name? == "Py_BytesMain")] | length' "$R")
	t_assert_eq "$n" 1 "callgraph: Py_BytesMain trees (the command's only)"
	t_assert_eq "$(jq '[.threads[].pid] | unique | length' "$R")" 1 "callgraph: processes"
	wait_text_clean "$SLEEPER" "after callgraph"
}

t_run_all
