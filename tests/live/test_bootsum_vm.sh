#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bootsum on a real boot: Debian's 6.1 and 6.12 in the VM, started with
# initcall_debug and the initcall trace events, `bootsum --early` as the
# initramfs's first process (rdinit=), the scripted boot
# tests/vm/bootsum_boot.sh (processes of known parents and durations, module
# loads, direct reads from a virtio disk), its reports brought out with
# kfit-vm run --out and checked here against the ground truth the script
# wrote and against dmesg read independently (awk). One VM per kernel, one
# at a time (~30 s each); needs qemu, the kernels (fetched when missing),
# the static build (make STATIC=1), xmllint and Chromium. Not in the VM.
: "${T_TIMEOUT:=900}"
. "$(dirname "$0")/../lib.sh"

VM="$T_REPO/tools/vm/kfit-vm"
STATIC="$T_REPO/build/static"
BOOT_WORDS="initcall_debug log_buf_len=8M trace_event=initcall:*,module:module_load trace_buf_size=8M"
# not "-- --early -- /init": the kernel ends init's arguments at a second "--"
EARLY="rdinit=/kfit/build/bin/bootsum -- --early /init"

need_vm() {	# SERIES
	t_need_qemu
	# make check runs live before the VM suites: the kernel may not be there yet
	if ! t_vm_kernel_cached "$1" &&
	   ! "$VM" --kernel "$1" fetch >fetch.log 2>&1; then
		tail -n 5 fetch.log
		t_skip "no $1 VM kernel, and tools/vm/kfit-vm --kernel $1 fetch failed"
	fi
	if [ ! -x "$STATIC/bin/bootsum" ] || [ ! -x "$STATIC/tests/boottime" ]; then
		t_skip "no static build for the VM (make STATIC=1)"
	fi
	command -v xmllint >/dev/null || t_skip "no xmllint (apt-get install libxml2-utils)"
	command -v chromium >/dev/null || t_skip "no chromium (make deps installs it)"
	[ -x "$KFIT_HELPERS/pngstat" ] || t_fail "$KFIT_HELPERS/pngstat not built (make)"
}

# boot SERIES [EARLY-OPTIONS]: the scripted boot under bootsum --early
# [EARLY-OPTIONS], its files in $T_TMP/o
boot() {
	local early=$EARLY
	[ -n "${2:-}" ] && early="rdinit=/kfit/build/bin/bootsum -- --early $2 /init"
	need_vm "$1"
	t_wait_no_vm
	# the disk: 4 MiB the guest reads 2 MiB of
	head -c $((4 << 20)) /dev/urandom >disk.img
	KFIT_VM_DISK=$T_TMP/disk.img KFIT_VM_APPEND="$BOOT_WORDS $early" \
		"$VM" --kernel "$1" run --timeout 600 --out "$T_TMP/o" -- \
		'bash /kfit/tests/vm/bootsum_boot.sh all' >vm.log 2>&1 || {
		tail -n 40 vm.log
		t_fail "the VM run failed"
	}
	O=$T_TMP/o
	[ -s "$O/truth.txt" ] || { tail -n 40 vm.log; t_fail "no truth.txt came out of the VM"; }
	grep -q '^end ' "$O/truth.txt" || { t_show_file "$O/truth.txt"; t_fail "the scripted boot did not end"; }
}

# rc NAME: the exit status of bootsum's run NAME in the VM
rc() { awk -v n="$1" '$1 == n { print $2 }' "$O/rc.txt"; }

expect_rc() {	# NAME CODE
	local got
	got=$(rc "$1")
	[ "$got" = "$2" ] && return 0
	t_show_file "$O/$1.err" "$1's stderr"
	t_fail "bootsum for $1 exited '$got' in the VM, expected $2"
}

# The report's JSON; field names in one place
J() { jq -r "$@" "$O/rep.json"; }

check_reports_ran() {
	expect_rc rep.json 0
	expect_rc chain.json 0
	expect_rc svg.txt 0
	expect_rc rep.txt 0
	jq -e . "$O/rep.json" >/dev/null || t_fail "rep.json is not JSON"
	jq -e . "$O/chain.json" >/dev/null || t_fail "chain.json is not JSON"
}

