#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage cases as data: every tests/cases/usage/*.case (USAGE_CASES_DIR
# names another directory), each case one test, run by tests/cases-lib.sh
# (its header says the format):
#
#	NAME funcdur: --attach takes known mechanisms
#	RUN funcdur --attach bogus sys:read
#	EXIT 2
#	STDERR ^funcdur: invalid mechanism 'bogus' for --attach
#
# The tool runs in an empty directory, which must stay empty. What depends
# on the machine, root or files a test makes stays in the other test
# files. The runner's own tests are here (tests/live/test_kd_cases.sh runs
# it on kd's cases).
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/cases-lib.sh"

USAGE_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ -z "${USAGE_CASES_DIR:-}" ]; then
	USAGE_CASES_DIR=$T_REPO/tests/cases/usage
	USAGE_SELFTEST=1	# the runner's own tests, with the real cases only
fi

cases_define "$USAGE_CASES_DIR"

# ---- the runner's own tests ----------------------------------------------
# With the real cases only (not when USAGE_CASES_DIR names others)

# Run this file on the case files of DIR; its output in $T_TMP/run.out
run_self() {	# DIR
	echo "+ USAGE_CASES_DIR=$1 bash $USAGE_SELF"
	USAGE_CASES_DIR=$1 T_ONLY='' T_KEEP_TMP='' KFIT_BLESS=${SELF_BLESS:-} \
		bash "$USAGE_SELF" >"$T_TMP/run.out" 2>&1 </dev/null
	USAGE_RC=$?
	cat "$T_TMP/run.out"
}

# A line of the run's output, found as a fixed string
self_has() {	# STRING what
	grep -qF -- "$1" "$T_TMP/run.out" || t_fail "${2:-the output}: no line with '$1'"
}

test_runner_malformed_files() {
	local d=$T_TMP/bad
	mkdir -p "$d"
	printf '%s\n' 'NAME a keyword that is none' 'RUN funcdur --bogus' 'EXIT 2' \
		'OUTPUT ^funcdur' >"$d/keyword.case"
	printf '%s\n' '# no EXIT' 'NAME first' 'RUN funcdur --bogus' 'STDERR bogus' >"$d/noexit.case"
	printf '%s\n' 'NAME quote' "RUN funcdur 'sys:read" 'EXIT 2' >"$d/quote.case"
	printf '%s\n' 'NAME glob' 'RUN funcdur sys:read*' 'EXIT 2' >"$d/glob.case"
	printf '%s\n' 'NAME status' 'RUN funcdur --bogus' 'EXIT two' >"$d/status.case"
	printf '%s\n' 'NAME regex' 'RUN funcdur --bogus' 'EXIT 2' 'STDERR (bogus' >"$d/regex.case"
	printf '%s\n' 'NAME twice' 'RUN funcdur --bogus' 'EXIT 2' 'EXIT 2' >"$d/twice.case"
	printf '%s\n' 'NAME same' 'RUN funcdur --bogus' 'EXIT 2' 'STDERR bogus' '' \
		'NAME same' 'RUN funcdur --bogus2' 'EXIT 2' 'STDERR bogus2' >"$d/dup.case"
	printf '%s\n' '# nothing but comments' >"$d/empty.case"
	printf '%s\n' 'NAME a tool path' 'RUN /bin/true' 'EXIT 0' >"$d/path.case"
	printf '%s\n' 'NAME e' 'RUN kd a.kft' 'EXIT 0' 'EXPECT a' >"$d/expectval.case"
	printf '%s\n' 'NAME p' 'RUN kd a.kft' 'EXIT 0' '| a' >"$d/pipe.case"
	printf '%s\n' 'NAME p' 'RUN kd a.kft' 'EXIT 0' 'EXPECT' '|a' >"$d/pipeblank.case"
	printf '%s\n' 'NAME p' 'RUN kd a.kft' 'EXIT 0' 'EXPECT' '| a' '# between' '| b' >"$d/pipecomment.case"
	printf '%s\n' 'NAME b' 'RUN kd a.kft' 'EXIT 0' 'EXPECT' '| a' 'STDOUT a' >"$d/both.case"
	printf '%s\n' 'NAME s' 'SETUP ./kftgen a.kft' 'RUN kd a.kft' 'EXIT 0' >"$d/setup.case"
	printf '%s\n' 'NAME f' 'RUN kd a.kft' 'EXIT 0' 'FILTER jq . | sort' >"$d/filter.case"
	printf '%s\n' 'NAME f' 'RUN kd a.kft' 'EXIT 0' 'FILTER jq .' 'FILTER sort' >"$d/filters.case"
	run_self "$d"
	t_assert_eq "$USAGE_RC" 1 "its status"
	self_has "$d/keyword.case:4: unknown keyword 'OUTPUT'"
	self_has "$d/noexit.case:2: a case without EXIT"
	self_has "$d/quote.case:2: RUN: unterminated '"
	self_has "$d/glob.case:2: RUN: unquoted '*'"
	self_has "$d/status.case:3: EXIT 'two'"
	self_has "$d/regex.case:4: STDERR: '(bogus' is no extended regex"
	self_has "$d/twice.case:4: a second EXIT in the case (the first at line 3)"
	self_has "$d/dup.case:6: NAME 'same' used twice"
	self_has "$d/empty.case:1: no case in it"
	self_has "$d/path.case:2: RUN: '/bin/true' is no tool name"
	self_has "$d/expectval.case:4: EXPECT takes no value"
	self_has "$d/pipe.case:4: a '|' line away from EXPECT"
	self_has "$d/pipeblank.case:5: '|' then a blank, then the line: '|a'"
	self_has "$d/pipecomment.case:7: a '|' line away from EXPECT"
	self_has "$d/both.case:6: STDOUT with EXPECT (line 4)"
	self_has "$d/setup.case:2: SETUP: './kftgen' is no helper name"
	self_has "$d/filter.case:4: FILTER: unquoted '|'"
	self_has "$d/filters.case:5: a second FILTER in the case (the first at line 4)"
	self_has "FAIL test_keyword_malformed: malformed case file"
	self_has "test_usage.sh: 0 passed, 18 failed, 0 skipped"
	run_self "$T_TMP/no-such-dir"
	t_assert_eq "$USAGE_RC" 1 "its status without the directory"
	self_has "is not a directory"
}

