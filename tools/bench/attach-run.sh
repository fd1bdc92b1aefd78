#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# attach-run.sh LABEL FUNCDUR-ARGS...: one row of the attach benchmark.
# Runs `funcdur -v -d 1 ARGS`, and prints from its -v lines: functions
# attached, attach time and rate, file descriptors, detach time and rate.
set -u
. "$(dirname "$0")/lib.sh"
label=$1
shift
err=$(mktemp)
start=$(date +%s%N)
funcdur -v -d 1 "$@" >/dev/null 2>"$err"
rc=$?
wall=$((($(date +%s%N) - start) / 1000000))
awk -v label="$label" -v rc="$rc" -v wall="$wall" "$BENCH_FD_VERBOSE_AWK"'
	/^Tracing/ { mech = $4; gsub(/[()\.:]/, "", mech) }
	END {
		if (rc != 0 || !n) { printf "%-26s failed (exit %d)\n", label, rc; exit 1 }
		printf "%-26s %-13s %6d %10.0f %8.0f %10.0f %8.0f %6d %8.1f\n", label, mech, n,
			a, a ? n / (a / 1000) : 0, d, d ? n / (d / 1000) : 0, fds, wall / 1000
	}' "$err"
st=$?
[ "$st" = 0 ] || tail -n 5 "$err" >&2
rm -f "$err"
exit $st
