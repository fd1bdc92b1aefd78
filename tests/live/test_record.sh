#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of callgraph -o (recording into a kfit trace file) on the
# running kernel (root): cgshape's trees recorded and read back, events
# only, fork and exec, a forced overflow, the size cap, the flight
# recorder (SIGUSR1 and the end), the ends by signal, --stop-at, sampled
# stacks named in the file, a truncated file, and the errors. Files are
# read with tests/helpers/kftdump (the reader's facts, one a line) and,
# where it is built, with kd, whose tree must be callgraph's, byte for byte.
# shellcheck disable=SC2046 # cg_targets' words
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/callgraph-lib.sh"

export LC_ALL=C
: "${CG_WAIT:=30}"
DUMP="$KFIT_HELPERS/kftdump"
KD="$KFIT_BIN/kd"
CGHOT="$KFIT_HELPERS/cghot"

need_tool() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$CGS" ] || t_fail "$CGS not built"
	[ -x "$DUMP" ] || t_fail "$DUMP not built"
}

# The facts of a file into FILE.dump; it must open
dump() {	# FILE
	"$DUMP" "$1" >"$1.dump" 2>"$1.dump.err" || {
		cat "$1.dump.err"
		t_fail "kftdump $1 failed"
	}
}

# A fact of the dump: "complete", "meta KEY", "stats KEY", "type NAME"...
fact() {	# FILE WORDS...
	local f=$1
	shift
	case $1 in
	meta | stats) sed -n "s/^$1 $2=//p" "$f.dump" | head -n 1 ;;
	*) awk -v k="$*" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' "$f.dump" ;;
	esac
}

num_fact() {	# FILE WORDS...
	local v
	v=$(fact "$@")
	_t_is_num "$v" || t_fail "$*: not a number in the dump: '$v'"
	echo "$v"
}

# A complete file, its chunks all readable
assert_complete() {	# FILE what
	dump "$1"
	t_assert_eq "$(fact "$1" complete)" 1 "$2: complete (footer and index)"
	t_assert_eq "$(fact "$1" bad_chunks)" 0 "$2: unreadable chunks"
}

# callgraph's closing line, its numbers those of the file
assert_summary() {	# FILE ERRFILE
	local line recs n unit=chunks
	line=$(grep '^recorded ' "$2") || { t_show_file "$2" stderr; t_fail "no 'recorded ...' line"; }
	n=$(fact "$1" chunks)
	[ "$n" = 1 ] && unit=chunk
	t_assert_match "$line" "^recorded [0-9]+ records? \([0-9]+ bytes raw\) into $1: $(stat -c %s "$1") bytes, $n $unit, $(fact "$1" stats lost) lost\$" "the closing line"
	recs=$(echo "$line" | awk '{ print $2 }')
	t_assert_eq "$recs" "$(fact "$1" stats records)" "records said and in STATS"
}

bg_start() { t_bg_start "$CG" "$@"; }
bg_wait_tracing() { t_bg_wait_tracing "$CG_WAIT"; }

cgs_start() {	# SCENARIO N
	t_held_start "$CGS" -w "$1" "$2"
	CGS_PID=$HELD_PID
}

# cgshape SCENARIO N recorded with -p into FILE (ARGS added); it ends
# with cgshape, status 0
recorded_run() {	# FILE SCENARIO N callgraph-args...
	local file=$1 sc=$2 n=$3
	shift 3
	cgs_start "$sc" "$n"
	bg_start -o "$file" -p "$CGS_PID" "$@" $(cg_targets "$sc")
	bg_wait_tracing
	t_held_go
	t_bg_wait_exit 30
	[ "$BG_RC" = 0 ] || { t_show_file "$T_TMP/bg.err" stderr; t_fail "callgraph exited $BG_RC"; }
}

# ---- usage ----------------------------------------------------------------
# -o's options misused (--size, --flight, --chunk, --tree), no file left:
# tests/cases/usage/callgraph.case

# Nothing attached, nothing left: the path is checked first
test_unwritable() {
	local snap
	need_tool
	snap=$(t_bpf_snapshot)
	t_expect_exit 1 "$CG" -o /nonexistent/x.kft -e syscalls:sys_enter_write -d 5
	t_assert_match "$(cat "$T_ERR")" '^callgraph: cannot write /nonexistent/x.kft: No such file or directory$' "message"
	grep -q '^Tracing' "$T_ERR" && t_fail "it began tracing"
	t_bpf_assert_same "$snap" "after -o /nonexistent/x.kft"
	t_expect_exit 1 "$CG" -o "$T_TMP" -e syscalls:sys_enter_write -d 5
	t_assert_match "$(cat "$T_ERR")" 'a directory' "a directory as FILE"
	t_bpf_assert_same "$snap" "after -o DIR"
}

# ---- round trips ------------------------------------------------------------

