#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage cases as data: every tests/cases/usage/*.case (USAGE_CASES_DIR
# names another directory), each case one test. A case file holds cases
# separated by blank lines; lines starting with '#' are comments:
#
#	NAME funcdur: --attach takes known mechanisms
#	RUN funcdur --attach bogus sys:read
#	EXIT 2
#	STDERR ^funcdur: invalid mechanism 'bogus' for --attach
#
# NAME  what the case checks (once, unique in its file)
# RUN   a tool of $KFIT_BIN and its arguments, split as a shell splits
#       them, with '...', "..." and \ quoting and nothing expanded: a
#       character a shell would expand or treat apart ($ ` ; & | < > ( )
#       * ? [ # ~ { }) must be quoted (once)
# EXIT  the exit status (once)
# STDERR, STDOUT  an extended regex (grep -E) that one line of the stream
#       must match (any number of them); a stream with none must be empty
# STDIN FILE  the tool's stdin, FILE relative to the case file (at most
#       once; /dev/null otherwise)
# Trailing blanks are dropped. The tool runs in an empty directory, which
# must stay empty, bounded by T_CMD_TIMEOUT seconds. A failed check names
# its file and line; a malformed file is one failing test naming its line.
# A case gives the same answer with or without privileges: what depends on
# the machine, root or files a test makes stays in the other test files.
. "$(dirname "$0")/../lib.sh"

USAGE_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ -z "${USAGE_CASES_DIR:-}" ]; then
	USAGE_CASES_DIR=$T_REPO/tests/cases/usage
	USAGE_SELFTEST=1	# the runner's own tests, with the real cases only
fi

# ---- reading the case files ----------------------------------------------

# Characters that a shell expands or treats apart, unquoted in RUN
USAGE_META='$`;&|<>()*?[#~{}'

# WORDS=(STRING split as a shell splits it, nothing expanded); on an error
# status 1 and SPLIT_ERR says why
usage_split() {	# STRING
	local s=$1 n=${#1} i=0 c q w="" inw=0
	WORDS=() SPLIT_ERR=""
	while [ "$i" -lt "$n" ]; do
		c=${s:i:1}
		case $c in
		' ' | $'\t')
			[ "$inw" = 1 ] && WORDS+=("$w")
			w="" inw=0
			;;
		"'")
			inw=1 q=${s:i+1}
			case $q in
			*"'"*) ;;
			*) SPLIT_ERR="unterminated '"; return 1 ;;
			esac
			q=${q%%"'"*}
			w+=$q
			i=$((i + ${#q} + 1))
			;;
		'"')
			inw=1
			i=$((i + 1))
			while :; do
				[ "$i" -ge "$n" ] && { SPLIT_ERR='unterminated "'; return 1; }
				c=${s:i:1}
				case $c in
				'"') break ;;
				'\')
					case ${s:i+1:1} in
					'"' | '\' | '$' | '`') i=$((i + 1)) w+=${s:i:1} ;;
					*) w+=$c ;;
					esac
					;;
				'$' | '`')
					SPLIT_ERR="'$c' in \"...\": write \\$c (nothing is expanded)"
					return 1
					;;
				*) w+=$c ;;
				esac
				i=$((i + 1))
			done
			;;
		'\')
			inw=1
			[ $((i + 1)) -lt "$n" ] || { SPLIT_ERR="'\\' at the end"; return 1; }
			i=$((i + 1))
			w+=${s:i:1}
			;;
		*)
			case $USAGE_META in
			*"$c"*)
				SPLIT_ERR="unquoted '$c': quote it (nothing is expanded)"
				return 1
				;;
			esac
			inw=1 w+=$c
			;;
		esac
		i=$((i + 1))
	done
	[ "$inw" = 1 ] && WORDS+=("$w")
	return 0
}

