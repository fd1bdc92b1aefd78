#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/live/run.sh BUILD_DIR: the live suite, on the running kernel.
# Runs every tests/live/test_*.sh with KFIT_BIN=BUILD_DIR/bin and
# KFIT_HELPERS=BUILD_DIR/tests, and ends with
# "live: N passed, N failed, N skipped". Also used inside the VM.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
if [ ! -d "$1" ]; then
	echo "$0: $1: no such directory" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export KFIT_BIN="$build/bin" KFIT_HELPERS="$build/tests"

if [ "$(id -u)" != 0 ]; then
	T_SKIP_ALL="live tests need root (uid $(id -u))"
	export T_SKIP_ALL
fi

pass=0 fail=0 skip=0
log=$(mktemp "${TMPDIR:-/tmp}/kfit-live.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

for f in "$here"/test_*.sh; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	bash "$f" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\$" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $name: exited $rc without a summary line"
		fail=$((fail + 1))
		continue
	fi
	read -r p f s <<<"$(echo "$line" | awk '{ print $2, $4, $6 }')"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $name: exited $rc although no test failed"
		fail=$((fail + 1))
	fi
done

echo "live: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