# cgshape nest 3 (5 calls each): the calls in the file, the tables, and
# with --tree the tree printed too
test_nest_recorded() {
	need_tool
	recorded_run n.kft nest 3 --tree
	assert_complete n.kft "nest"
	assert_summary n.kft "$T_TMP/bg.err"
	t_assert_eq "$(fact n.kft type call)" 15 "call records"
	t_assert_eq "$(fact n.kft meta mode)" exact "META mode"
	t_assert_eq "$(fact n.kft meta mechanism)" uprobe "META mechanism"
	t_assert_eq "$(fact n.kft meta pid)" "$CGS_PID" "META pid"
	t_assert_match "$(fact n.kft meta cmdline)" "callgraph -o n.kft -p $CGS_PID --tree " "META cmdline"
	t_assert_eq "$(fact n.kft meta uname.release)" "$(uname -r)" "META uname.release"
	t_assert_match "$(fact n.kft meta clock.realtime_offset_ns)" '^[0-9]{10,}$' "META realtime offset"
	t_assert_match "$(grep '^func ' n.kft.dump)" "^func 0 u cg_a $CGS [0-9a-f]{40}\$" "FUNCS: cg_a with the build-id"
	t_assert_eq "$(grep -c '^func ' n.kft.dump)" 4 "FUNCS lines"
	t_assert_match "$(grep '^task ' n.kft.dump)" "^task $CGS_PID $CGS_PID [0-9]+ cgshape\$" "TASKS: cgshape"
	t_assert_match "$(cat "$T_TMP/bg.out")" '^ +[0-9.]+s +[0-9.]+[mun]?s .* cg_a( => .*)?$' "the tree printed (--tree)"
	t_assert_eq "$(grep -Ec ' cg_b( => .*)?$' "$T_TMP/bg.out")" 3 "cg_b in the tree printed"
}

# kd FILE prints what callgraph --tree printed live, byte for byte
test_kd_same_tree() {
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	recorded_run k.kft nest 2 --tree
	t_expect_exit 0 "$KD" k.kft
	if ! cmp -s "$T_OUT" "$T_TMP/bg.out"; then
		diff "$T_TMP/bg.out" "$T_OUT" | head -n 30
		t_fail "kd's tree differs from callgraph's"
	fi
}

# The same run shown live as the kd table and JSON, and by kd from its file
test_kd_same_summary_json() {
	local form
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	for form in --summary -j --folded; do
		recorded_run s.kft threads 2 "$form"
		t_expect_exit 0 "$KD" "$form" s.kft
		if ! cmp -s "$T_OUT" "$T_TMP/bg.out"; then
			diff "$T_TMP/bg.out" "$T_OUT" | head -n 30
			t_fail "kd $form differs from callgraph's"
		fi
	done
}

# -e alone: every write of dd, nothing lost at this pace
# The fields of events kd decodes from the recorded format, strings of
# __data_loc fields included: checked against what exec'd, and dd's writes
test_event_fields() {
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	t_expect_exit 0 "$CG" -o f.kft -e sched:sched_process_exec -e syscalls:sys_enter_write \
		-- sh -c 'exec dd if=/dev/zero of=/dev/null bs=1234 count=3'
	t_expect_exit 0 "$KD" --events f.kft
	grep -Eq "dd-[0-9]+ +event +sched:sched_process_exec filename=\"[^\"]*/dd\" pid=[0-9]+" "$T_OUT" ||
		t_fail "no exec of dd with its file name"
	t_assert_eq "$(grep -c 'syscalls:sys_enter_write __syscall_nr=1 fd=1 buf=0x[0-9a-f]* count=1234$' "$T_OUT")" 3 \
		"dd's three writes of 1234 bytes to fd 1"
}

# A window read through the index: the records in it are those of the
# whole listing between the same times, and the tasks keep the names they
# took before it (the NAMES block), not "<...>"
test_window_names() {
	local t0 t1 all
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	t_expect_exit 0 "$CG" -o w.kft --chunk 16k -e syscalls:sys_enter_write \
		-- sh -c 'sleep 0.2; exec dd if=/dev/zero of=/dev/null bs=4k count=200000'
	t_expect_exit 0 "$KD" --events w.kft
	all=$T_TMP/all.txt
	cp "$T_OUT" "$all"
	t_expect_exit 0 "$KD" --info w.kft
	grep -Eq '^chunks: +([2-9]|[1-9][0-9]+) ' "$T_OUT" || t_fail "one chunk: no index to seek"
	# the 1000th and 2000th write of dd, in seconds from the start
	t0=$(awk '$4 == "event" { if (++n == 1000) { print $1; exit } }' "$all")
	t1=$(awk '$4 == "event" { if (++n == 2000) { print $1; exit } }' "$all")
	[ -n "$t0" ] && [ -n "$t1" ] || t_fail "fewer than 2000 writes listed"
	t_expect_exit 0 "$KD" --events --since "${t0}s" --until "${t1}s" w.kft
	t_assert_eq "$(awk -v a="$t0" -v b="$t1" 'NR > 1 && $1 >= a && $1 < b' "$all" | wc -l)" \
		"$(awk 'NR > 1' "$T_OUT" | wc -l)" "records between ${t0}s and ${t1}s"
	grep -q '<\.\.\.>' "$T_OUT" && t_fail "tasks unnamed in the window"
	grep -Eq '^ +[0-9.]+ +[0-9]+ dd-[0-9]+ +event' "$T_OUT" || t_fail "dd not named in the window"
}

