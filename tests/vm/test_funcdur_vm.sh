#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# funcdur on kernel functions, on Debian's stock kernel (in the VM), where
# fentry and kprobes work: do_fork resolved to kernel_clone, counted
# exactly for a process that forks a known number of times, through fentry
# and through kprobes; a glob of 50+ functions; the interrupt filters; the
# start/stop triggers on a kernel function. Emulation is slow: counts are
# checked, durations only against the --min bound.
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/vm/kret-lib.sh"

FD="$KFIT_BIN/funcdur"
DT="$KFIT_HELPERS/durtarget"
FD_WAIT=180	# seconds for the "Tracing" line (dozens of fentry programs under TCG)
FORKS=20
AFF=/sys/kernel/tracing/available_filter_functions

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
	[ -x "$FD" ] || t_fail "$FD not built (make STATIC=1)"
	[ -x "$DT" ] || t_fail "$DT not built (make STATIC=1)"
}

# ---- funcdur in the background (as in tests/live/test_funcdur.sh) --------

bg_start() { t_bg_start "$FD" "$@"; }
bg_wait_tracing() { t_bg_wait_tracing "$FD_WAIT"; }

bg_stop() { t_bg_stop_ok "$1" 60; }	# funcdur must end with status 0

# With -p PID it ends by itself once durtarget has, with status 0
bg_end() {
	t_bg_wait_exit 60
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "funcdur exited $BG_RC once its process had ended, expected 0"
	}
}

# durtarget -w SCENARIO N: waits for SIGUSR1; sets DT_PID
dt_start() {	# SCENARIO N
	t_held_start "$DT" -w "$1" "$2"
	DT_PID=$HELD_PID
}

dt_go() { t_held_go; }

# jq EXPR on the object of function NAME in FILE; "missing" if none
fn() {	# FILE NAME EXPR
	jq -r --arg n "$2" "[.functions[]? | select(.name == \$n)] |
		if length == 0 then \"missing\" else (.[0] | $3) end" "$1"
}

fnum() {	# FILE NAME FIELD
	local v
	v=$(fn "$1" "$2" ".$3")
	_t_is_num "$v" || {
		jq -c '.functions[]? | {name, count, filtered}' "$1" >&2
		t_fail "$2.$3 is not a number: '$v'"
	}
	echo "$v"
}

assert_json() {	# file what
	[ -s "$1" ] || { t_show_file "$T_TMP/bg.err" "funcdur stderr"; t_fail "$2: no output"; }
	jq -e '.functions | type == "array"' "$1" >/dev/null 2>&1 || {
		t_show_file "$1" "$2"
		t_fail "$2: not a JSON document with a functions array"
	}
}

# Is NAME in available_filter_functions (fentry and kprobes can attach)?
traceable() { grep -q "^$1\( \|\$\)" "$AFF"; }

# ---- do_fork -> kernel_clone ---------------------------------------------

# durtarget forks FORKS times under funcdur -p PID --min 500us ARGS do_fork
fork_run() {	# what funcdur-args...
	local what=$1 f=$T_TMP/bg.out count filtered snap
	shift
	traceable kernel_clone || t_fail "kernel_clone is not in $AFF"
	snap=$(t_bpf_snapshot)
	dt_start fork "$FORKS"
	bg_start -j -p "$DT_PID" --min 500us "$@" do_fork
	bg_wait_tracing
	dt_go
	bg_end
	cat "$T_TMP/bg.err"
	assert_json "$f" "$what"
	t_assert_match "$(cat "$T_TMP/bg.err")" 'do_fork.*kernel_clone|kernel_clone.*do_fork' \
		"$what: the note that do_fork is kernel_clone"
	t_assert_eq "$(jq -r '[.functions[].name] | join(",")' "$f")" kernel_clone "$what: functions"
	count=$(fnum "$f" kernel_clone count)
	filtered=$(fnum "$f" kernel_clone filtered)
	echo "$what: kernel_clone count $count, filtered $filtered (--min 500us)"
	t_assert_eq $((count + filtered)) "$FORKS" "$what: kernel_clone count + filtered ($count + $filtered)"
	if [ "$count" -gt 0 ]; then
		[ "$(fnum "$f" kernel_clone min_ns)" -ge 500000 ] ||
			t_fail "$what: min_ns $(fn "$f" kernel_clone .min_ns) below --min 500us"
		t_assert_eq "$(fn "$f" kernel_clone '[.hist[].count] | add')" "$count" "$what: histogram counts"
	fi
	t_bpf_assert_same "$snap" "after $what"
	MODE=$(jq -r .mode "$f")
}

