#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line every tool shares: -h, -V, unknown options, and the
# shared flags' letters meaning the same thing in every tool.
. "$(dirname "$0")/../lib.sh"

# The shared flags (src/lib/base/opts.h): letter and long name
SHARED="p:pid t:tid C:cpu d:duration i:interval j:json T:timestamp
v:verbose h:help V:version"

# The tools: every executable in KFIT_BIN
tools() {
	local f
	for f in "$KFIT_BIN"/*; do
		[ -f "$f" ] && [ -x "$f" ] && echo "$f"
	done
}

need_tools() {
	[ -d "$KFIT_BIN" ] || t_fail "KFIT_BIN=$KFIT_BIN is not a directory"
	[ -n "$(tools)" ] || t_fail "no tools in $KFIT_BIN"
}

test_help() {
	need_tools
	local t
	for t in $(tools); do
		t_expect_exit 0 "$t" -h
		t_assert_match "$(cat "$T_OUT")" '^Usage: ' "$(basename "$t") -h on stdout"
		t_expect_exit 0 "$t" --help
		t_assert_match "$(cat "$T_OUT")" '^Usage: ' "$(basename "$t") --help on stdout"
	done
}

# -h fits 80 columns and ends with examples of the tool's use
test_help_fits_80_columns() {
	need_tools
	local t name wide
	for t in $(tools); do
		name=$(basename "$t")
		t_expect_exit 0 "$t" -h
		wide=$(awk 'length($0) > 80 { printf "%d: %s\n", length($0), $0 }' "$T_OUT")
		[ -z "$wide" ] || t_fail "$name -h: lines wider than 80 columns:
$wide"
		sed -n '/^Examples:$/,$p' "$T_OUT" | grep -q "^  $name " ||
			t_fail "$name -h: no 'Examples:' with a '$name ...' line"
	done
}

test_version() {
	need_tools
	local t
	for t in $(tools); do
		t_expect_exit 0 "$t" -V
		t_assert_match "$(cat "$T_OUT")" '[0-9]+\.[0-9]+' "$(basename "$t") -V"
		t_expect_exit 0 "$t" --version
	done
}

test_unknown_option() {
	need_tools
	local t
	for t in $(tools); do
		t_expect_exit 2 "$t" --no-such-option
		[ -s "$T_ERR" ] || t_fail "$(basename "$t") --no-such-option: nothing on stderr"
		[ -s "$T_OUT" ] && t_fail "$(basename "$t") --no-such-option: output on stdout"
		t_expect_exit 2 "$t" -Q
	done
}

# "LETTER LONG" for each "-X, --long" line of a tool's --help (a wrapped
# description goes on under its column, further in)
help_flags() {	# tool
	"$1" --help 2>/dev/null |
		sed -nE 's/^  -([A-Za-z]), --([A-Za-z][-A-Za-z0-9]*).*/\1 \2/p'
}

# Long-only options of a tool's --help: "--long" lines without a letter
help_long_only() {	# tool
	"$1" --help 2>/dev/null |
		sed -nE 's/^      --([A-Za-z][-A-Za-z0-9]*).*/\1/p'
}

test_help_lists_flags() {
	need_tools
	local t
	for t in $(tools); do
		[ -n "$(help_flags "$t")" ] ||
			t_fail "$(basename "$t") --help: no '-X, --long' option lines"
	done
}

# A shared letter always comes with its shared long name, and a shared long
# name always with its letter, in every tool
test_shared_flags_same_everywhere() {
	need_tools
	local t name pair letter long got
	for t in $(tools); do
		name=$(basename "$t")
		help_flags "$t" >"$name.flags"
		help_long_only "$t" >"$name.long"
		for pair in $SHARED; do
			letter=${pair%%:*} long=${pair#*:}
			got=$(awk -v l="$letter" '$1 == l { print $2 }' "$name.flags")
			[ -z "$got" ] || [ "$got" = "$long" ] ||
				t_fail "$name: -$letter is --$got, elsewhere it is --$long"
			got=$(awk -v n="$long" '$2 == n { print $1 }' "$name.flags")
			[ -z "$got" ] || [ "$got" = "$letter" ] ||
				t_fail "$name: --$long is -$got, elsewhere it is -$letter"
			grep -qx -- "$long" "$name.long" &&
				t_fail "$name: --$long has no -$letter"
		done
	done
	# every tool has -h, -V and -v
	for t in $(tools); do
		name=$(basename "$t")
		for letter in h V v; do
			awk -v l="$letter" '$1 == l { f = 1 } END { exit !f }' "$name.flags" ||
				t_fail "$name --help does not list -$letter"
		done
	done
}

t_run_all
