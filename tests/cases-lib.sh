# SPDX-License-Identifier: GPL-2.0
# tests/cases-lib.sh: the runner of the tests as data, the case files of
# tests/cases/*/ (sourced after tests/lib.sh by tests/live/test_usage.sh,
# the usage errors, and tests/live/test_kd_cases.sh, kd's renders):
#
#	cases_define DIR	# one test_* function per case of DIR/*.case
#	cases_run_all		# t_run_all, then what KFIT_BLESS=1 rewrote
#
# A case file holds cases separated by blank lines; lines starting with '#'
# are comments:
#
#	NAME kd: --summary -f count of one iteration
#	SETUP kftgen -n 1 a.kft
#	RUN kd a.kft --summary -f count
#	EXIT 0
#	EXPECT
#	| Traced 5 functions (uprobe) and tracepoints for 700ms
#	| ...
#
# NAME  what the case checks (once, unique in its file)
# RUN   a tool of $KFIT_BIN and its arguments, split as a shell splits
#       them, with '...', "..." and \ quoting and nothing expanded: a
#       character a shell would expand or treat apart ($ ` ; & | < > ( )
#       * ? [ # ~ { }) must be quoted (once)
# EXIT  the exit status (once)
# STDERR, STDOUT  an extended regex (grep -E) that one line of the stream
#       must match (any number of them); a stream with none (and stdout
#       without EXPECT) must be empty
# EXPECT  stdout, exactly: the lines right after it that start with '|',
#       each '| TEXT' ('|' alone: an empty line); none: stdout is empty.
#       No value, no STDOUT with it (once)
# SETUP  a helper of $KFIT_HELPERS and its arguments, split as RUN's: run
#       before RUN in its directory, it must exit 0 (any number, in order)
# FILTER  a command of PATH and its arguments, split as RUN's: stdout goes
#       through it before STDOUT and EXPECT read it, e.g. jq -S . (once)
# STDIN FILE  the tool's stdin, FILE relative to the case file (at most
#       once; /dev/null otherwise)
# Trailing blanks are dropped, in the case files and in the stdout an
# EXPECT compares. The commands run with TZ=UTC, LC_ALL=C and no COLUMNS,
# each bounded by T_CMD_TIMEOUT seconds, in a directory empty but for what
# SETUP made, which RUN must leave as it found it. A failed check names its
# file and line, a wrong EXPECT with a unified diff (- expected, + got); a
# malformed file is one failing test naming its line. A case gives the
# same answer with or without privileges, on any machine.
#
# KFIT_BLESS=1: an EXPECT whose stdout differs is rewritten with what was
# printed, its test passing (the other checks still fail). A regeneration,
# not an oracle: read the new lines (git diff) against what the case says
# of them before committing them.

# ---- reading the case files ----------------------------------------------

# Characters that a shell expands or treats apart, unquoted in RUN
CASES_META='$`;&|<>()*?[#~{}'

