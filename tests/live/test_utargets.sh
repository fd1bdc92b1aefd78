#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of which user functions and system calls a TARGET selects, on
# Debian's own programs (python3, bash, gzip, libc): no return probe where
# there is no normal return (_start, exit), libc's IFUNCs traced at the
# implementation in use, sys: globs, and what the "Tracing" line says.
. "$(dirname "$0")/../lib.sh"

FD="$KFIT_BIN/funcdur"
CG="$KFIT_BIN/callgraph"
PY=/usr/bin/python3
PYD=/usr/bin/python3.11d
BASH=/usr/bin/bash

need_tool() {
	t_need_root
	[ -x "$FD" ] || t_fail "$FD not built"
	[ -x "$CG" ] || t_fail "$CG not built"
}

need_prog() {	# PATH...
	local p
	for p in "$@"; do
		[ -x "$p" ] || t_skip "$p is not installed"
	done
}

# The exit status of a traced command: the tool's own, or (while the
# tools exit 0 after their command) the one their report states
traced_status() {	# TOOL_RC STDERR_FILE
	local st
	st=$(sed -n 's/.* exited with status \([0-9]*\).*/\1/p' "$2" | tail -n 1)
	if [ "$1" != 0 ] || [ -z "$st" ]; then
		echo "$1"
	else
		echo "$st"
	fi
}

# Run "$@" alone, then under TOOL ARGS... -- "$@": what the program saw
# (argv, and environment but "_", the shell's last command: it writes them
# to $KFIT_T_SEEN) and its exit status must be the same. Sets TRACED_ERR
# to the tool's stderr.
same_under() {	# TOOL 'ARGS' PROGRAM ARGS...
	local tool=$1 args=$2 rc0 rc1 st
	shift 2
	KFIT_T_SEEN="$T_TMP/seen.alone" "$@" >"$T_TMP/out.alone" 2>&1 </dev/null
	rc0=$?
	# shellcheck disable=SC2086
	KFIT_T_SEEN="$T_TMP/seen.traced" timeout 120 "$tool" $args -- "$@" \
		>"$T_TMP/out.traced" 2>"$T_TMP/err.traced" </dev/null
	rc1=$?
	TRACED_ERR="$T_TMP/err.traced"
	[ -s "$T_TMP/seen.alone" ] || t_fail "$* wrote nothing alone"
	if ! [ -s "$T_TMP/seen.traced" ]; then
		t_show_file "$T_TMP/err.traced" "stderr of $tool $args"
		t_fail "$* wrote nothing under $tool $args (rc $rc1)"
	fi
	sed -i -e 's/^KFIT_T_SEEN=.*//' -e 's/^_=.*//' "$T_TMP/seen.alone" "$T_TMP/seen.traced"
	if ! cmp -s "$T_TMP/seen.alone" "$T_TMP/seen.traced"; then
		diff "$T_TMP/seen.alone" "$T_TMP/seen.traced" | head -n 20
		t_show_file "$T_TMP/err.traced" "stderr of $tool $args"
		t_fail "$* saw other arguments or environment under $tool $args"
	fi
	st=$(traced_status "$rc1" "$T_TMP/err.traced")
	if [ "$st" != "$rc0" ]; then
		t_show_file "$T_TMP/err.traced" "stderr of $tool $args"
		t_fail "$* exited $rc0 alone, $st under $tool $args"
	fi
}

# The count of FUNC in funcdur's table (stdout or stderr), 0 if absent
fd_count() {	# FILE FUNC
	awk -v f="$2" '$1 == f && $2 ~ /^[0-9]+$/ { print $2; n = 1 } END { if (!n) print 0 }' "$1" |
		head -n 1
}

PY_SEEN='import sys, os
with open(os.environ["KFIT_T_SEEN"], "w") as f:
    f.write(repr(sys.argv) + "\n")
    for k in sorted(os.environ):
        f.write(k + "=" + os.environ[k] + "\n")
sys.exit(3)'

BASH_SEEN='{ printf "[%s]\n" "$0" "$#" "$@"; env | LC_ALL=C sort; } >"$KFIT_T_SEEN"; exit 4'

# ---- no return probe where there is no normal return ------------------------

# python3 exports _start: the glob's return probe there overwrote argc
# (python then failed: "memory allocation failed")
test_glob_with_start_python() {
	need_tool
	need_prog "$PY"
	same_under "$FD" "$PY:_[sP][ty][_a][rD]*" "$PY" -c "$PY_SEEN" a 'b c' -x
	t_assert_match "$(cat "$TRACED_ERR")" '_start: the program.s entry point' \
		"_start skipped with the reason"
	t_assert_match "$(cat "$TRACED_ERR")" '^Tracing [0-9]+ functions? \(uprobe' "tracing line"
	[ "$(fd_count "$T_TMP/out.traced" _Py_Dealloc)" -gt 0 ] ||
		[ "$(fd_count "$TRACED_ERR" _Py_Dealloc)" -gt 0 ] ||
		t_fail "_Py_Dealloc not counted: the other functions of the glob were not traced"
}

