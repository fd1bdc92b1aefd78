# SPDX-License-Identifier: GPL-2.0
# tests/lib.sh: the shell test framework of the live and VM suites.
#
# A test file:
#	. "$(dirname "$0")/../lib.sh"
#	test_something() { t_expect_exit 0 "$KFIT_BIN/tool" -h; }
#	t_run_all
#
# t_run_all runs every test_* function, in definition order, each in a
# subshell with a fresh temp dir $T_TMP, and prints PASS/FAIL/SKIP lines
# and "<file>: N passed, N failed, N skipped". Only busybox, bash, jq and
# bpftool may be assumed (the VM's initramfs has nothing more).
#
# Environment: KFIT_BIN (the tools), KFIT_HELPERS (helper binaries),
# KFIT_IN_VM=1 inside the VM, CI=true (a skip is a failure),
# T_SKIP_ALL=reason (every test skips), T_TIMEOUT (seconds for one test),
# T_CMD_TIMEOUT (seconds for one t_expect_exit command), T_KEEP_TMP=1
# (keep the temp dirs), T_ONLY=regex (run only the tests it matches).

set -u

T_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T_REPO=$(cd "$T_LIB_DIR/.." && pwd)
: "${KFIT_BIN:=$T_REPO/build/bin}"
: "${KFIT_HELPERS:=$T_REPO/build/tests}"
: "${T_TIMEOUT:=180}"
: "${T_CMD_TIMEOUT:=60}"
export KFIT_BIN KFIT_HELPERS

# True inside the VM harness
t_in_vm() { [ "${KFIT_IN_VM:-}" = 1 ]; }

t_ci() { [ "${CI:-}" = true ]; }

# ---- results -------------------------------------------------------------
# Inside a test the first verdict written to $T_RESULT wins, so a t_fail
# from a nested subshell (a pipeline, $(...)) still counts.

_t_verdict() {	# KIND why
	[ -s "$T_RESULT" ] || printf '%s\t%s\n' "$1" "$2" >"$T_RESULT"
}

t_fail() {
	_t_verdict FAIL "${1:-failed}"
	exit 1
}

t_skip() {
	if t_ci; then
		_t_verdict FAIL "SKIP not allowed with CI=true: ${1:-skipped}"
		exit 1
	fi
	_t_verdict SKIP "${1:-skipped}"
	exit 0
}

# Commands run when the test ends, however it ends (kill a background tool)
t_on_exit() { _T_ATEXIT="${_T_ATEXIT:-}$1;"; }

# ---- assertions ----------------------------------------------------------

t_assert_eq() {	# A B what
	[ "$1" = "$2" ] || t_fail "${3:-values}: got '$1', expected '$2'"
}

t_assert_match() {	# STRING REGEX what (grep -E, multi-line STRING: any line)
	printf '%s\n' "$1" | grep -Eq -- "$2" ||
		t_fail "${3:-output}: '$(_t_short "$1")' does not match /$2/"
}

t_assert_no_match() {	# STRING REGEX what (no line matches)
	! printf '%s\n' "$1" | grep -Eq -- "$2" ||
		t_fail "${3:-output}: '$(_t_short "$1")' matches /$2/"
}

# |ACTUAL - EXPECTED| <= |EXPECTED| * PCT / 100, in floating point
t_within_pct() {	# ACTUAL EXPECTED PCT what
	_t_is_num "$1" || t_fail "${4:-value}: '$1' is not a number"
	_t_is_num "$2" || t_fail "${4:-value}: expected '$2' is not a number"
	t_is_within_pct "$1" "$2" "$3" ||
		t_fail "${4:-value}: $1 is not within $3% of $2$(_t_pct "$1" "$2")"
}

# The same as a test (no verdict): status 0 if within
t_is_within_pct() {	# ACTUAL EXPECTED PCT
	awk -v a="$1" -v e="$2" -v p="$3" 'BEGIN {
		d = a - e; if (d < 0) d = -d
		m = e < 0 ? -e : e
		exit !(d <= m * p / 100)
	}'
}

_t_pct() {
	awk -v a="$1" -v e="$2" 'BEGIN {
		if (e != 0) printf(" (off by %.2f%%)", (a - e) * 100 / e) }'
}

_t_is_num() { printf '%s' "$1" | grep -Eq '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'; }