# Every process of the truth: there, its parent, its command, its time at
# least MIN_MS and no longer than the boot
check_processes() {
	local end_ms pid ppid min cmd rec n=0 got
	end_ms=$(awk '$1 == "end" { printf "%d", $2 * 1000 + 1 }' "$O/truth.txt")
	t_assert_match "$(J '.user.found')" 'id' "user state found by map id (the pins are hidden under /init's bpffs)"
	while read -r pid ppid min cmd; do
		n=$((n + 1))
		rec=$(jq -c --argjson p "$pid" --arg c "$cmd" '
			[.user.processes[] | select(.pid == $p)] |
			(map(select(.cmdline as $r | $c | startswith($r)))[0] // .[0]) // empty' "$O/rep.json")
		[ -n "$rec" ] || t_fail "process $pid ($cmd) not in the report"
		t_assert_eq "$(jq -r .ppid <<<"$rec")" "$ppid" "parent of $pid ($cmd)"
		got=$(jq -r .cmdline <<<"$rec")
		case $cmd in
		"$got"*) ;;
		*) t_fail "command of $pid: '$got', expected '$cmd'" ;;
		esac
		t_assert_eq "$(jq -r .alive <<<"$rec")" false "$pid ($cmd) ended"
		got=$(jq -r '(.exit_ns - .fork_ns) / 1e6' <<<"$rec")
		awk -v g="$got" -v m="$min" 'BEGIN { exit !(g >= m) }' ||
			t_fail "$pid ($cmd) lasted $got ms, at least $min expected"
		awk -v g="$got" -v m="$end_ms" 'BEGIN { exit !(g <= m) }' ||
			t_fail "$pid ($cmd) lasted $got ms, longer than the boot ($end_ms ms)"
	done < <(awk '$1 == "proc" { $1 = ""; sub(/^ /, ""); print }' "$O/truth.txt")
	[ "$n" -ge 25 ] || t_fail "only $n processes in the truth"
	t_assert_eq "$(awk '$1 == "pipe" { print $2 }' "$O/truth.txt")" 4194304 "the pipeline's byte count"
	t_assert_eq "$(J '[.user.dropped[]] | add // 0')" 0 "dropped"
}

# The critical chain ending at the waiter goes through the sleep it waited for
check_chain() {
	local w c pids
	read -r w c < <(awk '$1 == "chain" { print $2, $3 }' "$O/truth.txt")
	pids=$(jq -r '.user.chain[].pid' "$O/chain.json" | paste -sd ' ')
	t_assert_match " $pids " " $w .* $c | $w $c " "the chain ending at $w (pids: $pids)"
}

check_modules() {
	local m rec
	for m in $(awk '$1 == "mod" { print $2 }' "$O/truth.txt"); do
		rec=$(J --arg m "$m" '.user.modules[] | select(.name == $m)' | jq -sc '.[0] // empty')
		[ -n "$rec" ] || t_fail "module $m not in the report"
		t_assert_eq "$(jq -r .ret <<<"$rec")" 0 "$m's init returned"
		jq -e '.init_start_ns > 0 and .init_end_ns > .init_start_ns' <<<"$rec" >/dev/null ||
			t_fail "$m: no init time: $rec"
		jq -e '.pid > 0' <<<"$rec" >/dev/null || t_fail "$m: no loader: $rec"
	done
	t_assert_match "$(awk '$1 == "mod"' "$O/truth.txt")" 'mod dummy' "dummy loaded"
}

check_io() {
	local pid bytes got
	read -r pid bytes < <(awk '$1 == "io" { print $2, $3 }' "$O/truth.txt")
	[ -n "$pid" ] || t_fail "no disk reads in the truth (KFIT_VM_DISK)"
	got=$(J --argjson p "$pid" '[.user.processes[] | select(.pid == $p) | .rd_bytes] | max')
	[ "$got" -ge "$bytes" ] 2>/dev/null || t_fail "dd ($pid) read $bytes bytes from /dev/vda, bootsum says '$got'"
}

# dmesg read apart: its "initcall F returned R after N usecs" lines (not
# the "probe of X returned" ones), its "calling  F @ PID" lines (not the PCI
# fixups' "pci 0000:00:00.0: calling  quirk_...")
dmesg_calls() { grep -c '\] initcall .* returned -\?[0-9]* after [0-9]* usecs$' "$O/dmesg.txt"; }
dmesg_usecs() {
	awk '/\] initcall .* returned -?[0-9]+ after [0-9]+ usecs$/ { s += $(NF - 1) }
		END { print s + 0 }' "$O/dmesg.txt"
}

# Which record the kernel phase comes from: the trace when it has every
# initcall dmesg has, else dmesg (on 6.1 the events start late); its
# totals against dmesg's: the same numbers from dmesg, within 5 % from the
# trace (its own clock around each call, not initcall_debug's)
check_kernel() {
	local n_dm n_tr src want sum usecs run
	n_dm=$(grep -c '\] calling  ' "$O/dmesg.txt")
	n_tr=$(grep -c ' initcall_start: ' "$O/trace.txt")
	src=$(J .kernel.source)
	want=trace
	[ "$n_tr" -ge "$n_dm" ] || want=dmesg
	t_assert_eq "$src" "$want" "kernel phase source (dmesg has $n_dm initcalls, the trace $n_tr)"
	t_assert_eq "$(J .kernel.complete)" true "kernel phase complete"
	[ "$want" = trace ] || t_assert_match "$(J .kernel.note)" 'trace' "the note says why not the trace"
	t_assert_eq "$(J '[.kernel.initcalls[] | select(.finished)] | length')" "$(dmesg_calls)" \
		"initcalls finished, against dmesg's 'initcall ... returned' lines"
	sum=$(J '[.kernel.initcalls[] | select(.finished) | .dur_ns] | add')
	usecs=$(dmesg_usecs)
	if [ "$src" = dmesg ]; then
		t_assert_eq "$sum" "$((usecs * 1000))" "the initcalls' time, against dmesg's 'after N usecs'"
	else
		t_within_pct "$sum" "$((usecs * 1000))" 5 "the initcalls' time, against dmesg's 'after N usecs'"
	fi
	t_assert_eq "$(J '[.kernel.levels[].sum_ns] | add')" "$sum" "the levels' time, against the initcalls'"
	# kernel start to the first process: the kernel's "Run ... as init process"
	run=$(sed -n 's/^\[ *\([0-9.]*\)\] Run .* as init process$/\1/p' "$O/dmesg.txt" | head -n 1)
	[ -n "$run" ] || t_fail "no 'Run ... as init process' in dmesg"
	t_within_pct "$(J '.kernel.init_ns / 1e9')" "$run" 1 "kernel start to the first process (the $src source)"
	# both phases on one axis: bootsum began after the kernel ran it
	jq -e '.user.offset_known and (.user.early_ns + .user.offset_ns >= .kernel.init_ns)' \
		"$O/rep.json" >/dev/null || t_fail "the user phase does not start after the kernel's (offset unknown?)"
}

