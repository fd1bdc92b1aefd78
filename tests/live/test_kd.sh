#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kd, the offline analyser, on trace files of known content written by
# tests/helpers/kftgen (its header lists every record): no BPF, no root.
# The expected figures are computed here from the generator's design:
# iteration k (0..N-1) at B = 1ms + 10k ms from the start:
#   gen (100/100):        main_loop [B, 500us){ work [B+10us, 300us){ leaf 100us,
#                         leaf 50us }, vfs_write [B+400us, 50us){ sys_enter_write
#                         at B+410us: fd=1 buf=0x7f0000001000+k count=k+1 } }
#   gen-worker (100/101): work [B+100us, 200us){ sched_wakeup at B+120us, leaf 20us }
#   then tid 102 forked (work 40us, exit), shell 300 (work 10us, exec newprog,
#   work 20us), 7 records lost on CPU 1; 700ms in all.
. "$(dirname "$0")/../lib.sh"

KD=$KFIT_BIN/kd
GEN=$KFIT_HELPERS/kftgen
N=10

need() {
	[ -x "$KD" ] || t_fail "no $KD (make)"
	[ -x "$GEN" ] || t_fail "no $GEN (make)"
}

gen() {	# FILE [kftgen options]: a trace of N iterations
	local f=$1
	shift
	"$GEN" -n "$N" "$@" "$f" || t_fail "kftgen $* $f failed"
}

# "1.57ms" as kfit_fmt_duration writes ns: three significant digits
fmt_ns() {
	awk -v ns="$1" 'function f(v, u) {
		if (v < 10) return sprintf("%.2f%s", v, u)
		if (v < 100) return sprintf("%.1f%s", v, u)
		return sprintf("%.0f%s", v, u)
	}
	BEGIN {
		if (ns < 1000) print ns "ns"
		else if (ns < 1e6) print f(ns / 1e3, "us")
		else if (ns < 1e9) print f(ns / 1e6, "ms")
		else print f(ns / 1e9, "s")
	}'
}

# The summary's row of a function: "COUNT TOTAL LOCAL"
row() {	# FUNC output
	awk -v f="$1" '$1 == f { $1 = ""; print substr($0, 2) }' <<<"$2" | tr -s ' '
}

test_kd_links_no_libbpf() {
	need
	if ldd "$KD" 2>/dev/null | grep -q libbpf; then
		t_fail "kd links libbpf: $(ldd "$KD" | grep libbpf)"
	fi
	nm -u "$KD" 2>/dev/null | grep -q ' bpf_' && t_fail "kd calls bpf_ functions"
	true
}

test_help_and_usage() {
	need
	gen a.kft
	t_expect_exit 0 "$KD" -h
	t_assert_match "$(cat "$T_OUT")" '^Usage: kd ' "kd -h"
	t_assert_match "$(cat "$T_OUT")" 'kd trace.kft --events' "kd -h's examples"
	# the options refused before the file is read:
	# tests/cases/usage/kd.case; a window's times are read against it
	t_expect_exit 2 "$KD" a.kft --since soon
	t_assert_match "$(cat "$T_ERR")" "invalid time 'soon'" "--since soon"
	t_expect_exit 2 "$KD" a.kft --until 25:00:00
	t_expect_exit 2 "$KD" a.kft --since 20ms --until 10ms
}

