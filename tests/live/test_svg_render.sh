#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flame graph kfit draws (src/lib/tree/export.c, through the helper
# flamesample's tree of known shape) rendered by headless Chromium
# (tools/svgshot.sh), screenshots read by the helper pngstat: frames are
# on screen where the SVG puts them, in their colours, and a click zooms;
# kd --diff's differential graph too. Not in the VM: it has no Chromium.
. "$(dirname "$0")/../lib.sh"

# flamesample's SVG into $T_TMP/fs.svg; Chromium must be there
sample() {
	command -v chromium >/dev/null ||
		t_skip "no chromium (make deps installs Debian's chromium)"
	[ -x "$KFIT_HELPERS/flamesample" ] || t_fail "no $KFIT_HELPERS/flamesample (make)"
	"$KFIT_HELPERS/flamesample" "$T_TMP/fs.svg" || t_fail "flamesample failed"
}

shoot() {	# SVG PNG
	"$T_REPO/tools/svgshot.sh" "$1" "$2" 2>"$T_TMP/shot.err" ||
		t_fail "svgshot.sh: $(head -c 300 "$T_TMP/shot.err")"
}

# "X Y W R,G,B" of each frame: its rect and fill
frames() {	# SVG
	sed -n 's/.*<rect x="\([0-9.]*\)" y="\([0-9]*\)" width="\([0-9.]*\)" height="15" fill="rgb(\([0-9,]*\))".*/\1 \2 \3 \4/p' "$1"
}

# The "X Y W R,G,B" of the first frame whose title starts with TITLE
frame_titled() {	# SVG TITLE
	grep -F "<title>$2" "$1" | head -n 1 |
		sed -n 's/.*<rect x="\([0-9.]*\)" y="\([0-9]*\)" width="\([0-9.]*\)" height="15" fill="rgb(\([0-9,]*\))".*/\1 \2 \3 \4/p'
}

# The "X Y W R,G,B" of the frame named NAME
frame() {	# SVG NAME
	frame_titled "$1" "$2 ("
}

pixel() {	# PNG X Y -> R,G,B
	"$KFIT_HELPERS/pngstat" "$1" "$2" "$3" | tr ' ' ,
}

# The document with frame K (1: the first <g class="f">) clicked at load
clicked() {	# SVG K OUT
	sed -e 's/ onload="init(evt)"//' \
	    -e "s|^</svg>|<script type=\"text/ecmascript\">init(); zoom(orig[$(($2 - 1))]);</script>\n</svg>|" \
		"$1" >"$3"
}

# Not blank: many colours (text, gradients, frames), a good part of them warm
t_in_vm || test_svg_screenshot() {
	local w h colours warm
	sample
	shoot "$T_TMP/fs.svg" "$T_TMP/fs.png"
	read -r w h colours warm < <("$KFIT_HELPERS/pngstat" "$T_TMP/fs.png") ||
		t_fail "pngstat cannot read the screenshot"
	t_assert_eq "$w" 1200 "screenshot width"
	t_assert_match "$(head -c 600 "$T_TMP/fs.svg")" "height=\"$h\"" "screenshot height"
	[ "$colours" -ge 50 ] || t_fail "the screenshot has $colours colours: blank?"
	[ "$warm" -ge 100 ] || t_fail "$warm pixels per thousand are warm: no flame graph?"
}

# Each frame 4 px wide or more shows its fill 1 px below its top edge, mid-width
t_in_vm || test_svg_frames_on_screen() {
	local x y w rgb px cx n=0 bad=0 why=""
	sample
	shoot "$T_TMP/fs.svg" "$T_TMP/fs.png"
	while read -r x y w rgb; do
		[ "${w%.*}" -ge 4 ] || continue
		cx=$(awk -v x="$x" -v w="$w" 'BEGIN { printf "%d", x + w / 2 }')
		px=$(pixel "$T_TMP/fs.png" "$cx" $((y + 1)))
		n=$((n + 1))
		if [ "$px" != "$rgb" ]; then
			bad=$((bad + 1))
			why="$why ($cx,$((y + 1)): $px, not $rgb)"
		fi
	done < <(frames "$T_TMP/fs.svg")
	[ "$n" -ge 30 ] || t_fail "only $n frames checked"
	grep -qF '<title>[irq] softirq NET_RX (' "$T_TMP/fs.svg" ||
		t_fail "no frame [irq] softirq NET_RX"
	[ "$bad" = 0 ] || t_fail "$bad of $n frames not on screen:$why"
}

