#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kd, the offline analyser, on trace files of known content written by
# tests/helpers/kftgen (its header lists every record): no BPF, no root.
# What kd prints of a sound file (the trees, --summary, --folded, -j,
# --events, windows, task filters, --info, sampled files) is data:
# tests/cases/kd/*.case, run by test_kd_cases.sh. Here: what is no render
# (damaged and foreign files, the files kd writes, the sanitized kd).
# The generator's design, which the figures below come from:
# iteration k (0..N-1) at B = 1ms + 10k ms from the start:
#   gen (100/100):        main_loop [B, 500us){ work [B+10us, 300us){ leaf 100us,
#                         leaf 50us }, vfs_write [B+400us, 50us){ sys_enter_write
#                         at B+410us: fd=1 buf=0x7f0000001000+k count=k+1 } }
#   gen-worker (100/101): work [B+100us, 200us){ sched_wakeup at B+120us, leaf 20us }
#   then tid 102 forked (work 40us, exit), shell 300 (work 10us, exec newprog,
#   work 20us), 7 records lost on CPU 1; 700ms in all.
. "$(dirname "$0")/../lib.sh"

KD=$KFIT_BIN/kd
GEN=$KFIT_HELPERS/kftgen
N=10

need() {
	[ -x "$KD" ] || t_fail "no $KD (make)"
	[ -x "$GEN" ] || t_fail "no $GEN (make)"
}

gen() {	# FILE [kftgen options]: a trace of N iterations
	local f=$1
	shift
	"$GEN" -n "$N" "$@" "$f" || t_fail "kftgen $* $f failed"
}

# The summary's row of a function: "COUNT TOTAL LOCAL"
row() {	# FUNC output
	awk -v f="$1" '$1 == f { $1 = ""; print substr($0, 2) }' <<<"$2" | tr -s ' '
}

test_kd_links_no_libbpf() {
	need
	if ldd "$KD" 2>/dev/null | grep -q libbpf; then
		t_fail "kd links libbpf: $(ldd "$KD" | grep libbpf)"
	fi
	nm -u "$KD" 2>/dev/null | grep -q ' bpf_' && t_fail "kd calls bpf_ functions"
	true
}

test_help() {
	need
	t_expect_exit 0 "$KD" -h
	t_assert_match "$(cat "$T_OUT")" '^Usage: kd ' "kd -h"
	t_assert_match "$(cat "$T_OUT")" 'kd trace.kft --events' "kd -h's examples"
	# the options refused before the file is read:
	# tests/cases/usage/kd.case; a window's times, read against it:
	# tests/cases/kd/window.case
}

# "R,G,B TITLE" of each frame of a flame graph, in the document's order
svg_frames() {	# SVG
	sed -n 's/.*<title>\([^<]*\)<\/title><rect [^>]* fill="rgb(\([0-9,]*\))".*/\2 \1/p' "$1"
}

xml_ok() {	# SVG
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1" || t_fail "xmllint rejects $1"
	elif ! t_in_vm; then
		t_fail "no xmllint (make deps)"
	fi
}

# --svg and --perfetto (--folded: tests/cases/kd/folded.case)
test_exports() {
	need
	local chk=$T_REPO/tests/helpers/perfetto_check n
	gen a.kft
	t_expect_exit 0 "$KD" a.kft --svg a.svg --perfetto a.json
	[ -s a.svg ] || t_fail "no SVG"
	xml_ok a.svg
	grep -q '<title>main_loop (' a.svg || t_fail "no main_loop frame in the SVG"
	"$chk" a.json >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejects it"; }
	n=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "main_loop")] | length' a.json)
	t_assert_eq "$n" "$N" "main_loop slices in the Perfetto JSON"
}