check_svg() {
	local w h colours warm
	xmllint --noout "$O/boot.svg" 2>xml.err || { head -n 5 xml.err; t_fail "boot.svg is not well-formed XML"; }
	grep -q '<title>' "$O/boot.svg" || t_fail "boot.svg has no <title>"
	"$T_REPO/tools/svgshot.sh" "$O/boot.svg" boot.png 2>shot.err ||
		t_fail "svgshot.sh: $(head -c 300 shot.err)"
	read -r w h colours warm < <("$KFIT_HELPERS/pngstat" boot.png) ||
		t_fail "pngstat cannot read the screenshot"
	[ "${w:-0}" -gt 0 ] && [ "${h:-0}" -gt 0 ] || t_fail "the screenshot is empty (${w}x$h)"
	[ "$colours" -ge 8 ] || t_fail "the screenshot has $colours colours: blank?"
}

# bootsum's programs: those that use its bs_meta map
bs_progs() {	# PROGS.json MAPS.json
	jq -r --slurpfile m "$2" '
		($m[0] | map(select(.name == "bs_meta") | .id)) as $ids |
		.[] | select((.map_ids // []) | any(. as $x | $ids | index($x))) | .id' "$1" | sort -n
}

check_stop() {
	local before mid after
	before=$(bs_progs "$O/progs_before.json" "$O/maps_before.json")
	[ -n "$before" ] || t_fail "no bootsum programs before --stop"
	expect_rc stop1.txt 0
	t_assert_match "$(cat "$O/stop1.txt" "$O/stop1.txt.err")" 'reboot' "--stop with the pins hidden says the maps stay"
	mid=$(bs_progs "$O/progs_mid.json" "$O/maps_before.json")
	t_assert_eq "$mid" "$before" "the programs stay after a --stop by id"
	expect_rc stop2.txt 0
	t_assert_match "$(cat "$O/stop2.txt" "$O/stop2.txt.err")" 'pinned|removed|freed' "--stop with the pins reachable removes them"
	after=$(jq -r '.[].id' "$O/progs_after.json" | sort -n)
	for p in $before; do
		! grep -qx "$p" <<<"$after" || t_fail "bootsum's program $p still loaded after --stop"
	done
	t_assert_eq "$(jq '[.[] | select(.name | startswith("bs_"))] | length' "$O/maps_after.json")" 0 \
		"bootsum's maps after --stop"
	expect_rc stop3.txt 0
	t_assert_match "$(cat "$O/stop3.txt" "$O/stop3.txt.err")" 'nothing to stop' "a third --stop"
}

check_text() {
	local w
	w=$(awk '$1 == "chain" { print $2 }' "$O/truth.txt")
	t_assert_match "$(cat "$O/rep.txt")" '^Kernel phase' "the text report's kernel phase"
	t_assert_match "$(cat "$O/rep.txt")" '^User space' "the text report's user space"
	t_assert_match "$(cat "$O/rep.txt")" " $w +[0-9]+ .*sh -c sleep 0.3" "the waiter in the text report"
}

check_all() {
	check_reports_ran
	check_processes
	check_chain
	check_modules
	check_io
	check_kernel
	check_svg
	check_text
	check_stop
}

test_bootsum_vm_6_1() {
	boot 6.1
	check_all
}

# --funcs as the first process: funcdur's programs (fentry) pinned with the
# rest, read back by id after /init covered the pins, removed by --stop
check_funcs() {
	t_assert_eq "$(J .functions.recorded)" true "functions recorded: $(J -c .functions)"
	t_assert_eq "$(J .functions.mechanism)" fentry "the functions' mechanism"
	t_assert_match "$(J .functions.found)" 'id' "the functions found by map id"
	t_assert_eq "$(J '[.functions.functions[] | select(.name == "vfs_read") | .count > 0] | any')" \
		true "vfs_read calls counted from the first process on"
	t_assert_eq "$(jq '[.[] | select(.name | startswith("fd_"))] | length' "$O/progs_after.json")" 0 \
		"funcdur's programs after --stop"
}

test_bootsum_vm_6_12() {
	boot 6.12 "--funcs vfs_read"
	check_all
	check_funcs
}

t_run_all
