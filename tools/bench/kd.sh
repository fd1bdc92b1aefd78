#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kd on a long recording made on this machine (issue 19): dd's write
# system calls recorded by `callgraph -o FILE sys:write -- dd ...` (a call
# record each), then read back:
#   floor      every chunk inflated on all CPUs, nothing decoded
#              (build/bench/kdfloor): what reading the file costs at least
#   --summary  streamed: seconds, records/s, the ratio to the floor, peak RSS
#   window     --since/--until: one second in the middle of the file (the
#              index: only its chunks are inflated)
#   --folded, --svg  streamed too (the flame merged as each call ends):
#              the whole file, seconds and peak RSS
#   tree, -j, --perfetto  streamed too (each thread's lines or events
#              spooled to a temporary file, the interrupts merged at the
#              end): the first BENCH_KD_TREE seconds of the file (the spool
#              takes about 75 bytes a record of disk, --perfetto's about
#              130, and as much again for its JSON), peak RSS
# and beside them, on recordings of their own of the same kind of work:
#   perf report  of dd's sys_enter_write recorded by perf record
#   uftrace report  of cgshape-pg's calls recorded by uftrace record, and
#              kd --summary of the same calls recorded by callgraph -o
# Each read runs ROUNDS times, interleaved; the median is shown.
#   BENCH_KD_RECORDS (300000000: dd's writes, the issue's size),
#   BENCH_KD_ANCHOR (2000000: the anchors' records), BENCH_KD_TREE (10),
#   BENCH_ROUNDS (3), BENCH_KEEP=1 (keep the files), BENCH_KD_FILE (a
#   recording kept before: read it again instead of recording one)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
BENCHBIN=${KFIT_BENCH_BIN:-$top/build/bench}
N=${BENCH_KD_RECORDS:-300000000}
NA=${BENCH_KD_ANCHOR:-2000000}
TREE=${BENCH_KD_TREE:-10}
ROUNDS=${BENCH_ROUNDS:-3}
tmp=$(mktemp -d /var/tmp/kfit-kd-bench.XXXXXX)
status=0

cleanup() {
	[ "${BENCH_KEEP:-}" = 1 ] && echo "kd bench: files kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "kd bench: $*" >&2
	exit 1
}

for t in "$BIN/callgraph" "$BIN/kd" "$BENCHBIN/kdfloor"; do
	[ -x "$t" ] || die "$t not built (make all build/bench/kdfloor)"
done

# "SECONDS PEAK_KIB" of a command, its output discarded
timed() {
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "kd bench: $* failed: $(tail -n 3 "$tmp/err")" >&2; return 1; }
	tail -n 1 "$tmp/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# ---- the recording ----------------------------------------------------------

rec=${BENCH_KD_FILE:-$tmp/dd.kft}
if [ -n "${BENCH_KD_FILE:-}" ]; then
	echo "== kd on a long recording: $rec, recorded before (BENCH_KD_FILE)"
	t0=0
	t1=$("$BIN/kd" "$rec" --info -j | jq -r '.duration_ns / 1e9') ||
		die "$rec: not a recording kd reads"
else
	echo "== kd on a long recording: dd's $N one-byte writes, recorded by callgraph -o"
	t0=$(date +%s.%N)
	"$BIN/callgraph" -o "$rec" sys:write -- dd if=/dev/zero of=/dev/null bs=1 count="$N" \
		2>"$tmp/rec.err" || die "recording failed: $(tail -n 3 "$tmp/rec.err")"
	t1=$(date +%s.%N)
fi
records=$("$BIN/kd" "$rec" --info -j | jq -r '.records.total')
lost=$("$BIN/kd" "$rec" --info -j | jq -r '.lost // 0')
size=$(stat -c %s "$rec")
awk -v r="$records" -v s="$size" -v a="$t0" -v b="$t1" -v l="$lost" 'BEGIN {
	printf "recorded %d records (%d lost) in %.0f s: %.2f GB, %.1f bytes a record\n",
	       r, l, b - a, s / 1e9, s / r }'

# ---- reading it -----------------------------------------------------------

# a second in the middle of the recording, as a time from its start
span=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) }')
mid=$(( span / 2 ))

