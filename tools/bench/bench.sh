#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every tool against its anchor, side by side, in one run; at
# the end, one table of each tool's cost against its floor and anchor, with
# its goal (each part's bench_goal rows).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF statistics, attaching programs)" >&2
	exit 1
fi
BENCH_SUMMARY=$(mktemp)
export BENCH_SUMMARY
trap 'rm -f "$BENCH_SUMMARY"' EXIT
status=0
for b in softirqlat funcdur pmcstat serve attach uprobes callgraph unwind record kd bootsum; do
	"$here/$b.sh" || status=1
	echo
done
"$here/goals.sh" "$BENCH_SUMMARY"
exit $status