test_events_only() {
	need_tool
	t_expect_exit 0 "$CG" -o e.kft -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=20000
	assert_complete e.kft "events"
	assert_summary e.kft "$T_ERR"
	[ "$(num_fact e.kft type event)" -ge 20000 ] || t_fail "$(fact e.kft type event) event records, expected dd's 20000 writes at least"
	t_assert_eq "$(fact e.kft type call)" 0 "call records"
	t_assert_eq "$(fact e.kft event 0)" syscalls:sys_enter_write "EVENTS"
	t_assert_eq "$(fact e.kft stats lost)" 0 "lost"
	t_assert_eq "$(fact e.kft stats records.event)" "$(fact e.kft type event)" "STATS records.event"
	grep -q '^func ' e.kft.dump && t_fail "FUNCS without functions"
	# 72 bytes per write (its 40 bytes of data, not 64), 48 per task record
	t_assert_eq "$(num_fact e.kft stats bytes)" "$((72 * $(num_fact e.kft type event) +
		48 * ($(num_fact e.kft type fork) + $(num_fact e.kft type exec) + $(num_fact e.kft type exit))))" \
		"raw bytes: 72 per event record"
	[ "$(stat -c %s e.kft)" -lt $((20000 * 16)) ] || t_fail "$(stat -c %s e.kft) bytes for 20000 events"
	# the totals per CPU add up to the records
	if [ -x "$KD" ]; then
		t_expect_exit 0 "$KD" --info e.kft
		t_assert_eq "$(sed -n 's/^per CPU: *//p' "$T_OUT" | tr ',' '\n' |
			awk '{ n += $3 } END { print n + 0 }')" "$(fact e.kft stats records)" \
			"records per CPU, summed"
	fi
}

# The recorder stopped (SIGINT), then the writer $pid killed: FILE is
# complete, nothing lost, and kd --events lists it (in $T_OUT)
stop_writer() {	# FILE what
	t_bg_stop_ok INT
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	grep 'still staged at the end' "$T_TMP/bg.err" || true
	assert_complete "$1" "$2"
	t_assert_eq "$(fact "$1" stats lost)" 0 "lost"
	t_expect_exit 0 "$KD" --events "$1"
}

# Events go into the rings in batches staged per CPU (kfit/callgraph.h's
# cg_stage): every write of real programs is in the file once, against
# counts made by others: strace -c -f's calls of write in a run of dd,
# gzip and cat, and the kernel's syscw (/proc/PID/io) of a shell that
# writes, then spins without a system call while callgraph stops (what is
# still staged then is read from the map); kd reads both files
test_staged_writes_counted() {
	local want got pid before after i
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	command -v strace >/dev/null || t_skip "strace is not installed"
	head -c 3000000 /dev/urandom >data
	t_expect_exit 0 "$CG" -o sw.kft -e syscalls:sys_enter_write -- \
		strace -f -qq -c -e trace=write -o strace.txt sh -c 'dd if=/dev/zero of=/dev/null bs=512 count=20000 2>/dev/null & gzip -1 -c data >/dev/null & dd if=/dev/zero bs=4k count=10000 2>/dev/null | cat >/dev/null; wait'
	want=$(awk '$NF == "write" { print $4 }' strace.txt)
	_t_is_num "$want" || { t_show_file strace.txt "strace -c"; t_fail "no count of write in strace's table"; }
	[ "$want" -ge 30000 ] || t_fail "strace counted $want writes, expected the two dd's 30000 at least"
	assert_complete sw.kft "under strace"
	t_assert_eq "$(fact sw.kft stats lost)" 0 "lost"
	t_expect_exit 0 "$KD" --events sw.kft
	got=$(awk '$4 == "event" && $5 == "syscalls:sys_enter_write" && $3 !~ /^strace-/' "$T_OUT" | wc -l)
	t_assert_eq "$got" "$want" "writes in the file (strace's own left out), as strace -c counted them"
	t_expect_exit 0 "$KD" sw.kft

	mkfifo go
	bash -c 'read -r _ <go; for ((i = 0; i < 30000; i++)); do echo x; done >/dev/null; while :; do :; done' &
	pid=$!
	t_on_exit "kill -9 $pid 2>/dev/null"
	bg_start -v -o sp.kft -p "$pid" -e syscalls:sys_enter_write
	bg_wait_tracing
	before=$(awk '$1 == "syscw:" { print $2 }' "/proc/$pid/io")
	echo >go
	# its writes done when syscw stands still; then it only spins
	after=-1
	for i in $(seq 1 300); do
		t_pause 0.2
		[ "$(awk '$1 == "syscw:" { print $2 }' "/proc/$pid/io")" = "$after" ] && break
		after=$(awk '$1 == "syscw:" { print $2 }' "/proc/$pid/io")
	done
	[ $((after - before)) -ge 30000 ] || t_fail "syscw went from $before to $after, expected 30000 writes"
	stop_writer sp.kft "a spinning writer"
	got=$(awk -v p="$pid" '$4 == "event" && $5 == "syscalls:sys_enter_write" && $3 ~ "-" p "$"' "$T_OUT" | wc -l)
	t_assert_eq "$got" "$((after - before))" "the shell's writes in the file, as its syscw counted them"
	t_expect_exit 0 "$KD" sp.kft

	# Stopped while a shell writes 1, 2, ... 4000, 1, 2... bytes: its
	# writes in the file are a run of those sizes in time order, none
	# missing or twice, whatever was still staged at the stop included
	bash -c 'for ((i = 0; ; i++)); do printf "%*s" $((i % 4000 + 1)) ""; done >/dev/null' &
	pid=$!
	t_on_exit "kill -9 $pid 2>/dev/null"
	bg_start -v -o run.kft -p "$pid" -e syscalls:sys_enter_write
	bg_wait_tracing
	t_pause 1
	stop_writer run.kft "stopped while writing"
	awk -v p="$pid" '$4 == "event" && $3 ~ "-" p "$" { sub(/.*count=/, ""); print }' "$T_OUT" >sizes
	[ "$(wc -l <sizes)" -ge 1000 ] || t_fail "$(wc -l <sizes) writes recorded in 1 s"
	awk 'NR > 1 && $1 != prev % 4000 + 1 { print NR ": " prev " then " $1; bad = 1 }
		{ prev = $1 } END { exit bad }' sizes || t_fail "the sizes written are no run 1, 2, ... 4000"
}

