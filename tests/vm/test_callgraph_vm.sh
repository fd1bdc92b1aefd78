#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# callgraph on kernel functions, on Debian's stock kernels (in the VM),
# each through fentry and through kprobes (-k): the tree of a known path
# (cgshape io: reads of /dev/zero, writes to /dev/null), exact; a path that
# sleeps (off CPU, blocked); network softirqs interlaced into the task
# they struck; --root; 300+ functions attached; return values call for
# call as ftrace's kretprobe events read them. Emulation is slow:
# durations are only bounded from below.
# shellcheck disable=SC2016 # awk conditions in single quotes
: "${T_TIMEOUT:=900}"	# per test: attaching 300+ fentry programs takes minutes under TCG
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/callgraph-lib.sh"
. "$T_REPO/tests/vm/kret-lib.sh"

export LC_ALL=C
CG_WAIT=300	# seconds for the "Tracing" line
AFF=/sys/kernel/tracing/available_filter_functions

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
	[ -x "$CG" ] || t_fail "$CG not built (make STATIC=1)"
	[ -x "$CGS" ] || t_fail "$CGS not built (make STATIC=1)"
}

# Is NAME in available_filter_functions (fentry and kprobes can attach)?
traceable() { grep -q "^$1\( \|\$\)" "$AFF" || t_fail "$1 is not in $AFF on $(uname -r)"; }

# The mechanism a mode must give: "" (fentry) or -k (kprobe, kprobe_multi)
assert_mech() {	# FILE MODE
	if [ "$2" = -k ]; then
		t_assert_match "$(cg_d "$1" mechanism)" '^kprobe' "mechanism with -k"
	else
		t_assert_eq "$(cg_d "$1" mechanism)" fentry "mechanism"
	fi
	t_assert_eq "$(cg_d "$1" mode)" exact "mode"
}

# ---- callgraph in the background, cgshape held (tests/live/test_callgraph.sh)

bg_start() { t_bg_start "$CG" "$@"; }

bg_end() {
	t_bg_wait_exit 300
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "callgraph exited $BG_RC once its process had ended, expected 0"
	}
}

# cgshape -w SCENARIO N under `callgraph -j -p PID ARGS...`; the document
# checked and flattened (bg.out.kv); sets CGS_PID
traced_json() {	# SCENARIO N callgraph-args...
	local sc=$1 n=$2
	shift 2
	t_held_start "$CGS" -w "$sc" "$n"
	CGS_PID=$HELD_PID
	bg_start -j -p "$CGS_PID" "$@"
	t_bg_wait_tracing "$CG_WAIT"
	t_held_go
	bg_end
	cg_json "$T_TMP/bg.out" "callgraph -j $* ($sc $n)"
	echo "$sc $n: $(cg_d bg.out calls) calls, $(cg_d bg.out lost) lost, mechanism $(cg_d bg.out mechanism)"
}

# ---- the tree of a known path ---------------------------------------------------

IO_FNS="vfs_read vfs_write rw_verify_area read_zero write_null"

# cgshape io N: N x (read(/dev/zero), write(/dev/null)) in cg_io, then
# one write of its last line to a file: per system call, vfs_read or
# vfs_write, calling rw_verify_area, then the device's read_zero or
# write_null (/dev/zero and /dev/null have .read and .write: vfs_read
# calls them, not read_iter_zero and write_iter_null)
io_expect() {	# N [ROOT-CALL]: blocks for canon_sort
	local i d=0
	[ -n "${2:-}" ] && { echo "0 $2"; d=1; }
	for ((i = 0; i < $1; i++)); do
		echo "$d vfs_read"; echo "$((d + 1)) rw_verify_area"; echo "$((d + 1)) read_zero"
		echo "$d vfs_write"; echo "$((d + 1)) rw_verify_area"; echo "$((d + 1)) write_null"
	done
	printf '0 vfs_write\n1 rw_verify_area\n'
}