test_tree() {
	need
	local out
	gen a.kft
	t_expect_exit 0 "$KD" a.kft
	out=$(cat "$T_OUT")
	[ -s "$T_ERR" ] && t_fail "stderr: $(head -c 300 "$T_ERR")"
	t_assert_eq "$(head -1 <<<"$out")" "Traced 5 functions (uprobe) and tracepoints for 700ms" \
		"the header"
	t_assert_eq "$(sed -n 2p <<<"$out")" \
		"$((7 * N + 3)) calls, 7 lost, 0 dropped (--min/-D), 0 incomplete" "the counts"
	t_assert_match "$out" '^  skipped_fn: not in available_filter_functions$' "the skipped"
	for h in "== pid 100 tid 100 (gen) ==" "== pid 100 tid 101 (gen-worker) ==" \
		"== pid 100 tid 102 (gen) ==" "== pid 300 tid 300 (newprog) =="; do
		grep -qxF "$h" <<<"$out" || t_fail "no '$h' section"
	done
	# iteration 1: its nesting, times from the start, the off-CPU time
	t_assert_match "$out" '^ 0\.011000s +500us +150us +30\.0us +0  main_loop$' "main_loop #1"
	t_assert_match "$out" '^ 0\.011010s +300us +150us +30\.0us +0    work$' "work #1"
	t_assert_match "$out" '^ 0\.011020s +100us +100us +- +0      leaf$' "leaf #1"
	t_assert_match "$out" '^ 0\.011260s +0      -- off CPU 30\.0us \(blocked\)$' "the switch"
	t_assert_match "$out" '^ 0\.021300s +0      ==> softirq NET_RX \(cpu 0\)$' "the softirq"
	t_assert_match "$out" '^ 0\.021410s +0      \* syscalls:sys_enter_write$' "the event"
	t_assert_match "$out" '^ 0\.300000s +1  \+ fork: tid 102$' "the fork"
	t_assert_match "$out" '^ 0\.500000s +1  \+ exec: newprog$' "the exec"
	[ "$(grep -c ' main_loop$' <<<"$out")" = "$N" ] || t_fail "not $N main_loop lines"
}

test_summary_counts_totals() {
	need
	local out
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --summary
	out=$(cat "$T_OUT")
	t_assert_match "$out" '^FUNCTION +COUNT +TOTAL +AVG +MIN +MAX +LOCAL +P50 +P99 +MAX-SUB$' \
		"the table's columns"
	t_expect_exit 0 "$KD" a.kft --summary -f count,time,local
	out=$(cat "$T_OUT")
	t_assert_match "$out" '^FUNCTION +COUNT +TOTAL +LOCAL$' "-f count,time,local"
	t_assert_eq "$(row main_loop "$out")" \
		"$N $(fmt_ns $((N * 500000))) $(fmt_ns $((N * 150000)))" "main_loop"
	t_assert_eq "$(row work "$out")" \
		"$((2 * N + 3)) $(fmt_ns $((N * 500000 + 70000))) $(fmt_ns $((N * 330000 + 70000)))" "work"
	t_assert_eq "$(row leaf "$out")" \
		"$((3 * N)) $(fmt_ns $((N * 170000))) $(fmt_ns $((N * 170000)))" "leaf"
	t_assert_eq "$(row vfs_write "$out")" \
		"$N $(fmt_ns $((N * 50000))) $(fmt_ns $((N * 50000)))" "vfs_write"
	t_assert_match "$out" '^1 traced function not called$' "never_called"
	grep -q not_attached <<<"$out" && t_fail "the dropped function is listed"
	# -s and -n
	t_expect_exit 0 "$KD" a.kft --summary -s count -n 2 -f count
	t_assert_eq "$(awk '/^FUNCTION/ { p = 1; next } p && NF == 2 { printf "%s ", $1 }' "$T_OUT")" \
		"leaf work " "-s count -n 2"
	t_expect_exit 0 "$KD" a.kft --summary -s local -n 1 -f local,maxsub
	t_assert_match "$(cat "$T_OUT")" '^FUNCTION +LOCAL +MAX-SUB$' "-f local,maxsub"
	t_assert_match "$(cat "$T_OUT")" '^work +[0-9.]+ms +leaf \(' "-s local -n 1"
}