test_glob_with_start_bash() {
	need_tool
	need_prog "$BASH"
	same_under "$FD" "$BASH:[_m][sb]*" "$BASH" -c "$BASH_SEEN" zero a 'b c'
	t_assert_match "$(cat "$TRACED_ERR")" '_start: the program.s entry point' \
		"_start skipped with the reason"
	same_under "$CG" "$BASH:[_m][sb]*" "$BASH" -c "$BASH_SEEN" zero a 'b c'
	t_assert_match "$(cat "$TRACED_ERR")" '_start: the program.s entry point' \
		"callgraph: _start skipped with the reason"
}

# bash's exit_shell never returns; exit_builtin does
test_glob_noreturn_bash() {
	need_tool
	need_prog "$BASH"
	same_under "$FD" "$BASH:exit_*" "$BASH" -c "$BASH_SEEN" zero a
	t_assert_match "$(cat "$TRACED_ERR")" 'exit_shell: never returns' \
		"exit_shell skipped with the reason"
}

# python3.11d (python3.11-dbg) carries its DWARF: DW_AT_noreturn names
# functions that never return beyond the documented list
test_noreturn_dwarf_python() {
	local rc
	need_tool
	need_prog "$PYD"
	same_under "$FD" "$PYD:_PyObject_A*" "$PYD" -c "$PY_SEEN" a 'b c'
	t_assert_match "$(cat "$TRACED_ERR")" \
		'_PyObject_AssertFailed: never returns normally \(DW_AT_noreturn' \
		"_PyObject_AssertFailed skipped with DWARF's reason"
	t_assert_match "$(cat "$TRACED_ERR")" '^Tracing [0-9]+ functions? \(uprobe' "tracing line"
	"$FD" "$PYD:_PyObject_AssertFailed" -- "$PYD" -c pass >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	t_assert_eq "$rc" 2 "named alone: a usage error"
	t_assert_match "$(cat "$T_TMP/err")" "cannot trace '_PyObject_AssertFailed'.*DW_AT_noreturn" \
		"named alone: the reason"
}

# gzip is stripped: it is traced through libc, output byte for byte the same
test_gzip_libc_glob() {
	need_tool
	need_prog /usr/bin/gzip
	seq 1 20000 >"$T_TMP/data"
	gzip -c -9 "$T_TMP/data" >"$T_TMP/alone.gz"
	timeout 120 "$FD" 'c:*exit*' -- sh -c "exec gzip -c -9 '$T_TMP/data' >'$T_TMP/traced.gz'" \
		>"$T_OUT" 2>"$T_ERR" </dev/null || t_fail "funcdur c:*exit* -- gzip failed"
	cmp -s "$T_TMP/alone.gz" "$T_TMP/traced.gz" || t_fail "gzip's output differs under tracing"
	t_assert_match "$(cat "$T_ERR")" '  exit: never returns' "exit skipped with the reason"
}

# Named explicitly (bash:_start, c:exit, c:longjmp), they are refused with
# the reason, exit 2: tests/cases/usage/funcdur.case and callgraph.case

# ---- IFUNCs ------------------------------------------------------------------

SC="$KFIT_HELPERS/strcalls"

# The count of FUNC in funcdur's report of running "strcalls N"
ifunc_counts() {	# N
	timeout 120 "$FD" c:strlen c:memset c:memcpy -- "$SC" "$1" \
		>"$T_TMP/sc$1.out" 2>"$T_TMP/sc$1.err" </dev/null ||
		{ t_show_file "$T_TMP/sc$1.err" stderr; t_fail "funcdur c:strlen... -- strcalls $1 failed"; }
	cat "$T_TMP/sc$1.out" "$T_TMP/sc$1.err" >"$T_TMP/sc$1.all"
}

# strlen, memset, memcpy: libc's IFUNCs, each called N times by strcalls;
# the difference between two runs is exactly the difference of N
test_ifunc_exact() {
	need_tool
	[ -x "$SC" ] || t_fail "$SC not built"
	local f a b
	ifunc_counts 1000
	ifunc_counts 3000
	t_assert_match "$(cat "$T_TMP/sc1000.err")" \
		'note: strlen is an IFUNC: tracing the implementation the dynamic linker chose, __?strlen' \
		"note naming strlen's implementation"
	for f in strlen memset memcpy; do
		a=$(fd_count "$T_TMP/sc1000.all" $f)
		b=$(fd_count "$T_TMP/sc3000.all" $f)
		[ "$a" -ge 1000 ] || t_fail "$f counted $a times for 1000 calls"
		t_assert_eq "$((b - a))" 2000 "$f: calls of strcalls 3000 minus strcalls 1000"
	done
}

# -p: the implementation read from the process's own GOT
test_ifunc_pid() {
	need_tool
	[ -x "$SC" ] || t_fail "$SC not built"
	t_held_start "$SC" -w 2500
	t_bg_start "$FD" -p "$HELD_PID" c:strlen c:memcpy
	t_bg_wait_tracing 60
	t_held_go
	t_bg_wait_exit 60
	cat "$T_TMP/bg.out" "$T_TMP/bg.err" >"$T_TMP/bg.all"
	t_assert_eq "$(fd_count "$T_TMP/bg.all" strlen)" 2500 "strlen calls of strcalls 2500 (-p)"
	t_assert_eq "$(fd_count "$T_TMP/bg.all" memcpy)" 2500 "memcpy calls of strcalls 2500 (-p)"
}