# --rings 3: the writes of two dd (forked by sh, each exec'd in a ring
# of its own, perhaps drained before sh's fork) all in the file, named dd
# by kd; a threads recording read back by kd as callgraph showed it
test_rings_recorded() {
	need_tool
	[ -x "$KD" ] || t_skip "kd is not built"
	t_expect_exit 0 "$CG" -o r.kft --rings 3 -e syscalls:sys_enter_write -- \
		sh -c 'dd if=/dev/zero of=/dev/null bs=4k count=20000; dd if=/dev/zero of=/dev/null bs=4k count=10000'
	assert_complete r.kft "3 rings"
	assert_summary r.kft "$T_ERR"
	t_assert_eq "$(fact r.kft meta rings)" 3 "META rings"
	t_assert_eq "$(fact r.kft stats lost)" 0 "lost"
	t_expect_exit 0 "$KD" --events r.kft
	t_assert_eq "$(grep -Ec '^ *[0-9.]+ +[0-9]+ +dd-[0-9]+ +event +syscalls:sys_enter_write __syscall_nr=1 fd=1 buf=0x[0-9a-f]+ count=4096$' "$T_OUT")" 30000 \
		"dd's writes of 4096 bytes, named dd"
	t_expect_exit 0 "$KD" r.kft
	[ "$(grep -c '^== pid [0-9]* tid [0-9]* (dd) ==$' "$T_OUT")" = 2 ] &&
		[ "$(grep -c '^== pid [0-9]* tid [0-9]* (sh) ==$' "$T_OUT")" = 1 ] || {
		t_show_file "$T_OUT" "kd r.kft"
		t_fail "expected the trees of 2 dd and of sh"
	}
	recorded_run t4.kft threads 5 --rings 4 --tree
	assert_complete t4.kft "threads, 4 rings"
	t_assert_eq "$(fact t4.kft type call)" 70 "call records (4 threads, 5 times cg_thread_k and k + 1 cg_leaf)"
	t_expect_exit 0 "$KD" t4.kft
	if ! cmp -s "$T_OUT" "$T_TMP/bg.out"; then
		diff "$T_TMP/bg.out" "$T_OUT" | head -n 30
		t_fail "kd's tree of a 4-ring recording differs from callgraph's"
	fi
}

# A COMMAND that forks and execs: the exec records name the new programs
test_fork_exec() {
	need_tool
	t_expect_exit 0 "$CG" -o x.kft -e syscalls:sys_enter_nanosleep \
		-e syscalls:sys_enter_clock_nanosleep -- sh -c 'sleep 0.01; exec sleep 0.01'
	assert_complete x.kft "fork and exec"
	t_assert_match "$(grep '^exec ' x.kft.dump)" '^exec [0-9]+ sh$' "exec of sh"
	[ "$(grep -c '^exec [0-9]* sleep$' x.kft.dump)" = 2 ] || {
		grep '^exec ' x.kft.dump
		t_fail "expected 2 exec records of sleep (a child's, and sh's own exec)"
	}
	[ "$(num_fact x.kft type fork)" -ge 1 ] || t_fail "no fork record"
	[ "$(num_fact x.kft type exit)" -ge 2 ] || t_fail "fewer than 2 exit records"
}

# cgshape's fork scenario: the child's calls in the file, under its own tid
test_fork_calls() {
	need_tool
	recorded_run f.kft fork 2
	assert_complete f.kft "fork"
	# per fork: parent cg_forker, cg_wait; child cg_child, 3 cg_leaf, its cg_forker
	t_assert_eq "$(fact f.kft type call)" 14 "call records"
	t_assert_eq "$(fact f.kft type fork)" 2 "fork records"
}

