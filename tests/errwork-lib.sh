# SPDX-License-Identifier: GPL-2.0
# A workload whose system calls fail as known (callgraph --errors and
# funcdur --errors against strace): an open of a file not there (ENOENT),
# a create on a read-only bind mount (EROFS), writes into a full 64 KiB
# tmpfs (ENOSPC). Sourced after tests/lib.sh; root.
# shellcheck shell=bash

# Mounts under $T_TMP/errw, unmounted on every exit; sets ERRW (sh -c's script)
errw_setup() {
	local d=$T_TMP/errw
	mkdir -p "$d/src" "$d/ro" "$d/full" || t_fail "mkdir under $d"
	mount --bind "$d/src" "$d/ro" || t_fail "mount --bind $d/src $d/ro"
	t_on_exit "umount '$d/ro' 2>/dev/null"
	mount -o remount,bind,ro "$d/ro" || t_fail "remount $d/ro read-only"
	mount -t tmpfs -o size=64k errw "$d/full" || t_fail "mount a 64k tmpfs on $d/full"
	t_on_exit "umount '$d/full' 2>/dev/null"
	ERRW="cat /nonexistent-errw 2>/dev/null; true > $d/ro/x 2>/dev/null;
head -c 200000 /dev/zero > $d/full/f 2>/dev/null; true"
}

# The failed calls of `strace -f -e trace=$1 sh -c "$ERRW"`: a line per
# task, its failures in order ("openat:ENOENT write:ENOSPC"), the lines sorted
errw_strace_fails() {	# syscalls (strace's -e trace=)
	command -v strace >/dev/null || t_fail "strace not installed (make deps)"
	strace -f -qq -e trace="$1" -o "$T_TMP/strace.out" sh -c "$ERRW" \
		>/dev/null 2>&1 || t_fail "the workload failed under strace"
	# a call and its result on one line, or on a "resumed" one under -f
	sed -n -E 's/^([0-9]+) +(<\.\.\. )?([a-z0-9_]+)(\(| resumed>).* = -1 (E[A-Z0-9]+) .*/\1 \3:\5/p' \
		"$T_TMP/strace.out" |
		awk '{ s[$1] = s[$1] (s[$1] == "" ? "" : " ") $2 } END { for (p in s) print s[p] }' |
		sort
}
