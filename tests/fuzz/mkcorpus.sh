#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/fuzz/mkcorpus.sh OUT: the seeds too big to commit, generated into
# OUT/NAME (the harnesses' working corpora, build/fuzz/corpus):
#   elf: tests/helpers/symtarget.c built PIE and not, with and without a
#        build-id, stripped, and its debug file (a few KiB each); with
#        DWARF (-g); tests/helpers/uparams.c with DWARF (its parameters'
#        types)
#   kft: kd's test files (build/tests/kftgen, the library's writer: exact
#        and sampled, cut short, a chunk duplicated) and, where callgraph -o works (root,
#        build/bin/callgraph built), real ones: a program's calls with
#        events, system calls with arguments, sampled stacks; each also
#        with its chunks stored
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
if [ ! -e "$out/elf/pie.g" ]; then	# with DWARF: st_die is noreturn
	$cc -O1 -g -fPIE -pie "$top/tests/helpers/symtarget.c" -o "$out/elf/pie.g"
fi
if [ ! -e "$out/elf/uparams.g" ]; then
	$cc -O1 -g "$top/tests/helpers/uparams.c" -o "$out/elf/uparams.g"
fi

# Each also with its chunks stored (build/fuzz/kftstore): mutations reach
# the records rather than the zlib streams
mkdir -p "$out/kft"
store() {	# NAME: $tmp/NAME.kft into the corpus, as it is and stored
	cp "$tmp/$1.kft" "$out/kft/$1.kft"
	"$top/build/fuzz/kftstore" "$tmp/$1.kft" "$out/kft/$1-stored.kft"
}
gen=$top/build/tests/kftgen
if [ ! -e "$out/kft/exact.kft" ]; then
	"$gen" -n 6 "$tmp/exact.kft" && store exact
	"$gen" -s -n 8 "$tmp/sampled.kft" && store sampled
	"$gen" -n 6 --cut 300 "$tmp/cut.kft" && store cut
fi
# a chunk copied within the file: the reader leaves the copy out
if [ ! -e "$out/kft/dup.kft" ]; then
	"$gen" -n 6 --dup-chunk 1 "$tmp/dup.kft" && store dup
fi
# Real recordings where this host can make them (root, build/bin/callgraph
# built by make all): a user program's calls with events, and sampled
# stacks. Best effort: the generated ones above are the corpus's floor.
cg=$top/build/bin/callgraph
record() {	# NAME CALLGRAPH-ARGS...
	local name=$1
	shift
	[ -e "$out/kft/$name.kft" ] && return
	timeout 30 "$cg" -o "$tmp/$name.kft" "$@" </dev/null >/dev/null 2>&1 || return 0
	[ -s "$tmp/$name.kft" ] && [ "$(stat -c %s "$tmp/$name.kft")" -le 65536 ] || return 0
	store "$name"
}
if [ -x "$cg" ] && [ "$(id -u)" = 0 ]; then
	st=$top/build/fuzz/symtarget
	record cg-user "$st:*" -e syscalls:sys_enter_write -e sched:sched_process_exec -- "$st"
	record cg-sampled -S 999 -- dd if=/dev/zero of=/dev/null bs=4k count=200000
	# calls with arguments, strings among them: the ARGS block, records' tails
	record cg-args 'sys:openat(dfd, filename, flags)' 'sys:read(fd, count)' -- \
		sh -c 'cat /etc/hostname /nonexistent; true'
fi
