#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed's experiment (issue 9): `dd if=/dev/zero of=/dev/null bs=4k
# count=N` with every write system call recorded to a file, side by side:
#   untraced
#   kfit:      callgraph -o FILE -e syscalls:sys_enter_write (system-wide)
#   perf:      perf record -e syscalls:sys_enter_write -a -o FILE
#   trace-cmd: trace-cmd record -e syscalls:sys_enter_write; where it
#              refuses (it cannot write ftrace_enabled), what it does by
#              hand: tracefs_rec (an instance of its own, each CPU's
#              trace_pipe_raw spliced into a file)
#   floors:    an empty BPF program on the tracepoint, and a 16-byte
#              ring-buffer record per write read and discarded (floor)
# Each recorder runs system-wide in the background; once it is attached,
# dd runs, then the recorder gets SIGINT. Per row: dd's throughput and its
# time as a ratio to untraced (traced time / untraced time), the events
# recorded and lost (from each tool's own output or file), bytes per event
# on disk, the recorder's CPU time (user + sys, /usr/bin/time). The rows
# run interleaved, ROUNDS times; each column is the median of its rounds.
# A row that cannot run says why; the exit status is nonzero only when
# kfit's row (or the untraced run) could not run. Nothing stays attached
# or enabled after any exit, Ctrl-C included.
#   BENCH_DD_COUNT (2000000), BENCH_ROUNDS (3), BENCH_TRACEFS_KB (4096 per
#   CPU: 8 MiB on 2 CPUs, callgraph's default ring), BENCH_KEEP=1 (keep the
#   recordings' directory), BENCH_RECORD_ROWS (some of: untraced empty
#   ringbuf kfit perf tracecmd tracefs)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
BENCHBIN=${KFIT_BENCH_BIN:-$top/build/bench}
N=${BENCH_DD_COUNT:-2000000}
ROUNDS=${BENCH_ROUNDS:-3}
TRACEFS_KB=${BENCH_TRACEFS_KB:-4096}
EVENT=syscalls:sys_enter_write
TRACEFS=/sys/kernel/tracing
INSTANCE=kfit-bench.$$
tmp=$(mktemp -d)
pids=$tmp/pids		# recorders running: /usr/bin/time and its child
global_enable=""	# the global event's enable flag, before trace-cmd ran

# ---- cleanup: on every exit, Ctrl-C included -------------------------------

