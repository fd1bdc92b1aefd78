#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# funcdur on kernel functions, on Debian's stock kernel (in the VM), where
# fentry and kprobes work: do_fork resolved to kernel_clone, counted
# exactly for a process that forks a known number of times, through fentry
# and through kprobes; a glob of 50+ functions; the interrupt filters; the
# start/stop triggers on a kernel function. Emulation is slow: counts are
# checked, durations only against the --min bound.
. "$(dirname "$0")/../lib.sh"

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
