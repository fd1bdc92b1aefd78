#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sampled mode's user stacks unwound from .eh_frame (--call-graph dwarf,
# the default) on programs built without frame pointers:
# tests/helpers/deepstack (-O2 -fomit-frame-pointer: a 44-frame chain, a
# shared library called through and calling back, a signal handler,
# recursion), each sampled stack checked against gdb's backtrace at a
# breakpoint on the same function, and whole down to _start; Debian's
# python3.11, bash, gzip, sqlite3 and openssl (libcrypto), whose samples
# reach main at least as often
# as under `perf record --call-graph dwarf` of the same process, the
# functions' inclusive shares agreeing with `perf report --children`; a
# recording read by kd gives the same stacks; what cuts a stack short is
# shown and counted; --call-graph fp is today's frame-pointer walk (a
# chain of one or two frames: the test that fails without unwinding).
# shellcheck disable=SC2016 # awk and jq programs in single quotes
. "$(dirname "$0")/../lib.sh"

export LC_ALL=C
CG="$KFIT_BIN/callgraph"
KD="$KFIT_BIN/kd"
DS="$KFIT_HELPERS/deepstack"

need_tool() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$DS" ] || t_fail "$DS not built"
}

# The folded stacks of `deepstack SCENARIO 1` sampled at 499 Hz: folded.txt
sample_ds() {	# SCENARIO [callgraph-args...]
	local sc=$1
	shift
	"$CG" -S 499 --folded --output folded.txt "$@" -- "$DS" "$sc" 1 2>err.txt ||
		{ cat err.txt; t_fail "callgraph -- deepstack $sc failed"; }
	[ -s folded.txt ] || { cat err.txt; t_fail "deepstack $sc: no folded stacks"; }
}

# deepstack's own functions (and its library's), one a line
own_functions() {
	nm --defined-only "$DS" "$KFIT_HELPERS/libdeeplib.so" 2>/dev/null |
		awk '$2 ~ /^[Tt]$/ && $3 != "_start" { print $3 }' | sort -u
}

# The frames of a folded line, leaf first, one a line, the process's name left out
frames_of() {	# folded-line
	printf '%s\n' "${1% *}" | tr ';' '\n' | tail -n +2 | tac
}

# gdb's backtrace at a breakpoint on FUNC in `deepstack SCENARIO`: the
# function of each frame, innermost first
gdb_frames() {	# SCENARIO FUNC
	gdb -q -nx -batch -ex 'set debuginfod enabled off' -ex "break $2" -ex run -ex bt \
		--args "$DS" "$1" 0.2 2>/dev/null |
		awk '/^#[0-9]/ {
			if (/<signal handler called>/) { print "<signal>"; next }
			for (i = 2; i <= NF; i++) if ($i == "in") { print $(i + 1); next }
			print $2 }'
}

# kfit's and gdb's frames of the stacks whose leaf is spin, deepstack's
# own functions only (libc's between them depend on where the signal or
# the breakpoint fell; gdb stops at main), must be the same list
check_against_gdb() {	# SCENARIO
	local sc=$1 line kfit gdb n
	command -v gdb >/dev/null || t_fail "no gdb (apt-get install gdb)"
	own_functions >own.txt
	gdb_frames "$sc" spin | grep -Fxf own.txt >gdb.txt
	[ -s gdb.txt ] || t_fail "$sc: gdb gave no backtrace at spin"
	gdb=$(cat gdb.txt)
	# every sample whose user leaf is spin
	n=0
	while IFS= read -r line; do
		kfit=$(frames_of "$line" | grep -Fxf own.txt)
		[ "$kfit" = "$gdb" ] || {
			echo "gdb's:"; cat gdb.txt; echo "kfit's:"; printf '%s\n' "$kfit"
			t_fail "$sc: a sampled stack differs from gdb's backtrace"
		}
		n=$((n + 1))
	done < <(grep -E ';spin [0-9]+$' folded.txt)
	[ "$n" -gt 0 ] || { cat folded.txt; t_fail "$sc: no sample with spin on top"; }
	echo "$sc: $n stacks of spin, each as gdb's $(wc -l <gdb.txt) frames"
}

