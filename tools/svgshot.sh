#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/svgshot.sh SVG PNG: renders an SVG (a kfit flame graph) into a PNG
# of the SVG's own size with headless Chromium (Debian's chromium; make
# deps installs it). tools/svgshot.sh --dom SVG OUT: the document as its
# scripts left it, as text into OUT (what a click's zoom wrote). Exit 0;
# 1 when it did not render; 2 usage.
set -u

dom=
if [ "${1:-}" = --dom ]; then
	dom=1
	shift
fi
if [ $# -ne 2 ] || [ ! -r "$1" ]; then
	echo "usage: svgshot.sh [--dom] SVG PNG|OUT (SVG a readable file)" >&2
	exit 2
fi
browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "svgshot.sh: no chromium found (apt-get install chromium)" >&2
	exit 1
fi

# The root element's width and height
size=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$1" | head -n 1)
[ -n "$size" ] || size=1200,800
svg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
png=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
profile=$(mktemp -d "${TMPDIR:-/tmp}/svgshot.XXXXXX") || exit 1
trap 'rm -rf "$profile"' EXIT

# A profile of its own, no sandbox (root in a container has none to give)
rm -f "$png"
if [ -n "$dom" ]; then
	timeout -k 5 120 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$profile" --dump-dom "file://$svg" \
		>"$png" 2>"$profile/log"
else
	timeout -k 5 120 "$browser" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --user-data-dir="$profile" \
		--window-size="$size" --screenshot="$png" "file://$svg" \
		>"$profile/log" 2>&1
fi
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$png" ]; then
	echo "svgshot.sh: $browser exited $rc and wrote no $png:" >&2
	tail -n 5 "$profile/log" >&2
	exit 1
fi
exit 0