cleanup() {
	local p running
	trap - EXIT INT TERM
	# measure runs in a subshell: its recorders are known by their pids
	running=$(cat "$pids" 2>/dev/null)
	for p in $running; do
		kill -INT "$p" 2>/dev/null
	done
	for p in $running; do
		for _ in $(seq 1 20); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.25
		done
		kill -KILL "$p" 2>/dev/null
	done
	drop_instance
	restore_global
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "record bench: recordings kept in $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'echo "record bench: interrupted" >&2; exit 130' INT TERM

# tracefs_rec removes its instance, unless it was killed
drop_instance() {
	[ -d "$TRACEFS/instances/$INSTANCE" ] || return 0
	rmdir "$TRACEFS/instances/$INSTANCE" ||
		echo "record bench: could not remove $TRACEFS/instances/$INSTANCE" >&2
}

# trace-cmd enables the event in the global buffer: put its flag back
restore_global() {
	local f=$TRACEFS/events/syscalls/sys_enter_write/enable
	[ -n "$global_enable" ] || return 0
	[ "$(cat "$f" 2>/dev/null)" = "$global_enable" ] || echo "$global_enable" >"$f"
}

# ---- one measurement --------------------------------------------------------

# dd_run OUT: runs dd, its last line into OUT; prints "SECONDS BYTES"
dd_run() {
	dd if=/dev/zero of=/dev/null bs=4k count="$N" 2>"$1" || return 1
	sed -nE 's/^([0-9]+) bytes .* copied, ([0-9.e+-]+) s,.*/\2 \1/p' "$1" | tail -n 1
}

# The child of PID (the recorder under /usr/bin/time), up to 5 s
child_of() {
	local c
	for _ in $(seq 1 50); do
		c=$(pgrep -P "$1" | head -n 1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Ready tests, "ready_X PID NAME": 0 once the recorder records
ready_bpf() { bench_prog_ids "$1" | grep -q .; }
ready_perf() { find /proc/"$1"/fd -lname '*perf_event*' 2>/dev/null | grep -q .; }
ready_err() { grep -q "$3" "$tmp/$2.err"; }
ready_tracecmd() { grep -qi 'hit ctrl' "$tmp/$2.out"; }

# measure NAME READY -- CMD...: starts CMD (a recorder) in the background
# under /usr/bin/time, waits until "READY PID NAME" holds (at most 30 s),
# runs dd, sends SIGINT to CMD and waits for its end. $tmp/NAME.{out,err,
# time,dd} hold its outputs; prints "SECONDS BYTES" of dd. Fails (its
# reason in $tmp/NAME.why) when CMD ends before it is ready, or fails.
measure() {
	local name=$1 ready=$2 tpid rpid t rc
	shift 3
	rm -f "$tmp/$name".*
	/usr/bin/time -f '%U %S' -o "$tmp/$name.time" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err" &
	tpid=$!
	echo "$tpid" >"$pids"
	rpid=$(child_of "$tpid") || {
		wait "$tpid"
		why "$name" "ended at once"
		return 1
	}
	echo "$tpid $rpid" >"$pids"
	for t in $(seq 1 300); do
		$ready "$rpid" "$name" "${READY_PATTERN:-}" && break
		if ! kill -0 "$rpid" 2>/dev/null; then
			wait "$tpid"
			why "$name" "ended before recording"
			return 1
		fi
		sleep 0.1
	done
	if [ "$t" = 300 ]; then
		kill -INT "$rpid" 2>/dev/null
		wait "$tpid"
		why "$name" "not recording after 30 s"
		return 1
	fi
	sleep 1		# whatever the recorder still sets up after attaching
	dd_run "$tmp/$name.dd" >"$tmp/$name.ddt" || { why "$name" "dd failed"; return 1; }
	kill -INT "$rpid" 2>/dev/null
	wait "$tpid"
	rc=$?
	: >"$pids"
	if [ "$rc" != 0 ] && [ "$rc" != 130 ]; then
		why "$name" "exited $rc"
		return 1
	fi
	cat "$tmp/$name.ddt"
}

# why NAME TEXT: the reason a row failed, with the recorder's last words
why() {
	{
		echo "$2"
		grep -v '^Command exited\|^Command terminated' "$tmp/$1.err" 2>/dev/null | tail -n 4
	} >"$tmp/$1.why"
	: >"$pids"
}

# The recorder's CPU seconds (user + sys)
cpu_of() { awk '{ s = $1 + $2 } END { printf "%.2f", s }' "$tmp/$1.time"; }

# ---- the rows ---------------------------------------------------------------
# Each prints "SECONDS BYTES EVENTS LOST DISK CPU" ("-" where there is none)

row_untraced() {
	local t
	t=$(dd_run "$tmp/untraced.dd") || { echo "dd failed" >"$tmp/untraced.why"; return 1; }
	echo "$t - - - -"
}

row_kfit() {
	local f=$tmp/kfit.kft t line ev lost
	[ -x "$BIN/callgraph" ] || { echo "$BIN/callgraph not built (make)" >"$tmp/kfit.why"; return 1; }
	"$BIN/callgraph" --help 2>&1 | grep -q -- '--record' || {
		echo "$BIN/callgraph has no -o/--record (the recorder is not merged)" >"$tmp/kfit.why"
		return 1
	}
	t=$(measure kfit ready_bpf -- "$BIN/callgraph" -o "$f" -e "$EVENT") || return 1
	# "recorded N records (B bytes raw) into FILE: S bytes, C chunks, L lost"
	line=$(grep -E '^recorded [0-9]+ records' "$tmp/kfit.err" | tail -n 1)
	ev=$(sed -nE 's/^recorded ([0-9]+) records.*/\1/p' <<<"$line")
	lost=$(sed -nE 's/.* ([0-9]+) lost.*/\1/p' <<<"$line")
	[ -n "$ev" ] && [ -n "$lost" ] || { why kfit "no 'recorded N records ... L lost' line"; return 1; }
	echo "$t $ev $lost $(stat -c %s "$f") $(cpu_of kfit)"
	rm -f "$f"
}

row_perf() {
	local f=$tmp/perf.data t ev lost
	t=$(measure perf ready_perf -- perf record -e "$EVENT" -a -o "$f") || return 1
	# The write event's own stats: its samples, and the samples it lost
	perf report --stats -i "$f" >"$tmp/perf.stats" 2>&1
	read -r ev lost < <(awk -v ev="$EVENT" '
		$0 ~ "^" ev " stats:" { on = 1; next }
		/ stats:$/ { on = 0 }
		on && /SAMPLE events:/ && !/LOST/ { s = $NF }
		on && /LOST_SAMPLES events:/ { l = $NF }
		END { print s + 0, l + 0 }' "$tmp/perf.stats")
	[ "$ev" -gt 0 ] || { why perf "perf report --stats found no samples"; return 1; }
	echo "$t $ev $lost $(stat -c %s "$f") $(cpu_of perf)"
	rm -f "$f"
}

row_tracecmd() {
	local f=$tmp/trace.dat t ev lost
	global_enable=$(cat "$TRACEFS/events/syscalls/sys_enter_write/enable" 2>/dev/null)
	t=$(cd "$tmp" && measure tracecmd ready_tracecmd -- trace-cmd record -e "$EVENT" -o "$f")
	local rc=$?
	restore_global
	[ "$rc" = 0 ] || return 1
	# trace-cmd prints each CPU's ring buffer stats at the end
	read -r ev lost < <(awk '
		/^read events:/ { r += $NF }
		/^overrun:/ || /^commit overrun:/ || /^dropped events:/ { l += $NF }
		END { print r + 0, l + 0 }' "$tmp/tracecmd.out")
	echo "$t $ev $lost $(stat -c %s "$f") $(cpu_of tracecmd)"
	rm -f "$f"
}

row_tracefs() {
	local f=$tmp/tracefs t tot ev lost bytes cnt
	t=$(READY_PATTERN=recording measure tracefs ready_err -- "$BENCHBIN/tracefs_rec" \
		-b "$TRACEFS_KB" -i "$INSTANCE" -o "$f" "$EVENT") || { drop_instance; return 1; }
	# total: bytes B, read events R, entries E, overrun O, commit overrun C,
	# dropped events D
	tot=$(grep '^total:' "$tmp/tracefs.out")
	lost=$(sed -nE 's/.* overrun ([0-9]+), commit overrun ([0-9]+), dropped events ([0-9]+).*/\1 \2 \3/p' \
		<<<"$tot" | awk '{ print $1 + $2 + $3 }')
	bytes=$(sed -nE 's/^total: bytes ([0-9]+),.*/\1/p' <<<"$tot")
	# The events in the files themselves, against the kernel's count
	cnt=$("$BENCHBIN/tracefs_rec" -c "$f".cpu* 2>&1)
	ev=$(sed -nE 's/^events ([0-9]+),.*/\1/p' <<<"$cnt")
	[ -n "$ev" ] && [ -n "$lost" ] || { why tracefs "no counts: $cnt $tot"; return 1; }
	if [ "$ev" != "$(sed -nE 's/.*read events ([0-9]+),.*/\1/p' <<<"$tot")" ]; then
		echo "record bench: tracefs: $ev events in the files, the kernel's stats say: $tot" >&2
	fi
	echo "$t $ev $lost $bytes $(cpu_of tracefs)"
	rm -f "$f".cpu*
}

row_empty() {
	local t
	t=$(READY_PATTERN=attached measure empty ready_err -- "$BENCHBIN/floor" empty) || return 1
	echo "$t - - - $(cpu_of empty)"
}

row_ringbuf() {
	local t ev lost
	t=$(READY_PATTERN=attached measure ringbuf ready_err -- "$BENCHBIN/floor" ringbuf) || return 1
	read -r ev lost < <(sed -nE 's/^floor: ringbuf: events ([0-9]+), lost ([0-9]+)/\1 \2/p' \
		"$tmp/ringbuf.out")
	[ -n "$ev" ] || { why ringbuf "no 'events N, lost L' line"; return 1; }
	echo "$t $ev $lost - $(cpu_of ringbuf)"
}

# Whether trace-cmd records on this host: once, before the rounds. Sets
# TC_ROW (tracecmd or tracefs) and TC_WHY (its refusal, explained).
probe_tracecmd() {
	local f=/proc/sys/kernel/ftrace_enabled out
	TC_ROW=tracefs
	if ! command -v trace-cmd >/dev/null; then
		TC_WHY="trace-cmd is not installed (make deps)"
		return
	fi
	global_enable=$(cat "$TRACEFS/events/syscalls/sys_enter_write/enable" 2>/dev/null)
	out=$(cd "$tmp" && timeout 20 trace-cmd record -e "$EVENT" -o "$tmp/probe.dat" -- true 2>&1)
	local rc=$?
	restore_global
	rm -f "$tmp/probe.dat"*
	if [ "$rc" = 0 ]; then
		TC_ROW=tracecmd
		return
	fi
	TC_WHY="trace-cmd record refused (exit $rc): $(grep -v '^$' <<<"$out" | tail -n 2 |
		sed 's/^ *//' | paste -sd ' ')"
	# Writing its present value back changes nothing, and shows whether
	# ftrace_enabled can be written at all (trace-cmd writes 1 into it)
	if ! (echo "$(cat $f)" >"$f") 2>/dev/null; then
		TC_WHY="$TC_WHY: it writes $f, which this host refuses even to root"
	fi
}

# ---- the table --------------------------------------------------------------

# median of the numbers on stdin ("-" when none)
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m }'
}

# col ROW K: the median of column K of ROW's rounds ("-" if not numbers)
col() {
	[ -s "$tmp/$1.rows" ] || { echo "-"; return; }
	awk -v k="$2" '$k != "-" { print $k }' "$tmp/$1.rows" | median
}

label() {
	case $1 in
	untraced) echo "untraced" ;;
	empty) echo "empty BPF program (floor)" ;;
	ringbuf) echo "16-byte ringbuf record (floor)" ;;
	kfit) echo "kfit callgraph -o" ;;
	perf) echo "perf record -a" ;;
	tracecmd) echo "trace-cmd record" ;;
	tracefs) echo "tracefs splice (trace-cmd's method)" ;;
	esac
}

