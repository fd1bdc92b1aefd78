#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bootsum --early --funcs on this kernel: a system call recorded through
# its tracepoints (counted at least as often as the workload made it);
# kernel functions where neither fentry nor kprobes work (this host): the
# rest of the boot is recorded and the report says why the functions are
# not. Kernel functions recorded: tests/vm/test_bootsum_funcs.sh; usage
# errors: tests/cases/usage/bootsum.case.
. "$(dirname "$0")/../lib.sh"

BS="$KFIT_BIN/bootsum"
PIN=/sys/fs/bpf/kfit/bootsum
N=300

need_bootsum() {
	t_need_root
	[ -x "$BS" ] || t_fail "$BS not built"
	[ -e "$PIN" ] && t_skip "a recording is in $PIN already (bootsum --stop frees it)"
	t_on_exit "'$BS' --stop >/dev/null 2>&1"
}

test_syscall_recorded() {
	need_bootsum
	local f=$T_TMP/rep.json snap c
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$BS" --early --funcs sys:read -- sh -c "dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null"
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$f"
	t_assert_eq "$(jq -r .functions.recorded "$f")" true "functions.recorded"
	t_assert_eq "$(jq -r .functions.mechanism "$f")" tracepoint "mechanism"
	c=$(jq -r '.functions.functions[] | select(.name == "sys:read") | .count' "$f")
	_t_is_num "$c" || t_fail "no count for sys:read: $(jq -c .functions "$f")"
	[ "$c" -ge "$N" ] || t_fail "sys:read counted $c times, the workload read $N times"
	t_expect_exit 0 "$BS"
	t_assert_match "$(cat "$T_OUT")" '^Functions \(--funcs sys:read --min 0ns, 1 traced by tracepoint; found pinned at' "heading"
	t_assert_match "$(cat "$T_OUT")" '^sys:read +[0-9]+ ' "table row"
	t_expect_exit 0 "$BS" --stop
	[ -e "$PIN" ] && t_fail "$PIN left after --stop"
	t_bpf_assert_same "$snap" "after bootsum --stop"
}

# Functions that cannot be traced leave the rest of the boot recorded:
# vfs_read where the kernel refuses fentry and kprobes (this host), a
# function the kernel does not have where they work (the VM, where
# tests/vm/test_bootsum_funcs.sh records real ones)
test_kernel_functions_refused() {
	need_bootsum
	local snap fn=vfs_read why='fentry: .*; kprobe: '
	if "$KFIT_BIN/tracecheck" 2>/dev/null | grep -Eq '^(fentry|kprobe) +yes'; then
		fn=kfit_no_such_function
		why='kfit_no_such_function'
	fi
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$BS" --early --funcs "$fn" -- sh -c 'echo ran'
	t_assert_eq "$(cat "$T_OUT")" ran "the workload's output"
	t_assert_match "$(cat "$T_ERR")" "functions \\(--funcs $fn\\) not recorded: .*$why" "stderr"
	t_assert_match "$(cat "$T_ERR")" 'recording the boot' "the rest recorded"
	t_expect_exit 0 "$BS" -j
	t_assert_eq "$(jq -r .functions.recorded "$T_OUT")" false "functions.recorded"
	t_assert_match "$(jq -r .functions.why "$T_OUT")" "$why" "functions.why"
	t_assert_match "$(jq -r '.user.processes | length' "$T_OUT")" '^[1-9]' "processes recorded"
	t_expect_exit 0 "$BS"
	t_assert_match "$(cat "$T_OUT")" "^Functions \\(--funcs $fn\\): not recorded: .*$why" "text report"
	t_expect_exit 0 "$BS" --stop
	t_bpf_assert_same "$snap" "after bootsum --stop"
}

t_run_all