# Every sample of the program reaches _start: a stack cut short has none
# of its functions (the dynamic loader's start and _init have no
# call-frame information, in perf's unwinding too)
check_whole() {	# what
	local cut
	own_functions >own.txt
	grep -q ';_start;' folded.txt || { cat folded.txt; t_fail "$1: no stack reaches _start"; }
	cut=$(grep '\[cut: ' folded.txt | tr ';' '\n' | grep -Fxf own.txt || true)
	[ -z "$cut" ] || { grep '\[cut' folded.txt | head; t_fail "$1: stacks of the program cut short"; }
}

test_chain_deep() {
	need_tool
	sample_ds chain
	check_whole "chain"
	check_against_gdb chain
	t_assert_match "$(cat folded.txt)" ';main;c00;c01;.*;c40;c41;spin [0-9]+$' "the 44-frame chain"
}

test_through_shared_library() {
	need_tool
	sample_ds lib
	check_whole "lib"
	check_against_gdb lib
	t_assert_match "$(cat folded.txt)" ';main;l_a;dl_enter;dl_one;dl_two;l_back;spin [0-9]+$' \
		"program -> library -> program"
}

test_signal_handler() {
	need_tool
	sample_ds signal
	check_whole "signal"
	check_against_gdb signal
	# the handler's frames above the interrupted ones
	t_assert_match "$(cat folded.txt)" ';main;s_a;s_b;s_loop;.*;on_prof;h_a;spin [0-9]+$' \
		"the handler on the interrupted stack"
}

test_recursion() {
	need_tool
	sample_ds recurse
	check_whole "recurse"
	check_against_gdb recurse
}

# Functions inlined where a sample falls are frames of their own, named
# by DWARF; --lines puts each frame's source line, the call's line in the
# source for a caller; --no-inline leaves them out
test_inlined_frames_and_lines() {
	need_tool
	local src="$T_REPO/tests/helpers/deepstack.c" l_outer l_mid l_inner
	sample_ds inline
	t_assert_match "$(cat folded.txt)" ';main;i_outer;i_mid \(inlined\);i_inner \(inlined\);spin [0-9]+$' \
		"the inlined frames"
	# gdb shows inlined frames too
	gdb_frames inline spin | grep -E '^(spin|i_[a-z]+|main)$' >gdb.txt
	grep -E ';spin [0-9]+$' folded.txt | head -1 | sed 's/ [0-9]*$//; s/ (inlined)//g' |
		tr ';' '\n' | grep -E '^(spin|i_[a-z]+|main)$' | tac >kfit.txt
	t_assert_eq "$(tr '\n' ' ' <gdb.txt)" "spin i_inner i_mid i_outer main " "gdb's frames"
	cmp -s gdb.txt kfit.txt || { paste gdb.txt kfit.txt; t_fail "inline: not gdb's frames"; }
	sample_ds inline --no-inline
	t_assert_match "$(cat folded.txt)" ';main;i_outer;spin [0-9]+$' "--no-inline"
	sample_ds inline --lines
	l_outer=$(grep -n "i_outer's call" "$src" | cut -d: -f1)
	l_mid=$(grep -n "i_mid's call" "$src" | cut -d: -f1)
	l_inner=$(grep -n "i_inner's call" "$src" | cut -d: -f1)
	t_assert_match "$(cat folded.txt)" \
		";i_outer \(deepstack.c:$l_outer\);i_mid \(inlined\) \(deepstack.c:$l_mid\);i_inner \(inlined\) \(deepstack.c:$l_inner\);spin \(deepstack.c:[0-9]+\) [0-9]+$" \
		"each frame's line, the calls' lines in the source"
}

# Frame pointers alone (what sampled mode did before): the chain is lost
test_fp_walk_loses_the_chain() {
	need_tool
	sample_ds chain --call-graph fp
	grep -q ';c20;' folded.txt && { cat folded.txt; t_fail "--call-graph fp found the chain without frame pointers"; }
	true
}

