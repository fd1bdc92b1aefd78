#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM: attaching some 500 kernel functions (BENCH_GLOBS) with
# fentry, a kprobe pair per function and kprobe_multi (where the kernel has
# it), and uprobes on funcdur's own kfit_* functions as the yardstick of
# emulation (tools/bench/attach.sh measures those on the host too).
set -u
here=$(cd "$(dirname "$0")" && pwd)
GLOBS=${BENCH_GLOBS:-'tcp_* inet_* ipv4_* udp_*'}
FD=$(command -v funcdur)

echo "== attach and detach, in the VM ($(uname -r), TCG): $GLOBS =="
"$here/attach-header.sh"
set -f
"$here/attach-run.sh" "fentry" --attach fentry $GLOBS
"$here/attach-run.sh" "kprobe pair per function" --attach kprobe-single $GLOBS
if grep -q ' register_fprobe_ips$' /proc/kallsyms; then
	"$here/attach-run.sh" "kprobe_multi" --attach kprobe-multi $GLOBS
else
	echo "kprobe_multi: not in this kernel (no fprobe)"
fi
# a copy nobody runs: funcdur refuses its own program system-wide
cp "$FD" /tmp/fdcopy || exit 1
"$here/attach-run.sh" "uprobes (yardstick)" --attach uprobe-single "/tmp/fdcopy:kfit_*"

# The crossover --attach auto goes by (src/live/attach.c, KFIT_AUTO_MULTI):
# fentry and kprobe_multi attaching the first N traceable tcp_ functions
if grep -q ' register_fprobe_ips$' /proc/kallsyms; then
	funcs=$(grep -oE '^tcp_[a-z0-9_]+$' /sys/kernel/tracing/available_filter_functions |
		sort -u | head -n 256)
	echo "== attach time by number of functions, in the VM: fentry and kprobe_multi =="
	"$here/attach-header.sh"
	for n in 1 4 16 32 64 128 256; do
		# shellcheck disable=SC2086
		set -- $(printf '%s\n' "$funcs" | head -n "$n")
		"$here/attach-run.sh" "fentry, $n" --attach fentry "$@"
		"$here/attach-run.sh" "kprobe_multi, $n" --attach kprobe-multi "$@"
	done
	# Just past the crossover: auto against each mechanism (attach.sh's goal)
	# shellcheck disable=SC2086
	set -- $(printf '%s\n' "$funcs" | head -n 33)
	"$here/attach-run.sh" "fentry, 33" --attach fentry "$@"
	"$here/attach-run.sh" "kprobe_multi, 33" --attach kprobe-multi "$@"
	"$here/attach-run.sh" "auto, 33" "$@"
fi
