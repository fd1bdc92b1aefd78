#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check.sh: the driver of `make check` (after `make all`).
# Runs `make unit`, `make unit-asan` (the unit tests under ASan and UBSan),
# `make fuzz-short` (each libFuzzer harness of tests/fuzz for 10 s: about
# two minutes with the build), `make live`, `make vm-6.1` (the whole VM
# suite on Debian 12's 6.1 kernel)
# and `make vmonly-6.12` (tests/vm/test_*.sh on its 6.12 kernel, without the
# live suite: the whole of it on both kernels does not fit the budget; see
# tools/vm/README.md) in turn from the repo root,
# keeps going after a failure, collects each suite's last
# "SUITE: N passed, N failed, N skipped" line and ends with a recap and
# "check: N passed, N failed, N skipped". The whole run is bounded by
# KFIT_CHECK_BUDGET seconds (default 3600: a quiet run takes about 36
# minutes with the fuzzers, CI allows 90; the cap is for a hang, not a
# deadline that turns slowness into failure). KFIT_QEMU
# names the emulator looked for (default qemu-system-x86_64).
set -u

cd "$(dirname "$0")/.." || exit 1
budget=${KFIT_CHECK_BUDGET:-3600}
qemu=${KFIT_QEMU:-qemu-system-x86_64}
start=$(date +%s)
pass=0 fail=0 skip=0 bad=0
recap=""
log=$(mktemp "${TMPDIR:-/tmp}/kfit-check.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

note() {	# recap line
	recap="$recap  $1"$'\n'
}

# A suite that did not run: skipped (a failure with CI=true)
suite_skipped() {	# suite why
	if [ "${CI:-}" = true ]; then
		note "$1: FAILED: SKIP not allowed with CI=true: $2 (0 s)"
		fail=$((fail + 1)) bad=1
	else
		note "$1: skipped: $2 (0 s)"
		skip=$((skip + 1))
	fi
}

run_suite() {	# suite
	local s=$1 left t0 rc el line p f k
	left=$((budget - ($(date +%s) - start)))
	if [ "$left" -le 10 ]; then
		note "$s: FAILED: not run, the ${budget}s budget is spent (0 s)"
		fail=$((fail + 1)) bad=1
		return
	fi
	echo "=== make $s (at most ${left}s)"
	t0=$(date +%s)
	timeout -k 15 "$left" make --no-print-directory "$s" </dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	el=$(($(date +%s) - t0))
	line=$(grep -E "^${s//./\\.}: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?\$" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			note "$s: FAILED: killed after ${left}s, no summary ($el s)"
		else
			note "$s: FAILED: make $s exited $rc without a summary line ($el s)"
		fi
		fail=$((fail + 1)) bad=1
		return
	fi
	read -r p f k <<<"$(echo "$line" | awk '{ print $2, $4, ($6 == "" ? 0 : $6) }')"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
	if [ "$f" != 0 ]; then
		bad=1
	elif [ "$rc" != 0 ]; then
		line="$line; but make $s exited $rc"
		fail=$((fail + 1)) bad=1
	fi
	note "$line ($el s)"
}

for s in unit unit-asan fuzz-short live vm-6.1 vmonly-6.12; do
	if [ "${s#vm}" != "$s" ] && ! command -v "$qemu" >/dev/null; then
		echo "=== make $s: skipped, $qemu not found"
		suite_skipped "$s" "$qemu not found (make deps installs qemu-system-x86)"
		continue
	fi
	run_suite "$s"
done

echo
echo "=== recap ($(($(date +%s) - start)) s)"
printf '%s' "$recap"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$bad" = 0 ] && [ "$fail" = 0 ]