# Real programs: python3 and bash call strlen through libc's own slots too
test_ifunc_real() {
	need_tool
	need_prog "$PY" "$BASH"
	timeout 120 "$FD" c:strlen -- "$PY" -c 'import os; os.getcwd()' \
		>"$T_OUT" 2>"$T_ERR" </dev/null || t_fail "funcdur c:strlen -- python3 failed"
	cat "$T_OUT" "$T_ERR" >"$T_TMP/py.all"
	[ "$(fd_count "$T_TMP/py.all" strlen)" -gt 0 ] || t_fail "no strlen call counted in python3"
	timeout 120 "$CG" c:memcpy c:strlen -- "$BASH" -c 'x=$(echo abc); echo ${#x} >/dev/null' \
		>"$T_OUT" 2>"$T_ERR" </dev/null || t_fail "callgraph c:memcpy c:strlen -- bash failed"
	t_assert_match "$(cat "$T_OUT" "$T_ERR")" 'strlen' "callgraph's tree names strlen"
}

# ---- system calls: globs, names ------------------------------------------------

# Run funcdur ARGS... -- CMD...; its report (stdout and stderr) in $T_TMP/fd.all
fd_run() {	# ARGS... -- CMD...
	timeout 120 "$FD" "$@" >"$T_OUT" 2>"$T_ERR" </dev/null || {
		t_show_file "$T_ERR" stderr
		t_fail "funcdur $* failed"
	}
	cat "$T_OUT" "$T_ERR" >"$T_TMP/fd.all"
}

test_sys_glob() {
	need_tool
	printf 'line\n%.0s' $(seq 1 100) >"$T_TMP/in"
	fd_run 'sys:read*' -- head -c 1000 "$T_TMP/in"
	[ "$(fd_count "$T_TMP/fd.all" sys:read)" -ge 1 ] || t_fail "no sys:read counted for head"
	t_assert_match "$(cat "$T_TMP/fd.all")" '^sys:readv ' "a row for sys:readv"
	t_assert_match "$(cat "$T_TMP/fd.all")" '^sys:readlinkat ' "a row for sys:readlinkat"
	t_assert_match "$(cat "$T_ERR")" '^Tracing [0-9]+ system calls \(tracepoints\)' "the Tracing line"
	t_expect_exit 2 "$FD" 'sys:zz_no_such*' -- true
	t_assert_match "$(cat "$T_ERR")" "no system call matches 'zz_no_such\*'" "message for sys:zz_no_such*"
}

# Every system call: gzip testing an archive reads it and opens it
test_sys_all() {
	need_tool
	need_prog /usr/bin/gzip
	seq 1 5000 | gzip -c >"$T_TMP/a.gz"
	fd_run 'sys:*' -- gzip -t "$T_TMP/a.gz"
	[ "$(fd_count "$T_TMP/fd.all" sys:read)" -ge 1 ] || t_fail "no sys:read counted for gzip -t"
	[ "$(fd_count "$T_TMP/fd.all" sys:openat)" -ge 1 ] || t_fail "no sys:openat counted for gzip -t"
	t_assert_match "$(grep -c '^sys:' "$T_TMP/fd.all")" '^[0-9]{3}$' "a row per system call"
	# Those known without tracepoints here are said, with the reason
	if grep -q '^Skipped' "$T_ERR"; then
		t_assert_match "$(cat "$T_ERR")" '^  sys:[a-z_0-9]+: no tracepoint for this system call' \
			"the skipped system calls' reason"
	fi
}

# stat's tracepoints are newstat's: sys:stat was refused at attach
test_sys_tp_alias() {
	need_tool
	need_prog "$PY"
	fd_run sys:stat sys:fstat -- "$PY" -c 'pass'
	if grep -q 'Skipped' "$T_ERR"; then
		t_show_file "$T_ERR" stderr
		t_fail "sys:stat or sys:fstat skipped"
	fi
	t_assert_match "$(cat "$T_ERR")" '^Tracing 2 system calls \(tracepoints\)' "the Tracing line"
}

# ---- what the Tracing line says ------------------------------------------------

test_tracing_line_kinds() {
	need_tool
	fd_run c:malloc sys:read sys:write -- true
	t_assert_match "$(cat "$T_ERR")" \
		'^Tracing 1 function \(uprobe\) and 2 system calls \(tracepoints\)\.\.\.' \
		"funcdur's Tracing line"
	timeout 120 "$CG" c:malloc sys:read -- true >"$T_OUT" 2>"$T_ERR" </dev/null ||
		t_fail "callgraph c:malloc sys:read failed"
	t_assert_match "$(cat "$T_ERR")" \
		'^Tracing 1 function \(uprobe\) and 1 system call \(tracepoint\)\.\.\.' \
		"callgraph's Tracing line"
}

t_run_all
