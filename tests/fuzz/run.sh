#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/fuzz/run.sh [-n NAME] [-t SECONDS] HARNESS...: run each libFuzzer
# harness (build/fuzz/fuzz_X) for SECONDS (default 60) over its seeds
# (tests/fuzz/corpus/X) and its working corpus (build/fuzz/corpus/X, where
# new inputs go: the committed seeds stay as they are), one at a time.
# A harness passes when libFuzzer exits 0 with no crash, leak or sanitizer
# finding; a finding leaves its input in build/fuzz/artifacts/. Ends with
# "NAME: N passed, N failed, 0 skipped" (NAME defaults to fuzz).
set -u

suite=fuzz
secs=60
while [ $# -gt 0 ]; do
	case $1 in
	-n) suite=$2; shift 2 ;;
	-t) secs=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "run.sh: no harnesses given" >&2
	exit 2
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out/artifacts" || exit 1
passed=0 failed=0
log=$(mktemp "${TMPDIR:-/tmp}/kfit-fuzz.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT

# "runs, exec/s, coverage" from libFuzzer's final lines
stats() {
	local runs secs cov ft corp
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -n 1)
	secs=${runs#* } runs=${runs% *}
	read -r cov ft corp <<<"$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 |
		sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/\1 \2 \3/')"
	[ -n "$runs" ] || { echo "no final stats"; return; }
	[ "${secs:-0}" -gt 0 ] || secs=1
	echo "$runs runs, $((runs / secs)) exec/s, cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?}"
}

for h in "$@"; do
	name=$(basename "$h")
	name=${name#fuzz_}
	seeds=$top/tests/fuzz/corpus/$name
	work=$out/corpus/$name
	mkdir -p "$work" || exit 1
	[ -d "$seeds" ] || seeds=
	echo "== fuzz_$name: ${secs}s"
	if [ ! -x "$h" ]; then
		echo "FAIL: fuzz_$name: no such harness $h"
		failed=$((failed + 1))
		continue
	fi
	# -timeout: one input slower than this is a hang; -rss_limit_mb: a leak
	# that grows; -close_fd_mask=3: what the harness renders and the
	# library's messages about bad input go nowhere (libFuzzer and the
	# sanitizers report on a copy of stderr)
	"$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/fuzz_$name-" \
		"$work" ${seeds:+"$seeds"} >"$log" 2>&1
	rc=$?
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -z "$art" ]; then
		echo "PASS: fuzz_$name: $(stats)"
		passed=$((passed + 1))
	else
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:)' "$log" | head -n 5
		echo "FAIL: fuzz_$name: exit status $rc${art:+, input in $art}: $(stats)"
		failed=$((failed + 1))
	fi
done
echo "$suite: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