# The path shown in messages: relative to the repository when inside it
usage_path() {
	case $1 in
	"$T_REPO"/*) printf '%s' "${1#"$T_REPO"/}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# The cases read, index i: file, name, the lines of NAME, RUN, EXIT and
# STDIN, RUN's text, EXIT's status, STDIN's file, and "LINE<TAB>REGEX"
# lines for STDERR and STDOUT
C_N=0
C_FILE=() C_NAME=() C_NAMEL=() C_RUN=() C_RUNL=() C_EXIT=() C_EXITL=()
C_STDIN=() C_STDINL=() C_ERRS=() C_OUTS=()

# One file's reading: its errors ("LINE: why") and the case being read
U_ERRS=()
u_err() { U_ERRS+=("$1: $2"); }	# LINE why

u_reset() {
	U_START=0 U_NAME="" U_NAMEL=0 U_RUN="" U_RUNL=0 U_EXIT="" U_EXITL=0
	U_STDIN="" U_STDINL=0 U_ERRE="" U_OUTE=""
}

# The case read so far is complete: add it (or its errors)
u_end_case() {	# FILE
	[ "$U_START" = 0 ] && return 0
	local ok=1
	[ "$U_NAMEL" = 0 ] && { u_err "$U_START" "a case without NAME"; ok=; }
	[ "$U_RUNL" = 0 ] && { u_err "$U_START" "a case without RUN"; ok=; }
	[ "$U_EXITL" = 0 ] && { u_err "$U_START" "a case without EXIT"; ok=; }
	if [ -n "$ok" ]; then
		C_FILE[C_N]=$1 C_NAME[C_N]=$U_NAME C_NAMEL[C_N]=$U_NAMEL
		C_RUN[C_N]=$U_RUN C_RUNL[C_N]=$U_RUNL
		C_EXIT[C_N]=$U_EXIT C_EXITL[C_N]=$U_EXITL
		C_STDIN[C_N]=$U_STDIN C_STDINL[C_N]=$U_STDINL
		C_ERRS[C_N]=$U_ERRE C_OUTS[C_N]=$U_OUTE
		C_N=$((C_N + 1))
	fi
	u_reset
}

# Once per case: LINE KEY
u_once() {
	local l=$1 key=$2 prev
	case $key in
	NAME) prev=$U_NAMEL ;; RUN) prev=$U_RUNL ;;
	EXIT) prev=$U_EXITL ;; STDIN) prev=$U_STDINL ;;
	esac
	[ "$prev" = 0 ] && return 0
	u_err "$l" "a second $key in the case (the first at line $prev)"
	return 1
}

# Read FILE's cases; status 1 if it is malformed (U_ERRS say why), its
# cases then left out
usage_read() {	# FILE
	local f=$1 l=0 line key val first=$C_N
	U_ERRS=() U_NAMES_SEEN=$'\n'
	u_reset
	while IFS= read -r line || [ -n "$line" ]; do
		l=$((l + 1))
		line=${line%"${line##*[![:space:]]}"}
		if [ -z "$line" ]; then
			u_end_case "$f"
			continue
		fi
		case $line in '#'*) continue ;; esac
		if ! [[ $line =~ ^([A-Z]+)([[:blank:]]+(.*))?$ ]]; then
			u_err "$l" "not 'KEYWORD value': '$(_t_short "$line")'"
			continue
		fi
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[3]}
		[ "$U_START" = 0 ] && U_START=$l
		case $key in
		NAME | RUN | EXIT | STDIN | STDERR | STDOUT) ;;
		*)
			u_err "$l" "unknown keyword '$key' (NAME, RUN, EXIT, STDERR, STDOUT, STDIN)"
			continue
			;;
		esac
		if [ -z "$val" ]; then
			u_err "$l" "$key without a value"
			continue
		fi
		case $key in
		NAME)
			u_once "$l" NAME || continue
			U_NAME=$val U_NAMEL=$l
			case $U_NAMES_SEEN in
			*$'\n'"$val"$'\n'*) u_err "$l" "NAME '$val' used twice in the file" ;;
			esac
			U_NAMES_SEEN+=$val$'\n'
			;;
		RUN)
			u_once "$l" RUN || continue
			U_RUN=$val U_RUNL=$l
			if ! usage_split "$val"; then
				u_err "$l" "RUN: $SPLIT_ERR"
			elif ! [[ ${WORDS[0]} =~ ^[A-Za-z0-9][-A-Za-z0-9_.+]*$ ]]; then
				u_err "$l" "RUN: '${WORDS[0]}' is no tool name (a file of KFIT_BIN)"
			fi
			;;
		EXIT)
			u_once "$l" EXIT || continue
			U_EXIT=$val U_EXITL=$l
			[[ $val =~ ^[0-9]{1,3}$ ]] && [ "$val" -le 255 ] ||
				u_err "$l" "EXIT '$val': a status from 0 to 255"
			;;
		STDIN)
			u_once "$l" STDIN || continue
			U_STDIN=$val U_STDINL=$l
			;;
		STDERR | STDOUT)
			printf '' | grep -Eq -- "$val" 2>/dev/null
			if [ $? -gt 1 ]; then
				u_err "$l" "$key: '$val' is no extended regex (grep -E)"
				continue
			fi
			if [ "$key" = STDERR ]; then
				U_ERRE+=$l$'\t'$val$'\n'
			else
				U_OUTE+=$l$'\t'$val$'\n'
			fi
			;;
		esac
	done <"$f"
	u_end_case "$f"
	[ "${#U_ERRS[@]}" = 0 ] && [ "$C_N" = "$first" ] && u_err 1 "no case in it"
	if [ "${#U_ERRS[@]}" != 0 ]; then
		C_N=$first	# its cases are left out
		return 1
	fi
	return 0
}

# ---- running a case ------------------------------------------------------

# A case's check failed: say where (FILE:LINE) and what
u_case_fail() {	# LINE why
	t_fail "$(usage_path "${C_FILE[U_I]}"):$1: ${C_NAME[U_I]}: $2"
}

# Every pattern of LIST ("LINE<TAB>REGEX" lines) matches a line of FILE;
# without patterns FILE is empty
u_check_stream() {	# FILE LIST what
	local file=$1 list=$2 what=$3 l re
	if [ -z "$list" ]; then
		[ -s "$file" ] && u_case_fail "${C_RUNL[U_I]}" \
			"output on $what, and no ${what^^} line of the case expects any: '$(head -n 1 "$file")'"
		return 0
	fi
	while IFS=$'\t' read -r l re; do
		grep -Eq -- "$re" "$file" ||
			u_case_fail "$l" "no line of $what matches /$re/: '$(_t_short "$(cat "$file")")'"
	done <<<"${list%$'\n'}"
}

usage_case() {	# INDEX
	U_I=$1
	local where tool rc stdin left
	where="$(usage_path "${C_FILE[U_I]}"):${C_NAMEL[U_I]}"
	echo "case $where: ${C_NAME[U_I]}"
	echo "+ ${C_RUN[U_I]}"
	usage_split "${C_RUN[U_I]}" || u_case_fail "${C_RUNL[U_I]}" "RUN: $SPLIT_ERR"
	tool=$KFIT_BIN/${WORDS[0]}
	[ -f "$tool" ] && [ -x "$tool" ] ||
		u_case_fail "${C_RUNL[U_I]}" "no tool '${WORDS[0]}' in KFIT_BIN=$KFIT_BIN (make)"
	stdin=/dev/null
	if [ -n "${C_STDIN[U_I]}" ]; then
		stdin=$(dirname "${C_FILE[U_I]}")/${C_STDIN[U_I]}
		[ -f "$stdin" ] && [ -r "$stdin" ] ||
			u_case_fail "${C_STDINL[U_I]}" "STDIN: no file $stdin"
	fi
	mkdir "$T_TMP/cwd" && cd "$T_TMP/cwd" || t_fail "cannot make $T_TMP/cwd"
	timeout "$T_CMD_TIMEOUT" "$tool" "${WORDS[@]:1}" >"$T_OUT" 2>"$T_ERR" <"$stdin"
	rc=$?
	cd "$T_TMP" || t_fail "cannot go back to $T_TMP"
	echo "--- exit $rc; stderr:"
	head -n 20 "$T_ERR"
	echo "--- stdout:"
	head -n 20 "$T_OUT"
	echo "---"
	case $rc in
	124 | 143) [ "${C_EXIT[U_I]}" = "$rc" ] ||
		u_case_fail "${C_EXITL[U_I]}" "exited $rc (killed after ${T_CMD_TIMEOUT}s?), expected ${C_EXIT[U_I]}" ;;
	esac
	[ "$rc" = "${C_EXIT[U_I]}" ] ||
		u_case_fail "${C_EXITL[U_I]}" "exited $rc, expected ${C_EXIT[U_I]}: '$(head -n 1 "$T_ERR")'"
	u_check_stream "$T_ERR" "${C_ERRS[U_I]}" stderr
	u_check_stream "$T_OUT" "${C_OUTS[U_I]}" stdout
	left=$(cd "$T_TMP/cwd" && ls -A)
	[ -z "$left" ] && return 0
	u_case_fail "${C_RUNL[U_I]}" "it left files behind: $(echo $left)"
}

# ---- one test per case ---------------------------------------------------

# A function name's part: letters, digits and single '_'
usage_ident() {	# STRING [MAX length]
	local s=${1//[!A-Za-z0-9]/_}
	while [[ $s == *__* ]]; do s=${s//__/_}; done
	s=${s#_}
	s=${s:0:${2:-${#s}}}
	printf '%s' "${s%_}"
}

usage_define() {
	local f base i=0 n k slug msg files=()
	if [ ! -d "$USAGE_CASES_DIR" ]; then
		test_usage_cases_dir() { t_fail "USAGE_CASES_DIR=$USAGE_CASES_DIR is not a directory"; }
		return
	fi
	for f in "$USAGE_CASES_DIR"/*.case; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ "${#files[@]}" = 0 ]; then
		test_usage_cases_dir() { t_fail "no *.case file in $USAGE_CASES_DIR"; }
		return
	fi
	for f in "${files[@]}"; do
		base=$(usage_ident "$(basename "$f" .case)")
		n=$C_N
		if ! usage_read "$f"; then
			# one failing test, every error in its log
			U_BAD_LOG[U_BAD]=$(for msg in "${U_ERRS[@]}"; do
				printf '%s:%s\n' "$(usage_path "$f")" "$msg"
			done)
			msg="$(usage_path "$f"):${U_ERRS[0]}"
			[ "${#U_ERRS[@]}" -gt 1 ] && msg="$msg (and $((${#U_ERRS[@]} - 1)) more)"
			U_BAD_MSG[U_BAD]=$msg
			eval "test_${base}_malformed() { usage_malformed $U_BAD; }"
			U_BAD=$((U_BAD + 1))
			continue
		fi
		k=1
		for ((i = n; i < C_N; i++)); do
			slug=$(usage_ident "${C_NAME[i]#"$(basename "$f" .case)": }" 48)
			# zero-padded: the definition order is the file's
			eval "test_${base}_$(printf '%02d' "$k")${slug:+_$slug}() { usage_case $i; }"
			k=$((k + 1))
		done
	done
}

# The malformed files: their first error, and all of them
U_BAD=0 U_BAD_MSG=() U_BAD_LOG=()
usage_malformed() {	# INDEX
	echo "${U_BAD_LOG[$1]}"
	t_fail "malformed case file: ${U_BAD_MSG[$1]}"
}

usage_define

# ---- the runner's own tests ----------------------------------------------
# With the real cases only (not when USAGE_CASES_DIR names others)

# Run this file on the case files of DIR; its output in $T_TMP/run.out
run_self() {	# DIR
	echo "+ USAGE_CASES_DIR=$1 bash $USAGE_SELF"
	USAGE_CASES_DIR=$1 T_ONLY='' bash "$USAGE_SELF" >"$T_TMP/run.out" 2>&1 </dev/null
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
		'EXPECT ^funcdur' >"$d/keyword.case"
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
	run_self "$d"
	t_assert_eq "$USAGE_RC" 1 "its status"
	self_has "$d/keyword.case:4: unknown keyword 'EXPECT'"
	self_has "$d/noexit.case:2: a case without EXIT"
	self_has "$d/quote.case:2: RUN: unterminated '"
	self_has "$d/glob.case:2: RUN: unquoted '*'"
	self_has "$d/status.case:3: EXIT 'two'"
	self_has "$d/regex.case:4: STDERR: '(bogus' is no extended regex"
	self_has "$d/twice.case:4: a second EXIT in the case (the first at line 3)"
	self_has "$d/dup.case:6: NAME 'same' used twice"
	self_has "$d/empty.case:1: no case in it"
	self_has "$d/path.case:2: RUN: '/bin/true' is no tool name"
	self_has "FAIL test_keyword_malformed: malformed case file"
	self_has "test_usage.sh: 0 passed, 10 failed, 0 skipped"
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

test_runner_split() {
	usage_split "a  'b c' \"d \\\"e\\\" \\\$f\" g\\ h '' i'j'k \"l\\m\""
	t_assert_eq "${#WORDS[@]}" 7 "the number of words"
	t_assert_eq "$(printf '<%s>' "${WORDS[@]}")" '<a><b c><d "e" $f><g h><><ijk><l\m>' "the words"
	usage_split "x \"\$HOME\"" && t_fail "\$ in double quotes taken"
	t_assert_match "$SPLIT_ERR" 'nothing is expanded' "the reason"
	usage_split 'x; rm' && t_fail "an unquoted ; taken"
	usage_split "x '*' \\*" || t_fail "a quoted * refused: $SPLIT_ERR"
	t_assert_eq "$(printf '<%s>' "${WORDS[@]}")" '<x><*><*>' "quoted *"
}

[ -n "${USAGE_SELFTEST:-}" ] ||
	unset -f test_runner_malformed_files test_runner_failing_cases test_runner_split

t_run_all