# Clicking ngx_gzip_compress (zoom() as its onclick calls it): it and its
# ancestors span the width, the frames beside it are gone
t_in_vm || test_svg_zoom() {
	local gx gy gw grgb cx cy cw crgb mx my mw mrgb k
	sample
	read -r gx gy gw grgb <<<"$(frame "$T_TMP/fs.svg" ngx_gzip_compress)"
	read -r cx cy cw crgb <<<"$(frame "$T_TMP/fs.svg" ngx_thread_pool_cycle)"
	read -r mx my mw mrgb <<<"$(frame "$T_TMP/fs.svg" main)"
	[ -n "$grgb" ] && [ -n "$crgb" ] && [ -n "$mrgb" ] ||
		t_fail "frames ngx_gzip_compress, ngx_thread_pool_cycle, main not found"
	t_assert_eq "$my" "$cy" "main and ngx_thread_pool_cycle on one row"
	# the click, at load: init() then zoom() on frame number k of the list
	k=$(grep '<g class="f">' "$T_TMP/fs.svg" | grep -n '<title>ngx_gzip_compress (' | cut -d: -f1)
	clicked "$T_TMP/fs.svg" "$k" "$T_TMP/zoom.svg"
	shoot "$T_TMP/zoom.svg" "$T_TMP/zoom.png"
	shoot "$T_TMP/fs.svg" "$T_TMP/fs.png"
	# before: main at the left of its row, gzip right of the middle
	t_assert_eq "$(pixel "$T_TMP/fs.png" 20 $((my + 1)))" "$mrgb" "main before the zoom"
	[ "$(pixel "$T_TMP/fs.png" 20 $((gy + 1)))" != "$grgb" ] ||
		t_fail "gzip at the left edge before the zoom"
	# after: the ancestor over main's place, gzip from the left edge to the right one
	t_assert_eq "$(pixel "$T_TMP/zoom.png" 20 $((my + 1)))" "$crgb" "the ancestor stretched"
	t_assert_eq "$(pixel "$T_TMP/zoom.png" 20 $((gy + 1)))" "$grgb" "gzip at the left edge"
	t_assert_eq "$(pixel "$T_TMP/zoom.png" 1180 $((gy + 1)))" "$grgb" "gzip at the right edge"
}

# kd --diff --svg of kftgen's 10 and 20 iterations (tests/cases/kd/diff.case):
# main_loop in its red on screen, "all" white; a click on work zooms with
# the names as labels, not the titles' figures
t_in_vm || test_svg_diff() {
	local x y w rgb k
	command -v chromium >/dev/null ||
		t_skip "no chromium (make deps installs Debian's chromium)"
	"$KFIT_HELPERS/kftgen" -n 10 a.kft && "$KFIT_HELPERS/kftgen" -n 20 b.kft ||
		t_fail "kftgen failed"
	"$KFIT_BIN/kd" --diff a.kft b.kft --svg d.svg >/dev/null || t_fail "kd --diff --svg failed"
	shoot d.svg d.png
	read -r x y w rgb <<<"$(frame_titled d.svg 'main_loop: before ')"
	t_assert_eq "$rgb" 255,150,150 "main_loop's fill"
	t_assert_eq "$(pixel d.png 600 $((y + 1)))" "$rgb" "main_loop on screen"
	t_assert_eq "$(pixel d.png 600 $((y + 17)))" 255,255,255 "all on screen, white"
	k=$(grep '<g class="f">' d.svg | grep -n '<title>work: before 3' | cut -d: -f1)
	[ -n "$k" ] || t_fail "no frame main_loop;work"
	clicked d.svg "$k" z.svg
	"$T_REPO/tools/svgshot.sh" --dom z.svg z.dom 2>"$T_TMP/shot.err" ||
		t_fail "svgshot.sh --dom: $(head -c 300 "$T_TMP/shot.err")"
	t_assert_match "$(cat z.dom)" '<text x="13\.0" y="[0-9.]+">main_loop</text>' "main_loop's label"
	t_assert_match "$(cat z.dom)" '<text x="13\.0" y="[0-9.]+">work</text>' "work's label, zoomed"
	t_assert_no_match "$(grep -o '<text x="[^>]*>[^<]*' z.dom)" 'before' "a label with the title's figures"
}

t_run_all