# -b 4k cannot hold dd's writes: the losses are counted in STATS, per CPU,
# as LOST records, and said
test_overflow() {
	need_tool
	t_expect_exit 0 "$CG" -o o.kft -b 4k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=200000
	assert_complete o.kft "overflow"
	assert_summary o.kft "$T_ERR"
	[ "$(num_fact o.kft stats lost)" -gt 0 ] || t_fail "nothing lost with -b 4k"
	[ "$(num_fact o.kft type lost)" -ge 1 ] || t_fail "no LOST record"
	grep -q '^stats lost.cpu[0-9]*=[1-9]' o.kft.dump || t_fail "no lost.cpuN in STATS"
	t_assert_eq "$(fact o.kft stats counter.lost)" "$(fact o.kft stats lost)" "the BPF counter and STATS"
}

# --size: the file stops at the cap, complete; the run ends by itself
test_size_cap() {
	need_tool
	t_expect_exit 0 "$CG" -o c.kft --size 64k --chunk 8k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=5000000
	t_assert_match "$(cat "$T_ERR")" '^callgraph: size cap reached$' "message"
	assert_complete c.kft "capped"
	assert_summary c.kft "$T_ERR"
	[ "$(stat -c %s c.kft)" -le 65536 ] || t_fail "$(stat -c %s c.kft) bytes > the 64k cap"
	t_assert_eq "$(fact c.kft stats size_capped)" 1 "STATS size_capped"
	[ "$(num_fact c.kft chunks)" -ge 2 ] || t_fail "fewer than 2 chunks"
}

# --flight: SIGUSR1 writes the file and the recording goes on; at the end
# only the most recent chunks are there, fewer than a streamed recording
test_flight() {
	local _
	need_tool
	bg_start -o fl.kft --flight 32k --chunk 8k -e syscalls:sys_enter_write
	bg_wait_tracing
	dd if=/dev/zero of=/dev/null bs=4k count=100000 2>/dev/null
	kill -USR1 "$BG"
	for _ in $(seq 100); do
		grep -q 'flight recording written' "$T_TMP/bg.err" && break
		t_pause 0.1
	done
	grep -q 'flight recording written' "$T_TMP/bg.err" || { t_show_file "$T_TMP/bg.err" stderr; t_fail "no dump on SIGUSR1"; }
	kill -0 "$BG" 2>/dev/null || t_fail "it ended on SIGUSR1"
	assert_complete fl.kft "the dump"
	t_assert_eq "$(fact fl.kft flags)" 1 "KFT_F_FLIGHT"
	[ "$(num_fact fl.kft stats chunks_dropped)" -gt 0 ] || t_fail "no chunk dropped by the dump"
	cp fl.kft first.kft
	dump first.kft
	dd if=/dev/zero of=/dev/null bs=4k count=100000 2>/dev/null
	t_bg_stop_ok INT
	assert_complete fl.kft "at the end"
	assert_summary fl.kft "$T_TMP/bg.err"
	[ "$(num_fact fl.kft stats chunks_dropped)" -gt "$(num_fact first.kft stats chunks_dropped)" ] ||
		t_fail "no more chunks dropped after the second dd"
	# the oldest record kept is past everything the first dump held
	[ "$(num_fact fl.kft first_ts)" -gt "$(num_fact first.kft last_ts)" ] ||
		t_fail "the last file starts at $(fact fl.kft first_ts), before the first dump's end $(fact first.kft last_ts)"
	# the same work streamed takes more room
	t_expect_exit 0 "$CG" -o s.kft --chunk 8k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=100000
	[ "$(stat -c %s fl.kft)" -lt "$(stat -c %s s.kft)" ] ||
		t_fail "the flight file ($(stat -c %s fl.kft)) is not smaller than a streamed one ($(stat -c %s s.kft))"
}

# Streaming: SIGUSR1 is only noted
test_usr1_streaming() {
	need_tool
	bg_start -o u.kft -e syscalls:sys_enter_write
	bg_wait_tracing
	kill -USR1 "$BG"
	t_pause 0.5
	kill -0 "$BG" 2>/dev/null || t_fail "SIGUSR1 ended a streamed recording"
	t_bg_stop_ok TERM
	t_assert_match "$(cat "$T_TMP/bg.err")" 'SIGUSR1 ignored' "the note"
	assert_complete u.kft "after SIGTERM"
}

test_sigterm_sigint() {
	local sig
	need_tool
	for sig in TERM INT; do
		bg_start -o "$sig.kft" -e syscalls:sys_enter_write
		bg_wait_tracing
		dd if=/dev/zero of=/dev/null bs=4k count=1000 2>/dev/null
		t_bg_stop_ok "$sig"
		assert_complete "$sig.kft" "after SIG$sig"
		assert_summary "$sig.kft" "$T_TMP/bg.err"
		[ "$(num_fact "$sig.kft" type event)" -ge 1000 ] || t_fail "SIG$sig: fewer events than dd's writes"
	done
}

