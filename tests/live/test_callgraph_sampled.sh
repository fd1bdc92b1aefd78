#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sampled mode on real Debian programs (bash, python3, gzip, sleep), held
# at their start until callgraph -S -p PID traces (a FIFO), then let go:
# the default text stays within a screenful or two and 80 columns on an
# 80-column terminal; --percent-limit hides what it says (every sample
# accounted for: shown + deeper + hidden = total); -D bounds the depth;
# --min hides frames sampled for less; unnamed frames (stripped gzip,
# bash) are one node per file; a sleeping process gets a reason for its
# empty tree; --perfetto puts the samples on a timeline, as kd does from
# the same run's recording; kd shows a sampled recording with the same
# options.
# shellcheck disable=SC2016 # jq programs in single quotes
. "$(dirname "$0")/../lib.sh"

export LC_ALL=C
CG="$KFIT_BIN/callgraph"
KD="$KFIT_BIN/kd"
PTY="$KFIT_HELPERS/ptyrun"
: "${CG_WAIT:=30}"
# The default text of a real program: at most this many lines (three
# screenfuls: whole stacks, unwound, make deeper and wider trees than the
# frame-pointer walk's: bash's loop 123 lines, 46 before) and, on an
# 80-column terminal, 80 columns
MAX_LINES=150
BASH_LOOP='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'

need_tool() {
	t_need_root
	[ -x "$CG" ] || t_fail "$CG not built"
	[ -x "$KD" ] || t_fail "$KD not built"
}

# CMD... started, held before its exec until real_go; sets REAL_PID (the
# same pid after the exec)
real_start() {
	local i=0
	rm -f "$T_TMP/go"
	mkfifo "$T_TMP/go" || t_fail "mkfifo failed"
	sh -c 'read -r _ <"$0"; exec "$@"' "$T_TMP/go" "$@" >"$T_TMP/real.out" 2>&1 </dev/null &
	REAL_PID=$!
	t_on_exit "kill -KILL $REAL_PID 2>/dev/null"
	while ! grep -q "^State:.*S" "/proc/$REAL_PID/status" 2>/dev/null; do
		[ "$i" -ge 500 ] && t_fail "'$*' did not wait for its start"
		t_pause 0.02
		i=$((i + 1))
	done
}

real_go() {
	echo go >"$T_TMP/go"
}

# `callgraph ARGS -p REAL_PID` in the background until REAL_PID ends
# (callgraph ends with it): its stdout in bg.out
sampled_run() {	# callgraph-args...
	t_bg_start "$CG" "$@" -p "$REAL_PID"
	t_bg_wait_tracing "$CG_WAIT"
	real_go
	t_bg_wait_exit 120
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.err" "stderr"
		t_fail "callgraph $* exited $BG_RC, expected 0"
	}
}

# The same on a pseudo-terminal of COLUMNS columns: what it showed, in out.txt
pty_run() {	# COLUMNS callgraph-args...
	local cols=$1
	shift
	t_bg_start env COLUMNS="$cols" "$PTY" "$CG" "$@" -p "$REAL_PID"
	t_bg_wait_tracing_pty
	real_go
	t_bg_wait_exit 120
	[ "$BG_RC" = 0 ] || {
		t_show_file "$T_TMP/bg.out" "the terminal"
		t_fail "callgraph $* on a terminal exited $BG_RC, expected 0"
	}
	tr -d '\r' <"$T_TMP/bg.out" >out.txt
}

# On the pty, stderr's "Tracing" line comes in bg.out
t_bg_wait_tracing_pty() {
	local i=0
	while ! grep -q '^Tracing' "$T_TMP/bg.out"; do
		kill -0 "$BG" 2>/dev/null || { t_show_file "$T_TMP/bg.out" "the terminal"; t_fail "it exited before tracing"; }
		[ "$i" -ge $((CG_WAIT * 10)) ] && t_fail "no 'Tracing' line in $CG_WAIT s"
		t_pause 0.1
		i=$((i + 1))
	done
}

longest() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }

# What a sampled JSON document accounts for: "SAMPLES SHOWN+DEEPER+HIDDEN"
# over every process shown and hidden
json_totals() {	# FILE
	jq -r '[.samples, ([.threads[] | ([.. | objects | select(has("kernel")) | .self]
		| add // 0) + .self + .deeper_samples + .hidden_samples] | add // 0) +
		.hidden_process_samples] | "\(.[0]) \(.[1])"' "$1"
}

# ---- the default text ----------------------------------------------------

