#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The manual: a page per tool in docs/ whose OPTIONS list exactly what the
# tool's -h lists, and the man pages make man builds from them.
. "$(dirname "$0")/../lib.sh"

TOOLS="tracecheck softirqlat funcdur pmcstat callgraph kd bootsum"
DOCS=$(cd "$(dirname "$0")/../../docs" && pwd)

# -x and --long at the start of -h's option lines, one per line, sorted
help_opts() {	# TOOL
	"$KFIT_BIN/$1" -h | grep -E '^ {2,6}-' |
		sed -E 's/^ +//; s/  .*//; s/ [A-Z][A-Z,:]*//g' | tr ',' '\n' |
		sed -E 's/^ +//; s/=.*//; s/ .*//' | grep -E '^-' | sort -u
}

# The same from the page: the backticked -x/--long of the term lines of its
# OPTIONS section (a term line starts with a backtick)
page_opts() {	# PAGE
	awk '/^# /{ on = ($0 == "# OPTIONS") } on && /^`/' "$1" |
		grep -oE '`--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d '`' | sort -u
}

test_pages_list_the_options() {
	local t page missing extra
	[ -d "$KFIT_BIN" ] || t_fail "KFIT_BIN=$KFIT_BIN is not a directory"
	for t in $TOOLS; do
		page=$DOCS/$t.md
		[ -f "$page" ] || t_fail "no page $page"
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT EXAMPLES LIMITS "SEE ALSO"; do
			grep -qx "# $s" "$page" || t_fail "$t.md has no '# $s' section"
		done
		[ -n "$(help_opts "$t")" ] || t_fail "no option read from $t -h"
		missing=$(comm -23 <(help_opts "$t") <(page_opts "$page") | tr '\n' ' ')
		extra=$(comm -13 <(help_opts "$t") <(page_opts "$page") | tr '\n' ' ')
		t_assert_eq "$missing" "" "$t: options of -h missing from docs/$t.md"
		t_assert_eq "$extra" "" "$t: options on docs/$t.md that -h does not list"
	done
}

# make man: one page per tool, rendered by man without a warning
test_man_pages() {
	local t out=$T_TMP/man w
	command -v pandoc >/dev/null || t_skip "no pandoc (make deps-test installs it)"
	command -v man >/dev/null || t_skip "no man (make deps-test installs man-db)"
	for t in $TOOLS; do
		pandoc -s -t man "$DOCS/$t.md" -o "$out.$t.8" || t_fail "pandoc failed on $t.md"
		w=$(MANWIDTH=80 man --warnings -l "$out.$t.8" 2>&1 >"$out.$t.txt")
		t_assert_eq "$w" "" "man's warnings on kfit-$t.8"
		t_assert_match "$(head -n 1 "$out.$t.txt")" "KFIT-${t^^}\\(8\\)" "kfit-$t.8's header"
		t_assert_match "$(cat "$out.$t.txt")" '^SYNOPSIS' "kfit-$t.8's SYNOPSIS"
		t_assert_match "$(cat "$out.$t.txt")" '^OPTIONS' "kfit-$t.8's OPTIONS"
	done
}

t_run_all
