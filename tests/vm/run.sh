#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM suite, run inside the VM by `tools/vm/kfit-vm test`: the live suite
# on Debian's kernel, then tests/vm/test_*.sh. Ends with
# "vm: N passed, N failed, N skipped"; exits 1 if anything failed.
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

if [ -f "$TESTS/live/run.sh" ]; then
	echo "=== live suite on $(uname -r)"
	suite_run live bash "$TESTS/live/run.sh" "$BUILD"
else
	echo "=== no tests/live/run.sh: live suite left out"
fi

for t in "$VM_DIR"/test_*.sh; do
	[ -f "$t" ] || continue
	echo "=== $(basename "$t")"
	suite_run "$(basename "$t")" bash "$t"
done

suite_end vm
