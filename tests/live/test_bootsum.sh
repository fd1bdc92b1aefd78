#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of bootsum's user phase on the running kernel (root):
# `bootsum --early -- sh -c SCRIPT` as an ordinary process, SCRIPT writing
# the truth (pids, parents, commands, sleeps) to a file, then `bootsum -j`
# checked against it; --stop, the state found by map id under a bpffs
# mounted over /sys/fs/bpf, refusals, usage errors, SIGINT while loading.
# Every test stops the recording when it ends, however it ends.
. "$(dirname "$0")/../lib.sh"

BS="$KFIT_BIN/bootsum"
PIN=/sys/fs/bpf/kfit/bootsum
FIX=$(cd "$(dirname "$0")/../fixtures/boot" && pwd)
MS=1000000

need_tool() {
	t_need_root
	[ -x "$BS" ] || t_fail "$BS not built"
	command -v bpftool >/dev/null || t_skip "no bpftool"
	command -v jq >/dev/null || t_skip "no jq"
	# a recording of someone else's would be stopped by ours
	[ -e "$PIN" ] && t_skip "bootsum is recording already ($PIN): not ours to stop"
	t_on_exit "umount_over; '$BS' --stop >/dev/null 2>&1"
}

# The bpffs this test mounted over /sys/fs/bpf, if any
umount_over() {
	[ -e "$T_TMP/over" ] && umount /sys/fs/bpf && rm -f "$T_TMP/over"
	return 0
}

# How bootsum finds a recording now, "" if none
user_found() { "$BS" -j 2>/dev/null | jq -r '.user.found // empty'; }

# bs_meta's map id of the recording pinned now
meta_id() { bpftool -j map show pinned "$PIN/bs_meta" | jq -r .id; }

# The ids of the programs using map ID
progs_of() { bpftool -j prog show | jq -r --argjson m "$1" '.[] | select((.map_ids // []) | index($m)) | .id'; }

# Fails unless map ID and every program in PROGS are gone (freed a little later)
assert_freed() {	# ID PROGS what
	local i left
	for i in $(seq 100); do
		left=
		bpftool map show id "$1" >/dev/null 2>&1 && left="map $1"
		for p in $2; do
			bpftool prog show id "$p" >/dev/null 2>&1 && left="$left p$p"
		done
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	t_fail "${3:-after --stop}: still there: $left"
}

# The recorded run: the script's own sh forks a sleep, a sh that forks a
# sleep and exits 3, and a dd reading with O_DIRECT, then waits for all.
# Each writes "name pid ppid" to $TRUTH.
SCRIPT='
echo "top $$ $PPID" >>"$TRUTH"
if [ -n "$DIRECT" ]; then
	dd if="$DATA" of=/dev/null bs=64k iflag=direct 2>/dev/null & echo "dd $! $$" >>"$TRUTH"
	wait
fi
sleep 0.3 & echo "sleep3 $! $$" >>"$TRUTH"
sh -c '"'"'echo "inner $$ $PPID" >>"$TRUTH"; sleep 0.2 & echo "sleep2 $! $$" >>"$TRUTH"; wait; exit 3'"'"' &
wait
'

record() {
	export TRUTH="$T_TMP/truth" DATA="$T_TMP/data" DIRECT=
	: >"$TRUTH"
	dd if=/dev/urandom of="$DATA" bs=64k count=16 2>/dev/null || t_fail "cannot write $DATA"
	sync "$DATA"
	dd if="$DATA" of=/dev/null bs=64k iflag=direct 2>/dev/null && DIRECT=1
	t_expect_exit 0 "$BS" --early -- sh -c "$SCRIPT"
	grep -q "recording the boot" "$T_ERR" || t_fail "no 'recording' line: $(cat "$T_ERR")"
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$T_TMP/report.json"
	jq -e . "$T_TMP/report.json" >/dev/null || t_fail "bootsum -j: not JSON"
}

# jq on the report
rq() { jq -r "$@" "$T_TMP/report.json"; }

truth() { awk -v n="$1" '$1 == n { print $2 }' "$T_TMP/truth"; }