test_json() {
	need
	local got
	gen a.kft
	t_expect_exit 0 "$KD" a.kft -j
	got=$(jq -r '"\(.mode) \(.mechanism) \(.elapsed_ns) \(.calls) \(.lost) \(.attach.functions) " +
		"\(.attach.skipped) \(.skipped[0].name) \(.threads | length)"' "$T_OUT") ||
		t_fail "not JSON"
	t_assert_eq "$got" "exact uprobe 700000000 $((7 * N + 3)) 7 5 1 skipped_fn 4" "-j's figures"
	# the totals of each function, summed from the trees
	got=$(jq -r '[.. | objects | select(.name? == "work") | .duration_ns] | add' "$T_OUT")
	t_assert_eq "$got" "$((N * 500000 + 70000))" "work's total in the JSON trees"
	got=$(jq -r '[.. | objects | select(.name? == "main_loop")] | length' "$T_OUT")
	t_assert_eq "$got" "$N" "main_loop calls in the JSON trees"
}

test_events_lines() {
	need
	local out
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --events
	out=$(cat "$T_OUT")
	t_assert_match "$(head -1 <<<"$out")" '^ +TIME_S +CPU +COMM-TID +TYPE +DETAILS$' "the header"
	t_assert_eq "$(($(wc -l <<<"$out") - 1))" "$((9 * N + 9))" "one line per record"
	# time order
	tail -n +2 <<<"$out" | awk '{ print $1 }' | sort -c -g || t_fail "not in time order"
	t_assert_match "$out" \
		'^ +0\.051410 +0 gen-100 +event +syscalls:sys_enter_write __syscall_nr=1 fd=1 buf=0x7f0000001005 count=6$' \
		"sys_enter_write of iteration 5, its fields"
	t_assert_match "$out" \
		'^ +0\.031120 +1 gen-worker-101 +event +sched:sched_wakeup comm=gen pid=100 prio=120 target_cpu=1$' \
		"sched_wakeup of iteration 3 (not a system call: its common fields are not data)"
	t_assert_match "$out" '^ +0\.001000 +0 gen-100 +call +main_loop dur=500us depth=0$' "a call"
	t_assert_match "$out" '^ +0\.011260 +0 gen-100 +switch +off CPU dur=30\.0us blocked state=1' "a switch"
	t_assert_match "$out" '^ +0\.021300 +0 gen-100 +irq +softirq NET_RX dur=5\.00us calls=0$' "an irq"
	t_assert_match "$out" '^ +0\.300000 +1 gen-100 +fork +child=100/102$' "the fork"
	t_assert_match "$out" '^ +0\.400000 +1 shell-300 +call +work dur=10\.0us' "shell before its exec"
	t_assert_match "$out" '^ +0\.500000 +1 newprog-300 +exec +comm=newprog$' "the exec"
	t_assert_match "$out" '^ +0\.600000 +1 newprog-300 +call +work dur=20\.0us' "newprog after"
	t_assert_match "$out" '^ +0\.700000 +1 - +lost +count=7$' "the losses"
}

test_window() {
	need
	gen a.kft
	# iterations 2 and 3 start at 21 and 31 ms
	t_expect_exit 0 "$KD" a.kft --events --since 20ms --until 40ms
	t_assert_eq "$(grep -c 'sys_enter_write' "$T_OUT")" 2 "events in [20ms, 40ms)"
	t_assert_eq "$(grep -c ' main_loop ' "$T_OUT")" 2 "main_loop calls in [20ms, 40ms)"
	grep -Eq 'lost +count=7' "$T_OUT" || t_fail "the losses are not shown in a window"
	# the end is excluded: the second event is at 31.41ms
	t_expect_exit 0 "$KD" a.kft --events --since 20ms --until 31.41ms
	t_assert_eq "$(grep -c 'sys_enter_write' "$T_OUT")" 1 "events in [20ms, 31.41ms)"
	t_expect_exit 0 "$KD" a.kft --events --since 20ms --until 31.411ms
	t_assert_eq "$(grep -c 'sys_enter_write' "$T_OUT")" 2 "events in [20ms, 31.411ms)"
	# absolute: @NS on the file's clock (the start is at 1 s)
	t_expect_exit 0 "$KD" a.kft --events --since @1021410000 --until @1021410001
	t_assert_eq "$(grep -c 'sys_enter_write' "$T_OUT")" 1 "events at @1021410000"
	# wall time: the start is 03:00:01 UTC of the recording's day
	t_expect_exit 0 env TZ=UTC "$KD" a.kft --events --since 03:00:01.020 --until 03:00:01.040
	t_assert_eq "$(grep -c 'sys_enter_write' "$T_OUT")" 2 "events in 03:00:01.020-.040"
	# the tree and the summary of a window
	t_expect_exit 0 "$KD" a.kft --summary -f count --since 20ms --until 40ms
	t_assert_eq "$(row main_loop "$(cat "$T_OUT")")" "2" "main_loop in the window's summary"
	t_expect_exit 0 "$KD" a.kft --since 300ms
	t_assert_match "$(sed -n 2p "$T_OUT")" '^3 calls, 7 lost' "the tree from 300ms"
	# a window with nothing in it
	t_expect_exit 0 "$KD" a.kft --events --since 650ms --until 660ms
	t_assert_eq "$(grep -vc 'TIME_S\|lost' "$T_OUT")" 0 "records in an empty window"
}

test_task_filters() {
	need
	gen a.kft
	t_expect_exit 0 "$KD" a.kft -t 101 --summary -f count
	t_assert_eq "$(row work "$(cat "$T_OUT")") $(row leaf "$(cat "$T_OUT")")" "$N $N" "-t 101"
	t_expect_exit 0 "$KD" a.kft -p 300
	t_assert_match "$(sed -n 2p "$T_OUT")" '^2 calls,' "-p 300"
	t_expect_exit 0 "$KD" a.kft -p 100 --summary -f count
	t_assert_eq "$(row work "$(cat "$T_OUT")")" "$((2 * N + 1))" "-p 100: work"
	# the name at the time of the record: shell before its exec, newprog after
	t_expect_exit 0 "$KD" a.kft --comm shell --events
	t_assert_eq "$(grep -c ' call ' "$T_OUT")" 1 "--comm shell: calls"
	t_assert_match "$(cat "$T_OUT")" '0\.400000 .*work dur=10\.0us' "--comm shell: the one before exec"
	t_expect_exit 0 "$KD" a.kft --comm newprog --summary -f count,time
	t_assert_eq "$(row work "$(cat "$T_OUT")")" "1 20.0us" "--comm newprog"
	# a forked thread has its parent's name
	t_expect_exit 0 "$KD" a.kft --comm gen
	t_assert_match "$(sed -n 2p "$T_OUT")" "^$((5 * N + 1)) calls," "--comm gen"
	t_expect_exit 0 "$KD" a.kft --comm gen-worker --events
	t_assert_eq "$(grep -c ' call ' "$T_OUT")" "$((2 * N))" "--comm gen-worker: calls"
	# the name before a window: the exec is before 550ms
	t_expect_exit 0 "$KD" a.kft --comm newprog --since 550ms --events
	t_assert_eq "$(grep -c ' call ' "$T_OUT")" 1 "--comm newprog from 550ms"
	t_expect_exit 0 "$KD" a.kft -t 4242
	t_assert_match "$(sed -n 2p "$T_OUT")" '^0 calls, 7 lost' "-t of no task"
}

test_exports() {
	need
	local chk=$T_REPO/tests/helpers/perfetto_check n
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --folded
	grep -qxF "gen;main_loop;work;leaf $((N * 150000))" "$T_OUT" ||
		t_fail "folded: gen;main_loop;work;leaf: $(grep 'gen;main_loop;work;leaf ' "$T_OUT")"
	grep -qxF "gen-worker;work;leaf $((N * 20000))" "$T_OUT" || t_fail "folded: gen-worker's leaf"
	grep -qxF "gen;main_loop;work;[off-cpu] blocked 30000" "$T_OUT" || t_fail "folded: off CPU"
	t_expect_exit 0 "$KD" a.kft --svg a.svg --perfetto a.json
	[ -s a.svg ] || t_fail "no SVG"
	if command -v xmllint >/dev/null; then
		xmllint --noout a.svg || t_fail "xmllint rejects the SVG"
	elif ! t_in_vm; then
		t_fail "no xmllint (make deps)"
	fi
	grep -q '<title>main_loop (' a.svg || t_fail "no main_loop frame in the SVG"
	"$chk" a.json >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejects it"; }
	n=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "main_loop")] | length' a.json)
	t_assert_eq "$n" "$N" "main_loop slices in the Perfetto JSON"
}