# The median of ROW's time over untraced's in the same round: the rounds
# are interleaved, so each round's ratio sees the same load on the machine
ratio_of() {
	[ -s "$tmp/$1.rows" ] && [ -s "$tmp/untraced.rows" ] || { echo "n/a"; return; }
	awk 'NR == FNR { base[$7] = $1; next }
		($7 in base) && base[$7] > 0 { print $1 / base[$7] }' \
		"$tmp/untraced.rows" "$tmp/$1.rows" | median |
		awk '{ if ($1 == "-") print "n/a"; else printf "%.2f\n", $1 }'
}

# print_row ROW
print_row() {
	local s b ev lost disk cpu
	s=$(col "$1" 1)
	if [ "$s" = "-" ]; then
		printf '%-36s %s\n' "$(label "$1")" "could not run: $(head -n 1 "$tmp/$1.why" 2>/dev/null)"
		return
	fi
	b=$(col "$1" 2)
	ev=$(col "$1" 3)
	lost=$(col "$1" 4)
	disk=$(col "$1" 5)
	cpu=$(col "$1" 6)
	printf '%-36s %6s %6s %6s %10s %9s %8s %6s\n' "$(label "$1")" \
		"$(awk -v b="$b" -v s="$s" 'BEGIN { printf "%.1f", b / s / 1e9 }')" \
		"$(awk -v s="$s" 'BEGIN { printf "%.3f", s }')" "$(ratio_of "$1")" \
		"${ev%.*}" "${lost%.*}" \
		"$(awk -v d="$disk" -v e="$ev" 'BEGIN { if (d == "-" || e == "-" || e == 0) print "-"; else printf "%.1f", d / e }')" \
		"$cpu"
}