_t_short() {	# first line, at most 200 characters
	local s=${1%%$'\n'*}
	[ "${#s}" -gt 200 ] && s="${s:0:200}..."
	[ "$s" != "$1" ] && s="$s ..."
	printf '%s' "$s"
}

# Run cmd with stdout in $T_OUT and stderr in $T_ERR (bounded by
# T_CMD_TIMEOUT seconds); fail unless it exits with CODE.
t_expect_exit() {	# CODE cmd args...
	local want=$1 rc
	shift
	timeout "$T_CMD_TIMEOUT" "$@" >"$T_OUT" 2>"$T_ERR" </dev/null
	rc=$?
	[ "$rc" = "$want" ] && return 0
	echo "--- stderr of: $* (last lines)"
	tail -n 15 "$T_ERR"
	echo "---"
	case $rc in
	124 | 143) [ "$want" != "$rc" ] &&
		t_fail "'$*' exited $rc (killed after ${T_CMD_TIMEOUT}s?), expected $want" ;;
	esac
	t_fail "'$*' exited $rc, expected $want"
}

t_need_root() {
	[ "$(id -u)" = 0 ] || t_skip "needs root (uid $(id -u))"
}

# Sets NOBODY, a command prefix that runs a command as the user nobody
# (uid 65534, no capabilities): setpriv where it can change uids, else su
# (busybox's in the VM; "--" keeps su from taking the command's options).
# Skips when neither can.
t_nobody() {
	if setpriv --help 2>&1 | grep -q -- --reuid; then
		NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	elif command -v su >/dev/null && id nobody >/dev/null 2>&1; then
		NOBODY=(su -s /bin/sh nobody -- -c 'exec "$0" "$@"')
	else
		t_skip "neither setpriv --reuid nor su nobody"
	fi
}

# A PID no process has (the highest free one)
t_free_pid() {
	local p
	p=$(cat /proc/sys/kernel/pid_max)
	p=$((p - 1))
	while [ -e "/proc/$p" ]; do p=$((p - 1)); done
	echo "$p"
}

# ---- VM suites run from the host ----------------------------------------

# Skips inside the VM and where there is no qemu
t_need_qemu() {
	t_in_vm && t_skip "starts a VM: runs on the host only"
	command -v qemu-system-x86_64 >/dev/null ||
		t_skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
}

# True when tools/vm/kfit-vm has VM kernel SERIES (6.1, 6.12) in its cache
t_vm_kernel_cached() {	# SERIES
	[ -s "${KFIT_VM_CACHE:-${HOME:-/tmp}/.cache/kfit-vm}/kernel-$1.env" ]
}

# Never two VMs at once: wait for one running to end (bounded)
t_wait_no_vm() {
	local i=0
	while pgrep qemu-system >/dev/null; do
		[ "$i" -ge 600 ] && t_fail "another VM still running after 600 s"
		sleep 1
		i=$((i + 1))
	done
}

# Fail with the file shown
t_show_file() {	# FILE label
	echo "--- ${2:-$1} (last lines)"
	tail -n 20 "$1"
	echo "---"
}

# ---- in the VM -----------------------------------------------------------

# The dummy module loaded (tools/vm/kfit_vm_modprobe) and a device of it,
# kd0, up at 10.99.0.1/24 with IPv6 off (it sends nothing of its own):
# both gone when the test ends
t_vm_dummy_up() {
	[ -d /sys/module/dummy ] && t_fail "dummy is loaded already"
	t_on_exit 'ip link del kd0 2>/dev/null; kfit_vm_modprobe -r dummy >/dev/null 2>&1'
	kfit_vm_modprobe dummy numdummies=0 || t_fail "kfit_vm_modprobe dummy failed"
	ip link add kd0 type dummy || t_fail "ip link add kd0 type dummy failed"
	echo 1 >/proc/sys/net/ipv6/conf/kd0/disable_ipv6
	ip addr add 10.99.0.1/24 dev kd0 && ip link set kd0 up || t_fail "kd0 setup failed"
}

# ---- a tool in the background -------------------------------------------
# The waits use shell builtins only, so that a test makes no process (no
# fork, no exec) while a tracer watches forks or system calls.