test_do_fork_fentry() {
	need_vm
	fork_run "funcdur do_fork (fentry)"
	t_assert_eq "$MODE" fentry "mode"
}

test_do_fork_kprobes() {
	need_vm
	fork_run "funcdur -k do_fork" -k
	t_assert_eq "$MODE" kprobe "mode with -k"
}

# ---- a glob of many functions ----------------------------------------------

test_glob_vfs() {
	need_vm
	local avail n f=$T_TMP/bg.out snap
	avail=$(grep -c '^vfs_' "$AFF")
	[ "$avail" -ge 50 ] || t_fail "only $avail vfs_* functions in $AFF: the glob needs another pattern"
	snap=$(t_bpf_snapshot)
	bg_start -j 'vfs_*'
	bg_wait_tracing
	n=$(sed -nE 's/^Tracing ([0-9]+) functions?.*/\1/p' "$T_TMP/bg.err")
	echo "vfs_*: $avail in available_filter_functions, 'Tracing $n functions'"
	_t_is_num "$n" || t_fail "no 'Tracing N functions' line: $(grep ^Tracing "$T_TMP/bg.err")"
	[ "$n" -ge 50 ] || t_fail "vfs_* resolved to $n functions, fewer than 50"
	[ "$n" -le "$avail" ] || t_fail "vfs_* resolved to $n functions, more than the $avail available"
	ls -l /kfit >/dev/null
	cat /proc/version >/dev/null
	bg_stop INT
	assert_json "$f" "funcdur -j vfs_*"
	t_assert_eq "$(jq '.functions | length' "$f")" "$n" "functions listed (every resolved one)"
	t_assert_eq "$(jq '[.functions[].name | startswith("vfs_")] | all' "$f")" true "all vfs_*"
	[ "$(fnum "$f" vfs_read count)" -gt 0 ] || t_fail "no vfs_read call counted (cat /proc/version ran)"
	jq -r '.skipped[]? | "skipped: \(.name): \(.reason)"' "$f" | head -n 10
	t_bpf_assert_same "$snap" "after funcdur vfs_* and SIGINT"
}

# ---- attaching a whole subsystem (the mass attacher) -----------------------

# Unique base names (compiler clones folded) of kernel text symbols matching a glob
ksym_names() {	# GLOB
	awk -v g="$1" 'BEGIN { gsub(/\*/, ".*", g); g = "^" g "$" }
		$2 ~ /^[tTwW]$/ { n = $3; sub(/\..*/, "", n); if (n ~ g) print n }' /proc/kallsyms |
		sort -u
}

# kprobe_multi links need fprobe, which kallsyms shows
have_fprobe() { grep -q ' register_fprobe_ips$' /proc/kallsyms; }

# The TCP functions of IPv4 and IPv6: on Debian's 6.1 some refuse fentry
# (tcp_v4_send_ack: EOPNOTSUPP, tcp_v6_send_response: EINVAL). The whole
# 'tcp_*' (about 370) is attached by `make bench`: under emulation it
# takes minutes, mostly to detach.
TCP_GLOB='tcp_v*'

