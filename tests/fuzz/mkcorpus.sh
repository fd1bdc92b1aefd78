#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/fuzz/mkcorpus.sh OUT: the seeds too big to commit, generated into
# OUT/NAME (the harnesses' working corpora, build/fuzz/corpus):
#   elf: tests/helpers/symtarget.c built PIE and not, with and without a
#        build-id, stripped, and its debug file (a few KiB each)
#   kft: recordings made with the library's writer (build/fuzz/kftgen:
#        zlib and stored chunks, truncated, flight) and, where callgraph -o
#        works (root, build/bin/callgraph built), a real one
# Made once: a seed already there is kept.
set -eu

out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CLANG:-clang}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfit-mkcorpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$out/elf"
if [ ! -e "$out/elf/pie" ]; then
	src=$top/tests/helpers/symtarget.c
	$cc -O1 -fPIE -pie -Wl,--build-id=sha1 "$src" -o "$tmp/pie"
	$cc -O1 -no-pie -Wl,--build-id=none "$src" -o "$tmp/nopie"
	$cc -O1 -shared -fPIC -Wl,--build-id=md5 "$src" -o "$tmp/lib.so"
	objcopy --only-keep-debug "$tmp/pie" "$tmp/pie.debug"
	strip -o "$tmp/pie.stripped" "$tmp/pie"
	cp "$tmp/pie" "$tmp/nopie" "$tmp/lib.so" "$tmp/pie.debug" \
		"$tmp/pie.stripped" "$out/elf/"
fi

mkdir -p "$out/kft"
if [ ! -e "$out/kft/calls.kft" ]; then
	"$top/build/fuzz/kftgen" "$out/kft"
fi
# A real recording, when this host can make one (best effort: the
# generated ones above are the corpus's floor)
cg=$top/build/bin/callgraph
if [ ! -e "$out/kft/callgraph.kft" ] && [ -x "$cg" ] && [ "$(id -u)" = 0 ] &&
   "$cg" -h 2>&1 | grep -q -- '-o'; then
	if timeout 20 "$cg" -o "$tmp/cg.kft" -d 1s -e syscalls:sys_enter_write \
		>/dev/null 2>&1 && [ -s "$tmp/cg.kft" ] &&
	   [ "$(stat -c %s "$tmp/cg.kft")" -le 65536 ]; then
		cp "$tmp/cg.kft" "$out/kft/callgraph.kft"
	fi
fi