test_sampled() {
	need
	gen s.kft -s
	t_expect_exit 0 "$KD" s.kft
	t_assert_eq "$(head -1 "$T_OUT")" "Sampled stacks at 99 Hz (cpu-clock) for 700ms" "the header"
	t_assert_match "$(cat "$T_OUT")" '^== pid 100 \(gen\): 10 samples ==$' "the process"
	t_assert_match "$(cat "$T_OUT")" '^ +50\.0% +50\.0% +k_leaf \[k\]$' "k_leaf through SYMS"
	t_assert_match "$(cat "$T_OUT")" '^ +[0-9.]+% +[0-9.]+% +\[unknown\]$' "an unknown address, grouped"
	t_expect_exit 0 "$KD" s.kft --addresses
	t_assert_match "$(cat "$T_OUT")" '\[unknown\] 0x4ff000' "an unknown address, with --addresses"
	t_expect_exit 0 "$KD" s.kft --events
	t_assert_match "$(cat "$T_OUT")" '^ +0\.011000 +1 gen-100 +sample +u_leaf ' "a sample's leaf"
	t_expect_exit 0 "$KD" s.kft --folded
	grep -qxF "gen;u_main;u_leaf;k_leaf 5" "$T_OUT" || t_fail "folded samples: $(cat "$T_OUT")"
}