# funcdur -d 1 -j ARGS "$TCP_GLOB": exit 0; every name of kallsyms it
# matches is either traced (and ftrace-able) or skipped with a reason; N
# of the Tracing line = functions listed = attach.functions. Sets F.
tcp_glob_run() {	# what funcdur-args...
	local what=$1 want n snap
	shift
	F=$T_TMP/tcp.json
	want=$(ksym_names "$TCP_GLOB" | wc -l)
	[ "$want" -ge 50 ] || t_fail "only $want $TCP_GLOB functions in kallsyms"
	snap=$(t_bpf_snapshot)
	timeout 900 "$FD" -j -d 1 "$@" "$TCP_GLOB" >"$F" 2>"$T_TMP/tcp.err" ||
		{ t_show_file "$T_TMP/tcp.err" "$what stderr"; t_fail "$what exited $?"; }
	assert_json "$F" "$what"
	n=$(jq '.functions | length' "$F")
	echo "$what: $want $TCP_GLOB in kallsyms, $n traced, $(jq '.skipped | length' "$F") skipped," \
		"$(jq -c .attach "$F")"
	jq -r '.skipped[] | select(.reason | test("refused")) | "  \(.name): \(.reason)"' "$F"
	[ "$n" -ge 40 ] || t_fail "$what: only $n functions traced"
	t_assert_eq $((n + $(jq '.skipped | length' "$F"))) "$want" "$what: traced + skipped"
	t_assert_eq "$(jq .attach.functions "$F")" "$n" "$what: attach.functions"
	t_assert_eq "$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$T_TMP/tcp.err")" "$n" \
		"$what: N of the Tracing line"
	jq -r '.functions[].name' "$F" | while read -r fn; do
		traceable "$fn" || echo "$fn"
	done | head -n 3 | grep . && t_fail "$what: traced functions not in $AFF"
	jq -e '[.skipped[].reason | length > 10] | all' "$F" >/dev/null ||
		t_fail "$what: a skipped function without a reason"
	t_bpf_assert_same "$snap" "after $what"
}

# --attach auto: past 32 kernel functions kprobe_multi where the kernel has
# it (one link for all; fentry attaches one at a time), and the Tracing
# line says why; fentry elsewhere, and wherever it is asked for
assert_fentry_fds() {
	t_assert_eq "$(jq -r .attach.mechanism "$F")" fentry "mechanism"
	# fentry: a copy of each program per function, and a link each
	t_assert_eq "$(jq .attach.fds "$F")" $((4 * $(jq '.functions | length' "$F"))) "file descriptors"
}

test_tcp_glob_default() {
	need_vm
	tcp_glob_run "funcdur '$TCP_GLOB'"
	if ! have_fprobe; then
		assert_fentry_fds
		return
	fi
	t_assert_eq "$(jq -r .attach.mechanism "$F")" kprobe_multi "mechanism (fprobe built in, > 32 functions)"
	t_assert_eq "$(jq .attach.fds "$F")" 2 "file descriptors: one link each way"
	t_assert_match "$(grep ^Tracing "$T_TMP/tcp.err")" \
		'kprobe_multi: one link for all, where fentry attaches one at a time' "the Tracing line's reason"
	tcp_glob_run "funcdur --attach fentry '$TCP_GLOB'" --attach fentry
	assert_fentry_fds
}

test_tcp_glob_kprobes() {
	need_vm
	tcp_glob_run "funcdur -k '$TCP_GLOB'" -k
	if have_fprobe; then
		t_assert_eq "$(jq -r .attach.mechanism "$F")" kprobe_multi "mechanism (fprobe built in)"
		t_assert_eq "$(jq .attach.fds "$F")" 2 "file descriptors: one link each way"
	else
		t_assert_eq "$(jq -r .attach.mechanism "$F")" kprobe "mechanism (no fprobe)"
		[ "$(jq .attach.fds "$F")" -ge $((2 * $(jq '.functions | length' "$F"))) ] ||
			t_fail "kprobes: fewer than 2 file descriptors per function"
	fi
	t_assert_eq "$(jq -r .mode "$F")" kprobe "mode"
}