# A copy too small for the chain: the stacks are cut, shown and counted
test_cut_short_said() {
	need_tool
	sample_ds chain --call-graph dwarf,256
	grep -q '^deepstack;\[cut: stack copy too small\];' folded.txt ||
		{ cat folded.txt; t_fail "no [cut: stack copy too small] frame"; }
	"$CG" -S 499 -j --output out.json --call-graph dwarf,256 -- "$DS" chain 0.5 2>err.txt ||
		t_fail "callgraph -j failed"
	t_assert_match "$(jq -r '.user_stacks.copy > 0 and .user_stacks.copy <= .samples' out.json)" \
		'^true$' "user_stacks.copy counts the stacks cut"
	"$CG" -S 499 --output out.txt --call-graph dwarf,256 -- "$DS" chain 0.5 2>err.txt ||
		t_fail "callgraph failed"
	t_assert_match "$(cat out.txt)" 'user stacks: [0-9]+ whole, [1-9][0-9]* cut short:' \
		"the summary's count"
	t_assert_match "$(cat out.txt)" '^  stack copy too small [1-9][0-9]*$' "the summary's reason"
}

# A recording read by kd: the same whole stacks as live
test_recording_same_stacks() {
	need_tool
	[ -x "$KD" ] || t_fail "$KD not built"
	"$CG" -S 499 -o rec.kft --tree --folded --output live.txt -- "$DS" lib 1 2>err.txt ||
		{ cat err.txt; t_fail "callgraph -o failed"; }
	"$KD" rec.kft --folded >kd.txt 2>kderr.txt || { cat kderr.txt; t_fail "kd failed"; }
	sort live.txt >a.txt
	sort kd.txt >b.txt
	cmp -s a.txt b.txt || { diff a.txt b.txt | head -20; t_fail "kd's stacks differ from callgraph's"; }
	t_assert_match "$(cat kd.txt)" ';_start;.*;main;l_a;dl_enter;dl_one;dl_two;l_back;spin' "kd's whole stacks"
}

bad_usage() {	# ARG
	t_expect_exit 2 "$CG" -S --call-graph "$1" -d 1
	t_assert_match "$(cat "$T_ERR")" "invalid --call-graph" "the message for '$1'"
}

test_bad_call_graph() {
	need_tool
	bad_usage dwarf,0
	bad_usage dwarf,1M
	bad_usage lbr
	bad_usage dwarf8k
}

# ---- Debian's programs, against perf --------------------------------------

# `perf record --call-graph dwarf` and callgraph on the same process at
# once, PID, for SECONDS: perf.data and folded.txt. 999 Hz each: shares
# of thousands of samples, whose difference between two samplers is
# within 5 points by far (a 50% share of 3,000 samples: 1.3 points of
# standard error for the difference)
both_sample() {	# PID SECONDS
	perf record -q -e cpu-clock -F 999 --call-graph dwarf -p "$1" -o perf.data \
		-- sleep "$2" >perf.out 2>&1 &
	local perf=$!
	"$CG" -S 999 -p "$1" -d "$2" --folded --output folded.txt 2>err.txt ||
		{ cat err.txt; t_fail "callgraph -p $1 failed"; }
	wait "$perf" || { cat perf.out; t_fail "perf record failed"; }
}