: >"$tmp/floor"; : >"$tmp/sum"; : >"$tmp/win"; : >"$tmp/fold"; : >"$tmp/svg"
for r in $(seq "$ROUNDS"); do
	"$BENCHBIN/kdfloor" "$rec" | awk '{ print $8 }' >>"$tmp/floor" || status=1
	timed "$BIN/kd" "$rec" --summary >>"$tmp/sum" || status=1
	timed "$BIN/kd" "$rec" --summary --since "${mid}s" --until "$((mid + 1))s" \
		>>"$tmp/win" || status=1
	timed "$BIN/kd" "$rec" --folded >>"$tmp/fold" || status=1
	timed "$BIN/kd" "$rec" --svg "$tmp/dd.svg" >>"$tmp/svg" || status=1
done
floor=$(median <"$tmp/floor")
sum_s=$(awk '{ print $1 }' "$tmp/sum" | median)
sum_kib=$(awk '{ print $2 }' "$tmp/sum" | median)
win_s=$(awk '{ print $1 }' "$tmp/win" | median)
win_kib=$(awk '{ print $2 }' "$tmp/win" | median)

printf "\n%-34s %10s %12s %9s %10s\n" "read" "seconds" "records/s" "x floor" "peak RSS"
awk -v f="$floor" -v r="$records" 'BEGIN {
	printf "%-34s %10.2f %12.0f %9s %10s\n", "floor (inflate, all CPUs)", f, r / f, "1.00", "-" }'
awk -v s="$sum_s" -v f="$floor" -v r="$records" -v k="$sum_kib" 'BEGIN {
	printf "%-34s %10.2f %12.0f %9.2f %7.0f MB\n", "kd --summary (streamed)", s, r / s,
	       s / f, k / 1024 }'
awk -v s="$win_s" -v k="$win_kib" 'BEGIN {
	printf "%-34s %10.3f %12s %9s %7.0f MB\n", "kd --summary, a 1-second window", s, "-",
	       "-", k / 1024 }'
for v in fold svg; do
	vs=$(awk '{ print $1 }' "$tmp/$v" | median)
	vk=$(awk '{ print $2 }' "$tmp/$v" | median)
	awk -v v="$v" -v s="$vs" -v f="$floor" -v r="$records" -v k="$vk" 'BEGIN {
		printf "%-34s %10.2f %12.0f %9.2f %7.0f MB\n",
		       v == "fold" ? "kd --folded (streamed)" : "kd --svg (streamed)", s, r / s,
		       s / f, k / 1024 }'
done
fold_kib=$(awk '{ print $2 }' "$tmp/fold" | median)
svg_kib=$(awk '{ print $2 }' "$tmp/svg" | median)

# The tree, -j and --perfetto, streamed, on the file's first TREE seconds
n=$("$BIN/kd" "$rec" --until "${TREE}s" --summary |
	awk '/^FUNCTION/ { t = 1; next } t && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }')
tree_kib=0
perf_kib=0
for view in "" -j --perfetto; do
	out=()
	[ "$view" = --perfetto ] && out=("$tmp/dd.json")
	if ! timed "$BIN/kd" "$rec" $view "${out[@]}" --until "${TREE}s" >"$tmp/view"; then
		status=1
		continue
	fi
	rm -f "$tmp/dd.json"
	k=$(awk '{ print $2 }' "$tmp/view")
	if [ "$view" = --perfetto ]; then
		perf_kib=$k
	elif [ "$k" -gt "$tree_kib" ]; then
		tree_kib=$k
	fi
	# x floor: to the floor's time for as many records
	awk -v v="${view:-tree}" -v t="$(cat "$tmp/view")" -v n="$n" -v h="$TREE" \
		-v f="$floor" -v r="$records" 'BEGIN {
		split(t, a, " ")
		printf "%-34s %10.2f %12.0f %9.2f %7.0f MB  (%d calls, streamed)\n",
		       "kd " v ", first " h " s", a[1], n / a[1], a[1] / (n * f / r), a[2] / 1024, n }'
done

# ---- the anchors ------------------------------------------------------------

