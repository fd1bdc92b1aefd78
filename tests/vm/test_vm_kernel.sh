#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On Debian's stock kernel (in the VM) every attach method kfit uses works,
# and nothing stays attached once the tools are gone.
. "$(dirname "$0")/../lib.sh"

VM_CHECKS="fentry fexit kprobe kretprobe tracepoint tp_btf raw_tracepoint ringbuf"

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
}

test_vm_is_debian_kernel() {
	need_vm
	t_assert_match "$(uname -v)" "Debian" "uname -v"
	[ -r /sys/kernel/btf/vmlinux ] || t_fail "no /sys/kernel/btf/vmlinux"
	[ -e /sys/kernel/tracing/available_events ] || t_fail "tracefs is not mounted"
	grep -q ' /sys/fs/bpf bpf ' /proc/mounts || t_fail "bpffs is not mounted"
}

test_tracecheck_all_methods_ok() {
	need_vm
	local tc=$KFIT_BIN/tracecheck rc name ok bad=""
	[ -x "$tc" ] || t_fail "no $tc (build with make STATIC=1)"
	timeout "$T_CMD_TIMEOUT" "$tc" --json >"$T_OUT" 2>"$T_ERR" </dev/null
	rc=$?
	jq -e '.checks | type == "array"' "$T_OUT" >/dev/null || {
		t_show_file "$T_OUT" "tracecheck --json stdout"
		t_show_file "$T_ERR" "tracecheck --json stderr"
		t_fail "tracecheck --json (exit $rc) printed no JSON with a checks array"
	}
	t_assert_eq "$(jq -r '.kernel' "$T_OUT")" "$(uname -r)" "tracecheck's kernel"
	for name in $VM_CHECKS; do
		ok=$(jq -r --arg n "$name" \
			'[.checks[] | select(.name == $n)] |
			 if length == 0 then "missing"
			 elif .[0].ok == true then "ok"
			 else "\(.[0].state // "?"): \(.[0].detail // "")" end' "$T_OUT")
		[ "$ok" = ok ] || bad="$bad $name ($ok);"
	done
	[ -z "$bad" ] || {
		t_show_file "$T_OUT" "tracecheck --json"
		t_fail "not ok on $(uname -r):$bad"
	}
}

# Runs after the live suite and the tests above: whatever they loaded must
# be gone (no tracing programs, no links).
test_nothing_left_attached() {
	need_vm
	local tc=$KFIT_BIN/tracecheck
	if [ -x "$tc" ]; then
		timeout "$T_CMD_TIMEOUT" "$tc" >/dev/null 2>&1 </dev/null
	fi
	t_bpf_assert_same "0 0 " "after all tools exited"
	# the same as a person would look at it
	local progs
	progs=$(bpftool prog show 2>&1) || t_fail "bpftool prog show: $progs"
	if printf '%s\n' "$progs" | grep -Eq '^[0-9]+: (kprobe|tracepoint|raw_tracepoint|tracing|perf_event)'; then
		printf '%s\n' "$progs"
		t_fail "bpftool prog show lists tracing programs"
	fi
}

t_run_all
