#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module the VM tests trace module functions on: dummy (drivers/net,
# no dependencies, no hardware). kfit_vm_modprobe loads it with its BTF,
# its functions can be traced, and the triggers given in tools/vm/README.md
# call them as often as ftrace's function tracer (the oracle) counts.
. "$(dirname "$0")/../lib.sh"

TR=/sys/kernel/tracing
AFF=$TR/available_filter_functions
# in both 6.1 and 6.12 (6.1 also has dummy_dev_uninit and dummy_get_drvinfo)
FUNCS="dummy_setup dummy_dev_init dummy_validate dummy_xmit dummy_get_stats64 dummy_change_carrier"
XMITS=5 CARRIERS=3 READS=4

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
}

load_dummy() {
	[ -d /sys/module/dummy ] && t_fail "dummy is loaded already (built in, or left over)"
	t_on_exit 'kfit_vm_modprobe -r dummy >/dev/null 2>&1'
	kfit_vm_modprobe dummy numdummies=0 || t_fail "kfit_vm_modprobe dummy failed"
}

test_dummy_loads_with_btf() {
	need_vm
	local btf f
	load_dummy
	btf=$(bpftool -B /sys/kernel/btf/vmlinux btf dump file /sys/kernel/btf/dummy 2>&1) ||
		t_fail "bpftool btf dump /sys/kernel/btf/dummy: $btf"
	for f in $FUNCS; do
		grep -q "FUNC '$f'" <<<"$btf" || t_fail "no FUNC $f in /sys/kernel/btf/dummy"
		grep -q "^$f \[dummy\]\$" "$AFF" || t_fail "'$f [dummy]' is not in $AFF"
	done
	kfit_vm_modprobe -r dummy || t_fail "kfit_vm_modprobe -r dummy failed"
	[ -d /sys/module/dummy ] && t_fail "dummy still loaded after kfit_vm_modprobe -r"
	[ -e /sys/kernel/btf/dummy ] && t_fail "/sys/kernel/btf/dummy still there after unloading"
	return 0
}

test_modprobe_unknown_module() {
	need_vm
	t_expect_exit 1 kfit_vm_modprobe kfit_no_such_module
	t_assert_match "$(cat "$T_ERR")" "not in the initramfs" "kfit_vm_modprobe's message"
	t_expect_exit 2 kfit_vm_modprobe
}

# count FUNC [PID]: calls of FUNC in the trace buffer (by task PID)
count() {
	awk -v f="$1" -v p="${2:-}" '
		/^#/ { next }
		{ for (i = 1; i <= NF; i++) if ($i == f) break }
		i > NF { next }
		p != "" && $1 !~ ("-" p "$") { next }
		{ n++ }
		END { print n + 0 }' "$T_TMP/trace"
}

# The triggers: "ip link add" (setup, dev_init, validate once each), UDP
# datagrams out of kd0 (dummy_xmit each; IPv6 off, so nothing else is
# sent), writes to its carrier file and reads of its statistics, in the
# writing or reading task.
test_dummy_triggers_counted_by_ftrace() {
	need_vm
	local pid f
	[ -w "$TR/set_ftrace_filter" ] || t_fail "no $TR/set_ftrace_filter"
	load_dummy
	t_on_exit "echo 0 >$TR/tracing_on; echo nop >$TR/current_tracer; echo >$TR/set_ftrace_filter; echo 1 >$TR/tracing_on"
	echo "$FUNCS" | tr ' ' '\n' >"$TR/set_ftrace_filter" || t_fail "cannot set set_ftrace_filter"
	echo function >"$TR/current_tracer" || t_fail "cannot select the function tracer"
	echo >"$TR/trace"
	ip link add kd0 type dummy || t_fail "ip link add kd0 type dummy failed"
	echo 1 >/proc/sys/net/ipv6/conf/kd0/disable_ipv6
	ip addr add 10.99.0.1/24 dev kd0 || t_fail "ip addr add failed"
	ip link set kd0 up || t_fail "ip link set kd0 up failed"
	bash -c 'echo $$
		for i in $(seq '$XMITS'); do echo x >/dev/udp/10.99.0.2/9; done
		for i in $(seq '$CARRIERS'); do echo 1 >/sys/class/net/kd0/carrier; done
		for i in $(seq '$READS'); do read -r x </sys/class/net/kd0/statistics/tx_packets; done' \
		>"$T_OUT" 2>"$T_ERR" || t_fail "the triggers failed: $(cat "$T_ERR")"
	echo 0 >"$TR/tracing_on"
	cp "$TR/trace" "$T_TMP/trace"
	pid=$(head -n1 "$T_OUT")
	for f in dummy_setup dummy_dev_init dummy_validate; do
		t_assert_eq "$(count $f)" 1 "$f calls for one ip link add"
	done
	t_assert_eq "$(count dummy_xmit "$pid")" "$XMITS" "dummy_xmit calls for $XMITS datagrams"
	t_assert_eq "$(count dummy_xmit)" "$XMITS" "dummy_xmit calls by any task"
	t_assert_eq "$(count dummy_change_carrier "$pid")" "$CARRIERS" \
		"dummy_change_carrier calls for $CARRIERS carrier writes"
	t_assert_eq "$(count dummy_get_stats64 "$pid")" "$READS" \
		"dummy_get_stats64 calls for $READS statistics reads"
}

t_run_all