# The recorded process of pid P, as JSON (the last one with that pid)
proc() { rq --argjson p "$1" '[.user.processes[] | select(.pid == $p)] | last'; }

test_tree() {
	need_tool
	record
	t_assert_eq "$(rq .user.found)" "pinned at $PIN" "found"
	local name pid ppid p
	while read -r name pid ppid; do
		p=$(proc "$pid")
		[ "$p" = null ] && t_fail "$name (pid $pid) not recorded"
		t_assert_eq "$(jq -r .ppid <<<"$p")" "$ppid" "$name's parent"
		t_assert_eq "$(jq -r '.exit_ns != 0' <<<"$p")" true "$name ended"
	done <"$T_TMP/truth"
	# what each exec'd, and how the inner sh ended
	t_assert_eq "$(proc "$(truth sleep3)" | jq -c .argv)" '["sleep","0.3"]' "sleep3's argv"
	t_assert_eq "$(proc "$(truth sleep2)" | jq -c .argv)" '["sleep","0.2"]' "sleep2's argv"
	t_assert_eq "$(proc "$(truth inner)" | jq -r '.argv[0:2] | join(" ")')" "sh -c" "inner's argv"
	t_assert_eq "$(proc "$(truth inner)" | jq -r '.exit_code')" "768" "inner's exit status (3 << 8)"
	t_assert_eq "$(proc "$(truth top)" | jq -r '.comm')" "sh" "top's comm (bootsum exec'd it)"
	t_assert_eq "$(proc "$(truth top)" | jq -r '.preexisting')" true "top is the first process"
	# parents by index too
	t_assert_eq "$(proc "$(truth sleep2)" | jq -r .parent_idx)" \
		"$(proc "$(truth inner)" | jq -r .idx)" "sleep2's parent_idx"
	t_assert_eq "$(rq '.user.dropped | [.[]] | add')" 0 "drops"
}

test_sleeps_blocked() {
	need_tool
	record
	local s3 s2
	s3=$(proc "$(truth sleep3)")
	s2=$(proc "$(truth sleep2)")
	# a sleep lives at least its time from exec to exit, exactly
	t_assert_eq "$(jq -r '.exit_ns - .exec_ns >= 300000000' <<<"$s3")" true "sleep 0.3's life"
	t_assert_eq "$(jq -r '.exit_ns - .exec_ns >= 200000000' <<<"$s2")" true "sleep 0.2's life"
	# Blocked: from the switch out to the wake. The timer was armed a few
	# microseconds before the switch, so allow 1 ms below the sleep.
	t_assert_eq "$(jq -r ".blocked_ns >= 300000000 - $MS" <<<"$s3")" true \
		"sleep 0.3 blocked $(jq -r .blocked_ns <<<"$s3") ns"
	t_assert_eq "$(jq -r ".blocked_ns >= 200000000 - $MS" <<<"$s2")" true \
		"sleep 0.2 blocked $(jq -r .blocked_ns <<<"$s2") ns"
	t_assert_eq "$(jq -r '.waits >= 1' <<<"$s3")" true "sleep 0.3's waits"
}

test_parent_waits() {
	need_tool
	record
	local top inner
	top=$(proc "$(truth top)")
	inner=$(proc "$(truth inner)")
	# The top sh waited in `wait` for its children. From its last fork (the
	# inner sh) to the exit of sleep 0.3 it was alive, so on a CPU, runnable
	# or blocked: what the first two do not explain was blocked. (Not
	# "0.3 s less a slack": a slow machine forks for longer than any slack.)
	# Under the full check's load 3 ms of 305 once went unexplained: a
	# task's state starts at the first switch or wakeup the programs see of
	# it, so 3% of the window may be missing, not more.
	local window
	window=$(( $(proc "$(truth sleep3)" | jq -r .exit_ns) - $(jq -r .fork_ns <<<"$inner") ))
	t_assert_eq "$(jq -r '.waits >= 1' <<<"$top")" true "top's waits"
	t_assert_eq "$(jq -r ".blocked_ns >= 0.97 * $window - .oncpu_ns - .runnable_ns" <<<"$top")" \
		true "top's blocked time $(jq -c '[.blocked_ns, .oncpu_ns, .runnable_ns]' <<<"$top") over a window of $window ns"
	t_assert_eq "$(jq -r '.waits >= 1' <<<"$inner")" true "inner's waits"
	# the chain ending at the inner sh: its child the sleep woke it by exiting
	t_expect_exit 0 "$BS" -j --chain "$(truth inner)"
	t_assert_eq "$(jq -r '.user.chain[1].pid' "$T_OUT")" "$(truth sleep2)" "who woke inner"
	t_assert_eq "$(jq -r '.user.chain[1].why' "$T_OUT")" woke "how sleep2 is on the chain"
}