# Past RLIMIT_NOFILE the last functions are skipped, and say why
test_nofile_limit_skips() {
	need_vm
	local f=$T_TMP/r.json n nfd
	(ulimit -Sn 100 && ulimit -Hn 100 &&
		exec "$FD" --attach kprobe-single -j -d 1 "$TCP_GLOB") >"$f" 2>"$T_TMP/r.err" ||
		{ t_show_file "$T_TMP/r.err" stderr; t_fail "funcdur exited $?"; }
	assert_json "$f" "funcdur under RLIMIT_NOFILE 100"
	n=$(jq '.functions | length' "$f")
	nfd=$(jq '[.skipped[] | select(.reason == "kprobe refused: no file descriptor left (RLIMIT_NOFILE 100)")] | length' "$f")
	echo "$n traced, $nfd skipped for want of file descriptors"
	[ "$n" -ge 5 ] || t_fail "only $n functions traced under 100 file descriptors"
	[ "$nfd" -ge 10 ] || t_fail "only $nfd functions skipped for want of file descriptors"
	t_assert_eq $((n + $(jq '.skipped | length' "$f"))) "$(ksym_names "$TCP_GLOB" | wc -l)" "traced + skipped"
	t_assert_match "$(cat "$T_TMP/r.err")" 'warning: .* file descriptors, more than RLIMIT_NOFILE \(100\)' \
		"the warning"
}

# A program that fires inside another is skipped by the kernel: counted
test_recursion_missed() {
	need_vm
	local f=$T_TMP/bg.out
	t_expect_exit 2 "$FD" -d 1 bpf_ktime_get_ns
	t_assert_match "$(cat "$T_ERR")" 'bpf_ktime_get_ns: denied by default \(BPF internals' "deny reason"
	# funcdur's own programs call bpf_ktime_get_ns: inside our probe on it
	# the kernel skips the nested run, while sys:read's programs run it
	bg_start -j --no-deny bpf_ktime_get_ns
	bg_wait_tracing
	"$FD" -d 3 sys:read >/dev/null 2>"$T_TMP/read.err" &
	for _ in $(seq 30); do
		read -r _ </proc/version	# bash reads it with read(2)
		sleep 0.1
	done
	wait $! || { cat "$T_TMP/read.err"; t_fail "funcdur sys:read failed"; }
	bg_stop INT
	assert_json "$f" "funcdur --no-deny bpf_ktime_get_ns"
	echo "bpf_ktime_get_ns: count $(fnum "$f" bpf_ktime_get_ns count), missed $(jq .missed "$f")"
	[ "$(fnum "$f" bpf_ktime_get_ns count)" -gt 0 ] || t_fail "no call of bpf_ktime_get_ns counted"
	[ "$(jq .missed "$f")" -gt 0 ] || t_fail "no recursion counted in missed"
}

# ---- functions of a module (fentry copies need the module's BTF object) ---

XMITS=5 CARRIERS=3 READS=4

# funcdur ARGS 'dummy_*' -- bash (the triggers of tests/vm/test_vm_module.sh,
# all in bash's own process): exact counts per module function. Sets F.
module_run() {	# what funcdur-args...
	local what=$1 snap
	shift
	F=$T_TMP/mod.json
	t_vm_dummy_up
	snap=$(t_bpf_snapshot)
	timeout 600 "$FD" -j --output "$F" "$@" 'dummy_*' -- bash -c '
		for i in $(seq '$XMITS'); do echo x >/dev/udp/10.99.0.2/9; done
		for i in $(seq '$CARRIERS'); do echo 1 >/sys/class/net/kd0/carrier; done
		for i in $(seq '$READS'); do read -r x </sys/class/net/kd0/statistics/tx_packets; done' \
		>/dev/null 2>"$T_TMP/mod.err" || { t_show_file "$T_TMP/mod.err" stderr; t_fail "$what exited $?"; }
	assert_json "$F" "$what"
	echo "$what: $(jq -c '[.functions[] | {name, count}]' "$F"), $(jq -c .attach "$F")"
	jq -r '.skipped[] | "  skipped \(.name): \(.reason)"' "$F"
	[ "$(jq '.functions | length' "$F")" -ge 4 ] || t_fail "$what: fewer than 4 dummy_* functions traced"
	t_assert_eq "$(fnum "$F" dummy_xmit count)" "$XMITS" "$what: dummy_xmit for $XMITS datagrams"
	t_assert_eq "$(fnum "$F" dummy_change_carrier count)" "$CARRIERS" \
		"$what: dummy_change_carrier for $CARRIERS carrier writes"
	t_assert_eq "$(fnum "$F" dummy_get_stats64 count)" "$READS" \
		"$what: dummy_get_stats64 for $READS statistics reads"
	t_bpf_assert_same "$snap" "after $what"
}

