#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The mass attacher (src/live/attach.c) through funcdur, on any kernel:
# uprobes on funcdur's own kfit_* functions (100+ of them, in the host's
# dynamic build and in the VM's static one; detaching each uprobe takes
# 0.2 s on 6.18, so the progress tests attach the 67 kfit_[a-j]*, the others
# the dozen kfit_json_*), the progress line on a terminal only, the attach figures in -v and JSON, the skipped list and
# the deny list, and bad --attach and --cgroup values.
# Kernel mechanisms (fentry, kprobes, kprobe_multi) are tested in the VM
# (tests/vm/test_funcdur_vm.sh).
. "$(dirname "$0")/../lib.sh"

FD="$KFIT_BIN/funcdur"
PTY="$KFIT_HELPERS/ptyrun"

need_tool() {
	t_need_root
	[ -x "$FD" ] || t_fail "$FD not built"
	[ -x "$PTY" ] || t_fail "$PTY not built"
}

# Unique base names (compiler clones folded) of kernel text symbols matching a glob
ksym_names() {	# GLOB
	awk -v g="$1" 'BEGIN { gsub(/\*/, ".*", g); g = "^" g "$" }
		$2 ~ /^[tTwW]$/ { n = $3; sub(/\..*/, "", n); if (n ~ g) print n }' /proc/kallsyms |
		sort -u
}

many_glob() { echo "$FD:kfit_[a-j]*"; }	# 67 today: 50 make a progress line
user_glob() { echo "$FD:kfit_json_*"; }

test_progress_on_terminal() {
	need_tool
	local out n
	# The progress line is rewritten in place (\r) and erased at the end (ESC [K)
	out=$(timeout 120 "$PTY" "$FD" -d 0.2 "$(many_glob)" | tr '\r' '\n' | sed 's/\x1b\[K//g')
	n=$(printf '%s\n' "$out" | sed -nE 's/^Tracing ([0-9]+) functions \(uprobe\).*/\1/p')
	_t_is_num "$n" || t_fail "no Tracing line: $(_t_short "$out")"
	[ "$n" -ge 50 ] || t_fail "only $n kfit_* functions attached: the progress line needs 50: widen many_glob"
	# The last line counts every function tried, refused ones too
	t_assert_match "$out" '^attaching ([0-9]+)/\1 functions \([0-9]+/s\)\.\.\.' "the last progress line"
}

test_no_progress_off_terminal() {
	need_tool
	# 50 functions or more, as on the terminal
	t_expect_exit 0 "$FD" -d 0.2 "$(many_glob)"
	grep -q attaching "$T_ERR" && t_fail "progress printed off a terminal: $(grep attaching "$T_ERR")"
	t_assert_match "$(cat "$T_ERR")" '^Tracing [0-9]+ functions \(uprobe\)' "the Tracing line"
}

test_attach_figures_json() {
	need_tool
	local n fds ntrace
	t_expect_exit 0 "$FD" -j -d 0.2 "$(user_glob)"
	t_assert_eq "$(jq -r .attach.mechanism "$T_OUT")" uprobe "attach.mechanism"
	t_assert_eq "$(jq -r .mode "$T_OUT")" uprobe "mode"
	n=$(jq '.functions | length' "$T_OUT")
	[ "$n" -ge 5 ] || t_fail "only $n kfit_json_* functions traced"
	t_assert_eq "$(jq .attach.functions "$T_OUT")" "$n" "attach.functions = functions listed"
	t_assert_eq "$(jq .attach.skipped "$T_OUT")" "$(jq '.skipped | length' "$T_OUT")" \
		"attach.skipped = skipped listed"
	ntrace=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$T_ERR")
	t_assert_eq "$ntrace" "$n" "N of 'Tracing N functions'"
	# A uprobe pair per function: two perf events, each with a link
	fds=$(jq .attach.fds "$T_OUT")
	[ "$fds" -ge $((2 * n)) ] && [ "$fds" -le $((4 * n)) ] ||
		t_fail "$fds file descriptors for $n functions (expected 2 to 4 each)"
	[ "$(jq .attach.attach_ns "$T_OUT")" -gt 0 ] || t_fail "attach_ns is not positive"
	t_assert_eq "$(jq .missed "$T_OUT")" 0 "missed (no recursion with uprobes)"
}

test_verbose_attach_and_detach_times() {
	need_tool
	local n
	t_expect_exit 0 "$FD" -v -d 0.2 "$(user_glob)"
	n=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$T_ERR")
	t_assert_match "$(cat "$T_ERR")" "attached $n functions in [0-9.]+[mun]?s \\([0-9]+/s\\), [0-9]+ file descriptors" \
		"-v attach line"
	t_assert_match "$(cat "$T_ERR")" "detached $n functions in [0-9.]+[mun]?s" "-v detach line"
}

