#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM suite, run inside the VM by `tools/vm/kfit-vm test`: the live suite
# on Debian's kernel, then tests/vm/test_*.sh (KFIT_VM_PARTS="live vm", the
# default, or one of them). Ends with
# "$KFIT_VM_SUITE: N passed, N failed, N skipped" (kfit-vm test sets
# vm-6.1 or vm-6.12; "vm" if unset); exits 1 if anything failed.
#
#   tests/vm/run.sh [BUILD_DIR]    (default: the build/ beside tests/, i.e. /kfit/build)
set -u

VM_DIR=$(cd "$(dirname "$0")" && pwd)
TESTS=$(cd "$VM_DIR/.." && pwd)
BUILD=${1:-$(cd "$TESTS/.." && pwd)/build}
export KFIT_BIN=${KFIT_BIN:-$BUILD/bin}
export KFIT_HELPERS=${KFIT_HELPERS:-$BUILD/tests}

. "$TESTS/suite.sh"

echo "kernel: $(uname -r) ($(uname -v)), $(nproc) CPUs"
[ "${KFIT_IN_VM:-}" = 1 ] || echo "note: KFIT_IN_VM is not 1: not in the kfit VM?"

# KFIT_VM_PARTS: "live vm" (the default) or "vm" (kfit-vm test --no-live)
parts=" ${KFIT_VM_PARTS:-live vm} "
case $parts in
*" live "*|*" vm "*) ;;
*) echo "run.sh: KFIT_VM_PARTS='${KFIT_VM_PARTS:-}' names neither live nor vm" >&2
   exit 2 ;;
esac

if [ "${parts#* live }" = "$parts" ]; then
	echo "=== live suite not run (KFIT_VM_PARTS=${KFIT_VM_PARTS:-}): tests/vm only"
elif [ -f "$TESTS/live/run.sh" ]; then
	echo "=== live suite on $(uname -r)"
	# callgraph's uprobe trees are user space's: the host runs them; the
	# kernel's trees, with uprobes among them, are tests/vm's
	# (KFIT_VM_ALL_LIVE=1 runs them here too)
	# test_record_vm.sh and test_bootsum_vm.sh start a VM themselves: a
	# host's tests. kd is offline
	# (test_kd.sh builds its sanitized twin: no compiler here), and
	# test_record.sh's workloads are coreutils' (busybox's applets here
	# exec under other names); a recording made here is read on the host
	# by test_record_vm.sh; test_uprobes.sh traces Debian's python3, which
	# the initramfs lacks (test_attach.sh's uprobes run here); so do
	# test_utargets.sh (python3, bash and gzip's own binaries, libc's
	# IFUNCs: the tools here are static), test_callgraph_sampled.sh
	# (python3, gzip), test_callgraph_unwind.sh (gdb, perf, Debian's
	# programs; test_callgraph_unwind_vm.sh unwinds here) and
	# test_command.sh (coreutils' programs, perf);
	# test_repo.sh and test_docs.sh read the source tree (and pandoc);
	# test_usage.sh's cases are usage errors, the same on any kernel (and
	# some name bash's and libc's files, which the initramfs lacks);
	# test_kd_diff.sh's recordings are uprobes on the host, read offline;
	# test_kd_cases.sh's are kd's renders, offline like test_kd.sh's, the
	# same on any kernel (and their runner diffs with GNU diff and cmp);
	# test_kd_memory.sh's kd is offline too (and the initramfs's time is
	# busybox's, whose %M is 4 times ru_maxrss); test_pprof.sh's reader is
	# go tool pprof, which the initramfs lacks (uprobes on the host);
	# test_serve.sh needs Prometheus, curl and python3, and the static
	# tools here have no HTTP server (it checks that they say so)
	export KFIT_LIVE_EXCLUDE="test_record_vm.sh test_bootsum_vm.sh test_kd.sh test_kd_cases.sh test_kd_memory.sh test_record.sh test_uprobes.sh test_utargets.sh test_callgraph_sampled.sh test_callgraph_unwind.sh test_command.sh test_repo.sh test_docs.sh test_usage.sh test_kd_diff.sh test_pprof.sh test_serve.sh"
	echo "=== test_kd.sh, test_kd_cases.sh, test_kd_memory.sh, test_record.sh run on the host; recording in the VM: test_record_vm.sh; boots: test_bootsum_vm.sh"
	if [ "${KFIT_VM_ALL_LIVE:-}" != 1 ]; then
		export KFIT_LIVE_EXCLUDE="$KFIT_LIVE_EXCLUDE test_callgraph.sh"
		echo "=== test_callgraph.sh (uprobe trees) runs on the host; kernel trees: tests/vm/test_callgraph_vm.sh"
	fi
	t0=$SECONDS
	suite_run live bash "$TESTS/live/run.sh" "$BUILD"
	echo "=== live suite: $((SECONDS - t0)) s"
else
	echo "=== no tests/live/run.sh: live suite left out"
fi

[ "${parts#* vm }" != "$parts" ] || echo "=== tests/vm not run (KFIT_VM_PARTS=${KFIT_VM_PARTS:-})"
for t in "$VM_DIR"/test_*.sh; do
	[ "${parts#* vm }" != "$parts" ] || break
	[ -f "$t" ] || continue
	echo "=== $(basename "$t")"
	t0=$SECONDS
	suite_run "$(basename "$t")" bash "$t"
	echo "=== $(basename "$t"): $((SECONDS - t0)) s"
done

suite_end "${KFIT_VM_SUITE:-vm}"