test_runner_failing_cases() {
	local d=$T_TMP/fail f
	mkdir -p "$d"
	f=$d/cases.case
	cat >"$f" <<-'EOF'
		# one that passes, then one wrong at each check
		NAME passes
		RUN funcdur --attach 'bo gus' "sys:read" -d\ 1
		EXIT 2
		STDERR ^funcdur: invalid mechanism 'bo gus' for --attach

		NAME wrong status
		RUN funcdur --bogus
		EXIT 1
		STDERR bogus

		NAME wrong message
		RUN funcdur --bogus
		EXIT 2
		STDERR unrecognized
		STDERR ^no such line

		NAME unexpected stderr
		RUN funcdur -h
		EXIT 0
		STDOUT ^Usage: funcdur
		STDERR .

		NAME unexpected stdout
		RUN funcdur -h
		EXIT 0

		NAME no such tool
		RUN nosuchtool -h
		EXIT 0

		NAME stdin from a file
		STDIN cases.case
		RUN funcdur --bogus
		EXIT 2
		STDERR bogus
	EOF
	run_self "$d"
	t_assert_eq "$USAGE_RC" 1 "its status"
	self_has "PASS test_cases_01_passes"
	self_has "FAIL test_cases_02_wrong_status: $f:9: wrong status: exited 2, expected 1"
	self_has "FAIL test_cases_03_wrong_message: $f:16: wrong message: no line of stderr matches /^no such line/"
	self_has "FAIL test_cases_04_unexpected_stderr: $f:22: unexpected stderr: no line of stderr matches /./"
	self_has "FAIL test_cases_05_unexpected_stdout: $f:25: unexpected stdout: output on stdout, and no STDOUT line"
	self_has "FAIL test_cases_06_no_such_tool: $f:29: no such tool: no tool 'nosuchtool' in KFIT_BIN"
	self_has "PASS test_cases_07_stdin_from_a_file"
	self_has "test_usage.sh: 2 passed, 5 failed, 0 skipped"
}