# WORDS=(STRING split as a shell splits it, nothing expanded); on an error
# status 1 and SPLIT_ERR says why
cases_split() {	# STRING
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
			case $CASES_META in
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
cases_path() {
	case $1 in
	"$T_REPO"/*) printf '%s' "${1#"$T_REPO"/}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# The cases read, index i: file, name, the lines of NAME, RUN, EXIT, STDIN,
# EXPECT and FILTER, RUN's text, EXIT's status, STDIN's file, EXPECT's
# text (its lines, each ending in a newline), FILTER's text, and
# "LINE<TAB>TEXT" lines for STDERR, STDOUT and SETUP
C_N=0
C_FILE=() C_NAME=() C_NAMEL=() C_RUN=() C_RUNL=() C_EXIT=() C_EXITL=()
C_STDIN=() C_STDINL=() C_ERRS=() C_OUTS=() C_EXP=() C_EXPL=()
C_FILTER=() C_FILTERL=() C_SETUP=()

# One file's reading: its errors ("LINE: why") and the case being read
R_ERRS=()
c_err() { R_ERRS+=("$1: $2"); }	# LINE why

c_reset() {
	R_START=0 R_NAME="" R_NAMEL=0 R_RUN="" R_RUNL=0 R_EXIT="" R_EXITL=0
	R_STDIN="" R_STDINL=0 R_ERRE="" R_OUTE="" R_OUTL=0 R_EXP="" R_EXPL=0
	R_INEXP=0 R_FILTER="" R_FILTERL=0 R_SETUP=""
}

# The case read so far is complete: add it (or its errors)
c_end_case() {	# FILE
	[ "$R_START" = 0 ] && return 0
	local ok=1
	[ "$R_NAMEL" = 0 ] && { c_err "$R_START" "a case without NAME"; ok=; }
	[ "$R_RUNL" = 0 ] && { c_err "$R_START" "a case without RUN"; ok=; }
	[ "$R_EXITL" = 0 ] && { c_err "$R_START" "a case without EXIT"; ok=; }
	if [ "$R_EXPL" != 0 ] && [ "$R_OUTL" != 0 ]; then
		c_err "$R_OUTL" "STDOUT with EXPECT (line $R_EXPL): EXPECT says all of stdout"
		ok=
	fi
	if [ -n "$ok" ]; then
		C_FILE[C_N]=$1 C_NAME[C_N]=$R_NAME C_NAMEL[C_N]=$R_NAMEL
		C_RUN[C_N]=$R_RUN C_RUNL[C_N]=$R_RUNL
		C_EXIT[C_N]=$R_EXIT C_EXITL[C_N]=$R_EXITL
		C_STDIN[C_N]=$R_STDIN C_STDINL[C_N]=$R_STDINL
		C_ERRS[C_N]=$R_ERRE C_OUTS[C_N]=$R_OUTE
		C_EXP[C_N]=$R_EXP C_EXPL[C_N]=$R_EXPL
		C_FILTER[C_N]=$R_FILTER C_FILTERL[C_N]=$R_FILTERL
		C_SETUP[C_N]=$R_SETUP
		C_N=$((C_N + 1))
	fi
	c_reset
}

# Once per case: LINE KEY
c_once() {
	local l=$1 key=$2 prev
	case $key in
	NAME) prev=$R_NAMEL ;; RUN) prev=$R_RUNL ;;
	EXIT) prev=$R_EXITL ;; STDIN) prev=$R_STDINL ;;
	EXPECT) prev=$R_EXPL ;; FILTER) prev=$R_FILTERL ;;
	esac
	[ "$prev" = 0 ] && return 0
	c_err "$l" "a second $key in the case (the first at line $prev)"
	return 1
}

# A command line of RUN, SETUP or FILTER: its words, the first a plain
# name (of WHERE); status 1 after an error
c_command() {	# LINE KEY TEXT WHERE
	if ! cases_split "$3"; then
		c_err "$1" "$2: $SPLIT_ERR"
		return 1
	fi
	[[ ${WORDS[0]} =~ ^[A-Za-z0-9][-A-Za-z0-9_.+]*$ ]] && return 0
	c_err "$1" "$2: '${WORDS[0]}' is no $4"
	return 1
}

# Read FILE's cases; status 1 if it is malformed (R_ERRS say why), its
# cases then left out
cases_read() {	# FILE
	local f=$1 l=0 line key val first=$C_N
	R_ERRS=() R_NAMES_SEEN=$'\n'
	c_reset
	while IFS= read -r line || [ -n "$line" ]; do
		l=$((l + 1))
		line=${line%"${line##*[![:space:]]}"}
		if [ -z "$line" ]; then
			c_end_case "$f"
			continue
		fi
		case $line in
		'|'*)
			if [ "$R_INEXP" != 1 ]; then
				c_err "$l" "a '|' line away from EXPECT (its lines follow it, nothing between)"
				continue
			fi
			case $line in
			'|') R_EXP+=$'\n' ;;
			'| '*) R_EXP+=${line#'| '}$'\n' ;;
			*) c_err "$l" "'|' then a blank, then the line: '$(_t_short "$line")'" ;;
			esac
			continue
			;;
		esac
		R_INEXP=0
		case $line in '#'*) continue ;; esac
		if ! [[ $line =~ ^([A-Z]+)([[:blank:]]+(.*))?$ ]]; then
			c_err "$l" "not 'KEYWORD value': '$(_t_short "$line")'"
			continue
		fi
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[3]}
		[ "$R_START" = 0 ] && R_START=$l
		case $key in
		NAME | RUN | EXIT | STDIN | STDERR | STDOUT | EXPECT | SETUP | FILTER) ;;
		*)
			c_err "$l" "unknown keyword '$key' (NAME, RUN, EXIT, STDERR, STDOUT, EXPECT, STDIN, SETUP, FILTER)"
			continue
			;;
		esac
		if [ "$key" = EXPECT ]; then
			c_once "$l" EXPECT || continue
			R_EXPL=$l R_INEXP=1
			[ -n "$val" ] && c_err "$l" "EXPECT takes no value: stdout's lines follow it, each '| LINE'"
			continue
		fi
		if [ -z "$val" ]; then
			c_err "$l" "$key without a value"
			continue
		fi
		case $key in
		NAME)
			c_once "$l" NAME || continue
			R_NAME=$val R_NAMEL=$l
			case $R_NAMES_SEEN in
			*$'\n'"$val"$'\n'*) c_err "$l" "NAME '$val' used twice in the file" ;;
			esac
			R_NAMES_SEEN+=$val$'\n'
			;;
		RUN)
			c_once "$l" RUN || continue
			R_RUN=$val R_RUNL=$l
			c_command "$l" RUN "$val" "tool name (a file of KFIT_BIN)"
			;;
		SETUP)
			c_command "$l" SETUP "$val" "helper name (a file of KFIT_HELPERS)"
			R_SETUP+=$l$'\t'$val$'\n'
			;;
		FILTER)
			c_once "$l" FILTER || continue
			R_FILTER=$val R_FILTERL=$l
			c_command "$l" FILTER "$val" "command name (of PATH)"
			;;
		EXIT)
			c_once "$l" EXIT || continue
			R_EXIT=$val R_EXITL=$l
			[[ $val =~ ^[0-9]{1,3}$ ]] && [ "$val" -le 255 ] ||
				c_err "$l" "EXIT '$val': a status from 0 to 255"
			;;
		STDIN)
			c_once "$l" STDIN || continue
			R_STDIN=$val R_STDINL=$l
			;;
		STDERR | STDOUT)
			printf '' | grep -Eq -- "$val" 2>/dev/null
			if [ $? -gt 1 ]; then
				c_err "$l" "$key: '$val' is no extended regex (grep -E)"
				continue
			fi
			if [ "$key" = STDERR ]; then
				R_ERRE+=$l$'\t'$val$'\n'
			else
				R_OUTE+=$l$'\t'$val$'\n'
				[ "$R_OUTL" = 0 ] && R_OUTL=$l
			fi
			;;
		esac
	done <"$f"
	c_end_case "$f"
	[ "${#R_ERRS[@]}" = 0 ] && [ "$C_N" = "$first" ] && c_err 1 "no case in it"
	if [ "${#R_ERRS[@]}" != 0 ]; then
		C_N=$first	# its cases are left out
		return 1
	fi
	return 0
}

# ---- running a case ------------------------------------------------------

# A case's check failed: say where (FILE:LINE) and what
c_case_fail() {	# LINE why
	t_fail "$(cases_path "${C_FILE[C_I]}"):$1: ${C_NAME[C_I]}: $2"
}

# Run CMD as every command of a case runs: the same zone, locale and width
c_env() {	# CMD...
	env -u COLUMNS TZ=UTC LC_ALL=C timeout "$T_CMD_TIMEOUT" "$@"
}

# Every pattern of LIST ("LINE<TAB>REGEX" lines) matches a line of FILE;
# without patterns FILE is empty
c_check_stream() {	# FILE LIST what
	local file=$1 list=$2 what=$3 l re
	if [ -z "$list" ]; then
		[ -s "$file" ] && c_case_fail "${C_RUNL[C_I]}" \
			"output on $what, and no ${what^^} line of the case expects any: '$(head -n 1 "$file")'"
		return 0
	fi
	while IFS=$'\t' read -r l re; do
		grep -Eq -- "$re" "$file" ||
			c_case_fail "$l" "no line of $what matches /$re/: '$(_t_short "$(cat "$file")")'"
	done <<<"${list%$'\n'}"
}

# The SETUP commands, in the current directory
c_setup() {
	local l text tool rc
	[ -n "${C_SETUP[C_I]}" ] || return 0
	while IFS=$'\t' read -r l text; do
		echo "+ SETUP $text"
		cases_split "$text" || c_case_fail "$l" "SETUP: $SPLIT_ERR"
		tool=$KFIT_HELPERS/${WORDS[0]}
		[ -f "$tool" ] && [ -x "$tool" ] ||
			c_case_fail "$l" "no helper '${WORDS[0]}' in KFIT_HELPERS=$KFIT_HELPERS (make)"
		c_env "$tool" "${WORDS[@]:1}" >"$T_TMP/setup.out" 2>&1 </dev/null
		rc=$?
		[ "$rc" = 0 ] && continue
		cat "$T_TMP/setup.out"
		c_case_fail "$l" "SETUP exited $rc: '$(_t_short "$(cat "$T_TMP/setup.out")")'"
	done <<<"${C_SETUP[C_I]%$'\n'}"
}

# Stdout through FILTER into $T_TMP/filtered; sets C_STDOUT, the file read
c_filter() {
	local rc
	C_STDOUT=$T_OUT
	[ -n "${C_FILTER[C_I]}" ] || return 0
	cases_split "${C_FILTER[C_I]}" || c_case_fail "${C_FILTERL[C_I]}" "FILTER: $SPLIT_ERR"
	command -v "${WORDS[0]}" >/dev/null ||
		c_case_fail "${C_FILTERL[C_I]}" "FILTER: no command '${WORDS[0]}' on PATH"
	c_env "${WORDS[@]}" <"$T_OUT" >"$T_TMP/filtered" 2>"$T_TMP/filter.err"
	rc=$?
	C_STDOUT=$T_TMP/filtered
	[ "$rc" = 0 ] && return 0
	echo "--- stdout:"
	head -n 20 "$T_OUT"
	c_case_fail "${C_FILTERL[C_I]}" "FILTER exited $rc: '$(_t_short "$(cat "$T_TMP/filter.err")")'"
}

# The line of the case file where EXPECTED and GOT part: EXPECT's line
# plus the first line that differs
c_first_diff() {	# EXPECTED GOT
	local m n
	m=$(cmp -- "$1" "$2" 2>&1)
	case $m in
	*" differ: "*) n=${m##*line } ;;
	*"EOF on $1 which is empty"*) n=0 ;;
	*"EOF on $1 "*) n=${m##*line } ;;
	*"EOF on $2 which is empty"*) n=1 ;;
	*"EOF on $2 "*) n=${m##*line } n=$((${n%%[!0-9]*} + 1)) ;;
	*) n=1 ;;
	esac
	n=${n%%[!0-9]*}
	echo $((C_EXPL[C_I] + ${n:-1}))
}

# Stdout against EXPECT's lines: the diff shown (its first 30 lines, the
# end of the log the failure shows), or with KFIT_BLESS=1 the stdout kept
# for cases_run_all to write into the case file
c_expect() {
	local exp=$T_TMP/expected got=$T_TMP/got diff=$T_TMP/diff n
	printf '%s' "${C_EXP[C_I]}" >"$exp"
	sed 's/[[:blank:]]*$//' "$C_STDOUT" >"$got"
	diff -u --label "expected ($(cases_path "${C_FILE[C_I]}"):${C_EXPL[C_I]})" \
		--label "got (${C_RUN[C_I]}${C_FILTER[C_I]:+ | ${C_FILTER[C_I]}})" \
		"$exp" "$got" >"$diff" && return 0
	n=$(tail -n +3 "$diff" | grep -c '^[-+]')
	n="$n line$([ "$n" = 1 ] || echo s)"
	if [ "${KFIT_BLESS:-}" = 1 ] && [ -n "${CASES_BLESS_DIR:-}" ]; then
		cp "$got" "$CASES_BLESS_DIR/c$C_I" || t_fail "cannot keep the stdout in $CASES_BLESS_DIR"
		echo "KFIT_BLESS=1: EXPECT at line ${C_EXPL[C_I]} to be rewritten ($n differ):"
		cat "$diff"
		return 0
	fi
	echo "--- stdout is not EXPECT's ($n differ; - expected, + got):"
	head -n 30 "$diff"
	[ "$(wc -l <"$diff")" -gt 30 ] &&
		echo "... $(($(wc -l <"$diff") - 30)) more lines of diff (T_KEEP_TMP=1 keeps $exp and $got)"
	c_case_fail "$(c_first_diff "$exp" "$got")" \
		"stdout is not EXPECT's (line ${C_EXPL[C_I]}): $n differ, the first here (the diff above)"
}

cases_case() {	# INDEX
	C_I=$1
	local where tool rc stdin before after
	where="$(cases_path "${C_FILE[C_I]}"):${C_NAMEL[C_I]}"
	echo "case $where: ${C_NAME[C_I]}"
	mkdir "$T_TMP/cwd" && cd "$T_TMP/cwd" || t_fail "cannot make $T_TMP/cwd"
	c_setup
	echo "+ ${C_RUN[C_I]}"
	cases_split "${C_RUN[C_I]}" || c_case_fail "${C_RUNL[C_I]}" "RUN: $SPLIT_ERR"
	tool=$KFIT_BIN/${WORDS[0]}
	[ -f "$tool" ] && [ -x "$tool" ] ||
		c_case_fail "${C_RUNL[C_I]}" "no tool '${WORDS[0]}' in KFIT_BIN=$KFIT_BIN (make)"
	stdin=/dev/null
	if [ -n "${C_STDIN[C_I]}" ]; then
		stdin=$(dirname "${C_FILE[C_I]}")/${C_STDIN[C_I]}
		[ -f "$stdin" ] && [ -r "$stdin" ] ||
			c_case_fail "${C_STDINL[C_I]}" "STDIN: no file $stdin"
	fi
	before=$(ls -A)
	c_env "$tool" "${WORDS[@]:1}" >"$T_OUT" 2>"$T_ERR" <"$stdin"
	rc=$?
	after=$(ls -A)
	cd "$T_TMP" || t_fail "cannot go back to $T_TMP"
	echo "--- exit $rc; stderr:"
	head -n 20 "$T_ERR"
	if [ "${C_EXPL[C_I]}" = 0 ]; then
		echo "--- stdout:"
		head -n 20 "$T_OUT"
	fi
	echo "---"
	case $rc in
	124 | 143) [ "${C_EXIT[C_I]}" = "$rc" ] ||
		c_case_fail "${C_EXITL[C_I]}" "exited $rc (killed after ${T_CMD_TIMEOUT}s?), expected ${C_EXIT[C_I]}" ;;
	esac
	[ "$rc" = "${C_EXIT[C_I]}" ] ||
		c_case_fail "${C_EXITL[C_I]}" "exited $rc, expected ${C_EXIT[C_I]}: '$(head -n 1 "$T_ERR")'"
	c_check_stream "$T_ERR" "${C_ERRS[C_I]}" stderr
	c_filter
	if [ "${C_EXPL[C_I]}" != 0 ]; then
		c_expect
	else
		c_check_stream "$C_STDOUT" "${C_OUTS[C_I]}" stdout
	fi
	[ "$before" = "$after" ] && return 0
	c_case_fail "${C_RUNL[C_I]}" "it changed its directory: $(echo $before) -> $(echo $after)"
}

# ---- one test per case ---------------------------------------------------

# A function name's part: letters, digits and single '_'
cases_ident() {	# STRING [MAX length]
	local s=${1//[!A-Za-z0-9]/_}
	while [[ $s == *__* ]]; do s=${s//__/_}; done
	s=${s#_}
	s=${s:0:${2:-${#s}}}
	printf '%s' "${s%_}"
}

# test_FILE_NN_NAME for each case of DIR/FILE.case, in the files' order
cases_define() {	# DIR
	local dir=$1 f base i=0 n k slug msg files=()
	if [ ! -d "$dir" ]; then
		eval "test_cases_dir() { t_fail \"$dir is not a directory\"; }"
		return
	fi
	for f in "$dir"/*.case; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ "${#files[@]}" = 0 ]; then
		eval "test_cases_dir() { t_fail \"no *.case file in $dir\"; }"
		return
	fi
	for f in "${files[@]}"; do
		base=$(cases_ident "$(basename "$f" .case)")
		n=$C_N
		if ! cases_read "$f"; then
			# one failing test, every error in its log
			C_BAD_LOG[C_BAD]=$(for msg in "${R_ERRS[@]}"; do
				printf '%s:%s\n' "$(cases_path "$f")" "$msg"
			done)
			msg="$(cases_path "$f"):${R_ERRS[0]}"
			[ "${#R_ERRS[@]}" -gt 1 ] && msg="$msg (and $((${#R_ERRS[@]} - 1)) more)"
			C_BAD_MSG[C_BAD]=$msg
			eval "test_${base}_malformed() { cases_malformed $C_BAD; }"
			C_BAD=$((C_BAD + 1))
			continue
		fi
		k=1
		for ((i = n; i < C_N; i++)); do
			slug=$(cases_ident "${C_NAME[i]#"$(basename "$f" .case)": }" 48)
			# zero-padded: the definition order is the file's
			eval "test_${base}_$(printf '%02d' "$k")${slug:+_$slug}() { cases_case $i; }"
			k=$((k + 1))
		done
	done
}

# The malformed files: their first error, and all of them
C_BAD=0 C_BAD_MSG=() C_BAD_LOG=()
cases_malformed() {	# INDEX
	echo "${C_BAD_LOG[$1]}"
	t_fail "malformed case file: ${C_BAD_MSG[$1]}"
}

# ---- KFIT_BLESS=1 ---------------------------------------------------------

# Rewrite the EXPECT lines of the cases whose stdout c_expect kept
c_bless_write() {
	local i f files=() list seen=$'\n'
	for ((i = 0; i < C_N; i++)); do
		[ -f "$CASES_BLESS_DIR/c$i" ] || continue
		f=${C_FILE[i]}
		case $seen in *$'\n'"$f"$'\n'*) ;; *) files+=("$f") seen+=$f$'\n' ;; esac
		echo "blessed: $(cases_path "$f"):${C_EXPL[i]}: ${C_NAME[i]}"
	done
	[ "${#files[@]}" = 0 ] && return 0
	for f in "${files[@]}"; do
		list=""
		for ((i = 0; i < C_N; i++)); do
			[ -f "$CASES_BLESS_DIR/c$i" ] && [ "${C_FILE[i]}" = "$f" ] &&
				list+=${C_EXPL[i]}$'\t'$CASES_BLESS_DIR/c$i$'\n'
		done
		# the EXPECT line, the new lines, and not the old ones after it
		awk -v list="$list" '
			BEGIN {
				n = split(list, a, "\n")
				for (i = 1; i <= n; i++)
					if (split(a[i], p, "\t") == 2)
						got[p[1]] = p[2]
			}
			skip && /^\|/ { next }
			{ skip = 0 }
			FNR in got {
				print
				while ((getline l < got[FNR]) > 0)
					print (l == "" ? "|" : "| " l)
				close(got[FNR])
				skip = 1
				next
			}
			{ print }
		' "$f" >"$CASES_BLESS_DIR/new" && cat "$CASES_BLESS_DIR/new" >"$f" ||
			{ echo "cannot rewrite $f"; return 1; }
	done
	echo "KFIT_BLESS=1: ${#files[@]} case file(s) rewritten: check every new line (git diff) before committing"
}

# The tests, then with KFIT_BLESS=1 the rewritten EXPECT lines
cases_run_all() {
	local rc
	CASES_BLESS_DIR=""	# not one a calling run made
	if [ "${KFIT_BLESS:-}" = 1 ]; then
		CASES_BLESS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kfit-bless.XXXXXX") || exit 1
		export CASES_BLESS_DIR
	fi
	t_run_all
	rc=$?
	if [ -n "${CASES_BLESS_DIR:-}" ]; then
		c_bless_write || rc=1
		rm -rf "$CASES_BLESS_DIR"
	fi
	return "$rc"
}