# --stop-at: the first cg_nap's return ends the run, long before cgshape's
# end (500 naps of 20 ms: 10 s)
test_stop_at() {
	need_tool
	cgs_start sleep 500
	bg_start -o st.kft -p "$CGS_PID" --stop-at "$CGS:cg_nap" "$CGS:cg_sleep_outer"
	bg_wait_tracing
	kill -USR1 "$CGS_PID"
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "exit status"
	kill -0 "$CGS_PID" 2>/dev/null || t_fail "cgshape ended before callgraph"
	t_assert_match "$(cat "$T_TMP/bg.err")" "^callgraph: cg_nap returned: the recording ends$" "message"
	assert_complete st.kft "--stop-at"
	[ "$(grep -c "^func " st.kft.dump)" = 2 ] || t_fail "--stop-at's function not in FUNCS"
	[ "$(num_fact st.kft type call)" -ge 1 ] || t_fail "no call recorded"
	[ "$(num_fact st.kft type call)" -lt 1000 ] || t_fail "every call recorded: the run did not stop"
}

# Sampled stacks: their addresses named in the file (SYMS), as live
test_sampled_syms() {
	need_tool
	[ -x "$CGHOT" ] || t_fail "$CGHOT not built"
	t_expect_exit 0 "$CG" -o h.kft -S 499 -- "$CGHOT" 1
	assert_complete h.kft "sampled"
	t_assert_eq "$(fact h.kft meta mode)" sampled "META mode"
	[ "$(num_fact h.kft type sample)" -ge 50 ] || t_fail "$(fact h.kft type sample) samples"
	# with the frames inlined there (work), joined by frames.h's separator
	t_assert_match "$(grep '^usym ' h.kft.dump | sort | uniq -c | sort -rn | head -n 1)" \
		$' usym hot_loop(\x1ework \\(inlined\\))?$' "the hot function named from SYMS"
}

# A cut file: the reader takes what is whole, and says what is missing
test_truncated() {
	local full half
	need_tool
	t_expect_exit 0 "$CG" -o t.kft --chunk 8k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=50000
	assert_complete t.kft "whole"
	full=$(num_fact t.kft chunks)
	half=$(($(stat -c %s t.kft) / 2))
	truncate -s "$half" t.kft
	dump t.kft
	t_assert_eq "$(fact t.kft complete)" 0 "complete after truncate"
	[ "$(num_fact t.kft missing)" -gt 0 ] || t_fail "nothing said missing"
	if [ "$(num_fact t.kft chunks)" -lt 1 ] || [ "$(fact t.kft chunks)" -ge "$full" ]; then
		t_fail "$(fact t.kft chunks) chunks read of $full"
	fi
	t_assert_eq "$(fact t.kft bad_chunks)" 0 "the chunks read are whole"
	[ -x "$KD" ] || return 0
	t_expect_exit 0 "$KD" --info t.kft
	t_assert_match "$(cat "$T_ERR")" "t.kft is truncated: read [0-9]+ chunks" "kd's warning"
}

# ---- names survive every ending ----------------------------------------------

# A flight recording whose exec fell in the chunks it dropped: dd's
# records are dd's (the NAMES block), not those of callgraph, which
# forked it (before: "callgraph-PID", and --comm dd found nothing)
test_flight_names() {
	local n
	need_tool
	[ -x "$KD" ] || t_fail "$KD not built"
	t_expect_exit 0 "$CG" -o fn.kft --flight 32k --chunk 8k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=4k count=100000
	dump fn.kft
	[ "$(num_fact fn.kft stats chunks_dropped)" -gt 0 ] || t_fail "no chunk dropped"
	t_assert_eq "$(num_fact fn.kft type exec)" 0 "execs kept (the test needs it dropped)"
	t_expect_exit 0 "$KD" fn.kft --events
	t_assert_no_match "$(cat "$T_OUT")" ' callgraph-[0-9]+ ' "records named after callgraph"
	t_expect_exit 0 "$KD" fn.kft --events --comm dd
	n=$(grep -c ' dd-[0-9]* *event ' "$T_OUT")
	[ "$n" -ge 1000 ] || t_fail "--comm dd: $n events"
}

# Killed (SIGKILL: no end written), a recording is at -o's path as far as
# it got, and its sampled addresses are named (SYMS blocks written as the
# names come; before: no file at all, and before that no names)
test_sigkill_sampled_names() {
	local pid
	need_tool
	[ -x "$KD" ] || t_fail "$KD not built"
	[ -x "$CGHOT" ] || t_fail "$CGHOT not built"
	bg_start -o k.kft -S 499 -- "$CGHOT" 8
	bg_wait_tracing
	# killed once 100 samples are in the file, however fast they come
	until [ -f k.kft ] && "$DUMP" k.kft >k.kft.dump 2>/dev/null &&
		[ "$(fact k.kft type sample)" -ge 100 ] 2>/dev/null; do
		kill -0 "$BG" 2>/dev/null || t_fail "callgraph -S ended before 100 samples were written"
		t_pause 0.5
	done
	pid=$(pgrep -P "$BG" -x cghot)
	kill -KILL "$BG"
	t_bg_wait_exit 10
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -f k.kft ] || t_fail "no k.kft after SIGKILL"
	dump k.kft
	t_assert_eq "$(fact k.kft complete)" 0 "complete after SIGKILL"
	[ "$(num_fact k.kft type sample)" -ge 100 ] || t_fail "$(fact k.kft type sample) samples"
	t_expect_exit 0 "$KD" k.kft
	t_assert_match "$(cat "$T_ERR")" "k.kft is truncated" "kd's warning"
	t_assert_match "$(cat "$T_OUT")" ' hot_loop$' "hot_loop named"
	t_assert_no_match "$(cat "$T_OUT")" '0x[0-9a-f]{6,}' "unnamed addresses"
}

