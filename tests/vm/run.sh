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

pass=0 fail=0 skip=0
LOG=$(mktemp "${TMPDIR:-/tmp}/kfit-vm-suite.XXXXXX")
trap 'rm -f "$LOG"' EXIT

# run LABEL CMD...: output goes through; its last "X: N passed, N failed,
# N skipped" line is added up. A nonzero exit with no failure counted, or
# no summary at all, counts as one failure.
run() {
	local label=$1 rc line p f s
	shift
	"$@" 2>&1 | tee "$LOG"
	rc=${PIPESTATUS[0]}
	line=$(grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$LOG" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $label: no summary line (exit $rc)"
		fail=$((fail + 1))
		return
	fi
	read -r p f s <<<"$(printf '%s\n' "$line" |
		sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/')"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $label: exited $rc"
		fail=$((fail + 1))
	fi
}

echo "kernel: $(uname -r) ($(uname -v)), $(nproc) CPUs"
[ "${KFIT_IN_VM:-}" = 1 ] || echo "note: KFIT_IN_VM is not 1: not in the kfit VM?"

if [ -f "$TESTS/live/run.sh" ]; then
	echo "=== live suite on $(uname -r)"
	run live bash "$TESTS/live/run.sh" "$BUILD"
else
	echo "=== no tests/live/run.sh: live suite left out"
fi

for t in "$VM_DIR"/test_*.sh; do
	[ -f "$t" ] || continue
	echo "=== $(basename "$t")"
	run "$(basename "$t")" bash "$t"
done

echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
