#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bootsum --early --funcs GLOB --min DUR on Debian's kernel (in the VM), as
# an ordinary process: funcdur's programs recorded from bootsum on, read by
# a later `bootsum -j` (its "functions" object), against ftrace's function
# tracer on the same function over a window that holds bootsum's, and a
# workload of a known number of reads: N <= bootsum's count <= ftrace's.
# Then the pins hidden by a bpffs mounted on top (as after the first
# process's /init mounts its own): found by map id; `bootsum --stop` leaves
# nothing loaded.
. "$(dirname "$0")/../lib.sh"

BS="$KFIT_BIN/bootsum"
PIN=/sys/fs/bpf/kfit/bootsum
TR=/sys/kernel/tracing
N=2000		# reads of one byte by the workload
T_CMD_TIMEOUT=300	# attaching under TCG

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
	[ -x "$BS" ] || t_fail "$BS not built (make STATIC=1)"
	# an earlier test killed by its watchdog leaves its recording
	[ -e "$PIN" ] && "$BS" --stop
	t_on_exit "'$BS' --stop >/dev/null 2>&1"
}

WORKLOAD="dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null"

# jq EXPR on function NAME of FILE's functions object; "missing" if none
fn() {	# FILE NAME EXPR
	jq -r --arg n "$2" "[.functions.functions[]? | select(.name == \$n)] |
		if length == 0 then \"missing\" else (.[0] | $3) end" "$1"
}

fnum() {	# FILE NAME FIELD
	local v
	v=$(fn "$1" "$2" ".$3")
	_t_is_num "$v" || { jq -c .functions "$1" >&2; t_fail "$2.$3 is not a number: '$v'"; }
	echo "$v"
}

assert_recorded() {	# FILE what
	[ "$(jq -r '.functions.recorded' "$1" 2>/dev/null)" = true ] || {
		t_show_file "$1" "$2"
		t_fail "$2: no recorded functions object"
	}
}

# ftrace's function tracer on vfs_read, from now until ftrace_count, in an
# instance of its own: bootsum's report reads the main buffer (initcalls),
# and reading it while the tracer fills it would feed itself
ftrace_start() {
	FT=$TR/instances/kfit-funcs
	mkdir -p "$FT" || t_fail "cannot make the tracefs instance $FT"
	t_on_exit "echo 0 > $FT/tracing_on; echo nop > $FT/current_tracer; rmdir $FT"
	[ -w "$FT/set_ftrace_filter" ] || t_fail "no $FT/set_ftrace_filter"
	echo vfs_read >"$FT/set_ftrace_filter" || t_fail "vfs_read cannot be filtered on"
	echo 8192 >"$FT/buffer_size_kb"
	echo function >"$FT/current_tracer" || t_fail "no function tracer in $FT"
	echo >"$FT/trace"
	echo 1 >"$FT/tracing_on"
}

# Calls of vfs_read the tracer saw; fails if it lost any
ftrace_count() {
	echo 0 >"$FT/tracing_on"
	grep -h '^overrun:' "$FT"/per_cpu/cpu*/stats | grep -qv 'overrun: 0$' &&
		t_fail "ftrace lost events (overrun): $(grep -h '^overrun:' "$FT"/per_cpu/cpu*/stats | tr '\n' ' ')"
	grep -cE ': vfs_read( <-|$)' "$FT/trace"
}