io_tree() {	# MODE ("" or -k)
	local n=20 fn
	for fn in $IO_FNS; do traceable "$fn"; done
	# shellcheck disable=SC2086
	traced_json io "$n" $1 $IO_FNS
	assert_mech bg.out "$1"
	t_assert_eq "$(cg_d bg.out lost)" 0 "lost"
	t_assert_eq "$(cg_d bg.out incomplete)" 0 "incomplete"
	canon_assert_eq "$(cg_canon bg.out .)" "$(io_expect "$n" | canon_sort)" "the vfs tree of io $n"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "read_zero" && $4 !~ /\[irq/')" "$n" "read_zero calls"
	t_assert_eq "$(cg_d bg.out calls)" "$(cg_ncalls bg.out)" "calls against the calls in the trees"
}

test_io_tree_fentry() { need_vm; io_tree ""; }
test_io_tree_kprobes() { need_vm; io_tree -k; }

# The same with cg_io itself (a uprobe): kernel calls under the user call
# that made the system calls
test_io_tree_user_and_kernel() {
	need_vm
	local n=10
	# shellcheck disable=SC2086
	traced_json io "$n" "$CGS:cg_io" $IO_FNS
	canon_assert_eq "$(cg_canon bg.out .)" "$(io_expect "$n" cg_io | canon_sort)" \
		"the tree of io $n under cg_io"
}

# --root vfs_read: only what happens inside vfs_read (the writes are left out)
root_tree() {	# MODE
	local n=15 i
	# shellcheck disable=SC2086
	traced_json io "$n" $1 --root vfs_read $IO_FNS
	assert_mech bg.out "$1"
	canon_assert_eq "$(cg_canon bg.out .)" \
		"$(for ((i = 0; i < n; i++)); do printf '0 vfs_read\n1 rw_verify_area\n1 read_zero\n'; done |
			canon_sort)" "io $n --root vfs_read"
}

test_root_fentry() { need_vm; root_tree ""; }
test_root_kprobes() { need_vm; root_tree -k; }

# ---- off CPU: nanosleep --------------------------------------------------------------

# cgshape sleep N: clock_nanosleep(20 ms) in cg_nap: do_nanosleep blocks
# at least 20 ms, inside hrtimer_nanosleep inside common_nsleep
sleep_tree() {	# MODE
	local n=3 i bad fn
	for fn in common_nsleep hrtimer_nanosleep do_nanosleep; do traceable "$fn"; done
	traced_json sleep "$n" $1 common_nsleep hrtimer_nanosleep do_nanosleep
	assert_mech bg.out "$1"
	canon_assert_eq "$(cg_canon bg.out .)" \
		"$(for ((i = 0; i < n; i++)); do
			printf '0 common_nsleep\n1 hrtimer_nanosleep\n2 do_nanosleep\n'
		done | canon_sort)" "sleep $n"
	# at least the 20 ms long; off CPU from the switch out, after the timer
	# was armed: most of it, never more than the call (test_callgraph.sh)
	bad=$(cg_calls bg.out '$4 !~ /\[irq/ && ($7 < 20000000 || $10 < 10000000 || $9 > $7 || $10 > $9)' |
		cut -f5,7,9,10)
	[ -z "$bad" ] || t_fail "calls around a 20 ms sleep: not at least 20 ms long, 10 ms blocked, off CPU within the call (duration, off-CPU, blocked): $bad"
	t_assert_eq "$(cg_ncalls bg.out '$5 == "do_nanosleep" && $16 > 0')" "$n" \
		"do_nanosleep calls with a context switch marked inside"
}

test_sleep_offcpu_fentry() { need_vm; sleep_tree ""; }
test_sleep_offcpu_kprobes() { need_vm; sleep_tree -k; }

# ---- an interrupt interlaced --------------------------------------------------------

# UDP datagrams to 127.0.0.1 from bash (echo >/dev/udp/...): the loopback
# device queues each one and raises NET_RX, which runs when the sender
# re-enables bottom halves, still inside ip_finish_output2 (the
# dev_queue_xmit under it): a softirq that struck the traced task inside a
# recorded call, shown there, its net_rx_action call inside it
NET_FNS="udp_sendmsg ip_finish_output2 net_rx_action __netif_receive_skb"
UDP_SENDS=50

udp_run() {	# callgraph-args...
	local f=$T_TMP/udp.json fn
	for fn in $NET_FNS; do traceable "$fn"; done
	# shellcheck disable=SC2086
	timeout 600 "$CG" -j --output "$f" "$@" $NET_FNS -- bash -c \
		'for ((i = 0; i < '$UDP_SENDS'; i++)); do echo x >/dev/udp/127.0.0.1/9; done' \
		>/dev/null 2>"$T_TMP/udp.err" || { t_show_file "$T_TMP/udp.err" stderr; t_fail "callgraph $* exited $?"; }
	cg_json "$f" "callgraph -j $* (UDP to 127.0.0.1)" "$T_TMP/udp.err"
	echo "$*: $(cg_d "$f" calls) calls, $(cg_d "$f" lost) lost;" \
		"$(task_irqs "$f") interrupt nodes in task trees, $(cg_ncalls "$f" '$5 == "net_rx_action"') net_rx_action calls"
	t_assert_eq "$(cg_ncalls "$f" '$5 == "udp_sendmsg" && $4 == "udp_sendmsg"')" "$UDP_SENDS" \
		"udp_sendmsg calls of the task (outermost)"
}

