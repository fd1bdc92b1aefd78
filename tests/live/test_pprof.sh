#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pprof profiles (callgraph --pprof, kd --pprof) read by the real reader,
# go tool pprof (Debian's golang-go), against what kd prints of the same
# recording: tests/helpers/pprof_check compares -top (per function: calls
# = COUNT, local = LOCAL, wall cum = TOTAL, exactly, and as --summary
# prints them) and -traces (every stack and its value = --folded's
# lines) for exact recordings of tests/helpers/cgshape (uprobes, a
# system call, time off CPU, threads, recursion), and -traces/-top
# against --folded for a sampled recording of python3.11. callgraph's
# live profile is kd's of its recording (-raw but for the time); the
# mappings carry the binary's and the kernel's build-ids, and the
# profile reads with the binary gone. Host only: the VM has no go.
. "$(dirname "$0")/../lib.sh"

KD=$KFIT_BIN/kd
CG=$KFIT_BIN/callgraph
CGS=$KFIT_HELPERS/cgshape
PY=/usr/bin/python3.11
CHECK=$T_REPO/tests/helpers/pprof_check

need() {
	t_need_root
	[ -x "$KD" ] && [ -x "$CG" ] && [ -x "$CGS" ] || t_fail "no kd, callgraph or cgshape (make)"
	command -v go >/dev/null || t_skip "no go (apt-get install golang-go: go tool pprof)"
	[ -x "$PY" ] || t_skip "no $PY (apt-get install python3.11)"
	# pprof keeps nothing of ours: its cache and fetches in the test's dir;
	# its times in UTC
	export PPROF_TMPDIR=$T_TMP HOME=$T_TMP TZ=UTC
}

# pprof_check SUBCOMMAND ARGS...: its "ok" line, or fail with what differs
check() {
	"$PY" "$CHECK" "$@" >chk.out 2>&1 || { cat chk.out; t_fail "pprof_check $1: $(head -n 1 chk.out)"; }
	cat chk.out
}

# callgraph -o FILE on cgshape's cg_* (and more targets) running SCENARIO N
record() {	# FILE SCENARIO N [TARGET...]
	local f=$1 sc=$2 n=$3
	shift 3
	t_expect_exit 0 "$CG" -o "$f" "$CGS:cg_*" "$@" -- "$CGS" "$sc" "$n"
}

# The build-id readelf reads in FILE's notes
elf_build_id() {	# FILE
	readelf -n "$1" | sed -n 's/^ *Build ID: *//p'
}

# An exact recording's profile against --summary and --folded: a sleep
# (its time off CPU a frame, counted in the LOCAL of the calls it is in)
# inside a system call (the kernel's mapping) inside user functions
test_exact_agrees() {
	need
	record s.kft sleep 1 sys:clock_nanosleep
	t_expect_exit 0 "$KD" s.kft --pprof s.pb.gz
	t_assert_match "$(cat "$T_OUT")" '^Traced 26 functions \(uprobe\) and 1 system call' \
		"kd's header, as with --svg"
	check exact "$KD" s.kft s.pb.gz
	t_assert_match "$(go tool pprof -traces s.pb.gz)" '\[off-cpu\] blocked' "the sleep's frame"
	# -top's first row: local's flat is LOCAL, the sleep in clock_nanosleep's;
	# wall's is the time outside it, the sleep a row of its own
	t_assert_match "$(go tool pprof -top -sample_index=local s.pb.gz | grep -A1 '^ *flat ')" \
		' sys:clock_nanosleep$' "local's first row"
	t_assert_match "$(go tool pprof -top s.pb.gz | grep -A1 '^ *flat ')" \
		' \[off-cpu\] blocked$' "wall's first row"
	[ "$(stat -c %a s.pb.gz)" = 600 ] || t_fail "mode $(stat -c %a s.pb.gz)"
}

# Threads: one label for the 4 threads of one name, as --folded merges
# them; recursion: cum counts a stack once, the longest call (MAX)
test_exact_threads_recursion() {
	need
	record t.kft threads 3
	t_expect_exit 0 "$KD" t.kft --pprof t.pb.gz
	check exact "$KD" t.kft t.pb.gz
	# 4 threads x 3 x (cg_thread_k and its k + 1 cg_leaf): 42 calls, one label
	t_assert_match "$(go tool pprof -tags -sample_index=calls t.pb.gz)" \
		'^ +42\.0 \( *100%\): cgshape$' "the thread label's calls"
	record r.kft recurse 1
	t_expect_exit 0 "$KD" r.kft --pprof r.pb.gz
	check exact "$KD" r.kft r.pb.gz --recursive-max
	t_assert_match "$(cat chk.out)" '^ok: 2 functions \(2 recursive\)' "cg_rec and cg_fib"
}