for t in /usr/bin/time perf bpftool; do
	command -v "$t" >/dev/null || { echo "record bench: $t missing (make deps)" >&2; exit 1; }
done
for t in "$BENCHBIN/floor" "$BENCHBIN/tracefs_rec"; do
	[ -x "$t" ] || { echo "record bench: $t not built (make bench builds it)" >&2; exit 1; }
done

probe_tracecmd
ROWS=${BENCH_RECORD_ROWS:-"untraced empty ringbuf kfit perf $TC_ROW"}
for ((r = 1; r <= ROUNDS; r++)); do
	for row in $ROWS; do
		if line=$(row_"$row"); then
			echo "$line $r" >>"$tmp/$row.rows"
		else
			echo "record bench: round $r: $(label "$row"): $(head -n 1 "$tmp/$row.why")" >&2
			tail -n +2 "$tmp/$row.why" | sed 's/^/  /' >&2
		fi
	done
done

echo "== recording every write of dd (bs=4k count=$N) to a file, host $(uname -r), $(nproc) CPUs: medians of $ROUNDS interleaved rounds =="
printf '%-36s %6s %6s %6s %10s %9s %8s %6s\n' ROW "GB/s" "DD s" RATIO EVENTS LOST "B/EVENT" "CPU s"
for row in $ROWS; do
	print_row "$row"