# Kernel functions all denied, a system call traced: runs on any kernel
test_deny_list_skips_with_reasons() {
	need_tool
	local want got snap
	want=$(ksym_names '_raw_spin_*' | wc -l)
	[ "$want" -gt 5 ] || t_fail "only $want _raw_spin_* symbols in /proc/kallsyms"
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$FD" -j -d 0.2 '_raw_spin_*' sys:getppid
	got=$(jq '.skipped | length' "$T_OUT")
	t_assert_eq "$got" "$want" "skipped _raw_spin_* (every name in /proc/kallsyms)"
	t_assert_eq "$(jq '[.functions[].name] | join(",")' -r "$T_OUT")" sys:getppid "functions traced"
	# Those that ftrace could trace are refused by the deny list, with the way out
	jq -r '.skipped[].reason' "$T_OUT" | grep -v "available_filter_functions\|compiler clones\|kernel's BTF" |
		grep -v 'denied by default (lock internals.*--no-deny traces it' &&
		t_fail "a _raw_spin_* function skipped for another reason"
	jq -e '[.skipped[].reason | test("denied by default")] | any' "$T_OUT" >/dev/null ||
		t_fail "no function denied by default"
	# stderr: the count, the first five, and where the rest are
	t_assert_match "$(cat "$T_ERR")" "^Skipped $want functions that cannot be traced:" "skipped count"
	t_assert_eq "$(grep -c '^  _raw_spin_' "$T_ERR")" 5 "skipped functions listed without -v"
	t_assert_match "$(cat "$T_ERR")" "and $((want - 5)) more \\(-v lists them all\\)" "the rest"
	t_expect_exit 0 "$FD" -v -d 0.2 '_raw_spin_*' sys:getppid
	t_assert_eq "$(grep -c '^  _raw_spin_' "$T_ERR")" "$want" "skipped functions listed with -v"
	t_bpf_assert_same "$snap" "after funcdur"
}

test_only_denied_is_usage_error() {
	need_tool
	t_expect_exit 2 "$FD" -d 0.2 _raw_spin_lock
	t_assert_match "$(cat "$T_ERR")" 'nothing to trace' "message"
	t_assert_match "$(cat "$T_ERR")" '_raw_spin_lock: denied by default .*--no-deny' "the reason"
	[ -s "$T_OUT" ] && t_fail "output on stdout"
	return 0
}

test_bad_attach_mechanism() {
	need_tool
	t_expect_exit 2 "$FD" --attach bogus sys:read
	t_assert_match "$(cat "$T_ERR")" "invalid mechanism 'bogus' for --attach" "message"
	t_assert_match "$(cat "$T_ERR")" 'kprobe-multi' "the mechanisms listed"
	# No kernel function: the mechanism asked for does not matter
	t_expect_exit 0 "$FD" --attach fentry -d 0.2 sys:read
}

test_cgroup_missing_one_error() {
	need_tool
	t_expect_exit 1 "$FD" --cgroup /nonexistent/kfit -d 1 sys:read
	t_assert_eq "$(wc -l <"$T_ERR")" 1 "lines on stderr"
	t_assert_match "$(cat "$T_ERR")" "cannot use cgroup '/nonexistent/kfit': No such file" "message"
}

# -- COMMAND: traced from its exec, as with -p; the run ends with it
test_command_traced_from_exec() {
	need_tool
	local dt=$KFIT_HELPERS/durtarget j
	[ -x "$dt" ] || t_fail "$dt not built"
	t_expect_exit 0 "$FD" -j "$dt:dt_outer" "$dt:dt_inner" -d 60 -- "$dt" nest 5
	# stdout is durtarget's alone; the report is on stderr
	t_assert_eq "$(cat "$T_OUT")" "$(sed -n '/^durtarget: nest 5/p' "$T_OUT")" "the command's output"
	t_assert_match "$(cat "$T_OUT")" '^durtarget: nest 5' "the command's output"
	j=$(grep '^{' "$T_ERR")
	t_assert_eq "$(printf '%s' "$j" | jq '[.functions[] | select(.name == "dt_outer")][0].count')" 5 "dt_outer calls"
	t_assert_eq "$(printf '%s' "$j" | jq '[.functions[] | select(.name == "dt_inner")][0].count')" 15 "dt_inner calls"
}

test_command_errors() {
	need_tool
	local snap
	snap=$(t_bpf_snapshot)
	t_expect_exit 1 "$FD" sys:getppid -- /nonexistent/cmd
	t_assert_match "$(cat "$T_ERR")" "cannot run '/nonexistent/cmd': No such file" "message"
	t_expect_exit 2 "$FD" sys:getppid --
	t_assert_match "$(cat "$T_ERR")" 'no COMMAND after --' "message"
	t_expect_exit 2 "$FD" -p 1 sys:getppid -- true
	t_assert_match "$(cat "$T_ERR")" 'exclude each other' "message"
	# The command's failure is reported, and funcdur exits with its status
	t_expect_exit 3 "$FD" sys:getppid -- sh -c 'exit 3'
	t_assert_match "$(cat "$T_ERR")" "'sh' exited with status 3" "note"
	t_bpf_assert_same "$snap" "after funcdur -- COMMAND"
}

t_run_all