# Sleep without forking: a read from a FIFO nobody writes
t_pause() {	# SECONDS (fractions allowed)
	[ -p "$T_TMP/.pause" ] || mkfifo "$T_TMP/.pause" || t_fail "mkfifo failed"
	read -r -t "$1" <>"$T_TMP/.pause" 2>/dev/null
}

# A test helper run with -w (durtarget, pmcload) prints "pid N", then
# waits for SIGUSR1 before its work. t_held_start CMD... starts it (CMD may
# be prefixed, e.g. by taskset), output in $T_TMP/held.out, and waits for
# that line and for every regexp in HELD_WANT (e.g. '^worker '); sets
# HELD_PID. t_held_go lets it run and waits for its successful end.
t_held_start() {	# CMD...
	local out=$T_TMP/held.out i=0 re ready
	: >"$out"
	"$@" >"$out" 2>&1 </dev/null &
	HELD_PID=$!
	t_on_exit "kill -KILL $HELD_PID 2>/dev/null"
	while :; do
		ready=1
		for re in '^pid ' ${HELD_WANT:-}; do
			grep -q -- "$re" "$out" || ready=
		done
		[ -n "$ready" ] && break
		kill -0 "$HELD_PID" 2>/dev/null || t_fail "'$*' exited: $(cat "$out")"
		[ "$i" -ge 1500 ] && t_fail "'$*' was not ready in 30 s: $(cat "$out")"
		sleep 0.02
		i=$((i + 1))
	done
	t_assert_eq "$(sed -n 's/^pid //p' "$out")" "$HELD_PID" "pid printed by '$*'"
}

# A shell command that stops itself before it runs (its pid known for -p,
# set_event_pid...): t_stopped_start SCRIPT starts `sh -c SCRIPT`, output
# discarded, and waits until it has stopped; sets STOPPED_PID. kill -CONT
# lets it run.
t_stopped_start() {	# SCRIPT
	local i=0
	sh -c 'kill -STOP $$; exec sh -c "$0"' "$1" >/dev/null 2>&1 </dev/null &
	STOPPED_PID=$!
	t_on_exit "kill -KILL $STOPPED_PID 2>/dev/null"
	until [ "$(awk '{ print $3 }' "/proc/$STOPPED_PID/stat" 2>/dev/null)" = T ]; do
		[ "$i" -ge 3000 ] && t_fail "sh -c 'kill -STOP \$\$; ...' did not stop"
		sleep 0.01
		i=$((i + 1))
	done
}

t_held_go() {
	local rc
	kill -USR1 "$HELD_PID" || t_fail "kill -USR1 $HELD_PID failed"
	wait "$HELD_PID"
	rc=$?
	[ "$rc" = 0 ] || t_fail "helper $HELD_PID exited $rc: $(cat "$T_TMP/held.out")"
}

# Start CMD with stdout in $T_TMP/bg.out and stderr in bg.err; sets BG.
# It is killed when the test ends, whatever happens.
t_bg_start() {	# CMD args...
	echo "+ $*"
	# emptied here: the redirections below happen in the child, later
	: >"$T_TMP/bg.out"
	: >"$T_TMP/bg.err"
	"$@" >"$T_TMP/bg.out" 2>"$T_TMP/bg.err" </dev/null &
	BG=$!
	t_on_exit "kill -KILL $BG 2>/dev/null"
}

# Wait for the "Tracing" line on its stderr
t_bg_wait_tracing() {	# [SECONDS, default 30]
	local secs=${1:-30} i=0 line rc
	while :; do
		while IFS= read -r line; do
			case $line in Tracing*) return 0 ;; esac
		done <"$T_TMP/bg.err"
		if ! kill -0 "$BG" 2>/dev/null; then
			wait "$BG"
			rc=$?
			t_show_file "$T_TMP/bg.err" "stderr"
			t_fail "it exited ($rc) before printing 'Tracing'"
		fi
		[ "$i" -ge $((secs * 10)) ] && t_fail "no 'Tracing' line on stderr after $secs s"
		t_pause 0.1
		i=$((i + 1))
	done
}