# --diff --svg: the differential flame graph of tests/cases/kd/diff.case's
# files (its header has the figures): widths from b.kft, every frame's own
# time doubled (red), but the forked child's and the shell's work, whose
# 70us stay, in the top-level work (a shade paler); the tables on stdout
test_diff_svg() {
	need
	local want
	gen a.kft
	"$GEN" -n $((2 * N)) b.kft || t_fail "kftgen -n $((2 * N))"
	t_expect_exit 0 "$KD" --diff a.kft b.kft --svg d.svg
	t_assert_eq "$(head -n 1 "$T_OUT")" "Before: a.kft, 73 calls in 699ms" "the tables, as without --svg"
	xml_ok d.svg
	[ "$(stat -c %a d.svg)" = 600 ] || t_fail "mode $(stat -c %a d.svg)"
	want="255,255,255 all: before 7.07ms, after 14.1ms, +99.0%
255,150,150 main_loop: before 5.00ms, after 10.0ms, +100.0%; local: before 1.50ms, after 3.00ms, +100.0%
255,150,150 vfs_write: before 500us, after 1.00ms, +100.0%; local: before 500us, after 1.00ms, +100.0%
255,150,150 work: before 3.00ms, after 6.00ms, +100.0%; local: before 1.50ms, after 3.00ms, +100.0%
255,150,150 leaf: before 1.50ms, after 3.00ms, +100.0%; local: before 1.50ms, after 3.00ms, +100.0%
255,152,152 work: before 2.07ms, after 4.07ms, +96.6%; local: before 1.87ms, after 3.67ms, +96.3%
255,150,150 leaf: before 200us, after 400us, +100.0%; local: before 200us, after 400us, +100.0%"
	t_assert_eq "$(svg_frames d.svg)" "$want" "the frames: fill and title"
	t_assert_match "$(cat d.svg)" '>kd --diff</text>' "the title"
	t_assert_match "$(cat d.svg)" '>before: a\.kft, after: b\.kft</text>' "the subtitle"
	# the other way round: every frame that had time of its own blue
	t_expect_exit 0 "$KD" --diff b.kft a.kft --svg r.svg
	t_assert_eq "$(svg_frames r.svg | grep -c '^150,150,255 ')" 5 "blue frames"
	t_assert_match "$(svg_frames r.svg)" '^150,150,255 main_loop: before 10\.0ms, after 5\.00ms, -50\.0%; ' \
		"main_loop, halved"
	# a second file of the same run: nothing changed, every frame white
	gen c.kft
	t_expect_exit 0 "$KD" --diff a.kft c.kft --svg s.svg
	xml_ok s.svg
	t_assert_eq "$(svg_frames s.svg | wc -l)" 7 "frames of the same run"
	t_assert_eq "$(svg_frames s.svg | grep -vc '^255,255,255 .*, +0\.0%')" 0 \
		"frames not white or changed: $(svg_frames s.svg | grep -v '^255,255,255')"
}

# --svg goes with -j and --folded: stdout as without it, the same graph
test_diff_svg_with() {
	need
	gen a.kft
	"$GEN" -n $((2 * N)) b.kft || t_fail "kftgen -n $((2 * N))"
	"$KD" --diff a.kft b.kft --svg d.svg >/dev/null || t_fail "kd --diff --svg"
	"$KD" --diff a.kft b.kft -j >j.out || t_fail "kd --diff -j"
	"$KD" --diff a.kft b.kft --folded >f.out || t_fail "kd --diff --folded"
	t_expect_exit 0 "$KD" --diff a.kft b.kft -j --svg dj.svg
	cmp -s "$T_OUT" j.out || t_fail "-j's JSON differs with --svg"
	cmp -s dj.svg d.svg || t_fail "the SVG differs with -j"
	t_expect_exit 0 "$KD" --diff a.kft b.kft --folded --svg df.svg
	cmp -s "$T_OUT" f.out || t_fail "--folded's stacks differ with --svg"
	cmp -s df.svg d.svg || t_fail "the SVG differs with --folded"
}