# The VM has no disk behind its files (its root is an initramfs):
# test_bootsum_vm.sh reads a virtio disk there, on 6.1 and 6.12
t_in_vm || test_block_io() {
	need_tool
	record
	[ -n "$DIRECT" ] || t_skip "O_DIRECT reads fail on $T_TMP's filesystem"
	local d
	d=$(proc "$(truth dd)")
	[ "$d" = null ] && t_fail "dd not recorded"
	t_assert_eq "$(jq -r '.rd_bytes >= 1048576' <<<"$d")" true \
		"dd's bytes read ($(jq -r .rd_bytes <<<"$d"), its file is 1 MiB)"
	t_assert_eq "$(jq -r '.rd_ios >= 1 and .io_ns > 0' <<<"$d")" true "dd's requests"
}

test_stop_frees() {
	need_tool
	t_expect_exit 0 "$BS" --early -- true
	local id progs
	id=$(meta_id)
	progs=$(progs_of "$id")
	[ -n "$progs" ] || t_fail "no program uses bs_meta (map $id)"
	t_expect_exit 0 "$BS" --stop
	t_assert_match "$(cat "$T_ERR")" "pins removed" "--stop's words"
	[ -e "$PIN" ] && t_fail "$PIN still there"
	assert_freed "$id" "$progs"
	t_expect_exit 0 "$BS" --stop
	t_assert_match "$(cat "$T_ERR")" "nothing to stop" "a second --stop"
}

# The ids of bootsum's programs (bs_*) loaded now
bs_progs() { bpftool -j prog show | jq -r '.[] | select(.name // "" | startswith("bs_")) | .id'; }

# Fails unless no bs_ program is left (the kernel frees them a little later)
assert_no_bs_progs() {	# what
	local i
	for i in $(seq 100); do
		[ -z "$(bs_progs)" ] && return 0
		sleep 0.05
	done
	t_fail "$1: bs_ programs still loaded: $(bs_progs | tr '\n' ' ')"
}

# SIGKILL at each of --early's pins (strace injects it at the Nth bpf()
# call) and at its rename into place: a single --stop then leaves no bs_
# program loaded and nothing under /sys/fs/bpf/kfit of bootsum's
test_kill_while_pinning() {
	need_tool
	command -v strace >/dev/null || t_skip "no strace"
	[ -z "$(bs_progs)" ] || t_skip "bs_ programs loaded already: not ours to count"
	strace -o "$T_TMP/calls" -e trace=bpf "$BS" --early -- true 2>/dev/null ||
		t_fail "bootsum --early under strace failed"
	t_expect_exit 0 "$BS" --stop
	assert_no_bs_progs "after a whole run"
	# the bpf() calls that pin, by their rank among bpf() calls
	local pins n first last at out
	pins=$(grep '^bpf(' "$T_TMP/calls" | grep -n 'BPF_OBJ_PIN' | cut -d: -f1)
	n=$(wc -w <<<"$pins")
	[ "$n" -ge 4 ] || t_fail "only $n pins seen: $(grep -c '^bpf(' "$T_TMP/calls") bpf() calls"
	first=$(head -n1 <<<"$pins")
	last=$(tail -n1 <<<"$pins")
	# the first pin, the third (two links pinned), the last link's, a map's, the last
	for at in "bpf:when=$first" "bpf:when=$((first + 2))" "bpf:when=$((first + 9))" \
		  "bpf:when=$((last - 3))" "bpf:when=$last" "rename:when=1"; do
		out=$(strace -o /dev/null -e trace="${at%%:*}" -e inject="${at%%:*}:signal=KILL:${at#*:}" \
			"$BS" --early -- true 2>&1)
		grep -q "recording the boot" <<<"$out" && t_fail "not killed at $at: $out"
		t_expect_exit 0 "$BS" --stop
		t_assert_match "$(cat "$T_ERR")" "removed" "--stop after a kill at $at"
		cp "$T_ERR" "$T_TMP/said"
		assert_no_bs_progs "killed at $at, then --stop"
		ls /sys/fs/bpf/kfit 2>/dev/null | grep -q bootsum &&
			t_fail "killed at $at: left $(ls /sys/fs/bpf/kfit)"
		t_expect_exit 0 "$BS" --stop
		t_assert_match "$(cat "$T_ERR")" "nothing to stop" "a second --stop (killed at $at)"
	done
	echo "--stop after a kill said: $(tr '\n' ' ' <"$T_TMP/said")"
}