# The share of samples reaching __libc_start_call_main (under main,
# named by libc6-dbg where a stripped program's _start and main are not),
# in percent: kfit's and perf's
reach_shares() {
	local k p
	k=$(awk '{ n = $NF; t += n; if ($0 ~ /;__libc_start_call_main;/) s += n }
		END { if (t) printf "%.1f", 100 * s / t; else print 0 }' folded.txt)
	p=$(perf script -i perf.data --no-inline -F ip,sym 2>/dev/null | awk '
		/^$/ { if (seen) { t++; s += st } seen = 0; st = 0; next }
		{ seen = 1; if ($2 == "__libc_start_call_main") st = 1 }
		END { if (seen) { t++; s += st } if (t) printf "%.1f", 100 * s / t; else print 0 }')
	echo "$k $p"
}

# The inclusive shares of kfit's 10 first named functions, each within 5
# points of perf report --children's for the same name (--no-inline: the
# functions that run, as kfit's frames are; names perf spells another
# way, as __libc_start_main_impl, are passed over, 5 must compare)
check_children() {
	awk '{ n = $NF; t += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete seen
		for (i = 2; i <= k; i++) if (!(f[i] in seen) && f[i] !~ /[[ ]/) { seen[f[i]] = 1; c[f[i]] += n } }
		END { for (x in c) printf "%s %.2f\n", x, 100 * c[x] / t }' folded.txt |
		sort -k2 -n -r | head -10 >kfit_children.txt
	perf report -i perf.data --no-inline --children --stdio --sort sym -g none --percent-limit 0 2>/dev/null |
		awk '/^ +[0-9.]+%/ && !/\(inlined\)/ { c = $1; sub(/%/, "", c)
			name = $0; sub(/^.*\] /, "", name); sub(/ +$/, "", name)
			if (!(name in v)) v[name] = c }
		END { for (x in v) print x, v[x] }' >perf_children.txt
	local name share theirs n=0
	while read -r name share; do
		theirs=$(awk -v n="$name" '$1 == n { print $2 }' perf_children.txt)
		[ -n "$theirs" ] || continue
		n=$((n + 1))
		awk -v a="$share" -v b="$theirs" 'BEGIN { d = a - b; exit !(d < 5 && d > -5) }' || {
			cat kfit_children.txt
			t_fail "$name: $share% of kfit's samples, $theirs% of perf's (--children)"
		}
	done <kfit_children.txt
	[ "$n" -ge 5 ] || { cat kfit_children.txt perf_children.txt; t_fail "only $n of kfit's first 10 functions in perf's report"; }
	echo "$n of kfit's first 10 functions within 5 points of perf report --children"
}

real_program() {	# what SECONDS CMD...
	local what=$1 secs=$2 pid shares
	shift 2
	command -v perf >/dev/null || t_fail "no perf (apt-get install linux-perf)"
	"$@" >/dev/null 2>&1 &
	pid=$!
	t_on_exit "kill -KILL $pid 2>/dev/null"
	t_pause 0.3
	both_sample "$pid" "$secs"
	kill -KILL "$pid" 2>/dev/null
	shares=$(reach_shares)
	echo "$what: reaching __libc_start_call_main: kfit ${shares% *}%, perf --call-graph dwarf ${shares#* }%"
	awk -v s="$shares" 'BEGIN { split(s, a, " "); exit !(a[1] + 0 >= a[2] + 0 && a[1] > 0) }' ||
		t_fail "$what: kfit's stacks reach main less often than perf's ($shares)"
	check_children
}

test_python_against_perf() {
	need_tool
	[ -x /usr/bin/python3.11 ] || t_fail "no /usr/bin/python3.11 (apt-get install python3.11)"
	real_program python3.11 4 /usr/bin/python3.11 -c '
import hashlib, json
d = {"k%d" % i: [i, str(i) * 3] for i in range(2000)}
while True:
    hashlib.sha256(json.dumps(d).encode()).hexdigest()
    sorted(d.items(), key=lambda kv: kv[1][1])'
}

test_bash_against_perf() {
	need_tool
	real_program bash 3 /usr/bin/bash -c 'i=0; while :; do i=$((i+1)); s=${i}abc; s=${s//b/x}; done'
}

test_gzip_against_perf() {
	need_tool
	real_program gzip 3 sh -c 'exec /usr/bin/gzip -9 -c </dev/urandom >/dev/null'
}

test_sqlite3_against_perf() {
	need_tool
	[ -x /usr/bin/sqlite3 ] || t_fail "no /usr/bin/sqlite3 (apt-get install sqlite3)"
	real_program sqlite3 3 /usr/bin/sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1
		UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT sum(x) FROM c;'
}

# libcrypto's code under openssl's, with its SIGALRM
test_openssl_against_perf() {
	need_tool
	[ -x /usr/bin/openssl ] || t_fail "no /usr/bin/openssl (apt-get install openssl)"
	real_program openssl 3 /usr/bin/openssl speed -seconds 30 sha256
}

t_run_all