test_info() {
	need
	local out
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --info
	out=$(cat "$T_OUT")
	t_assert_match "$out" '^file: +a\.kft, [0-9]+ bytes, complete$' "the file"
	t_assert_match "$out" '^format: +kfit trace version 1, little-endian' "the format"
	t_assert_match "$out" '^machine: +Linux genhost 6\.1\.0-gen x86_64 .*2 CPUs, page size 4096$' "the machine"
	t_assert_match "$out" '^functions: +6 .*1 not attached.*main_loop, work' "the functions"
	t_assert_match "$out" '^events: +2: syscalls:sys_enter_write, sched:sched_wakeup$' "the events"
	t_assert_match "$out" "^records: +$((9 * N + 9)): call $((7 * N + 3)), switch 1, irq 1, event $((2 * N)), fork 1, exec 1, exit 1, sample 0, lost 1$" "the records"
	t_assert_match "$out" '^time: +700ms ' "the duration"
	t_assert_match "$out" '^lost: +7 records; cpu 0: 0, cpu 1: 7$' "the losses"
	t_assert_match "$out" '^  cmdline=kftgen$' "the metadata"
}

test_truncated() {
	need
	local full
	gen a.kft
	"$KD" a.kft --events >full.out 2>/dev/null
	gen c.kft --cut 1500
	t_expect_exit 0 "$KD" c.kft --events
	t_assert_match "$(cat "$T_ERR")" \
		'^kd: warning: c\.kft is truncated: read [0-9]+ chunks up to [0-9.]+m?s; [0-9]+ bytes after it unreadable$' \
		"the warning"
	full=$(wc -l <full.out)
	[ "$(wc -l <"$T_OUT")" -lt "$full" ] || t_fail "nothing missing from a truncated file"
	[ "$(wc -l <"$T_OUT")" -gt 10 ] || t_fail "almost nothing read from a truncated file"
	# what is there is the recording's
	[ -z "$(sort "$T_OUT" | comm -23 - <(sort full.out))" ] ||
		t_fail "lines not in the full file's: $(sort "$T_OUT" | comm -23 - <(sort full.out) | head -3)"
	t_expect_exit 0 "$KD" c.kft --info
	t_assert_match "$(cat "$T_OUT")" '^file: .*truncated$' "--info of a truncated file"
	t_assert_match "$(cat "$T_OUT")" '^missing: +[0-9]+ bytes' "--info's missing bytes"
	t_expect_exit 0 "$KD" c.kft --summary
	t_expect_exit 0 "$KD" c.kft -j
	jq -e .calls "$T_OUT" >/dev/null || t_fail "-j of a truncated file"
	# cut inside its header blocks: nothing says what it holds
	head -c 100 a.kft >h.kft
	t_expect_exit 1 "$KD" h.kft
	t_assert_match "$(cat "$T_ERR")" '^kd: h\.kft: cut short after 100 bytes' "a file cut in its header"
}