echo
echo "== beside it: perf report and uftrace report, $NA records of their own"
if command -v perf >/dev/null; then
	perf record -q -e syscalls:sys_enter_write -o "$tmp/perf.data" -- \
		dd if=/dev/zero of=/dev/null bs=1 count="$NA" 2>"$tmp/perf.err" ||
		echo "perf record failed: $(tail -n 2 "$tmp/perf.err")"
	"$BIN/callgraph" -o "$tmp/dda.kft" sys:write -- dd if=/dev/zero of=/dev/null bs=1 \
		count="$NA" 2>/dev/null || status=1
	: >"$tmp/pr"; : >"$tmp/ka"
	for r in $(seq "$ROUNDS"); do
		[ -s "$tmp/perf.data" ] &&
			timed perf report -i "$tmp/perf.data" --stdio --sort comm >>"$tmp/pr"
		timed "$BIN/kd" "$tmp/dda.kft" --summary >>"$tmp/ka"
	done
	pn=$(perf script -i "$tmp/perf.data" 2>/dev/null | wc -l)
	kn=$("$BIN/kd" "$tmp/dda.kft" --info -j | jq -r '.records.total')
	printf "%-34s %10s %12s\n" "dd's writes" "seconds" "records/s"
	[ -s "$tmp/pr" ] && awk -v s="$(awk '{ print $1 }' "$tmp/pr" | median)" -v n="$pn" \
		'BEGIN { printf "%-34s %10.2f %12.0f\n", "perf report --sort comm", s, n / s }'
	awk -v s="$(awk '{ print $1 }' "$tmp/ka" | median)" -v n="$kn" \
		'BEGIN { printf "%-34s %10.2f %12.0f\n", "kd --summary", s, n / s }'
else
	echo "perf: not installed (make deps-bench)"
fi
cg=$HELPERS/cgshape-pg
if command -v uftrace >/dev/null && [ -x "$cg" ]; then
	# cgshape nest N: cg_a { cg_b { cg_c { cg_d } } } N times: 4 calls each
	it=$(( NA / 4 ))
	uftrace record -d "$tmp/uft" "$cg" nest "$it" >/dev/null 2>"$tmp/uft.err" ||
		echo "uftrace record failed: $(tail -n 2 "$tmp/uft.err")"
	"$BIN/callgraph" -o "$tmp/cg.kft" "$cg:cg_a" "$cg:cg_b" "$cg:cg_c" "$cg:cg_d" -- \
		"$cg" nest "$it" >/dev/null 2>&1 || status=1
	: >"$tmp/ur"; : >"$tmp/kc"
	for r in $(seq "$ROUNDS"); do
		timed uftrace report -d "$tmp/uft" >>"$tmp/ur"
		timed "$BIN/kd" "$tmp/cg.kft" --summary >>"$tmp/kc"
	done
	kn=$("$BIN/kd" "$tmp/cg.kft" --info -j | jq -r '.records.total')
	printf "%-34s %10s %12s\n" "cgshape's $((it * 4)) calls" "seconds" "records/s"
	awk -v s="$(awk '{ print $1 }' "$tmp/ur" | median)" -v n="$((it * 4))" \
		'BEGIN { printf "%-34s %10.2f %12.0f\n", "uftrace report", s, n / s }'
	awk -v s="$(awk '{ print $1 }' "$tmp/kc" | median)" -v n="$kn" \
		'BEGIN { printf "%-34s %10.2f %12.0f\n", "kd --summary", s, n / s }'
else
	echo "uftrace: not installed, or $cg not built"
fi

echo
fold_s=$(awk '{ print $1 }' "$tmp/fold" | median)
svg_s=$(awk '{ print $1 }' "$tmp/svg" | median)
awk -v s="$sum_s" -v f="$floor" -v r="$records" -v k="$sum_kib" -v fk="$fold_kib" \
	-v sk="$svg_kib" -v tk="$tree_kib" -v pk="$perf_kib" -v fs="$fold_s" -v ss="$svg_s" 'BEGIN {
	# (a comparison inside printf'"'"'s arguments would be a redirection)
	mem = k < 262144 ? "met" : "NOT met"
	fmem = fk < 262144 && sk < 262144 && tk < 262144 && pk < 262144 ? "met" : "NOT met"
	printf "goals: --folded, --svg, the tree and -j (the larger), --perfetto under 256 MB: %s " \
	       "(%.0f MB, %.0f MB, %.0f MB, %.0f MB)\n", fmem, fk / 1024, sk / 1024, tk / 1024,
	       pk / 1024
	near = s <= 1.3 * f ? "met" : "NOT met"
	fast = r / s >= 8e6 ? "met" : "NOT met"
	printf "goals: --summary under 256 MB: %s (%.0f MB); within 1.3x the floor: %s",
	       mem, k / 1024, near
	printf " (%.2fx); 8M records/s: %s (%.1fM)\n", s / f, fast, r / s / 1e6
	# every call tree built whole, interrupts placed, then summed by path
	trees = fs <= 2 * f && ss <= 2 * f ? "met" : "NOT met"
	printf "goals: the trees (--folded, --svg) within 2x the floor: %s (%.2fx, %.2fx)\n",
	       trees, fs / f, ss / f }'
exit $status