# Interrupt nodes in the trees of tasks (not in the per-CPU interrupt threads)
task_irqs() { awk -F'\t' '$1 == "I" && $2 !~ /:/' "$1.kv" | grep -c .; }

interlace() {	# MODE
	local f=$T_TMP/udp.json
	udp_run $1
	assert_mech "$f" "$1"
	awk -F'\t' '$1 == "I" && $2 !~ /:/ && $4 ~ /ip_finish_output2$/ && $5 ~ /NET_RX/' "$f.kv" | grep -q . ||
		{ grep '^I' "$f.kv" | head; t_fail "no NET_RX softirq inside an ip_finish_output2 call"; }
	[ "$(cg_ncalls "$f" '$5 == "net_rx_action" && $4 ~ /ip_finish_output2\/\[irq [^]]*NET_RX[^]]*\]\/net_rx_action$/')" -ge 1 ] ||
		t_fail "no net_rx_action call inside a NET_RX softirq inside ip_finish_output2"
	t_assert_eq "$(cg_ncalls "$f" '$5 == "net_rx_action" && $4 !~ /\[irq /')" 0 \
		"net_rx_action calls outside an interrupt node"
	# --no-interlace: the same softirqs, in per-CPU threads of their own
	udp_run $1 --no-interlace
	t_assert_eq "$(task_irqs "$f")" 0 "interrupt nodes in task trees with --no-interlace"
	awk -F'\t' '$1 == "T" && $5 == "softirq"' "$f.kv" | grep -q . ||
		t_fail "no softirq thread with --no-interlace"
	[ "$(cg_ncalls "$f" '$5 == "net_rx_action" && $2 ~ /^softirq:/')" -ge 1 ] ||
		t_fail "no net_rx_action call in the softirq threads"
}

test_interlace_fentry() { need_vm; interlace ""; }
test_interlace_kprobes() { need_vm; interlace -k; }

# ---- --module: every function of a module ------------------------------------------

XMITS=5 CARRIERS=3 READS=4

# callgraph ARGS --module dummy -- bash (the triggers of
# tests/vm/test_vm_module.sh, all in bash's own process, counted exactly
# there by ftrace and by funcdur): the calls of the module's functions,
# and nothing else
module_tree() {	# MODE
	local f=$T_TMP/mod.json n snap fns
	t_vm_dummy_up
	snap=$(t_bpf_snapshot)
	# shellcheck disable=SC2086
	timeout 600 "$CG" -j --output "$f" $1 --module dummy -- bash -c '
		for i in $(seq '$XMITS'); do echo x >/dev/udp/10.99.0.2/9; done
		for i in $(seq '$CARRIERS'); do echo 1 >/sys/class/net/kd0/carrier; done
		for i in $(seq '$READS'); do read -r x </sys/class/net/kd0/statistics/tx_packets; done' \
		>/dev/null 2>"$T_TMP/mod.err" || { t_show_file "$T_TMP/mod.err" stderr; t_fail "callgraph $1 --module dummy exited $?"; }
	cg_json "$f" "callgraph -j $1 --module dummy" "$T_TMP/mod.err"
	assert_mech "$f" "$1"
	n=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$T_TMP/mod.err")
	fns=$(grep -c ' \[dummy\]$' "$AFF")
	echo "--module dummy $1: Tracing $n functions ($fns in $AFF); $(cg_d "$f" calls) calls;" \
		"skipped: $(jq -c '[.skipped[] | .name]' "$f")"
	_t_is_num "$n" || t_fail "no 'Tracing N functions' line: $(grep ^Tracing "$T_TMP/mod.err")"
	# every traceable function of the module
	t_assert_eq "$n" "$fns" "functions traced against the [dummy] ones of $AFF"
	[ "$n" -ge 6 ] || t_fail "only $n functions of dummy traced"
	t_assert_eq "$(cg_ncalls "$f" '$5 == "dummy_xmit"')" "$XMITS" "dummy_xmit calls for $XMITS datagrams"
	t_assert_eq "$(cg_ncalls "$f" '$5 == "dummy_change_carrier"')" "$CARRIERS" \
		"dummy_change_carrier calls for $CARRIERS carrier writes"
	t_assert_eq "$(cg_ncalls "$f" '$5 == "dummy_get_stats64"')" "$READS" \
		"dummy_get_stats64 calls for $READS statistics reads"
	t_assert_eq "$(cg_ncalls "$f" '$5 !~ /^dummy_/')" 0 "calls of functions not of dummy"
	t_bpf_assert_same "$snap" "after callgraph $1 --module dummy"
}

