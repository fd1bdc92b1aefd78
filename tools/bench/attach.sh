#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: how fast funcdur attaches and detaches many functions.
# On this host only uprobes attach (fentry and kprobes are refused), so the
# kernel mechanisms are measured in the VM, on Debian's 6.1 and 6.12, and
# uprobes on both sides give the emulation's slowdown for attaching.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT

# The yardstick's functions: funcdur's own kfit_* in a copy nobody runs
# (funcdur refuses its own program system-wide: it would trace itself)
host() {
	local copy
	copy=$(mktemp -d "${TMPDIR:-/tmp}/kfit-attach.XXXXXX") || return 1
	cp "$top/build/bin/funcdur" "$copy/fdcopy" || return 1
	echo "== attach and detach, on this host ($(uname -r)): uprobes =="
	"$here/attach-header.sh"
	PATH="$top/build/bin:$PATH" "$here/attach-run.sh" "uprobes (yardstick)" \
		--attach uprobe-single "$copy/fdcopy:kfit_*"
	PATH="$top/build/bin:$PATH" "$here/attach-run.sh" "uprobe_multi" \
		"$copy/fdcopy:kfit_*"
	rm -rf "$copy"
}

vm() {	# SERIES: its rows also in $out.SERIES
	"$top/tools/vm/kfit-vm" --kernel "$1" run --timeout 1500 -- \
		bash /kfit/tools/bench/attach-vm.sh 2>&1 | grep -v '^kfit-vm:' | tee "$out.$1"
	return "${PIPESTATUS[0]}"
}

# The goal: --attach auto starts and ends 33 functions (just past its
# crossover) no slower than the faster mechanism (wall time, attach to
# detach, both in the same VM run)
auto_goal() {	# SERIES
	local a f k
	a=$(awk '/^auto, 33 / { print $NF }' "$out.$1")
	f=$(awk '/^fentry, 33 / { print $NF }' "$out.$1")
	k=$(awk '/^kprobe_multi, 33 / { print $NF }' "$out.$1")
	[ -n "$a" ] && [ -n "$f" ] && [ -n "$k" ] || return 0	# no kprobe_multi here
	bench_goal "funcdur --attach auto" "33 functions, wall / the faster's ($1 VM)" \
		"$(bench_ratio "$a" "$(awk -v f="$f" -v k="$k" 'BEGIN { print f < k ? f : k }')")" 1.10 \
		"kprobe_multi ${k} s, fentry ${f} s" "-"
}

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "attach bench: qemu-system-x86_64 missing (make deps)" >&2
	exit 1
fi
make -s -C "$top" STATIC=1 >/dev/null || exit 1
status=0
host || status=1
for k in 6.1 6.12; do
	echo
	vm "$k" || status=1
	auto_goal "$k"
done
exit $status
