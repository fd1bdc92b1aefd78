#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/run.sh [-n NAME] BINARY...: run the cmocka unit test binaries,
# show their output, and end with one line: "NAME: N passed, N failed, N
# skipped" (test cases, from cmocka's summaries; NAME defaults to unit).
# Exits nonzero if a test failed or a binary crashed. The binaries keep
# their stdout line-buffered themselves (tests/unit/linebuf.c).
set -u

suite=unit
if [ "${1:-}" = -n ] && [ $# -ge 2 ]; then
	suite=$2
	shift 2
fi

# The plain format, whose summary lines are parsed below
export CMOCKA_MESSAGE_OUTPUT=stdout

passed=0
failed=0
skipped=0
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The number in cmocka's "[  TAG  ] N test(s)..." summary line, or empty
count() {
	sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test(s).*/\1/p" "$log" | tail -n 1
}

if [ $# -eq 0 ]; then
	echo "run.sh: no test binaries given" >&2
	status=1
fi

for bin in "$@"; do
	echo "== $bin"
	"$bin" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(count PASSED)
	f=$(count FAILED)
	k=$(count SKIPPED)
	total=$(sed -n 's/^\[==========\] Running \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -n 1)
	if [ -z "$p" ]; then
		# No summary: it crashed, or never ran
		p=$(grep -c '^\[       OK \]' "$log")
	fi
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# A crash or a failed group setup: what did not pass failed
		f=$(( ${total:-0} - p ))
		[ "$f" -ge 1 ] || f=1
		echo "== $bin: exit status $rc: counted $f failed"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${k:-0}))
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || status=1
done

echo "$suite: $passed passed, $failed failed, $skipped skipped"
exit $status