test_module_fentry() { need_vm; module_tree ""; }
test_module_kprobes() { need_vm; module_tree -k; }

# ---- 300+ functions ----------------------------------------------------------------

# 'tcp_*' (about 370 on 6.1, 390 on 6.12), with a TCP connection over
# loopback from bash to busybox nc: N of the Tracing line >= 300, and
# tcp_sendmsg calls tcp_sendmsg_locked
many() {	# MODE
	local f=$T_TMP/tcp.json n port=7777 snap
	traceable tcp_sendmsg
	traceable tcp_sendmsg_locked
	snap=$(t_bpf_snapshot)
	nc -l -p "$port" >/dev/null 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	# shellcheck disable=SC2086
	timeout 900 "$CG" -j --output "$f" $1 'tcp_*' -- bash -c \
		'exec 3<>/dev/tcp/127.0.0.1/'$port'; echo hello >&3; exec 3>&-' \
		>/dev/null 2>"$T_TMP/tcp.err" || { t_show_file "$T_TMP/tcp.err" stderr; t_fail "callgraph $1 'tcp_*' exited $?"; }
	cg_json "$f" "callgraph -j $1 'tcp_*'" "$T_TMP/tcp.err"
	assert_mech "$f" "$1"
	n=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$T_TMP/tcp.err")
	echo "tcp_* $1: Tracing $n functions; $(jq '.skipped | length' "$f") skipped"
	_t_is_num "$n" || t_fail "no 'Tracing N functions' line: $(grep ^Tracing "$T_TMP/tcp.err")"
	[ "$n" -ge 300 ] || t_fail "tcp_* resolved to $n functions, fewer than 300"
	echo "$(cg_d "$f" calls) calls, $(cg_d "$f" lost) lost, $(task_irqs "$f") interrupt nodes in task trees"
	[ "$(cg_ncalls "$f" '$5 == "tcp_sendmsg_locked" && $4 ~ /(^|\/)tcp_sendmsg\/tcp_sendmsg_locked$/')" -ge 1 ] ||
		t_fail "no tcp_sendmsg_locked call inside tcp_sendmsg"
	t_bpf_assert_same "$snap" "after callgraph $1 'tcp_*'"
}

# fentry asked for: --attach auto takes kprobe_multi past 32 functions where it can
test_300_functions_fentry() { need_vm; many "--attach fentry"; }
test_300_functions_kprobes() { need_vm; many -k; }

# ---- return values (tests/vm/kret-lib.sh: ftrace's kretprobe events) ------

# callgraph -p -j ARGS FUNC and ftrace's kretprobe on one run of busybox
# cat and ls of files there and not: the same values, call for call in
# each process (an int's -2 from a register whose upper half is 0; a
# pointer, or ERR_PTR(-ENOENT)), and -ENOENT in the text of the failures
rets() {	# FUNC TYPE ARGS...
	local f=$1 ty=$2 want got
	shift 2
	kret_run "$f" "$ty" "$CG_WAIT" "$CG" -j --output "$T_TMP/rets.json" "$@"
	cg_json "$T_TMP/rets.json" "callgraph -j $* $f"
	want=$(kret_ftrace | cg_rank_pids)
	got=$(cg_rets "$T_TMP/rets.json" "$f" ret)
	echo "$f: $(wc -l <<<"$want") returns, $(grep -c ' -2$' <<<"$want") of -2 (ftrace)"
	t_assert_match "$want" ' -2$' "ftrace saw $f fail with -ENOENT"
	t_assert_eq "$got" "$want" "callgraph's $f returns, call for call (ftrace's)"
	t_assert_eq "$(cg_rets "$T_TMP/rets.json" "$f" | grep -c ' -ENOENT$')" \
		"$(grep -c ' -2$' <<<"$want")" "the failures as -ENOENT"
}