# ---- the file's creation (src/lib/base/fileio.c kfit_out_*) -----------------------

# The files in the current directory but NAMES: none (no temporary left)
assert_only() {	# NAMES...
	local left
	left=$(ls -A | grep -vxF -f <(printf '%s\n' "$@" err out bg.err bg.out .result .timeout .pause))
	[ -z "$left" ] || t_fail "left in the directory: $(echo $left)"
}

# A symlink a user planted at -o's name, to a file only root may write:
# refused, the file untouched, nothing attached (before: root overwrote it)
test_symlink_refused() {
	local mode
	need_tool
	printf 'root only\n' >secret
	chmod 600 secret
	ln -s "$PWD/secret" trap.kft
	chown -h nobody trap.kft 2>/dev/null
	for mode in "" "--flight 1M"; do
		# shellcheck disable=SC2086 # the mode's words
		t_expect_exit 1 "$CG" -o trap.kft $mode -e syscalls:sys_enter_write -d 5
		t_assert_match "$(cat "$T_ERR")" '^callgraph: cannot write trap\.kft: a symbolic link \(not followed' "-o $mode through a symlink"
		grep -q '^Tracing' "$T_ERR" && t_fail "-o $mode through a symlink: it began tracing"
		t_assert_eq "$(cat secret)" "root only" "the link's target after -o $mode"
		[ -L trap.kft ] || t_fail "the link was replaced"
	done
	t_expect_exit 1 "$CG" -e syscalls:sys_enter_write -d 5 --svg trap.kft
	t_assert_eq "$(cat secret)" "root only" "the link's target after --svg"
	assert_only secret trap.kft
}

# Mode 0600, as perf record's (a recording holds kernel addresses and
# command lines), whatever the umask; the exports too
test_mode_0600() {
	need_tool
	umask 022
	printf 'older\n' >m.kft
	chmod 644 m.kft
	t_expect_exit 0 "$CG" -o m.kft -e syscalls:sys_enter_write -- true
	t_assert_eq "$(stat -c %a m.kft)" 600 "-o's mode"
	assert_complete m.kft "-o over an older file"
	t_expect_exit 0 "$CG" -o f.kft --flight 1M -e syscalls:sys_enter_write -- true
	t_assert_eq "$(stat -c %a f.kft)" 600 "--flight's mode"
	t_expect_exit 0 "$CG" -e syscalls:sys_enter_write --svg g.svg --perfetto g.json -- true
	t_assert_eq "$(stat -c %a g.svg) $(stat -c %a g.json)" "600 600" "--svg's and --perfetto's modes"
	assert_only m.kft m.kft.dump m.kft.dump.err f.kft g.svg g.json
}

# A FIFO (or a device) at -o: refused at once; before, the open waited for
# a reader forever
test_fifo_refused() {
	local rc
	need_tool
	mkfifo p.kft
	timeout 20 "$CG" -o p.kft -e syscalls:sys_enter_write -d 2 >out 2>err </dev/null
	rc=$?
	[ "$rc" = 124 ] && t_fail "callgraph -o FIFO hung"
	t_assert_eq "$rc" 1 "-o FIFO's status"
	t_assert_match "$(cat err)" '^callgraph: cannot write p\.kft: not a regular file \(a FIFO' "the message"
	[ -p p.kft ] || t_fail "the FIFO was replaced"
	timeout 20 "$CG" -e syscalls:sys_enter_write -d 2 --perfetto p.kft >out 2>err </dev/null
	t_assert_eq "$?" 1 "--perfetto FIFO's status"
	t_expect_exit 1 "$CG" -o /dev/null -e syscalls:sys_enter_write -d 2
	t_assert_match "$(cat "$T_ERR")" 'cannot write /dev/null: not a regular file' "-o /dev/null"
}

# --svg and --perfetto are made before anything is attached: a bad
# directory fails at once (before: after the whole run)
test_exports_checked_first() {
	local f
	need_tool
	for f in --svg --perfetto; do
		t_expect_exit 1 "$CG" -e syscalls:sys_enter_write -d 30 "$f" /nonexistent/x.out
		t_assert_match "$(cat "$T_ERR")" '^callgraph: cannot write /nonexistent/x\.out: No such file or directory$' "$f's message"
		grep -q '^Tracing' "$T_ERR" && t_fail "$f to a bad directory: it began tracing"
		[ -s "$T_OUT" ] && t_fail "$f to a bad directory: output on stdout"
	done
	true
}

