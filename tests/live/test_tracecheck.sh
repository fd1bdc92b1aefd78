#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Live tests of tracecheck on the running kernel (root).
. "$(dirname "$0")/../lib.sh"

TC="$KFIT_BIN/tracecheck"
NAMES="btf btf_modules fentry fexit kprobe kretprobe kprobe_multi tracepoint
tp_btf raw_tracepoint uprobe uretprobe ringbuf perf_sw perf_hw lockdown
capabilities tracefs"
# These work on every kernel the tools support (5.8+ with BTF)
MUST_WORK="tracepoint tp_btf raw_tracepoint uprobe uretprobe ringbuf perf_sw"

# tracecheck --json into $T_TMP/tc.json (once per test)
tc_json() {
	t_need_root
	[ -x "$TC" ] || t_fail "$TC not built"
	t_expect_exit 0 "$TC" --json
	jq -e . "$T_OUT" >/dev/null 2>"$T_TMP/jq.err" || {
		t_show_file "$T_OUT" "tracecheck --json"
		t_fail "tracecheck --json is not valid JSON: $(cat "$T_TMP/jq.err")"
	}
	cp "$T_OUT" "$T_TMP/tc.json"
}

# Field $2 of the (first) check named $1, as jq prints it; "null" if none
check_field() {	# name field
	jq -r --arg n "$1" "[.checks[] | select(.name == \$n)][0].$2" "$T_TMP/tc.json"
}

# ok must be $2 ("true"/"false") for check $1
expect_ok() {	# name true|false why
	local ok
	ok=$(check_field "$1" ok)
	[ "$ok" = "$2" ] ||
		t_fail "$1: ok=$ok, expected $2 ($3); detail: $(check_field "$1" detail)"
}

test_json_shape() {
	tc_json
	t_assert_eq "$(jq -r '.kernel | type' tc.json)" string ".kernel type"
	t_assert_match "$(jq -r .kernel tc.json)" '^[0-9]+\.[0-9]+' ".kernel"
	t_assert_eq "$(jq -r '.kernel' tc.json)" "$(uname -r)" ".kernel against uname -r"
	t_assert_eq "$(jq -r '.checks | type' tc.json)" array ".checks type"
	local bad
	bad=$(jq -r '.checks[] |
		select((.name | type) != "string" or (.ok | type) != "boolean" or
		       (.state | type) != "string" or (.detail | type) != "string" or
		       ([.state] | inside(["ok", "no", "info"]) | not) or
		       (.state == "ok" and .ok != true) or
		       (.state == "no" and .ok != false)) | tojson' tc.json)
	[ -z "$bad" ] || t_fail "malformed checks: $bad"
}

test_json_names_once() {
	tc_json
	local n count
	for n in $NAMES; do
		count=$(jq --arg n "$n" '[.checks[] | select(.name == $n)] | length' tc.json)
		t_assert_eq "$count" 1 "number of checks named $n"
	done
}

test_no_has_detail() {
	tc_json
	local bad
	bad=$(jq -r '.checks[] | select(.state == "no" and
		(.detail | gsub("\\s"; "")) == "") | .name' tc.json)
	[ -z "$bad" ] || t_fail "checks saying no without a detail: $bad"
}

test_basic_mechanisms_work() {
	tc_json
	local n
	for n in $MUST_WORK; do
		expect_ok "$n" true "works on every supported kernel"
	done
}

# kprobes work when the kernel has a kprobe PMU or legacy kprobe_events
test_kprobe_matches_kernel() {
	tc_json
	local want=false why="no kprobe PMU and no kprobe_events"
	if [ -e /sys/bus/event_source/devices/kprobe ]; then
		want=true why="/sys/bus/event_source/devices/kprobe exists"
	elif [ -e /sys/kernel/tracing/kprobe_events ] ||
		[ -e /sys/kernel/debug/tracing/kprobe_events ]; then
		want=true why="kprobe_events exists in tracefs"
	fi
	expect_ok kprobe "$want" "$why"
	expect_ok kretprobe "$want" "$why"
}

test_perf_hw_matches_pmu() {
	tc_json
	local want=false why="/sys/bus/event_source/devices/cpu is missing"
	if [ -e /sys/bus/event_source/devices/cpu ] ||
		[ -e /sys/bus/event_source/devices/cpu_core ]; then
		want=true why="a hardware PMU is in /sys/bus/event_source/devices"
	fi
	expect_ok perf_hw "$want" "$why"
}

test_btf_matches_sysfs() {
	tc_json
	local want=false
	[ -r /sys/kernel/btf/vmlinux ] && want=true
	expect_ok btf "$want" "/sys/kernel/btf/vmlinux readable: $want"
}

# Cross-check fentry with an fentry program loaded by bpftool. Needs clang
# (the build has it); defined on the host only, the VM has no compiler.
t_in_vm || test_fentry_matches_bpftool() {
	tc_json
	command -v clang >/dev/null || t_skip "clang not found, cannot cross-check fentry"
	cat >fe.bpf.c <<-'EOF'
		#define SEC(n) __attribute__((section(n), used))
		SEC("fentry/do_nanosleep") int kfit_test_fe(void *ctx) { return 0; }
		char LICENSE[] SEC("license") = "GPL";
	EOF
	clang -g -O2 -target bpf -c fe.bpf.c -o fe.bpf.o 2>clang.err ||
		t_fail "clang: $(head -n 3 clang.err)"
	local pin=/sys/fs/bpf/kfit_test_fe_$$ want detail
	t_on_exit "rm -f $pin"
	if bpftool prog load fe.bpf.o "$pin" >load.out 2>&1; then
		want=true
	else
		want=false
	fi
	rm -f "$pin"
	expect_ok fentry "$want" "bpftool prog load of an fentry program: $(grep -m1 'load failed' load.out || echo ok)"
	expect_ok fexit "$want" "as fentry"
	if [ "$want" = false ] && grep -q 'Operation not permitted' load.out; then
		detail=$(check_field fentry detail)
		t_assert_match "$detail" 'EPERM' "fentry detail (the load gave EPERM)"
	fi
}

test_text_one_line_per_mechanism() {
	tc_json
	t_expect_exit 0 "$TC"
	local n count
	for n in $NAMES; do
		count=$(awk -v n="$n" '$1 == n' "$T_OUT" | wc -l)
		[ "$count" = 1 ] || {
			t_show_file "$T_OUT" "tracecheck"
			t_fail "text report: $count lines start with '$n', expected 1"
		}
	done
}

# The text and the JSON agree on each verdict
test_text_agrees_with_json() {
	tc_json
	t_expect_exit 0 "$TC"
	local n state word
	for n in $NAMES; do
		state=$(check_field "$n" state)
		word=$(awk -v n="$n" '$1 == n { print $2; exit }' "$T_OUT")
		case $state:$word in
		ok:yes | no:no | info:*) ;;
		*) t_fail "$n: JSON state=$state but the text says '$word'" ;;
		esac
	done
}

test_short_json_flag() {
	tc_json
	t_expect_exit 0 "$TC" -j
	t_assert_eq "$(jq -c '[.checks[].name]' "$T_OUT")" \
		"$(jq -c '[.checks[].name]' tc.json)" "check names of -j and --json"
}

test_nothing_left_attached() {
	t_need_root
	local snap
	snap=$(t_bpf_snapshot)
	t_expect_exit 0 "$TC"
	t_expect_exit 0 "$TC" --json
	t_bpf_assert_same "$snap" "after tracecheck"
}

t_run_all