test_corrupt() {
	need
	local out
	gen d.kft --corrupt 2
	t_expect_exit 0 "$KD" d.kft
	t_assert_match "$(cat "$T_ERR")" 'chunk 2 \(at byte [0-9]+, [0-9]+ records\) is unreadable: corrupt; skipped' \
		"the corrupt chunk's warning"
	t_assert_match "$(cat "$T_ERR")" '1 corrupt chunk skipped' "the count"
	out=$(sed -n 2p "$T_OUT" | awk '{ print $1 }')
	[ "$out" -lt $((7 * N + 3)) ] && [ "$out" -gt 0 ] || t_fail "calls around a corrupt chunk: $out"
	t_expect_exit 0 "$KD" d.kft --events
	t_expect_exit 0 "$KD" d.kft --info
	t_assert_match "$(cat "$T_OUT")" '^chunks: .*1 corrupt$' "--info counts it"
	# one chunk, corrupt: nothing to show
	gen e.kft -c 1048576 --corrupt 0
	t_expect_exit 1 "$KD" e.kft
	t_assert_match "$(cat "$T_ERR")" 'nothing could be read' "a file of one corrupt chunk"
	t_expect_exit 1 "$KD" e.kft --events
	# the metadata
	gen m.kft --corrupt-meta
	t_expect_exit 1 "$KD" m.kft
	t_assert_match "$(cat "$T_ERR")" '^kd: m\.kft: .*corrupt' "a corrupt META block"
}

test_foreign() {
	need
	printf 'hello\n' >text
	: >empty
	head -c 100000 /dev/urandom >random
	gen a.kft
	head -c 10 a.kft >short
	# a header claiming another byte order
	cp a.kft swapped
	printf '\x01\x02\x03\x04' | dd of=swapped bs=1 seek=12 conv=notrunc status=none
	for f in text empty random short swapped no-such-file; do
		t_expect_exit 1 "$KD" "$f"
		t_assert_match "$(cat "$T_ERR")" "^kd: $f: " "$f's message"
		[ -s "$T_OUT" ] && t_fail "$f: output on stdout"
	done
	true
}


# ---- outputs, --info -j, windows, copies (issue 17) -------------------------

# A sampled recording's --perfetto: its samples on a timeline (before:
# nothing written, exit 0). Samples every 10 ms at 99 Hz: each stands for
# 10.1 ms, so u_main, in every sample, is one slice from the first (1 ms)
# to the last's end; k_leaf, in the even ones only, is N/2 slices.
test_sampled_perfetto() {
	need
	local chk=$T_REPO/tests/helpers/perfetto_check
	gen s.kft -s
	t_expect_exit 0 "$KD" s.kft --perfetto s.json
	"$chk" s.json >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejects it"; }
	t_assert_eq "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "u_main")] | length' s.json)" 1 "u_main slices"
	t_assert_eq "$(jq -r '.traceEvents[] | select(.name == "u_main") | "\(.ts) \(.dur)"' s.json)" \
		"1000 $(((N - 1) * 10000 + 10101)).01" "u_main's start and length (us)"
	t_assert_eq "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "k_leaf")] | length' s.json)" $((N / 2)) "k_leaf slices"
	t_assert_eq "$(jq -r '.traceEvents[] | select(.name == "thread_name") | .args.name' s.json)" gen "the thread's name"
	t_assert_eq "$(jq .otherData.samples s.json)" "$N" "samples"
	[ "$(stat -c %a s.json)" = 600 ] || t_fail "mode $(stat -c %a s.json)"
	grep -q 'no timeline' "$T_ERR" && t_fail "still says: $(cat "$T_ERR")"
	true
}