test_truncated() {
	need
	local full
	gen a.kft
	"$KD" a.kft --events >full.out 2>/dev/null
	gen c.kft --cut 1500
	t_expect_exit 0 "$KD" c.kft --events
	t_assert_match "$(cat "$T_ERR")" \
		'^kd: warning: c\.kft is truncated: read [0-9]+ chunks up to [0-9.]+m?s; [0-9]+ bytes after it unreadable$' \
		"the warning"
	full=$(wc -l <full.out)
	[ "$(wc -l <"$T_OUT")" -lt "$full" ] || t_fail "nothing missing from a truncated file"
	[ "$(wc -l <"$T_OUT")" -gt 10 ] || t_fail "almost nothing read from a truncated file"
	# what is there is the recording's
	[ -z "$(sort "$T_OUT" | comm -23 - <(sort full.out))" ] ||
		t_fail "lines not in the full file's: $(sort "$T_OUT" | comm -23 - <(sort full.out) | head -3)"
	t_expect_exit 0 "$KD" c.kft --info
	t_assert_match "$(cat "$T_OUT")" '^file: .*truncated$' "--info of a truncated file"
	t_assert_match "$(cat "$T_OUT")" '^missing: +[0-9]+ bytes' "--info's missing bytes"
	t_expect_exit 0 "$KD" c.kft --summary
	t_expect_exit 0 "$KD" c.kft -j
	jq -e .calls "$T_OUT" >/dev/null || t_fail "-j of a truncated file"
	# cut inside its header blocks: nothing says what it holds
	head -c 100 a.kft >h.kft
	t_expect_exit 1 "$KD" h.kft
	t_assert_match "$(cat "$T_ERR")" '^kd: h\.kft: cut short after 100 bytes' "a file cut in its header"
}

test_corrupt() {
	need
	local out
	gen d.kft --corrupt 2
	t_expect_exit 0 "$KD" d.kft
	t_assert_match "$(cat "$T_ERR")" 'chunk 2 \(at byte [0-9]+, [0-9]+ records\) is unreadable: corrupt; skipped' \
		"the corrupt chunk's warning"
	t_assert_match "$(cat "$T_ERR")" '1 corrupt chunk skipped' "the count"
	out=$(sed -n 2p "$T_OUT" | awk '{ print $1 }')
	[ "$out" -lt $((7 * N + 3)) ] && [ "$out" -gt 0 ] || t_fail "calls around a corrupt chunk: $out"
	t_expect_exit 0 "$KD" d.kft --events
	t_expect_exit 0 "$KD" d.kft --info
	t_assert_match "$(cat "$T_OUT")" '^chunks: .*1 corrupt$' "--info counts it"
	# one chunk, corrupt: nothing to show
	gen e.kft -c 1048576 --corrupt 0
	t_expect_exit 1 "$KD" e.kft
	t_assert_match "$(cat "$T_ERR")" 'nothing could be read' "a file of one corrupt chunk"
	t_expect_exit 1 "$KD" e.kft --events
	# the metadata
	gen m.kft --corrupt-meta
	t_expect_exit 1 "$KD" m.kft
	t_assert_match "$(cat "$T_ERR")" '^kd: m\.kft: .*corrupt' "a corrupt META block"
}

test_foreign() {
	need
	printf 'hello\n' >text
	: >empty
	head -c 100000 /dev/urandom >random
	gen a.kft
	head -c 10 a.kft >short
	# a header claiming another byte order
	cp a.kft swapped
	printf '\x01\x02\x03\x04' | dd of=swapped bs=1 seek=12 conv=notrunc status=none
	for f in text empty random short swapped no-such-file; do
		t_expect_exit 1 "$KD" "$f"
		t_assert_match "$(cat "$T_ERR")" "^kd: $f: " "$f's message"
		[ -s "$T_OUT" ] && t_fail "$f: output on stdout"
	done
	true
}