# Send SIGNAL and wait for the exit; sets BG_RC. It must still be running.
# Wait for the background tool to end, for SECONDS at most; sets BG_RC
_t_bg_reap() {	# SECONDS what-it-is-waiting-after
	local i=0
	while kill -0 "$BG" 2>/dev/null; do
		[ "$i" -ge $(($1 * 10)) ] && t_fail "still running $1 s $2"
		t_pause 0.1
		i=$((i + 1))
	done
	wait "$BG"
	BG_RC=$?
}

t_bg_stop() {	# SIGNAL [SECONDS, default 30]
	kill "-$1" "$BG" 2>/dev/null || t_fail "it had exited before SIG$1"
	_t_bg_reap "${2:-30}" "after SIG$1"
}

# Wait for it to end by itself (e.g. its -p process exited); sets BG_RC.
# It fails if it is still running SECONDS later: a bound, not a timing.
t_bg_wait_exit() {	# [SECONDS, default 30]
	_t_bg_reap "${1:-30}" later
}

# The same, and it must end with status 0
t_bg_stop_ok() {	# SIGNAL [SECONDS]
	t_bg_stop "$@"
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "exited $BG_RC after SIG$1, expected 0"
	}
}

# ---- oracles -------------------------------------------------------------

# What perf probe's DWARF probe (an oracle of arguments) read at each call
# of BINARY's FUNC, with fetch arguments ARGS ('n=req->name:string ...'),
# while COMMAND ran, into OUT: one line per call, "n="..." len=4099", as
# perf script prints them (host only: the VM has no perf). Not in a
# subshell: the probe is removed at the test's exit, should it fail.
t_perf_probe() {	# OUT BINARY FUNC ARGS COMMAND...
	local out=$1 bin=$2 fn=$3 args=$4 ev="kfit_t$$:f"
	shift 4
	perf probe -q -x "$bin" "$ev=$fn $args" >"$T_TMP/pp.err" 2>&1 ||
		t_fail "perf probe failed: $(cat "$T_TMP/pp.err")"
	t_on_exit "perf probe -q -d '$ev' >/dev/null 2>&1"
	perf record -q -e "$ev" -o "$T_TMP/perf.data" -- "$@" >/dev/null 2>&1 ||
		t_fail "perf record failed"
	perf probe -q -d "$ev" >/dev/null 2>&1
	perf script -i "$T_TMP/perf.data" -F trace 2>/dev/null | sed 's/^([0-9a-f]*) //' >"$out"
}

# ---- BPF objects ---------------------------------------------------------
# A snapshot is one line: "PROGS LINKS id...", ids are pN (programs of the
# tracing types) and lN (links). t_bpf_assert_same passes once no id that
# was not in the snapshot remains (objects are freed asynchronously after a
# process exits, so it waits up to T_BPF_SETTLE seconds).

T_BPF_PROG_TYPES='["kprobe","tracepoint","raw_tracepoint","raw_tracepoint_writable","perf_event","tracing"]'
: "${T_BPF_SETTLE:=10}"

_t_bpf_ids() {
	local p l
	command -v bpftool >/dev/null || { echo "bpftool not found"; return 1; }
	command -v jq >/dev/null || { echo "jq not found"; return 1; }
	p=$(bpftool -j prog show 2>&1) || { echo "bpftool prog show: $p"; return 1; }
	l=$(bpftool -j link show 2>&1) || { echo "bpftool link show: $l"; return 1; }
	printf '%s' "$p" | jq -r --argjson t "$T_BPF_PROG_TYPES" \
		'(. // [])[] | select(.type as $x | any($t[]; . == $x)) | "p\(.id)"' ||
		{ echo "bpftool prog show: bad JSON"; return 1; }
	printf '%s' "$l" | jq -r '(. // [])[] | "l\(.id)"' ||
		{ echo "bpftool link show: bad JSON"; return 1; }
}

_t_bpf_line() {	# ids on stdin -> "PROGS LINKS id..."
	local ids np nl
	ids=$(tr '\n' ' ')
	np=$(printf '%s\n' $ids | grep -c '^p')
	nl=$(printf '%s\n' $ids | grep -c '^l')
	echo "$np $nl $ids"
}

t_bpf_snapshot() {
	local ids
	if ! ids=$(_t_bpf_ids); then
		echo "unavailable: $ids"
		return 0
	fi
	printf '%s\n' "$ids" | _t_bpf_line
}

