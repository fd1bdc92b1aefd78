#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The final table of make bench: the goals rows (bench_goal in lib.sh) of
# the parts that ran, and a line that says which goals are met; a goal
# the floor program itself cannot meet is "floor-bound".
set -u
f=${1:?usage: goals.sh SUMMARY-FILE}
echo "== costs against their floors and anchors, this run =="
if [ ! -s "$f" ]; then
	echo "no part reported a goal"
	exit 0
fi
awk -F '\t' '
	BEGIN {
		printf "%-22s %-44s %8s %8s  %-11s %s\n", "TOOL", "MEASURE", "VALUE", "GOAL", "MET", "AGAINST (same run)"
	}
	{
		against = ""
		if ($5 != "-") against = "floor: " $5
		if ($6 != "-") against = against (against != "" ? "; " : "") "anchor: " $6
		printf "%-22s %-44s %8s %8s  %-11s %s\n", $1, $2, $3, "<=" $4, $7, against
		n++
		if ($7 == "met") m++
		else if ($7 == "floor-bound") bound = bound (bound != "" ? ", " : "") $1
		else missed = missed (missed != "" ? ", " : "") $1
	}
	END {
		printf "goals met: %d of %d", m, n
		if (missed != "") printf "; not met: %s", missed
		if (bound != "") printf "; beyond the floor itself: %s", bound
		printf "\n"
	}' "$f"