# --info -j: the same facts as JSON, the wall-clock times of the first and
# last records too (before: a usage error)
test_info_json() {
	need
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --info -j
	jq -e . "$T_OUT" >/dev/null || t_fail "not JSON: $(head -c 200 "$T_OUT")"
	t_assert_eq "$(jq -r '[.file, .complete, .mode, .functions.count, .functions.not_attached] | @tsv' "$T_OUT")" \
		"$(printf 'a.kft\ttrue\texact\t6\t1')" "file, complete, mode, functions"
	t_assert_eq "$(jq .records.total "$T_OUT")" $((9 * N + 9)) "records"
	t_assert_eq "$(jq .records.call "$T_OUT")" $((7 * N + 3)) "calls"
	t_assert_eq "$(jq .lost "$T_OUT")" 7 "lost"
	t_assert_eq "$(jq -r .events[1] "$T_OUT")" sched:sched_wakeup "events"
	t_assert_eq "$(jq .first_record.from_start_ns "$T_OUT")" 1000000 "the first record"
	t_assert_eq "$(jq .last_record.from_start_ns "$T_OUT")" 700000000 "the last record"
	t_assert_eq "$(jq -r .metadata.cmdline "$T_OUT")" kftgen "metadata"
	t_assert_eq "$(jq -r .stats.lost "$T_OUT")" 7 "stats"
	# kftgen's clock: realtime = ts + 2026-01-02 03:00:00 UTC - 1 s... in UTC
	TZ=UTC t_expect_exit 0 "$KD" a.kft --info -j
	t_assert_eq "$(jq -r .first_record.wall "$T_OUT")" 2026-01-02T03:00:01.001000+0000 "the first record's wall time"
}

# --info says the wall-clock times of the first and last records, which
# --since/--until HH:MM:SS take
test_info_wall() {
	need
	local first
	gen a.kft
	TZ=UTC t_expect_exit 0 "$KD" a.kft --info
	t_assert_match "$(cat "$T_OUT")" '^wall clock: first record 2026-01-02 03:00:01\.001000, last 2026-01-02 03:00:01\.700000 ' "the line"
	first=$(sed -n 's/^wall clock: first record [0-9-]* \([0-9:.]*\),.*/\1/p' "$T_OUT")
	TZ=UTC t_expect_exit 0 "$KD" a.kft --events --since "$first" --until 03:00:01.0015
	t_assert_eq "$(sed -n 2p "$T_OUT" | awk '{ print $1, $5 }')" "0.001000 main_loop" "--since the first record's wall time"
}

# A window outside the recording is said, exit 1 (before: an empty
# output, exit 0)
test_window_outside() {
	need
	gen a.kft
	t_expect_exit 1 "$KD" a.kft --since 2s
	t_assert_match "$(cat "$T_ERR")" '^kd: the window \(--since 2s\) is outside the recording: its records run from 0\.001000s to 0\.700000s after its start' "after the end"
	[ -s "$T_OUT" ] && t_fail "output for a window outside"
	TZ=UTC t_expect_exit 1 "$KD" a.kft --events --until 03:00:00.5
	t_assert_match "$(cat "$T_ERR")" 'outside the recording.*2026-01-02 03:00:01\.001000 to 2026-01-02 03:00:01\.700000 wall clock' "before the start"
	t_expect_exit 1 "$KD" a.kft --summary --since @1800000000
	t_expect_exit 0 "$KD" a.kft --events --since 650ms
	t_assert_match "$(cat "$T_OUT")" ' lost +count=7$' "a window inside"
}

# An output that cannot be written: said with its name before the file is
# read, nothing printed (before: the tree printed, then "kd: a.kft: No such
# file or directory", the input blamed); a FIFO or a symlink refused
test_output_errors() {
	need
	local rc
	gen a.kft
	t_expect_exit 1 "$KD" a.kft --svg /nonexistent/x.svg
	t_assert_eq "$(cat "$T_ERR")" "kd: cannot write /nonexistent/x.svg: No such file or directory" "the message"
	[ -s "$T_OUT" ] && t_fail "output before the error: $(head -n 1 "$T_OUT")"
	t_expect_exit 1 "$KD" a.kft --perfetto "$T_TMP"
	t_assert_eq "$(cat "$T_ERR")" "kd: cannot write $T_TMP: a directory" "a directory"
	mkfifo p.svg
	timeout 20 "$KD" a.kft --svg p.svg >out 2>err </dev/null
	rc=$?
	[ "$rc" = 124 ] && t_fail "kd --svg FIFO hung"
	t_assert_eq "$rc" 1 "--svg FIFO"
	printf 'keep\n' >target
	ln -s target l.svg
	t_expect_exit 1 "$KD" a.kft --svg l.svg
	t_assert_eq "$(cat target)" keep "the link's target"
	printf 'old\n' >o.svg
	t_expect_exit 0 "$KD" a.kft --svg o.svg
	grep -q '<svg' o.svg || t_fail "o.svg not replaced"
	[ "$(ls -A | grep -c '^\.o\.svg')" = 0 ] || t_fail "a temporary left"
}