test_module_functions_fentry() {
	need_vm
	module_run "funcdur 'dummy_*' (fentry)"
	t_assert_eq "$(jq -r .attach.mechanism "$F")" fentry "mechanism"
}

test_module_functions_kprobes() {
	need_vm
	module_run "funcdur -k 'dummy_*'" -k
	t_assert_eq "$(jq -r .mode "$F")" kprobe "mode"
}

# ---- interrupt filters -----------------------------------------------------

# An interrupt-only function (the tick) and a task-only one (kernel_clone),
# under a load that makes both: durtarget forks and sleeps
IRQ_FN=update_process_times

ints_run() {	# funcdur-args...
	traceable "$IRQ_FN" || t_fail "$IRQ_FN is not in $AFF"
	bg_start -j "$@" "$IRQ_FN" kernel_clone
	bg_wait_tracing
	"$DT" fork 10 >/dev/null || t_fail "durtarget fork failed"
	"$DT" sleep 20 >/dev/null || t_fail "durtarget sleep failed"
	bg_stop INT
	assert_json "$T_TMP/bg.out" "funcdur $*"
}

test_onlyints_noints() {
	need_vm
	local f=$T_TMP/bg.out irq_all clone_all
	ints_run
	irq_all=$(fnum "$f" "$IRQ_FN" count)
	clone_all=$(fnum "$f" kernel_clone count)
	echo "unfiltered: $IRQ_FN $irq_all, kernel_clone $clone_all"
	[ "$irq_all" -gt 0 ] || t_fail "no $IRQ_FN call in the unfiltered run"
	[ "$clone_all" -ge 10 ] || t_fail "kernel_clone $clone_all < the 10 forks made"

	ints_run --onlyints
	echo "--onlyints: $IRQ_FN $(fn "$f" "$IRQ_FN" .count), kernel_clone $(fn "$f" kernel_clone .count)"
	[ "$(fnum "$f" "$IRQ_FN" count)" -gt 0 ] || t_fail "--onlyints: no $IRQ_FN call (a hardirq function)"
	t_assert_eq "$(fnum "$f" kernel_clone count)" 0 "--onlyints: kernel_clone calls (task context only)"

	ints_run --noints
	echo "--noints: $IRQ_FN $(fn "$f" "$IRQ_FN" .count), kernel_clone $(fn "$f" kernel_clone .count)"
	t_assert_eq "$(fnum "$f" "$IRQ_FN" count)" 0 "--noints: $IRQ_FN calls (hardirq only)"
	[ "$(fnum "$f" kernel_clone count)" -ge 10 ] || t_fail "--noints: kernel_clone < the 10 forks made"
}

# ---- return values (tests/vm/kret-lib.sh: ftrace's kretprobe events) ------

# "VALUE COUNT" lines of the failed returns (-4095 to -1), then "ok N" for
# the rest, from lines of values
rets_of() {
	awk '$1 < 0 && $1 >= -4095 { e[$1] += $2; next } { ok += $2 }
	     END { for (v in e) print v, e[v]; print "ok", ok + 0 }' | sort | tr '\n' ' '
}

# funcdur -p --by ret ARGS FUNC and ftrace on one run of the workload:
# sets WANT (ftrace's) and GOT (funcdur's), as rets_of gives them
both_rets() {	# FUNC TYPE ARGS...
	local f=$1 ty=$2
	shift 2
	kret_run "$f" "$ty" "$FD_WAIT" "$FD" -j --by ret --output "$T_TMP/rets.json" "$@"
	WANT=$(kret_ftrace | awk '{ print $2, 1 }' | rets_of)
	GOT=$(jq -r '.functions[] | "\(.ret) \(.count)"' "$T_TMP/rets.json" | rets_of)
}