# Files of record version 1 (issue 20 added return values): kftgen's and
# a real callgraph -o of sys:openat, written by the kd of 5cb3c34, which
# also printed the renders beside them: this kd prints them byte for byte
# (a version-1 call record has no return value, so no "=>", "ret").
test_version1_files() {
	local fx=$T_REPO/tests/fixtures/kft f v
	need
	for f in gen real; do
		for v in tree:"" json:-j events:--events; do
			t_expect_exit 0 "$KD" "$fx/$f-v1.kft" ${v#*:}
			cmp -s "$T_OUT" "$fx/$f-v1.${v%%:*}" ||
				t_fail "$f-v1.kft ${v#*:}: not what the version-1 kd printed: $(diff "$fx/$f-v1.${v%%:*}" "$T_OUT" | head -n 5)"
		done
	done
	t_expect_exit 0 "$KD" "$fx/gen-v1.kft" --summary
	cmp -s "$T_OUT" "$fx/gen-v1.summary" || t_fail "gen-v1.kft --summary differs"
	t_expect_exit 0 "$KD" "$fx/real-v1.kft" --perfetto p.json
	cmp -s p.json "$fx/real-v1.perfetto.json" || t_fail "real-v1.kft --perfetto differs"
	t_expect_exit 0 "$KD" "$fx/real-v1.kft" --info
	t_assert_match "$(cat "$T_OUT")" 'records version 1,' "--info's record version"
	grep -q '=>' "$fx/real-v1.tree" && t_fail "a version-1 tree with a return value"
	true
}


# ---- outputs, copies (issue 17; --info -j, windows: tests/cases/kd) ------

# A sampled recording's --perfetto: its samples on a timeline (before:
# nothing written, exit 0). Samples every 10 ms at 99 Hz: each stands for
# 10.1 ms, so u_main, in every sample, is one slice from the first (1 ms)
# to the last's end; k_leaf, in the even ones only, is N/2 slices.
test_sampled_perfetto() {
	need
	local chk=$T_REPO/tests/helpers/perfetto_check
	gen s.kft -s
	t_expect_exit 0 "$KD" s.kft --perfetto s.json
	"$chk" s.json >chk.out 2>&1 || { cat chk.out; t_fail "perfetto_check rejects it"; }
	t_assert_eq "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "u_main")] | length' s.json)" 1 "u_main slices"
	t_assert_eq "$(jq -r '.traceEvents[] | select(.name == "u_main") | "\(.ts) \(.dur)"' s.json)" \
		"1000 $(((N - 1) * 10000 + 10101)).01" "u_main's start and length (us)"
	t_assert_eq "$(jq '[.traceEvents[] | select(.ph == "X" and .name == "k_leaf")] | length' s.json)" $((N / 2)) "k_leaf slices"
	t_assert_eq "$(jq -r '.traceEvents[] | select(.name == "thread_name") | .args.name' s.json)" gen "the thread's name"
	t_assert_eq "$(jq .otherData.samples s.json)" "$N" "samples"
	[ "$(stat -c %a s.json)" = 600 ] || t_fail "mode $(stat -c %a s.json)"
	grep -q 'no timeline' "$T_ERR" && t_fail "still says: $(cat "$T_ERR")"
	true
}

# An output that cannot be written: said with its name before the file is
# read, nothing printed (before: the tree printed, then "kd: a.kft: No such
# file or directory", the input blamed); a FIFO or a symlink refused
test_output_errors() {
	need
	local rc
	gen a.kft
	t_expect_exit 1 "$KD" a.kft --svg /nonexistent/x.svg
	t_assert_eq "$(cat "$T_ERR")" "kd: cannot write /nonexistent/x.svg: No such file or directory" "the message"
	[ -s "$T_OUT" ] && t_fail "output before the error: $(head -n 1 "$T_OUT")"
	t_expect_exit 1 "$KD" a.kft --perfetto "$T_TMP"
	t_assert_eq "$(cat "$T_ERR")" "kd: cannot write $T_TMP: a directory" "a directory"
	mkfifo p.svg
	timeout 20 "$KD" a.kft --svg p.svg >out 2>err </dev/null
	rc=$?
	[ "$rc" = 124 ] && t_fail "kd --svg FIFO hung"
	t_assert_eq "$rc" 1 "--svg FIFO"
	printf 'keep\n' >target
	ln -s target l.svg
	t_expect_exit 1 "$KD" a.kft --svg l.svg
	t_assert_eq "$(cat target)" keep "the link's target"
	printf 'old\n' >o.svg
	t_expect_exit 0 "$KD" a.kft --svg o.svg
	grep -q '<svg' o.svg || t_fail "o.svg not replaced"
	[ "$(ls -A | grep -c '^\.o\.svg')" = 0 ] || t_fail "a temporary left"
}

# A chunk copied within the file: read once, with a warning (before: its
# records counted twice)
test_duplicated_chunks() {
	need
	gen d.kft --dup-chunk 1
	t_expect_exit 0 "$KD" d.kft --info
	t_assert_match "$(cat "$T_OUT")" "^records: +$((9 * N + 9)): call $((7 * N + 3))," "records counted once"
	t_assert_match "$(cat "$T_OUT")" '^chunks: .*1 duplicated \(skipped\)$' "--info's chunks"
	t_assert_match "$(cat "$T_ERR")" '^kd: warning: d\.kft: 1 chunk found twice \(copied within the file\): the copies skipped$' "the warning"
	t_expect_exit 0 "$KD" d.kft --summary
	t_assert_eq "$(row main_loop "$(cat "$T_OUT")" | awk '{ print $1 }')" "$N" "main_loop's count"
}

# A 4 KiB file with a hole of 4 GiB that a META block claims: refused for
# the hole at once (before: 4 GiB allocated and read, 20 s, then a CRC)
test_sparse_claim() {
	need
	"$GEN" --sparse-meta 4294967000 sp.kft || t_fail "kftgen --sparse-meta"
	(ulimit -v 1000000; exec "$KD" sp.kft --info) >out 2>err
	t_assert_eq "$?" 1 "status"
	t_assert_match "$(cat err)" '^kd: sp\.kft: corrupt trace file: its META block at offset 64 claims 4294967000 bytes the file does not hold \(a hole\)$' "the message"
}

# kd on bad files under ASan and UBSan (any finding exits 99); the files
# are written by the plain kftgen (the writer is not what is tested here)
test_sanitized_bad_files() {
	need
	local kd=$T_REPO/build/san/bin/kd f o k rc
	t_in_vm && t_skip "no compiler in the VM"
	make -C "$T_REPO" -s SANITIZE=1 build/san/bin/kd >make.out 2>&1 ||
		t_fail "make SANITIZE=1: $(tail -3 make.out)"
	gen c.kft --cut 1500
	gen d.kft --corrupt 1
	gen e.kft -c 1048576 --corrupt 0
	gen m.kft --corrupt-meta
	gen s.kft -s
	head -c 100000 /dev/urandom >random
	for f in c.kft d.kft; do
		for o in "" --summary --events --info -j --folded; do
			t_expect_exit 0 "$kd" $o "$f"
		done
	done
	t_expect_exit 0 "$kd" s.kft --events
	t_expect_exit 0 "$kd" s.kft
	for f in e.kft m.kft random; do
		t_expect_exit 1 "$kd" "$f"
	done
	# no readable chunk: --events sorted nothing (qsort(NULL, 0) before)
	t_expect_exit 1 "$kd" --events e.kft
	gen dup.kft --dup-chunk 2
	for o in "" --events --info "--perfetto p.json"; do
		# shellcheck disable=SC2086 # the option's words
		t_expect_exit 0 "$kd" $o dup.kft
	done
	t_expect_exit 0 "$kd" s.kft --perfetto sp.json
	"$GEN" --sparse-meta 4294967000 sparse.kft || t_fail "kftgen --sparse-meta"
	t_expect_exit 1 "$kd" sparse.kft
	t_assert_match "$(cat "$T_ERR")" 'does not hold \(a hole\)' "the sparse file refused for its hole"
	# every cut of a small file: a warning or an error, never a crash
	"$GEN" -n 2 -c 256 small.kft || t_fail "kftgen small"
	for ((k = 1; k < $(wc -c <small.kft); k += 37)); do
		head -c "$k" small.kft >cut.kft
		timeout 20 "$kd" --events cut.kft >/dev/null 2>&1
		rc=$?
		case $rc in 0 | 1) ;; *) t_fail "kd on the first $k bytes exited $rc" ;; esac
		timeout 20 "$kd" cut.kft >/dev/null 2>&1
		rc=$?
		case $rc in 0 | 1) ;; *) t_fail "kd's tree of the first $k bytes exited $rc" ;; esac
	done
}

t_run_all