check_screen() {	# what
	local lines cols
	lines=$(wc -l <out.txt)
	cols=$(longest out.txt)
	echo "$1: $lines lines, $cols columns"
	[ "$cols" -le 80 ] || {
		t_show_file out.txt "$1"
		t_fail "$1: a line of $cols columns on an 80-column terminal"
	}
	[ "$lines" -le "$MAX_LINES" ] || {
		t_show_file out.txt "$1"
		t_fail "$1: $lines lines, more than $MAX_LINES"
	}
	grep -q '^== pid ' out.txt || { t_show_file out.txt "$1"; t_fail "$1: no tree"; }
}

test_bash_screen() {
	need_tool
	[ -x "$PTY" ] || t_fail "$PTY not built"
	real_start bash -c "$BASH_LOOP"
	pty_run 80 -S 999
	check_screen "bash's loop at 999 Hz"
	# unnamed code of bash (no symbols for its static functions)
	grep -Eq 'bash\+0x' out.txt && t_fail "bash+0x... frames: not grouped by file"
	true
}

test_python_screen() {
	need_tool
	command -v python3 >/dev/null || t_skip "no python3"
	local py
	py=$(readlink -f "$(command -v python3)")
	# Debian's, not a shim (a shim's children would be traced too)
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	real_start "$py" -c 'n = 0
for i in range(8000000): n += i'
	pty_run 80 -S 999
	check_screen "python3's loop at 999 Hz"
}

test_gzip_grouped() {
	need_tool
	command -v gzip >/dev/null || t_skip "no gzip"
	local big=$T_TMP/big
	# 40 MB that compress (random bytes would be stored): ~1 s of gzip
	for i in $(seq 1 40); do head -c 1000000 "$(command -v gzip)"; done >"$big" 2>/dev/null
	real_start gzip -c "$big"
	sampled_run -S 999 -j --percent-limit 0
	cp "$T_TMP/bg.out" gz.json
	real_start gzip -c "$big"
	sampled_run -S 999 --percent-limit 0 --addresses
	cp "$T_TMP/bg.out" gz-addr.txt
	# gzip is stripped: its code is one node, never gzip+0x...
	jq -e '[.. | objects | select(.name? == "gzip [unknown]")] | length > 0' gz.json >/dev/null ||
		{ t_show_file gz.json "-j"; t_fail "no 'gzip [unknown]' frame"; }
	jq -e '[.. | objects | select(.name? // "" | test("^gzip\\+0x"))] | length == 0' gz.json >/dev/null ||
		t_fail "gzip+0x... frames in the grouped tree"
	# a run of them is one frame: no such frame right under another
	jq -e '[.. | objects | select(.name? == "gzip [unknown]") | .children[]? |
		select(.name == "gzip [unknown]" and .kernel == false)] | length == 0' gz.json >/dev/null ||
		t_fail "'gzip [unknown]' under 'gzip [unknown]': the run is not one frame"
	# --addresses: each address its own frame
	[ "$(grep -c 'gzip+0x' gz-addr.txt)" -ge 2 ] ||
		{ t_show_file gz-addr.txt "--addresses"; t_fail "--addresses: no gzip+0x... frames"; }
	t_assert_eq "$(json_totals gz.json | awk '{ print ($1 == $2) }')" 1 \
		"samples against those in the tree ($(json_totals gz.json))"
}

# ---- the limits ----------------------------------------------------------

test_percent_limit() {
	need_tool
	local tot
	real_start bash -c "$BASH_LOOP"
	sampled_run -S 999 -j --percent-limit 2
	cp "$T_TMP/bg.out" pct.json
	tot=$(json_totals pct.json)
	echo "samples, accounted for: $tot"
	t_assert_eq "$(awk '{ print ($1 == $2 && $1 > 0) }' <<<"$tot")" 1 "shown + hidden = total ($tot)"
	# every frame shown has 2% of the samples, some were hidden
	jq -e '.samples as $all | [.. | objects | select(has("kernel")) |
		select(.samples * 100 < 2 * $all)] | length == 0' pct.json >/dev/null ||
		t_fail "a frame under 2% shown"
	jq -e '[.threads[].hidden_samples] | add > 0' pct.json >/dev/null ||
		t_fail "nothing hidden under 2% of bash's samples"
	# the text says what it hid
	real_start bash -c "$BASH_LOOP"
	sampled_run -S 999 --percent-limit 2
	t_assert_match "$(cat "$T_TMP/bg.out")" \
		'^-- [0-9]+ samples? hidden in [0-9]+ lines? under 2% \(--percent-limit 0 shows all\)$' \
		"the line of what was hidden"
}