t_bpf_assert_same() {	# SNAP what
	local snap=$1 what=${2:-BPF objects} ids now new i waited=0
	case $snap in
	unavailable:*) t_fail "$what: cannot list BPF objects (${snap#unavailable: })" ;;
	esac
	while :; do
		ids=$(_t_bpf_ids) || t_fail "$what: cannot list BPF objects ($ids)"
		new=""
		for i in $ids; do
			case " $snap " in *" $i "*) ;; *) new="$new $i" ;; esac
		done
		[ -z "$new" ] && return 0
		[ "$waited" -ge $((T_BPF_SETTLE * 5)) ] && break
		sleep 0.2
		waited=$((waited + 1))
	done
	now=$(printf '%s\n' "$ids" | _t_bpf_line)
	bpftool prog show 2>/dev/null | tail -n 20
	t_fail "$what: BPF objects still loaded after ${T_BPF_SETTLE}s: progs ${snap%% *} -> ${now%% *}, links $(echo "$snap" | cut -d' ' -f2) -> $(echo "$now" | cut -d' ' -f2); new:$new"
}

# ---- runner --------------------------------------------------------------

_t_one() {	# name: runs in the test's subshell
	cd "$T_TMP" || exit 1
	trap 'eval "${_T_ATEXIT:-}"' EXIT
	trap 'exit 143' TERM
	[ -n "${T_SKIP_ALL:-}" ] && t_skip "$T_SKIP_ALL"
	"$1"
}

# Run one test in its own process group, with a watchdog; sets _t_rc
_t_run() {	# name log
	local pid wd
	set -m
	(set +m; _t_one "$1") >"$2" 2>&1 </dev/null &
	pid=$!
	set +m
	(
		sleep "$T_TIMEOUT" &
		sp=$!
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		wait "$sp"
		: >"$T_TMP/.timeout"
		kill -TERM -- "-$pid" 2>/dev/null
		sleep 5
		kill -KILL -- "-$pid" 2>/dev/null
	) &
	wd=$!
	{ wait "$pid"; } 2>/dev/null
	_t_rc=$?
	kill -TERM "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	# whatever the test left running in its group
	kill -TERM -- "-$pid" 2>/dev/null
}

# The test_* functions in definition order
_t_tests() {
	local names
	names=$(declare -F | awk '$3 ~ /^test_/ { print $3 }')
	[ -n "$names" ] || return 0
	shopt -s extdebug
	# shellcheck disable=SC2086
	declare -F $names | sort -n -k2,2 | awk '{ print $1 }'
	shopt -u extdebug
}

t_run_all() {
	local file name kind why pass=0 fail=0 skip=0 base log
	file=$(basename "$0")
	base=$(mktemp -d "${TMPDIR:-/tmp}/kfit-test.XXXXXX") || exit 1
	for name in $(_t_tests); do
		if [ -n "${T_ONLY:-}" ] && ! echo "$name" | grep -Eq -- "$T_ONLY"; then
			continue
		fi
		export T_TMP="$base/$name"
		export T_RESULT="$T_TMP/.result" T_OUT="$T_TMP/out" T_ERR="$T_TMP/err"
		mkdir -p "$T_TMP"
		log="$base/$name.log"
		_t_run "$name" "$log"
		kind="" why=""
		[ -s "$T_RESULT" ] && IFS=$'\t' read -r kind why <"$T_RESULT"
		[ -e "$T_TMP/.timeout" ] &&
			kind=FAIL why="still running after ${T_TIMEOUT}s, killed${why:+ ($why)}"
		if [ -z "$kind" ] && [ "$_t_rc" != 0 ]; then
			kind=FAIL why="exited with status $_t_rc"
		fi
		case ${kind:-PASS} in
		PASS) pass=$((pass + 1)); echo "PASS $name" ;;
		SKIP) skip=$((skip + 1)); echo "SKIP $name: $why" ;;
		*)
			fail=$((fail + 1))
			echo "FAIL $name: $why"
			[ -s "$log" ] && tail -n 40 "$log" | sed 's/^/    /'
			;;
		esac
	done
	echo "$file: $pass passed, $fail failed, $skip skipped"
	if [ "${T_KEEP_TMP:-}" = 1 ]; then
		echo "(temp files kept in $base)"
	else
		rm -rf "$base"
	fi
	[ "$fail" = 0 ]
}