# SETUP, EXPECT and FILTER: kd on a file kftgen writes
test_runner_expect() {
	local d=$T_TMP/expect f
	mkdir -p "$d"
	f=$d/cases.case
	cat >"$f" <<-'EOF'
		NAME passes
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft -t 101 --folded
		EXIT 0
		EXPECT
		| gen-worker;work 180000
		| gen-worker;work;leaf 20000

		NAME wrong line
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft -t 101 --folded
		EXIT 0
		EXPECT
		| gen-worker;work 180000
		| gen-worker;work;leaf 20001

		NAME filtered
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft -t 101 -j
		EXIT 0
		FILTER jq -r '.threads[].comm'
		EXPECT
		| gen-worker

		NAME no stdout
		RUN kd no.kft
		EXIT 1
		STDERR ^kd: no\.kft:
		EXPECT

		NAME a setup that fails
		SETUP kftgen -n 0 a.kft
		RUN kd a.kft
		EXIT 0

		NAME no such helper
		SETUP nosuchhelper
		RUN kd a.kft
		EXIT 0

		NAME a filter that fails
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft --folded
		EXIT 0
		FILTER jq .
		EXPECT

		NAME a file made
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft --svg a.svg
		EXIT 0
		STDOUT ^Traced
	EOF
	run_self "$d"
	t_assert_eq "$USAGE_RC" 1 "its status"
	self_has "PASS test_cases_01_passes"
	self_has "FAIL test_cases_02_wrong_line: $f:15: wrong line: stdout is not EXPECT's (line 13): 2 lines differ, the first here (the diff above)"
	self_has "    --- expected ($f:13)"
	self_has "    +++ got (kd a.kft -t 101 --folded)"
	self_has "    -gen-worker;work;leaf 20001"
	self_has "    +gen-worker;work;leaf 20000"
	self_has "PASS test_cases_03_filtered"
	self_has "PASS test_cases_04_no_stdout"
	self_has "FAIL test_cases_05_a_setup_that_fails: $f:32: a setup that fails: SETUP exited 2: 'kftgen: one OUT, and N from 1 to 29 (--many: to 50000000, --flat: to 500000000, not sampled)'"
	self_has "FAIL test_cases_06_no_such_helper: $f:37: no such helper: no helper 'nosuchhelper' in KFIT_HELPERS"
	self_has "FAIL test_cases_07_a_filter_that_fails: $f:45: a filter that fails: FILTER exited 4"
	self_has "FAIL test_cases_08_a_file_made: $f:50: a file made: it changed its directory: a.kft -> a.kft a.svg"
	self_has "test_usage.sh: 3 passed, 5 failed, 0 skipped"
}

# KFIT_BLESS=1 rewrites a wrong EXPECT's lines, nothing else
test_runner_bless() {
	local d=$T_TMP/bless f
	mkdir -p "$d"
	f=$d/cases.case
	cat >"$f" <<-'EOF'
		NAME to bless
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft -t 101 --folded
		EXIT 0
		# before
		EXPECT
		| an old line
		|
		| another
		# after

		NAME a wrong status
		SETUP kftgen -n 1 a.kft
		RUN kd a.kft -t 101 --folded
		EXIT 1
		EXPECT

		NAME right already
		RUN kd no.kft
		EXIT 1
		STDERR ^kd: no\.kft:
		EXPECT
	EOF
	sed -e '7,9d' -e '6a\
| gen-worker;work 180000\
| gen-worker;work;leaf 20000' "$f" >"$d/blessed"
	sed -n 1,12p "$d/blessed"
	SELF_BLESS=1 run_self "$d"
	t_assert_eq "$USAGE_RC" 1 "its status (a wrong status is not blessed)"
	self_has "PASS test_cases_01_to_bless"
	self_has "FAIL test_cases_02_a_wrong_status: $f:15: a wrong status: exited 0, expected 1"
	self_has "PASS test_cases_03_right_already"
	self_has "blessed: $f:6: to bless"
	t_assert_eq "$(grep -c '^blessed: ' "$T_TMP/run.out")" 1 "the cases blessed"
	diff -u "$d/blessed" "$f" || t_fail "the case file blessed is not as expected"
	run_self "$d"
	self_has "PASS test_cases_01_to_bless"
	self_has "test_usage.sh: 2 passed, 1 failed, 0 skipped"
}

test_runner_split() {
	cases_split "a  'b c' \"d \\\"e\\\" \\\$f\" g\\ h '' i'j'k \"l\\m\""
	t_assert_eq "${#WORDS[@]}" 7 "the number of words"
	t_assert_eq "$(printf '<%s>' "${WORDS[@]}")" '<a><b c><d "e" $f><g h><><ijk><l\m>' "the words"
	cases_split "x \"\$HOME\"" && t_fail "\$ in double quotes taken"
	t_assert_match "$SPLIT_ERR" 'nothing is expanded' "the reason"
	cases_split 'x; rm' && t_fail "an unquoted ; taken"
	cases_split "x '*' \\*" || t_fail "a quoted * refused: $SPLIT_ERR"
	t_assert_eq "$(printf '<%s>' "${WORDS[@]}")" '<x><*><*>' "quoted *"
}

[ -n "${USAGE_SELFTEST:-}" ] ||
	unset -f test_runner_malformed_files test_runner_failing_cases test_runner_expect \
		test_runner_bless test_runner_split

cases_run_all
