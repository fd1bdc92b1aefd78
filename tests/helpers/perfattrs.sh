#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What perf builds for each event string, as an oracle for pmcstat's parser
# (tests/unit/test_pmu.c reads it): runs `perf stat -vv -x, -e STRING true`
# for every "a" string of tests/fixtures/event-strings.txt and writes, per
# string,
#
#   == STRING
#   rejected                  perf's parser refused it, or
#   attr F=V F=V ...          each event's perf_event_attr as perf printed it
#                             (its first attempt: perf retries without
#                             features the kernel refuses, e.g. exclude_guest)
#   label NAME                the counter names perf printed, in its order
#
# perf prints only the fields that are not zero; "{ bp_len, config2 }"
# becomes "{bp_len,config2}". Usage: perfattrs.sh [OUT] (default
# tests/fixtures/perf-attrs.txt). Needs perf and root (tracepoints).
set -u
out=${1:-$(dirname "$0")/../fixtures/perf-attrs.txt}
command -v perf >/dev/null || { echo "perfattrs.sh: no perf here" >&2; exit 1; }

strings() {
	sed -n 's/^a. //p' "$(dirname "$0")/../fixtures/event-strings.txt"
}

# perf stat's stderr for one string into "attr"/"label" lines
digest() {
	awk '
	function flush() {
		if (!inattr)
			return
		inattr = 0
		key = f["type"] "/" f["config"] "/" f["{bp_addr,config1}"] "/" f["{bp_len,config2}"] "/" f["bp_type"]
		# a retry of the event before it: same event, after a refusal perf retries
		if (n && !lastok && (lasterr == -22 || lasterr == -13 || lasterr == -1 || lasterr == -95) && key == lastkey)
			return
		print line
		n++
		lastkey = key
	}
	/^perf_event_attr:/ { inattr = 1; line = "attr"; delete f; next }
	inattr && /^  [a-z{]/ {
		v = $NF
		name = $0
		sub(/^  /, "", name)
		sub(/ +[^ ]+$/, "", name)
		gsub(/ /, "", name)
		f[name] = v
		line = line " " name "=" v
		next
	}
	/^sys_perf_event_open: / {
		flush()
		lastok = $0 ~ / = [0-9]+$/
		next
	}
	/^sys_perf_event_open failed, error / { lastok = 0; lasterr = $NF; next }
	/^-{20}/ { next }
	/^[^ ,]*,[^,]*,[^,]+,/ {
		split($0, c, ",")
		labels[++nl] = c[3]
	}
	END {
		flush()
		for (i = 1; i <= nl; i++)
			print "label " labels[i]
	}'
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "# perf stat -vv -x, -e STRING true, by tests/helpers/perfattrs.sh"
	echo "# perf $(perf version 2>/dev/null | awk '{print $3}'), kernel $(uname -r)"
	strings | while IFS= read -r s; do
		echo "== $s"
		perf stat -vv -x, -e "$s" true >"$tmp" 2>&1
		if grep -q "^Run 'perf list' for a list of valid events" "$tmp"; then
			echo rejected
			continue
		fi
		digest <"$tmp"
	done
} >"$out.new" && mv "$out.new" "$out"
echo "perfattrs.sh: $(grep -c '^== ' "$out") strings into $out"
