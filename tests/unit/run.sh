#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the cmocka unit test binaries given as arguments, show their output,
# and end with one line: "unit: N passed, N failed" (test cases, from
# cmocka's summaries). Exits nonzero if a test failed or a binary crashed.
set -u

# The plain format, whose summary lines are parsed below
export CMOCKA_MESSAGE_OUTPUT=stdout

passed=0
failed=0
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The number in cmocka's "[  TAG  ] N test(s)..." summary line, or empty
count() {
	sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test(s).*/\1/p" "$log" | tail -n 1
}

# Line-buffered stdout keeps cmocka's stdout and stderr in order, and
# keeps what a crashing binary printed before it died
run() {
	if command -v stdbuf >/dev/null; then
		stdbuf -oL "$1"
	else
		"$1"
	fi
}

if [ $# -eq 0 ]; then
	echo "run.sh: no test binaries given" >&2
	status=1
fi

for bin in "$@"; do
	echo "== $bin"
	run "$bin" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(count PASSED)
	f=$(count FAILED)
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
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || status=1
done

echo "unit: $passed passed, $failed failed"
exit $status