# The mappings: the binary with its build-id, the kernel with its own
# (read here from /sys/kernel/notes); the header: sample types, the
# comments, the time on the wall clock
test_mappings_header() {
	need
	local kid now t
	record s.kft sleep 1 sys:clock_nanosleep
	now=$(date +%s)
	t_expect_exit 0 "$KD" s.kft --pprof s.pb.gz
	check mappings s.pb.gz
	t_assert_match "$(cat chk.out)" "^$CGS $(elf_build_id "$CGS")\$" "cgshape's mapping"
	if [ -r /sys/kernel/notes ] && kid=$("$PY" "$CHECK" kernel-build-id 2>/dev/null); then
		t_assert_match "$(cat chk.out)" "^\[kernel\.kallsyms\] $kid\$" "the kernel's mapping"
		t_assert_match "$("$KD" s.kft --info)" "kernel\.build_id=$kid" "META's kernel.build_id"
	else
		t_assert_match "$(cat chk.out)" '^\[kernel\.kallsyms\] -$' "the kernel's mapping, no build-id"
	fi
	go tool pprof -raw s.pb.gz >raw.out 2>&1 || t_fail "go tool pprof -raw: $(cat raw.out)"
	t_assert_match "$(cat raw.out)" '^calls/count wall/nanoseconds\[dflt\] local/nanoseconds$' \
		"the sample types, wall the default"
	t_assert_match "$(cat raw.out)" '^Comment: kfit [0-9]' "kfit's version"
	t_assert_match "$(cat raw.out)" "^Comment: .*callgraph -o s\.kft '.*cgshape:cg_\*' sys:clock_nanosleep -- " \
		"the recording's command line"
	t_assert_match "$(cat raw.out)" "^Comment: $(uname -s) $(uname -n) " "the machine"
	t=$(date -d "$(sed -n 's/^Time: \(.*\) UTC$/\1/p' raw.out)" +%s) || t_fail "no Time: $(head raw.out)"
	[ $((now - t)) -ge 0 ] && [ $((now - t)) -le 60 ] || t_fail "Time: $t, recorded about $now"
}

# Read without the binary, as on another machine: the names are in the profile
test_readable_elsewhere() {
	need
	cp "$CGS" prog || t_fail "cp"
	t_expect_exit 0 "$CG" -o p.kft "$T_TMP/prog:cg_*" -- "$T_TMP/prog" nest 2
	t_expect_exit 0 "$KD" p.kft --pprof p.pb.gz
	rm -f prog
	mkdir elsewhere && mv p.pb.gz elsewhere/ && cd elsewhere || t_fail "mkdir"
	PPROF_BINARY_PATH=/nonexistent go tool pprof -top -sample_index=calls p.pb.gz >top.out 2>&1 ||
		t_fail "go tool pprof: $(cat top.out)"
	t_assert_match "$(cat top.out)" '^ +4 +.* cg_c$' "cg_c's calls, named without the binary"
	t_assert_match "$(cat top.out)" "^Build ID: $(elf_build_id "$CGS")\$" "the build-id"
}

# Sampled: python3.11 at 499 Hz for a second; -traces and -top against
# --folded, cpu = samples x 1 s / 499; callgraph's live profile is kd's
test_sampled() {
	need
	t_expect_exit 0 "$CG" -S 499 -o py.kft --pprof live.pb.gz -- "$PY" -c '
import hashlib, time
t = time.time()
while time.time() - t < 1:
    hashlib.sha256(b"x" * 1000).hexdigest()'
	t_expect_exit 0 "$KD" py.kft --pprof kd.pb.gz
	check sampled "$KD" py.kft kd.pb.gz
	t_assert_match "$(cat chk.out)" ' samples of 2004008 ns' "the period"
	check same live.pb.gz kd.pb.gz
}

# callgraph --pprof live: its stacks those it prints with --folded, the
# same profile as kd's of the recording
test_callgraph_live() {
	need
	t_expect_exit 0 "$CG" -o c.kft --pprof live.pb.gz --folded --output f.out "$CGS:cg_*" \
		-- "$CGS" nest 3
	sort f.out >live.folded
	"$KD" c.kft --folded | sort >kd.folded
	cmp -s live.folded kd.folded || t_fail "callgraph's --folded is not kd's"
	t_expect_exit 0 "$KD" c.kft --pprof kd.pb.gz
	check same live.pb.gz kd.pb.gz
	check exact "$KD" c.kft live.pb.gz
	# without -o
	t_expect_exit 0 "$CG" --pprof n.pb.gz "$CGS:cg_*" -- "$CGS" nest 3
	t_assert_match "$(go tool pprof -top -sample_index=calls n.pb.gz)" '^ +6 +.* cg_c$' \
		"cg_c's 6 calls"
}

# A path that cannot be written: said before anything is traced or read,
# exit 1, no file and nothing left loaded; no FILE: exit 2
test_bad_paths() {
	need
	local snap
	record s.kft nest 1
	snap=$(t_bpf_snapshot)
	t_expect_exit 1 "$CG" --pprof /nonexistent/p.pb.gz "$CGS:cg_*" -- "$CGS" nest 1
	t_assert_match "$(cat "$T_ERR")" '^callgraph: cannot write /nonexistent/p\.pb\.gz: ' "callgraph's error"
	t_assert_no_match "$(cat "$T_ERR")" '^Tracing' "traced anyway"
	t_bpf_assert_same "$snap" "after the refused --pprof"
	t_expect_exit 1 "$KD" s.kft --pprof /nonexistent/p.pb.gz
	t_assert_match "$(cat "$T_ERR")" '^kd: cannot write /nonexistent/p\.pb\.gz: ' "kd's error"
	# the output's error before the file's: the file is not read
	t_expect_exit 1 "$KD" missing.kft --pprof /nonexistent/p.pb.gz
	t_assert_match "$(cat "$T_ERR")" '^kd: cannot write /nonexistent/p\.pb\.gz: ' "before reading"
	t_expect_exit 2 "$KD" s.kft --pprof
	t_expect_exit 2 "$CG" "$CGS:cg_*" --pprof
}

t_run_all