test_depth() {
	need_tool
	local deep
	real_start bash -c "$BASH_LOOP"
	sampled_run -S 999 -j -D 3 --percent-limit 0
	cp "$T_TMP/bg.out" d.json
	# frames at depths 0, 1, 2: none has children at depth 2
	deep=$(jq '[.threads[].children[]?.children[]?.children[]? | .children // empty | length] | add // 0' d.json)
	t_assert_eq "$deep" 0 "frames deeper than -D 3"
	jq -e '[.threads[].deeper_samples] | add > 0' d.json >/dev/null ||
		t_fail "no sample below -D 3 in bash's stacks"
	t_assert_eq "$(json_totals d.json | awk '{ print ($1 == $2) }')" 1 \
		"samples against those in the tree ($(json_totals d.json))"
	# text: indented 2 columns a level, 3 levels
	real_start bash -c "$BASH_LOOP"
	sampled_run -S 999 -D 3 --percent-limit 0
	awk -F'%  ' '/^ *[0-9.]+% +[0-9.]+%  / { match($2, /^ */); if (RLENGTH > 4) bad = 1 } END { exit bad }' \
		"$T_TMP/bg.out" || { t_show_file "$T_TMP/bg.out" "-D 3"; t_fail "a frame indented deeper than -D 3"; }
	grep -q ' deeper\]$' "$T_TMP/bg.out" || t_fail "no frame marked [N deeper]"
}

test_min() {
	need_tool
	real_start bash -c "$BASH_LOOP"
	# 20 ms at 999 Hz: 20 samples (19.98, rounded up)
	sampled_run -S 999 -j --min 20ms --percent-limit 0
	cp "$T_TMP/bg.out" m.json
	jq -e '[.. | objects | select(has("kernel")) | select(.samples < 20)] | length == 0' \
		m.json >/dev/null || t_fail "a frame of fewer than 20 samples (20 ms at 999 Hz) shown"
	jq -e '[.threads[].hidden_samples] | add > 0' m.json >/dev/null ||
		t_fail "nothing hidden under 20 ms"
	t_assert_eq "$(json_totals m.json | awk '{ print ($1 == $2) }')" 1 \
		"samples against those in the tree ($(json_totals m.json))"
}

# ---- nothing sampled -----------------------------------------------------

test_sleep_says_why() {
	need_tool
	local pid i=0
	# asleep before the sampling starts and all through it
	sleep 30 >/dev/null 2>&1 &
	pid=$!
	t_on_exit "kill -KILL $pid 2>/dev/null"
	until grep -q '^State:.*S' "/proc/$pid/status" 2>/dev/null &&
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$(command -v sleep)")" ]; do
		[ "$i" -ge 500 ] && t_fail "sleep did not start"
		t_pause 0.02
		i=$((i + 1))
	done
	t_expect_exit 0 "$CG" -S 999 -p "$pid" -d 1
	t_assert_match "$(cat "$T_OUT")" '^0 samples, 0 lost$' "the counts"
	t_assert_match "$(cat "$T_OUT")" \
		'^Nothing was sampled: cpu-clock samples a task only while it runs on a CPU,$' \
		"why nothing was sampled"
	t_assert_match "$(cat "$T_OUT")" 'callgraph sys:clock_nanosleep -- sleep 1' \
		"what shows the time off CPU"
	[ "$(longest "$T_OUT")" -le 80 ] || t_fail "the reason is wider than 80 columns"
	# -j: the reason on stderr
	t_expect_exit 0 "$CG" -S 999 -p "$pid" -d 1 -j
	jq -e '.samples == 0' "$T_OUT" >/dev/null || t_fail "-j: not a document of 0 samples"
	t_assert_match "$(cat "$T_ERR")" '^Nothing was sampled' "-j: why, on stderr"
}

# ---- Perfetto --------------------------------------------------------------

# Debian's python3.11 (not a shim: a shim's children would be traced too)
debian_python() {
	local py
	for py in /usr/bin/python3.11 /usr/bin/python3; do
		[ -x "$py" ] && { echo "$py"; return; }
	done
	t_skip "no /usr/bin/python3.11"
}

# Every event but its times: what a live timeline and kd's of the same
# run's recording must share
timeline_shape() {	# FILE
	jq -c '.traceEvents[] | del(.ts, .dur)' "$1"
	jq -c .otherData "$1"
}

