#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every tool against its anchor, side by side, in one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF statistics, attaching programs)" >&2
	exit 1
fi
status=0
for b in softirqlat funcdur pmcstat serve attach uprobes callgraph record kd bootsum; do
	"$here/$b.sh" || status=1
	echo
done
exit $status
