# SPDX-License-Identifier: GPL-2.0
# tests/suite.sh: sourced by the suite runners (tests/live/run.sh,
# tests/vm/run.sh). suite_run runs a test file or a whole sub-suite, lets
# its output through and adds up its last "X: N passed, N failed, N
# skipped" line; suite_end prints the suite's own line.
suite_pass=0 suite_fail=0 suite_skip=0
suite_log=$(mktemp "${TMPDIR:-/tmp}/kfit-suite.XXXXXX") || exit 1
trap 'rm -f "$suite_log"' EXIT

# A nonzero exit with no failure counted, or no summary, is one failure.
suite_run() {	# LABEL CMD...
	local label=$1 rc line p f s
	shift
	"$@" 2>&1 | tee "$suite_log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$suite_log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $label: exited $rc without a summary line"
		suite_fail=$((suite_fail + 1))
		return
	fi
	read -r p f s <<<"$(printf '%s\n' "$line" |
		sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/')"
	suite_pass=$((suite_pass + p)) suite_fail=$((suite_fail + f))
	suite_skip=$((suite_skip + s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $label: exited $rc although no test failed"
		suite_fail=$((suite_fail + 1))
	fi
}

suite_end() {	# NAME; returns 1 if anything failed
	echo "$1: $suite_pass passed, $suite_fail failed, $suite_skip skipped"
	[ "$suite_fail" = 0 ]
}