# A chunk copied within the file: read once, with a warning (before: its
# records counted twice)
test_duplicated_chunks() {
	need
	gen d.kft --dup-chunk 1
	t_expect_exit 0 "$KD" d.kft --info
	t_assert_match "$(cat "$T_OUT")" "^records: +$((9 * N + 9)): call $((7 * N + 3))," "records counted once"
	t_assert_match "$(cat "$T_OUT")" '^chunks: .*1 duplicated \(skipped\)$' "--info's chunks"
	t_assert_match "$(cat "$T_ERR")" '^kd: warning: d\.kft: 1 chunk found twice \(copied within the file\): the copies skipped$' "the warning"
	t_expect_exit 0 "$KD" d.kft --summary
	t_assert_eq "$(row main_loop "$(cat "$T_OUT")" | awk '{ print $1 }')" "$N" "main_loop's count"
}

# A 4 KiB file with a hole of 4 GiB that a META block claims: refused for
# the hole at once (before: 4 GiB allocated and read, 20 s, then a CRC)
test_sparse_claim() {
	need
	"$GEN" --sparse-meta 4294967000 sp.kft || t_fail "kftgen --sparse-meta"
	(ulimit -v 1000000; exec "$KD" sp.kft --info) >out 2>err
	t_assert_eq "$?" 1 "status"
	t_assert_match "$(cat err)" '^kd: sp\.kft: corrupt trace file: its META block at offset 64 claims 4294967000 bytes the file does not hold \(a hole\)$' "the message"
}

# kd on bad files under ASan and UBSan (any finding exits 99); the files
# are written by the plain kftgen (the writer is not what is tested here)
test_sanitized_bad_files() {
	need
	local kd=$T_REPO/build/san/bin/kd f o k rc
	t_in_vm && t_skip "no compiler in the VM"
	make -C "$T_REPO" -s SANITIZE=1 build/san/bin/kd >make.out 2>&1 ||
		t_fail "make SANITIZE=1: $(tail -3 make.out)"
	gen c.kft --cut 1500
	gen d.kft --corrupt 1
	gen e.kft -c 1048576 --corrupt 0
	gen m.kft --corrupt-meta
	gen s.kft -s
	head -c 100000 /dev/urandom >random
	for f in c.kft d.kft; do
		for o in "" --summary --events --info -j --folded; do
			t_expect_exit 0 "$kd" $o "$f"
		done
	done
	t_expect_exit 0 "$kd" s.kft --events
	t_expect_exit 0 "$kd" s.kft
	for f in e.kft m.kft random; do
		t_expect_exit 1 "$kd" "$f"
	done
	# no readable chunk: --events sorted nothing (qsort(NULL, 0) before)
	t_expect_exit 1 "$kd" --events e.kft
	gen dup.kft --dup-chunk 2
	for o in "" --events --info "--perfetto p.json"; do
		# shellcheck disable=SC2086 # the option's words
		t_expect_exit 0 "$kd" $o dup.kft
	done
	t_expect_exit 0 "$kd" s.kft --perfetto sp.json
	"$GEN" --sparse-meta 4294967000 sparse.kft || t_fail "kftgen --sparse-meta"
	t_expect_exit 1 "$kd" sparse.kft
	t_assert_match "$(cat "$T_ERR")" 'does not hold \(a hole\)' "the sparse file refused for its hole"
	# every cut of a small file: a warning or an error, never a crash
	"$GEN" -n 2 -c 256 small.kft || t_fail "kftgen small"
	for ((k = 1; k < $(wc -c <small.kft); k += 37)); do
		head -c "$k" small.kft >cut.kft
		timeout 20 "$kd" --events cut.kft >/dev/null 2>&1
		rc=$?
		case $rc in 0 | 1) ;; *) t_fail "kd on the first $k bytes exited $rc" ;; esac
		timeout 20 "$kd" cut.kft >/dev/null 2>&1
		rc=$?
		case $rc in 0 | 1) ;; *) t_fail "kd's tree of the first $k bytes exited $rc" ;; esac
	done
}

t_run_all
