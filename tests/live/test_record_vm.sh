#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A recording made on another kernel, another machine, read here: callgraph
# -o in the Debian 6.1 VM (fentry on vfs_read and vfs_write around cgshape
# io; then the events of dd), the files brought out with kfit-vm run --out, read on the host by
# the reader (tests/helpers/kftdump) and by kd. One short VM run (~1 min):
# it needs qemu, the VM's kernel (tools/vm/kfit-vm fetch) and the static
# build (make STATIC=1); it waits for another VM to end (never two at once).
: "${T_TIMEOUT:=900}"
. "$(dirname "$0")/../lib.sh"

VM="$T_REPO/tools/vm/kfit-vm"
STATIC="$T_REPO/build/static"
DUMP="$KFIT_HELPERS/kftdump"
KD="$KFIT_BIN/kd"

need_vm() {
	t_need_qemu
	t_vm_kernel_cached 6.1 ||
		t_skip "no 6.1 VM kernel cached (tools/vm/kfit-vm --kernel 6.1 fetch)"
	if [ ! -x "$STATIC/bin/callgraph" ] || [ ! -x "$STATIC/tests/cgshape" ]; then
		t_skip "no static build for the VM (make STATIC=1)"
	fi
	[ -x "$DUMP" ] || t_fail "$DUMP not built"
}

test_vm_recording_read_here() {
	local fn
	need_vm
	t_wait_no_vm
	mkdir -p vmout
	"$VM" --kernel 6.1 run --timeout 600 --out "$T_TMP/vmout" -- \
		'callgraph -o /out/vm.kft vfs_read vfs_write -- /kfit/build/tests/cgshape io 5 &&
		callgraph -o /out/ev.kft -e syscalls:sys_enter_write -e sched:sched_switch -- dd if=/dev/zero of=/dev/null bs=4k count=1000' \
		>vm.log 2>&1 || { tail -n 30 vm.log; t_fail "the VM run failed"; }
	[ -s vmout/vm.kft ] || { tail -n 30 vm.log; t_fail "no vm.kft came out of the VM"; }
	"$DUMP" vmout/vm.kft >d 2>&1 || { cat d; t_fail "kftdump cannot read the VM's file"; }
	t_assert_eq "$(sed -n 's/^complete //p' d)" 1 "complete"
	t_assert_match "$(sed -n 's/^meta uname.release=//p' d)" '^6\.1\.' "recorded on 6.1"
	t_assert_eq "$(sed -n 's/^meta mechanism=//p' d)" fentry "mechanism"
	for fn in vfs_read vfs_write; do
		t_assert_match "$(grep '^func ' d)" "^func [01] k $fn vmlinux " "FUNCS: $fn"
	done
	[ "$(sed -n 's/^type call //p' d)" -ge 10 ] || t_fail "$(sed -n 's/^type call //p' d) calls, cgshape io 5 makes 10"
	# the events' programs (loads from the context by size class) on 6.1
	"$DUMP" vmout/ev.kft >e 2>&1 || { cat e; t_fail "kftdump cannot read ev.kft"; }
	t_assert_eq "$(sed -n 's/^complete //p' e)" 1 "ev.kft complete"
	[ "$(sed -n 's/^type event //p' e)" -ge 1000 ] || t_fail "$(sed -n 's/^type event //p' e) events, dd wrote 1000 times"
	[ -x "$KD" ] || return 0
	t_expect_exit 0 "$KD" vmout/vm.kft
	for fn in vfs_read vfs_write; do
		t_assert_match "$(cat "$T_OUT")" " $fn => [0-9]+\$" "kd shows $fn and what it returned (bytes)"
	done
}

t_run_all
