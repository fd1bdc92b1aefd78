#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: uprobes at scale on this host. funcdur attaches every
# function of Debian's python3 (1,473 in python3.11) to a python3 that
# sleeps (-p: the kernel's process filter), through uprobe_multi links
# (one per direction) and one by one (--attach uprobe-single, the way of
# kernels before 6.10). One by one takes minutes, so it runs on the
# first N functions (UPROBES_SINGLE, default 150) and the whole set is
# extrapolated per function. Meanwhile `python3 -c pass` runs in a loop:
# its slowest run against its slowest alone is the stall caused to a
# process started meanwhile.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
FD=$top/build/bin/funcdur
PY=$(readlink -f /usr/bin/python3 2>/dev/null)
single=${UPROBES_SINGLE:-150}
tmp=$(mktemp -d)
trap 'kill $sleeper $loop 2>/dev/null; rm -rf "$tmp"' EXIT
sleeper= loop=

if [ -z "$PY" ] || [ ! -x "$PY" ]; then
	echo "uprobes bench: no /usr/bin/python3" >&2
	exit 1
fi

# ms of each `python3 -c pass`, one a line, until killed
pass_loop() {	# FILE
	local s
	while :; do
		s=$(date +%s%N)
		"$PY" -c pass
		echo $((($(date +%s%N) - s) / 1000000))
	done >"$1"
}

# "median max runs" of a pass_loop file
pass_stats() {	# FILE
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "- - 0"; exit }
		printf "%d %d %d\n", v[int((NR + 1) / 2)], v[NR], NR }'
}

# One run: funcdur -v -d 1 ARGS with the pass loop beside it; prints
# "functions attach_ms detach_ms fds pass_median pass_max pass_runs"
run() {	# ARGS...
	local err=$tmp/err
	pass_loop "$tmp/pass" &
	loop=$!
	"$FD" -v -d 1 -p "$sleeper" --force "$@" >/dev/null 2>"$err"
	local rc=$?
	kill "$loop" 2>/dev/null
	wait "$loop" 2>/dev/null
	loop=
	if [ "$rc" != 0 ]; then
		echo "uprobes bench: funcdur exited $rc:" >&2
		tail -n 5 "$err" >&2
		return 1
	fi
	awk -v pass="$(pass_stats "$tmp/pass")" "$BENCH_FD_VERBOSE_AWK"'
		END { printf "%d %.1f %.1f %d %s\n", n, a, d, fds, pass }' "$err"
}

"$PY" -c 'import time; time.sleep(3600)' &
sleeper=$!
all=$(nm -D --defined-only "$PY" 2>/dev/null | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u)
[ -n "$all" ] || { echo "uprobes bench: no symbols in $PY" >&2; exit 1; }
first=$(printf '%s\n' "$all" | head -n "$single" | sed "s|^|$PY:|")

for i in $(seq 20); do
	s=$(date +%s%N)
	"$PY" -c pass
	echo $((($(date +%s%N) - s) / 1000000))
done >"$tmp/alone"
read -r a_med a_max _ <<<"$(pass_stats "$tmp/alone")"

echo "== uprobes at scale: every function of $PY, on this host ($(uname -r)) =="
echo "python3 -c pass alone: median ${a_med} ms, slowest ${a_max} ms (20 runs)"
printf '%-22s %6s %10s %10s %10s %5s %22s\n' RUN FUNCS "ATTACH ms" "DETACH ms" \
	"TOTAL s" FDS "PASS ms (median/max/n)"
status=0
if r=$(run "$PY:*"); then
	read -r n a d fds pm px pn <<<"$r"
	printf '%-22s %6d %10.1f %10.1f %10.2f %5d %22s\n' uprobe_multi "$n" "$a" "$d" \
		"$(echo "($a + $d) / 1000" | bc -l)" "$fds" "$pm/$px/$pn"
else
	status=1
fi
# shellcheck disable=SC2086
if r=$(run --attach uprobe-single $first); then
	read -r n1 a1 d1 fds1 pm1 px1 pn1 <<<"$r"
	printf '%-22s %6d %10.1f %10.1f %10.2f %5d %22s\n' "one by one" "$n1" "$a1" "$d1" \
		"$(echo "($a1 + $d1) / 1000" | bc -l)" "$fds1" "$pm1/$px1/$pn1"
	if [ "${n:-0}" -gt 0 ] && [ "$n1" -gt 0 ]; then
		printf '%-22s %6d %10.0f %10.0f %10.0f %5s %22s\n' "one by one (extrap.)" "$n" \
			"$(echo "$a1 * $n / $n1" | bc -l)" "$(echo "$d1 * $n / $n1" | bc -l)" \
			"$(echo "($a1 + $d1) * $n / $n1 / 1000" | bc -l)" - -
	fi
else
	status=1
fi
exit $status