check_rets() {	# FUNC TYPE ARGS...
	local f=$1
	both_rets "$@"
	t_assert_match "$WANT" '^-2 [1-9]' "ftrace saw $f fail with -ENOENT: $WANT"
	t_assert_eq "$GOT" "$WANT" "$f's failures by errno and its other returns, the same calls (ftrace's)"
}

# An int: the register's upper half is not the value's (-2 is 0xfffffffe)
test_by_ret_int_fentry() {
	need_vm
	check_rets "$(kret_first vfs_fstatat vfs_statx)" s32 --attach fentry
}

test_by_ret_int_kprobes() {
	need_vm
	check_rets "$(kret_first vfs_fstatat vfs_statx)" s32 --attach kprobe
}

# A pointer: ERR_PTR(-ENOENT) when the file is not there
test_by_ret_errptr() {
	need_vm
	check_rets do_filp_open s64
}

# --errors: only the failed calls, by name in the table
test_errors_kernel() {
	need_vm
	local f
	f=$(kret_first vfs_fstatat vfs_statx)
	"$FD" --errors --by ret --output "$T_TMP/err.txt" "$f" do_filp_open -- \
		sh -c "$KRET_WORK" >/dev/null 2>&1 ||
		t_fail "funcdur --errors failed: $(cat "$T_TMP/err.txt")"
	t_assert_eq "$(awk -v f="$f" '$1 == f || $1 == "do_filp_open" { print $1, $2 }' \
		"$T_TMP/err.txt" | sort -u)" "do_filp_open -ENOENT
$f -ENOENT" "the rows left: -ENOENT of each ($(cat "$T_TMP/err.txt"))"
}

# --filter on a kernel function's return value and argument, in BPF: the
# -ENOENT returns ftrace saw, through fentry and kprobes
check_filter() {	# --attach MECH
	local f want got
	f=$(kret_first vfs_fstatat vfs_statx)
	kret_run "$f" s32 "$FD_WAIT" "$FD" -j --by ret --output "$T_TMP/f.json" \
		--filter 'ret == -ENOENT && dfd < 0' "$@" "$f(dfd)"
	want=$(kret_ftrace | awk '$2 == -2' | wc -l)
	[ "$want" -gt 0 ] || t_fail "ftrace saw no -ENOENT of $f"
	got=$(jq -r '.functions[] | "\(.ret) \(.count)"' "$T_TMP/f.json")
	t_assert_eq "$got" "-2 $want" "$f's rows: the $want calls that returned -ENOENT (ftrace's)"
	t_assert_eq "$(jq -r '.filtered_out' "$T_TMP/f.json")" \
		"$(kret_ftrace | awk '$2 != -2' | wc -l)" "filtered_out: the other returns (ftrace's)"
}

test_filter_fentry() {
	need_vm
	check_filter --attach fentry
}

test_filter_kprobes() {
	need_vm
	check_filter --attach kprobe
}

# ---- arguments ---------------------------------------------------------------