test_funcs_counts() {
	need_vm
	local f=$T_TMP/rep.json snap c t
	snap=$(t_bpf_snapshot)
	ftrace_start
	t_expect_exit 0 "$BS" --early --funcs vfs_read --min 0us -- sh -c "$WORKLOAD"
	cat "$T_ERR"
	[ -e "$PIN/funcs/bs_funcs" ] || t_fail "nothing pinned in $PIN/funcs"
	bpftool link list | grep -q trace_fentry || t_fail "no fentry link after bootsum --early"
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$f"
	t=$(ftrace_count)
	assert_recorded "$f" "bootsum -j"
	jq -c '.functions | del(.functions)' "$f"
	t_assert_eq "$(jq -r .functions.mechanism "$f")" fentry "mechanism"
	t_assert_match "$(jq -r .functions.found "$f")" "^pinned at $PIN/funcs" "found"
	c=$(fnum "$f" vfs_read count)
	echo "vfs_read: workload $N, bootsum $c, ftrace $t (a window around bootsum's)"
	[ "$c" -ge "$N" ] || t_fail "bootsum counted $c calls of vfs_read, fewer than the workload's $N"
	[ "$c" -le "$t" ] || t_fail "bootsum counted $c calls of vfs_read, more than ftrace's $t"
	t_assert_eq "$(fnum "$f" vfs_read filtered)" 0 "calls filtered with --min 0"
	t_assert_eq "$(fn "$f" vfs_read '[.hist[].count] | add')" "$c" "histogram counts"
	t_expect_exit 0 "$BS" --stop
	[ -e "$PIN/funcs" ] && t_fail "$PIN/funcs still there after --stop"
	t_bpf_assert_same "$snap" "after bootsum --stop"
}

# --min 1s: the workload's reads (microseconds) are filtered, never counted
test_funcs_min() {
	need_vm
	local f=$T_TMP/rep.json snap c
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$BS" --early --funcs 'vfs_read' --min 1s -- sh -c "$WORKLOAD"
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$f"
	assert_recorded "$f" "bootsum -j"
	t_assert_eq "$(jq -r .functions.min_ns "$f")" 1000000000 "min_ns"
	c=$(fnum "$f" vfs_read count)
	[ "$(fnum "$f" vfs_read filtered)" -ge "$N" ] ||
		t_fail "only $(fn "$f" vfs_read .filtered) calls filtered by --min 1s, the workload made $N"
	[ "$c" = 0 ] || [ "$(fnum "$f" vfs_read min_ns)" -ge 1000000000 ] ||
		t_fail "a call of $(fn "$f" vfs_read .min_ns) ns counted under --min 1s"
	t_expect_exit 0 "$BS"
	t_assert_match "$(cat "$T_OUT")" '^Functions \(--funcs vfs_read --min 1(\.00)?s' "text report's heading"
	t_assert_match "$(cat "$T_OUT")" 'calls outside \[1(\.00)?s, inf\] left out' "text report's note"
	t_expect_exit 0 "$BS" --stop
	t_bpf_assert_same "$snap" "after bootsum --stop"
}

# The pins out of reach: found by map id; --stop turns the programs off
test_funcs_hidden_pins() {
	need_vm
	local f=$T_TMP/rep.json snap c1 c2 c3
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$BS" --early --funcs vfs_read --min 0us -- sh -c "$WORKLOAD"
	mount -t bpf bpf /sys/fs/bpf || t_fail "cannot mount a bpffs on top"
	t_on_exit "umount /sys/fs/bpf 2>/dev/null; '$BS' --stop >/dev/null 2>&1"
	[ -e "$PIN" ] && t_fail "$PIN still visible under the new bpffs"
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$f"
	assert_recorded "$f" "bootsum -j with the pins hidden"
	t_assert_match "$(jq -r .functions.found "$f")" "map id" "found"
	c1=$(fnum "$f" vfs_read count)
	[ "$c1" -ge "$N" ] || t_fail "bootsum counted $c1 calls of vfs_read, fewer than $N"
	t_expect_exit 0 "$BS" --stop
	cat "$T_OUT" "$T_ERR"
	t_expect_exit 0 "$BS" -j
	c2=$(fnum "$T_OUT" vfs_read count)
	sh -c "$WORKLOAD"
	t_expect_exit 0 "$BS" -j
	c3=$(fnum "$T_OUT" vfs_read count)
	echo "vfs_read: $c1 before --stop; $c2, then $c3 after it and $N more reads"
	t_assert_eq "$c3" "$c2" "vfs_read calls counted after --stop turned the programs off"
	umount /sys/fs/bpf || t_fail "cannot unmount the bpffs on top"
	t_expect_exit 0 "$BS" --stop
	[ -e "$PIN" ] && t_fail "$PIN still there after --stop"
	t_bpf_assert_same "$snap" "after bootsum --stop"
}

t_run_all