test_hidden_pins() {
	need_tool
	t_expect_exit 0 "$BS" --early -- true
	local id progs
	id=$(meta_id)
	progs=$(progs_of "$id")
	mount -t bpf bpf /sys/fs/bpf || t_fail "cannot mount a bpffs over /sys/fs/bpf"
	touch "$T_TMP/over"
	[ -e "$PIN" ] && t_fail "$PIN visible through the new bpffs"
	t_expect_exit 0 "$BS" -j
	t_assert_eq "$(jq -r .user.found "$T_OUT")" "by map id $id" "found"
	t_expect_exit 0 "$BS" --stop
	t_assert_match "$(cat "$T_ERR")" "programs now return at once" "--stop by id"
	t_assert_match "$(cat "$T_ERR")" "links detached" "--stop on the links"
	t_assert_match "$(cat "$T_ERR")" "stay until reboot" "--stop on the maps"
	echo "--stop by id said: $(tr '\n' ' ' <"$T_ERR")"
	umount_over
	[ -e "$PIN" ] || t_fail "$PIN gone with the bpffs over it"
	t_expect_exit 0 "$BS" --stop
	t_assert_match "$(cat "$T_ERR")" "pins removed" "--stop once visible again"
	assert_freed "$id" "$progs"
}

test_refuses_twice() {
	need_tool
	t_expect_exit 0 "$BS" --early -- true
	t_expect_exit 1 "$BS" --early -- true
	t_assert_match "$(cat "$T_ERR")" "already recording since .*bootsum --stop first" "refusal"
	t_expect_exit 0 "$BS" --stop
}

# The usage errors: tests/cases/usage/bootsum.case
test_help() {
	[ -x "$BS" ] || t_fail "$BS not built"
	t_expect_exit 0 "$BS" -h
	t_assert_match "$(cat "$T_OUT")" "rdinit=" "-h: the kernel words"
}

# A log is a few MiB: /dev/zero, or 70 MiB on stdin, is refused at 64 MiB
# (under a 1 GiB address-space limit: reading until memory runs out fails
# apart from the cap)
test_from_too_long() {
	[ -x "$BS" ] || t_fail "$BS not built"
	t_expect_exit 1 bash -c "ulimit -v 1048576; exec '$BS' --from /dev/zero"
	t_assert_match "$(cat "$T_ERR")" "/dev/zero: longer than 64 MiB: not a kernel log" "--from /dev/zero"
	t_expect_exit 1 bash -c "ulimit -v 1048576; head -c 73400320 /dev/zero | '$BS' --from -"
	t_assert_match "$(cat "$T_ERR")" "^bootsum: -: longer than 64 MiB" "--from - (70 MiB)"
	t_expect_exit 0 bash -c "ulimit -v 1048576; exec '$BS' --from '$FIX/6.12-dmesg-initcall_debug.txt' --kallsyms /dev/zero"
	t_assert_match "$(cat "$T_ERR")" "/dev/zero: longer than 64 MiB: not a kallsyms" "--kallsyms /dev/zero"
}