# Live sampled --perfetto: the samples on a timeline, python's functions
# on the command's track, as kd puts them from the same run's recording
# (before: refused, "--perfetto needs a TARGET or -e", status 2)
test_perfetto_live() {
	need_tool
	local py pid chk=$T_REPO/tests/helpers/perfetto_check
	py=$(debian_python)
	t_expect_exit 0 "$CG" -S 999 --perfetto live.json -o live.kft -- "$py" -c 'import os
print(os.getpid(), flush=True)
n = 0
for i in range(8000000): n += i'
	pid=$(head -n 1 "$T_OUT")
	[ -n "$pid" ] || t_fail "python printed no pid"
	"$chk" live.json >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejects it"; }
	cat chk.out
	t_assert_eq "$(jq -r '.traceEvents[] | select(.ph == "M") | "\(.name) \(.pid) \(.tid) \(.args.name)"' live.json)" \
		"process_name $pid $pid python3.11
thread_name $pid $pid python3.11" "the tracks"
	jq -e --argjson p "$pid" '[.traceEvents[] | select(.ph == "X")] |
		length > 0 and all(.cat == "sample" and .pid == $p and .tid == $p)' live.json >/dev/null ||
		t_fail "slices not all samples on python's track"
	jq -e '[.traceEvents[] | select(.ph == "X" and (.name | test("^_?Py")))] | length > 0' \
		live.json >/dev/null || t_fail "no slice of python's functions (_Py*, Py*)"
	jq -e '.otherData.samples > 0 and .otherData.period_ns == 1001001' live.json >/dev/null ||
		t_fail "otherData: $(jq -c .otherData live.json)"
	t_expect_exit 0 "$KD" live.kft --perfetto kd.json
	"$chk" -q kd.json || t_fail "perfetto_check rejects kd's"
	diff <(timeline_shape live.json) <(timeline_shape kd.json) >shape.diff ||
		{ head -n 20 shape.diff; t_fail "the live timeline and kd's differ"; }
}

# A TARGET where the kernel refuses exact tracing (fentry, kprobes): the
# samples taken instead go on the timeline (before: no file, status 0);
# where it traces, the calls do
test_perfetto_fallback() {
	need_tool
	local py chk=$T_REPO/tests/helpers/perfetto_check
	py=$(debian_python)
	t_expect_exit 0 "$CG" vfs_read --perfetto fb.json -- "$py" -c 'n = 0
for i in range(3000000): n += i'
	[ -s fb.json ] || t_fail "no --perfetto file"
	"$chk" fb.json || t_fail "perfetto_check rejects it"
	if grep -q 'sampling stacks instead' "$T_ERR"; then
		jq -e '.otherData.samples > 0' fb.json >/dev/null || t_fail "no sample on the timeline"
	fi
	true
}

# --perfetto to a bad path: said before tracing, status 1, the command
# never run (before: refused as a usage error, status 2)
test_perfetto_bad_path() {
	need_tool
	t_expect_exit 1 "$CG" -S 999 --perfetto /nonexistent/x.json -- touch ran
	t_assert_eq "$(cat "$T_ERR")" \
		"callgraph: cannot write /nonexistent/x.json: No such file or directory" "the message"
	[ -e ran ] && t_fail "the command ran"
	true
}

# ---- kd ------------------------------------------------------------------

test_kd_sampled_options() {
	need_tool
	real_start bash -c "$BASH_LOOP"
	sampled_run -S 999 -o s.kft
	t_expect_exit 0 "$KD" s.kft -j -D 2 --percent-limit 1
	cp "$T_OUT" kd.json
	t_assert_eq "$(jq '[.threads[].children[]?.children[]? | .children // empty | length] | add // 0' kd.json)" 0 \
		"kd -D 2: frames below depth 2"
	t_assert_eq "$(json_totals kd.json | awk '{ print ($1 == $2 && $1 > 0) }')" 1 \
		"kd: samples against those in the tree ($(json_totals kd.json))"
	t_expect_exit 0 "$KD" s.kft --width 50 --percent-limit 0
	[ "$(longest "$T_OUT")" -le 50 ] || t_fail "kd --width 50: a line of $(longest "$T_OUT") columns"
	t_expect_exit 0 "$KD" s.kft --percent-limit 0
	[ "$(wc -l <"$T_OUT")" -gt "$(jq '[.. | objects | select(has("kernel"))] | length' kd.json)" ] ||
		t_fail "kd --percent-limit 0 shows no more than -D 2 --percent-limit 1"
	# an exact recording: its -D and --min were applied while recording
	t_expect_exit 0 "$CG" -o e.kft -e syscalls:sys_enter_getpid -d 0.2
	t_expect_exit 2 "$KD" e.kft -D 2
	t_assert_match "$(cat "$T_ERR")" 'is an exact recording' "kd -D on an exact recording"
}

t_run_all