done
if [ "$TC_ROW" = tracefs ]; then
	echo "($TC_WHY;"
	echo " the tracefs row records as trace-cmd would: an instance of its own, $TRACEFS_KB KiB per CPU,"
	echo " each CPU's trace_pipe_raw spliced into a file by a thread per CPU)"
fi
echo "(RATIO: dd's time traced / untraced, the median of the rounds' ratios;"
echo " EVENTS: every write on the machine, the recorders' own included;"
echo " LOST: perf's lost samples, tracefs' overrun + dropped events, the floors' and kfit's refused records;"
echo " CPU s: the recorder's own user + sys time; the floors write nothing to disk)"
k=$(col kfit 1)
if [ "$k" != "-" ]; then
	echo "ratio of dd's time, kfit/perf: $(bench_ratio "$k" "$(col perf 1)")," \
		"kfit/$TC_ROW: $(bench_ratio "$k" "$(col "$TC_ROW" 1)")," \
		"kfit/ringbuf floor: $(bench_ratio "$k" "$(col ringbuf 1)")," \
		"kfit/empty floor: $(bench_ratio "$k" "$(col empty 1)") (median times)"
	echo "(goal: nothing lost, dd at most 1.35x slower than untraced: below the ringbuf floor, its"
	echo " records staged per CPU and written in batches; a few bytes per event on disk)"
	bench_goal callgraph "record -e: dd's time, / untraced" "$(ratio_of kfit)" 1.35 \
		"empty program $(ratio_of empty)x, 16-byte ringbuf record $(ratio_of ringbuf)x" \
		"perf record -a $(ratio_of perf)x" "$(ratio_of empty)"
fi
[ "$(col untraced 1)" != "-" ] && [ "$k" != "-" ]
