#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The mass attacher (src/live/attach.c) through funcdur, on any kernel:
# uprobes on the kfit_* functions of a copy of funcdur that nothing runs
# (funcdur refuses its own program system-wide: it would trace itself;
# 100+ of them, in the host's
# dynamic build and in the VM's static one; detaching each uprobe one by
# one takes 0.2 s on 6.18, so the progress tests attach the 71 kfit_[a-e]*
# one by one, the others the dozen kfit_json_*), the progress line past a
# second on a terminal only, the attach figures in -v and JSON, the
# skipped list and the deny list, and bad --attach and --cgroup values.
# uprobe_multi links at scale: test_uprobes.sh.
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

# A copy of funcdur in the test's directory: the same functions, run by no one
fd_copy() {
	[ -x "$T_TMP/fdcopy" ] || cp "$FD" "$T_TMP/fdcopy" || t_fail "cannot copy $FD"
	echo "$T_TMP/fdcopy"
}
many_glob() { echo "$(fd_copy):kfit_[a-e]*"; }	# 71 today: one by one, over a second
user_glob() { echo "$(fd_copy):kfit_json_*"; }

# Its own program system-wide would be traced in the tool itself: its
# pending return probes held every probe removal of the machine (6.18)
test_own_program_refused() {
	need_tool
	t_expect_exit 1 "$FD" -d 0.2 "$FD:kfit_json_*"
	t_assert_match "$(cat "$T_ERR")" "kfit_json_init: the tool's own program: without -p" "reason"
	t_assert_match "$(cat "$T_ERR")" "no function could be attached" "nothing attached"
	# the same functions in a copy nobody runs are traced
	t_expect_exit 0 "$FD" -d 0.2 "$(user_glob)"
	t_assert_match "$(cat "$T_OUT")" "kfit_json_init" "the copy traced"
}

# GCC's NAME.cold parts are jumped to from their function: no return probe
test_cold_parts_skipped() {
	need_tool
	local cold
	# the symbol table's strings (no nm in the VM's initramfs)
	cold=$(grep -ao 'kfit_json_[a-z_]*\.cold' "$FD" | head -n 1)
	[ -n "$cold" ] || t_skip "no kfit_json_*.cold part in this build of $FD"
	t_expect_exit 0 "$FD" -v -d 0.2 "$(user_glob)"
	t_assert_match "$(cat "$T_ERR")" "$cold: entered by a jump" "the cold part skipped"
}

test_progress_on_terminal() {
	need_tool
	local out n secs
	# The progress line is rewritten in place (\r) and erased at the end (ESC [K)
	out=$(timeout 170 "$PTY" "$FD" -v --attach uprobe-single -d 0.2 "$(many_glob)" |
		tr '\r' '\n' | sed 's/\x1b\[K//g')
	n=$(printf '%s\n' "$out" | sed -nE 's/^Tracing ([0-9]+) functions \(uprobe\).*/\1/p')
	_t_is_num "$n" || t_fail "no Tracing line: $(_t_short "$out")"
	[ "$n" -ge 50 ] || t_fail "only $n kfit_* functions attached: a second needs 50: widen many_glob"
	# A line past a second only: attaching one by one takes 0.5 to 10 s
	secs=$(printf '%s\n' "$out" | sed -nE 's/^funcdur: attached [0-9]+ functions in ([0-9.]+)s .*/\1/p')
	if [ -n "$secs" ] && [ "${secs%.*}" -ge 2 ]; then
		# The last line counts every function tried, refused ones too
		t_assert_match "$out" '^attaching ([0-9]+)/\1 functions \([0-9]+/s\)\.\.\.' \
			"the last progress line (attached in $secs s)"
	elif printf '%s\n' "$out" | grep -Eq '^funcdur: attached [0-9]+ functions in [0-9.]+[mun]s '; then
		printf '%s\n' "$out" | grep -q '^attaching' &&
			t_fail "a progress line for an attach under a second: $(grep '^funcdur: attached' <<<"$out")"
	fi
	# Detaching them one by one takes seconds (0.2 s or more each)
	t_assert_match "$out" "^detaching $n functions\\.\\.\\. [0-9]+%" "the detach progress line"
}

test_no_progress_off_terminal() {
	need_tool
	# 50 functions or more, as on the terminal
	T_CMD_TIMEOUT=170 t_expect_exit 0 "$FD" --attach uprobe-single -d 0.2 "$(many_glob)"
	grep -q 'attaching\|detaching' "$T_ERR" && t_fail "progress printed off a terminal: $(grep 'attaching\|detaching' "$T_ERR")"
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
	fds=$(jq .attach.fds "$T_OUT")
	case $(jq -r .attach.uprobes "$T_OUT") in
	uprobe_multi)
		# a link per direction for the binary (6.10+)
		t_assert_eq "$fds" 2 "file descriptors of the uprobe_multi links" ;;
	uprobe)
		# a uprobe pair per function: two perf events, each with a link
		[ "$fds" -ge $((2 * n)) ] && [ "$fds" -le $((4 * n)) ] ||
			t_fail "$fds file descriptors for $n functions (expected 2 to 4 each)" ;;
	*) t_fail "attach.uprobes: $(jq -c .attach "$T_OUT")" ;;
	esac
	[ "$(jq .attach.attach_ns "$T_OUT")" -gt 0 ] || t_fail "attach_ns is not positive"
	t_assert_eq "$(jq .missed "$T_OUT")" 0 "missed (no recursion with uprobes)"
}

# --attach uprobe-single: a uprobe pair per function on any kernel
test_attach_uprobe_single() {
	need_tool
	local n
	t_expect_exit 0 "$FD" -j --attach uprobe-single -d 0.2 "$(user_glob)"
	t_assert_eq "$(jq -r .attach.uprobes "$T_OUT")" uprobe "attach.uprobes"
	n=$(jq '.functions | length' "$T_OUT")
	t_assert_eq "$(jq .attach.fds "$T_OUT")" $((4 * n)) "file descriptors for $n functions"
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

# No kernel function: the mechanism asked for does not matter (a bad one,
# and only denied functions: tests/cases/usage/funcdur.case)
test_attach_mechanism_without_kernel_function() {
	need_tool
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
	# a missing COMMAND, none after --, -p with one:
	# tests/cases/usage/funcdur.case
	# The command's failure is reported, and funcdur exits with its status
	t_expect_exit 3 "$FD" sys:getppid -- sh -c 'exit 3'
	t_assert_match "$(cat "$T_ERR")" "'sh' exited with status 3" "note"
	t_bpf_assert_same "$snap" "after funcdur -- COMMAND"
}

t_run_all
