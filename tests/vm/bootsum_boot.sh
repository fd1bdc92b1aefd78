#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scripted boot bootsum is tested and measured on, in the VM (not a
# test itself: tests/live/test_bootsum_vm.sh and tools/bench/bootsum.sh
# boot it as /kfit/cmd, with `rdinit=/kfit/build/bin/bootsum -- --early
# /init` or without bootsum).
#
#   bootsum_boot.sh workload   the boot's processes; the ground truth into $OUT/truth.txt
#   bootsum_boot.sh report     bootsum's reports, dmesg, the trace, --stop, into $OUT
#   bootsum_boot.sh all        both (the default)
#
# truth.txt, one fact a line:
#   script PID PPID                this script
#   proc PID PPID MIN_MS COMMAND   a process, its parent, at least MIN_MS long
#   chain PARENT CHILD             PARENT waited for CHILD (a sleep) to end
#   mod NAME                       a module loaded
#   io PID BYTES                   PID read at least BYTES from the disk
#   pipe BYTES                     what the pipeline counted
#   end SECONDS                    the boot clock when the workload ended
set -u
OUT=${BOOT_OUT:-/out}
T=/tmp/bootsum_boot
TRUTH=$OUT/truth.txt
BIN=${KFIT_BIN:-/kfit/build/bin}
HELPERS=${KFIT_HELPERS:-/kfit/build/tests}

fact() { echo "$*" >>"$TRUTH"; }

# A parent that waits for its child, which sleeps 0.3 s
waiter() {
	local cmd="sleep 0.3 & echo \$! >$T/child; wait" w
	sh -c "$cmd" &
	w=$!
	wait "$w"
	fact "proc $w $$ 300 sh -c $cmd"
	fact "proc $(cat "$T/child") $w 300 sleep 0.3"
	fact "chain $w $(cat "$T/child")"
}

# A pipeline of three, each of them a child of this shell (exec keeps the
# pid; bash's, for busybox sh runs an applet in place of exec)
pipeline() {
	bash -c "echo \$\$ >$T/p1; exec dd if=/dev/zero bs=64k count=64" 2>/dev/null |
		bash -c "echo \$\$ >$T/p2; exec cat" |
		bash -c "echo \$\$ >$T/p3; exec wc -c" >"$T/wc"
	fact "proc $(cat "$T/p1") $$ 0 dd if=/dev/zero bs=64k count=64"
	fact "proc $(cat "$T/p2") $$ 0 cat"
	fact "proc $(cat "$T/p3") $$ 0 wc -c"
	fact "pipe $(tr -d ' ' <"$T/wc")"
}

# A burst of short-lived processes, all at once
burst() {
	local i
	for i in $(seq 1 20); do
		/bin/true burst "$i" &
		fact "proc $! $$ 0 /bin/true burst $i"
	done
	wait
}

# Modules: dummy, and the disk's driver (virtio_pci is built in on 6.12)
modules() {
	kfit_vm_modprobe dummy numdummies=0 || return 1
	fact "mod dummy"
	kfit_vm_modprobe -l | grep -qx virtio_blk || return 0
	if kfit_vm_modprobe -l | grep -qx virtio_pci; then
		kfit_vm_modprobe virtio_pci || return 1
		fact "mod virtio_pci"
	fi
	kfit_vm_modprobe virtio_blk || return 1
	fact "mod virtio_blk"
}

# Direct reads from the disk (KFIT_VM_DISK): 2 MiB past the page cache
disk() {
	local i d
	[ -d /sys/module/virtio_blk ] || return 0
	for i in $(seq 1 50); do
		[ -b /dev/vda ] && break
		sleep 0.1
	done
	[ -b /dev/vda ] || { echo "bootsum_boot: no /dev/vda" >&2; return 1; }
	dd if=/dev/vda of=/dev/null bs=64k count=32 iflag=direct 2>/dev/null &
	d=$!
	wait "$d" || return 1
	fact "proc $d $$ 0 dd if=/dev/vda of=/dev/null bs=64k count=32 iflag=direct"
	fact "io $d $((64 * 1024 * 32))"
}

workload() {
	rm -rf "$T"
	mkdir -p "$T" "$OUT"
	: >"$TRUTH"
	fact "script $$ $PPID"
	waiter
	pipeline
	burst
	modules || return 1
	disk || return 1
	fact "end $("$HELPERS/boottime")"
}

# run NAME CMD...: CMD's output into $OUT/NAME, its exit status into $OUT/rc.txt
run() {
	local name=$1 rc
	shift
	"$@" >"$OUT/$name" 2>"$OUT/$name.err"
	rc=$?
	echo "$name $rc" >>"$OUT/rc.txt"
}

report() {
	local w
	: >"$OUT/rc.txt"
	w=$(awk '$1 == "chain" { print $2; exit }' "$TRUTH")
	run rep.json "$BIN/bootsum" -j
	run chain.json "$BIN/bootsum" -j --chain "${w:-1}"
	run svg.txt "$BIN/bootsum" --svg "$OUT/boot.svg"
	run rep.txt "$BIN/bootsum"
	dmesg >"$OUT/dmesg.txt"
	cat /sys/kernel/tracing/trace >"$OUT/trace.txt"
	bpftool -j prog show >"$OUT/progs_before.json"
	bpftool -j map show >"$OUT/maps_before.json"
	# /init mounted a bpffs over bootsum's: its pins are hidden, --stop
	# finds the maps by id and can only stop the programs
	run stop1.txt "$BIN/bootsum" --stop
	bpftool -j prog show >"$OUT/progs_mid.json"
	# uncovered, the pins go (and with them everything)
	umount /sys/fs/bpf
	run stop2.txt "$BIN/bootsum" --stop
	# the kernel frees programs after an RCU grace period, from a
	# workqueue: slow under emulation; give it up to 10 s
	for i in $(seq 100); do
		bpftool -j prog show | grep -Eq '"name":"(bs|fd)_' || break
		sleep 0.1
	done
	bpftool -j prog show >"$OUT/progs_after.json"
	bpftool -j map show >"$OUT/maps_after.json"
	run stop3.txt "$BIN/bootsum" --stop
	return 0
}

case ${1:-all} in
workload) workload ;;
report) report ;;
all)
	workload
	rc=$?
	report
	exit "$rc" ;;
*) echo "usage: $0 [workload|report|all]" >&2; exit 2 ;;
esac