test_rets_int_fentry() { need_vm; rets "$(kret_first vfs_fstatat vfs_statx)" s32 --attach fentry; }
test_rets_int_kprobes() { need_vm; rets "$(kret_first vfs_fstatat vfs_statx)" s32 -k; }
test_rets_errptr_fentry() { need_vm; rets do_filp_open s64 --attach fentry; }
test_rets_errptr_kprobes() { need_vm; rets do_filp_open s64 -k; }

# ---- arguments (kret-lib.sh's kret_probe: ftrace's kprobe event) ----------

# callgraph -p -j 'do_sys_openat2(...)' and ftrace's kprobe event with
# fetch arguments on one run of busybox cat and ls: a parameter, a user
# string and two fields through a pointer, the same values call for call;
# do_filp_open(dfd) nested inside each, its dfd its caller's (the places
# of a thread's arguments taken in call order), and -o read by kd the same
cg_args() {	# ARGS...
	local want got q
	kret_probe "p:$KRET_EV do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring flags=+0(%dx):u64 mode=+8(%dx):u64" \
		'do_sys_openat2(dfd, filename, how->flags, how->mode)' "$CG_WAIT" "$CG" -j \
		--output "$T_TMP/args.json" "$@" 'do_filp_open(dfd)'
	cg_json "$T_TMP/args.json" "callgraph -j $*"
	want=$(sed -n "s/.* $KRET_EV: ([^)]*) //p" "$T_TMP/ftrace.out" | tr -d '"')
	got=$(jq -r '[.. | objects | select(.name == "do_sys_openat2")] | sort_by(.start_ns)[] |
		.args | to_entries | map("\(.key | sub("^.*->"; ""))=\(.value)") | join(" ")' \
		"$T_TMP/args.json")
	t_assert_match "$want" 'filename=/nonexistent-3' "ftrace saw the missing files opened: $want"
	t_assert_eq "$got" "$want" "each call's arguments, in order, as ftrace's kprobe event read them"
	q='[.. | objects | select(.name == "do_sys_openat2") | .args.dfd as $d |
		.children[]? | select(.name == "do_filp_open") | .args.dfd == $d]'
	t_assert_eq "$(jq -c "$q | [length > 0, all]" "$T_TMP/args.json")" "[true,true]" \
		"do_filp_open's dfd, nested, its caller's"
}

test_args_fentry() { need_vm; cg_args --attach fentry; }
test_args_kprobes() { need_vm; cg_args -k; }

# ---- --errors: where EROFS came from ---------------------------------------

# touch on a read-only mount, under callgraph --errors (the open's path,
# down to mnt_want_write) and ftrace's kretprobe on mnt_want_write: the
# calls marked as failing are those ftrace saw return -EROFS, each tree
# with one, and nothing else
erofs_tree() {	# ARGS...
	local ro=$T_TMP/ro n got
	mkdir -p "$ro"
	mount -t tmpfs -o ro,size=64k none "$ro" || t_fail "cannot mount a read-only tmpfs"
	t_on_exit "umount $ro"
	local KRET_WORK="touch $ro/x; touch $ro/y; true"
	kret_run mnt_want_write s32 "$CG_WAIT" "$CG" -j --errors --output "$T_TMP/e.json" \
		"$@" do_sys_openat2 do_filp_open
	cg_json "$T_TMP/e.json" "callgraph --errors $*"
	n=$(kret_ftrace | awk '$2 == -30' | wc -l)
	[ "$n" -ge 2 ] || t_fail "ftrace saw $n EROFS returns of mnt_want_write: $(kret_ftrace)"
	got=$(jq -r '[.. | objects | select(.failed == true) | "\(.name) \(.ret_str)"] |
		group_by(.) | map("\(.[0]) \(length)") | .[]' "$T_TMP/e.json")
	t_assert_eq "$got" "do_filp_open -EROFS $n
do_sys_openat2 -EROFS $n
mnt_want_write -EROFS $n" "the failing path, once per touch (ftrace: $n EROFS)"
	t_assert_eq "$(jq '.trees_failed' "$T_TMP/e.json")" "$n" "a tree per failure"
}

test_errors_erofs_fentry() { need_vm; erofs_tree --attach fentry; }
test_errors_erofs_kprobes() { need_vm; erofs_tree -k; }

t_run_all