# SIGINT while callgraph loads and attaches 360 tracepoints (armed, before
# "Tracing"): it says so and exits 130, and the file already at -o's name
# stays as it was (before: exit 0, silently, and the file removed). The
# signal is sent once the first BPF object is open; a start-up that still
# wins the race is tried again.
test_sigint_startup_keeps_file() {
	local try i hit=
	need_tool
	for try in 1 2 3 4 5; do
		printf 'precious\n' >old.kft
		bg_start -o old.kft -e 'syscalls:sys_enter_*'
		i=0
		until ls -l "/proc/$BG/fd" 2>/dev/null | grep -q 'anon_inode:bpf'; do
			kill -0 "$BG" 2>/dev/null || { t_show_file "$T_TMP/bg.err" stderr; t_fail "it ended before loading"; }
			[ "$i" -ge 3000 ] && t_fail "no BPF object after 30 s"
			sleep 0.01
			i=$((i + 1))
		done
		t_bg_stop INT
		if grep -q '^Tracing' "$T_TMP/bg.err"; then
			t_assert_eq "$BG_RC" 0 "SIGINT once tracing: the status"
			continue
		fi
		hit=1
		t_assert_eq "$BG_RC" 130 "SIGINT during start-up: the status"
		t_assert_match "$(cat "$T_TMP/bg.err")" '^callgraph: SIGINT during start-up: ended before tracing$' "the message"
		t_assert_eq "$(cat old.kft)" "precious" "the file there before"
		assert_only old.kft
		break
	done
	[ -n "$hit" ] || t_fail "5 start-ups all reached 'Tracing' before SIGINT"
}

# SIGUSR1 while --flight's start-up waits (its target's binary held by a
# lease): it waits for tracing, and the file is written then (before: the
# default action, exit 138, no file)
test_usr1_before_tracing() {
	local lh=$KFIT_HELPERS/leasehold bin=$T_TMP/cgcopy lbt i
	need_tool
	[ -x "$lh" ] || t_fail "$lh not built"
	lbt=$(cat /proc/sys/fs/lease-break-time)
	if [ "$lbt" -lt 45 ]; then
		echo 45 >/proc/sys/fs/lease-break-time || t_fail "cannot raise fs.lease-break-time"
		t_on_exit "echo $lbt >/proc/sys/fs/lease-break-time"
	fi
	cp "$CGS" "$bin" || t_fail "cp $CGS"
	"$lh" "$bin" >lease.out 2>&1 &
	LH=$!
	t_on_exit "kill -KILL $LH 2>/dev/null"
	i=0
	until grep -q '^held$' lease.out; do
		[ "$i" -ge 300 ] && t_fail "leasehold: $(cat lease.out)"
		t_pause 0.1
		i=$((i + 1))
	done
	bg_start -o fl.kft --flight 1M "$bin:cg_nap"
	i=0
	until grep -q '^opened$' lease.out; do
		kill -0 "$BG" 2>/dev/null || { t_show_file "$T_TMP/bg.err" stderr; t_fail "it ended before opening its target"; }
		[ "$i" -ge 300 ] && t_fail "callgraph did not open $bin in 30 s"
		t_pause 0.1
		i=$((i + 1))
	done
	kill -USR1 "$BG"
	t_pause 0.2
	kill -0 "$BG" 2>/dev/null || { wait "$BG"; t_fail "SIGUSR1 during start-up ended it ($?)"; }
	kill -KILL "$LH"
	bg_wait_tracing
	i=0
	until grep -q 'flight recording written to fl.kft' "$T_TMP/bg.err"; do
		[ "$i" -ge 300 ] && { t_show_file "$T_TMP/bg.err" stderr; t_fail "no dump for the early SIGUSR1"; }
		t_pause 0.1
		i=$((i + 1))
	done
	assert_complete fl.kft "the dump of the early SIGUSR1"
	t_bg_stop_ok INT
}

# A full disk (a 1 MiB tmpfs): said as such, naming the file, exit 1
# (before: "no space left: too many programs or probes")
test_full_disk() {
	local mnt=$T_TMP/full
	need_tool
	mkdir -p "$mnt"
	mount -t tmpfs -o size=1m tmpfs "$mnt" || t_skip "cannot mount a tmpfs"
	t_on_exit "umount $mnt"
	t_expect_exit 1 "$CG" -o "$mnt/f.kft" --chunk 64k -e syscalls:sys_enter_write -- \
		dd if=/dev/zero of=/dev/null bs=1 count=2000000
	t_assert_match "$(cat "$T_ERR")" "^callgraph: cannot write $mnt/f\.kft: no space left on device\$" "the message"
	grep -q 'too many programs' "$T_ERR" && t_fail "ENOSPC said as too many programs: $(cat "$T_ERR")"
	t_assert_eq "$(grep -c 'no space' "$T_ERR")" 1 "said once"
	# what was written stays, read up to its last whole chunk
	cp "$mnt/f.kft" part.kft
	rm -f "$mnt/f.kft"
	dump part.kft
	t_assert_eq "$(fact part.kft complete)" 0 "complete"
	[ "$(num_fact part.kft chunks)" -ge 1 ] || t_fail "no chunk in the partial file"
}

t_run_all