# One run of KRET_WORK watched by ftrace's kprobe event at FUNC's entry,
# with fetch arguments (x86-64 registers: the VM's), and by funcdur -p
# --events -j 'FUNC(ARGS)' (kret_probe). Sets WANT and GOT: a line per
# call, "name=value ...", in the order of the calls (a field's name
# without its path: ftrace's names are plain words).
both_args() {	# FUNC FETCHARGS FUNCDUR-ARGS EXTRA...
	local f=$1 fetch=$2 names=$3
	shift 3
	kret_probe "p:$KRET_EV $f $fetch" "$f($names)" "$FD_WAIT" "$FD" -j --events \
		--output "$T_TMP/args.json" "$@"
	WANT=$(sed -n "s/.* $KRET_EV: ([^)]*) //p" "$T_TMP/ftrace.out" | tr -d '"')
	GOT=$(jq -r 'select(.type == "call") | .args | to_entries |
		map("\(.key | sub("^.*->"; ""))=\(.value)") | join(" ")' "$T_TMP/args.json")
}

# A parameter, a user string and two fields through a pointer, as ftrace reads them
check_args() {	# --attach MECH
	both_args do_sys_openat2 \
		'dfd=%di:s32 filename=+0(%si):ustring flags=+0(%dx):u64 mode=+8(%dx):u64' \
		'dfd, filename, how->flags, how->mode' "$@"
	t_assert_match "$WANT" 'filename=/nonexistent-3' "ftrace saw the missing files opened: $WANT"
	t_assert_eq "$GOT" "$WANT" "each call's arguments, in order, as ftrace's kprobe event read them"
}

test_args_fentry() {
	need_vm
	check_args --attach fentry
}

test_args_kprobes() {
	need_vm
	check_args --attach kprobe
}

# --by a kernel function's string (a __user one): a row per file name, as
# many calls as ftrace's kprobe event saw given it, on the same run
check_by_string() {	# --attach MECH
	local want got
	kret_probe "p:$KRET_EV do_sys_openat2 filename=+0(%si):ustring" \
		'do_sys_openat2(filename)' "$FD_WAIT" "$FD" -j --by filename \
		--output "$T_TMP/by.json" "$@"
	want=$(sed -n "s/.* $KRET_EV: ([^)]*) filename=\"\(.*\)\"\$/\1/p" "$T_TMP/ftrace.out" |
		sort | uniq -c | awk '{ print $2, $1 }' | sort)
	t_assert_match "$want" '^/nonexistent-3 1$' "ftrace saw the missing files opened: $want"
	got=$(jq -r '.functions[] | "\(.filename) \(.count)"' "$T_TMP/by.json" | sort)
	t_assert_eq "$got" "$want" "a row per file name, its count (ftrace's)"
}

test_by_string_fentry() {
	need_vm
	check_by_string --attach fentry
}

test_by_string_kprobes() {
	need_vm
	check_by_string --attach kprobe
}

# Unknown names: the function's real parameters in the message, status 2
test_args_unknown() {
	need_vm
	local rc
	"$FD" 'vfs_read(cnt)' -- true >"$T_TMP/out" 2>&1
	rc=$?
	t_assert_eq "$rc" 2 "an unknown parameter is a usage error"
	t_assert_match "$(cat "$T_TMP/out")" "vfs_read has no parameter 'cnt'; its parameters: file, buf, count, pos" \
		"the message names the real parameters"
	"$FD" 'vfs_read(file->f_nope)' -- true >"$T_TMP/out" 2>&1
	rc=$?
	t_assert_eq "$rc" 2 "an unknown field is a usage error"
	# its fields in the kernel's order: 6.12 moved f_flags before f_path
	t_assert_match "$(cat "$T_TMP/out")" "struct file has no field 'f_nope'; its fields: .*f_path" \
		"the message names the structure and its fields"
	t_assert_match "$(cat "$T_TMP/out")" "its fields: .*f_flags" "f_flags among them"
}

# ---- triggers --------------------------------------------------------------

# --start-at kernel_clone --stop-at kernel_clone: the first fork only
test_start_stop_kernel() {
	need_vm
	local f=$T_TMP/bg.out
	dt_start fork 5
	bg_start -j -p "$DT_PID" --start-at kernel_clone --stop-at kernel_clone kernel_clone
	bg_wait_tracing
	dt_go
	bg_end
	assert_json "$f" "funcdur --start-at kernel_clone --stop-at kernel_clone"
	t_assert_eq "$(fnum "$f" kernel_clone count)" 1 "kernel_clone calls from its first entry to its first exit"
}

# Triggers on user functions of the static durtarget, uprobes on 6.1
test_start_stop_uprobes() {
	need_vm
	local f=$T_TMP/bg.out n=5
	dt_start start-stop "$n"
	bg_start -j -p "$DT_PID" --start-at dt_start_marker --stop-at dt_stop_marker \
		"$DT:dt_short" "$DT:dt_start_marker" "$DT:dt_stop_marker"
	bg_wait_tracing
	dt_go
	bg_end
	assert_json "$f" "funcdur --start-at dt_start_marker --stop-at dt_stop_marker"
	t_assert_eq "$(fnum "$f" dt_short count)" "$n" "dt_short calls between the markers"
	t_assert_eq "$(jq -r .mode "$f")" uprobe "mode"
}

t_run_all