test_exec_fails() {
	need_tool
	t_expect_exit 1 "$BS" --early -- /nonexistent/init
	t_assert_match "$(cat "$T_ERR")" "cannot run /nonexistent/init" "message"
	[ -e "$PIN" ] && t_fail "$PIN left after a failed exec"
	return 0
}

# SIGINT at a few delays after the start: wherever it lands, nothing may
# remain but a recording whose command ran (then stopped here); one of the
# delays must land in the load ("interrupted").
test_sigint_while_loading() {
	need_tool
	local d pid rc hit=
	for d in 0.01 0.02 0.03 0.04 0.05 0.06 0.08 0.1 0.12 0.15; do
		"$BS" --early -- sleep 5 >"$T_TMP/o" 2>"$T_TMP/e" &
		pid=$!
		sleep "$d"
		kill -INT "$pid"
		wait "$pid"
		rc=$?
		if grep -q "interrupted" "$T_TMP/e"; then
			t_assert_eq "$rc" 130 "status after SIGINT in the load"
			hit=1
		elif grep -q "recording the boot" "$T_TMP/e"; then
			"$BS" --stop >/dev/null 2>&1 || t_fail "--stop after an exec'd run failed"
		fi
		[ -e "$PIN" ] && t_fail "$PIN left after SIGINT at ${d}s: $(cat "$T_TMP/e")"
		[ -z "$(user_found)" ] ||
			t_fail "a recording found after SIGINT at ${d}s: $(cat "$T_TMP/e")"
	done
	[ -n "$hit" ] || t_skip "no SIGINT landed in the load"
}

# Bounded maps: a run that forks more processes than --max-procs and waits
# more than --max-waits keeps the first ones and counts the rest, in the
# JSON and on the text report's Lost line
test_full_maps_counted() {
	need_tool
	local n
	t_expect_exit 0 "$BS" --early --max-procs 8 --max-waits 4 -- \
		sh -c 'for i in $(seq 30); do sleep 0.002; done'
	t_expect_exit 0 "$BS" -j
	cp "$T_OUT" "$T_TMP/report.json"
	n=$(rq '.user.processes | length')
	t_assert_eq "$n" 8 "processes kept (--max-procs 8)"
	# the 30 sleeps, less the 7 that fitted after sh: at least 23 dropped
	t_assert_eq "$(rq '.user.dropped.procs >= 23')" true \
		"processes dropped: $(rq .user.dropped.procs)"
	t_assert_eq "$(rq '[.user.processes[] | select(.pid > 0)] | length')" 8 "kept ones whole"
	t_assert_eq "$(rq '.user.dropped.waits >= 1')" true "waits dropped: $(rq .user.dropped.waits)"
	t_expect_exit 0 "$BS"
	grep -q "^Lost: .*processes" "$T_OUT" || t_fail "no Lost line with processes: $(grep Lost "$T_OUT")"
	t_expect_exit 0 "$BS" --stop
}

# --svg's file is made before the logs are read: a bad path fails with
# nothing printed (before: the report printed, then the error); a symlink
# is not followed; the file is mode 0600
test_svg_checked_first() {
	local fix=$T_REPO/tests/fixtures/boot/6.1-dmesg-initcall_debug.txt
	[ -x "$BS" ] || t_fail "$BS not built"
	t_expect_exit 1 "$BS" --from "$fix" --svg /nonexistent/b.svg
	t_assert_eq "$(cat "$T_ERR")" "bootsum: cannot write /nonexistent/b.svg: No such file or directory" "the message"
	[ -s "$T_OUT" ] && t_fail "the report printed before the error"
	printf 'keep\n' >target
	ln -s target l.svg
	t_expect_exit 1 "$BS" --from "$fix" --svg l.svg
	t_assert_eq "$(cat target)" keep "the link's target"
	t_expect_exit 0 "$BS" --from "$fix" --svg b.svg
	grep -q '<svg' b.svg || t_fail "no SVG written"
	t_assert_eq "$(stat -c %a b.svg)" 600 "the mode"
}

t_run_all
