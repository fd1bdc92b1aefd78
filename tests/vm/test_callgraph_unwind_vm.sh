#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sampled mode's unwound user stacks on Debian's stock kernels (in the VM):
# the BPF side (user registers from the sample or from the task's saved
# ones, the stack's top copied) loads and runs there, and deepstack's
# stacks (static here, without frame pointers: a 44-frame chain, a signal
# handler, recursion) come out whole, to _start, frame for frame as the
# program calls. tests/live/test_callgraph_unwind.sh checks them against
# gdb and perf on the host.
# shellcheck disable=SC2016 # awk programs in single quotes
. "$(dirname "$0")/../lib.sh"

export LC_ALL=C
CG="$KFIT_BIN/callgraph"
DS="$KFIT_HELPERS/deepstack"

need_vm() {
	t_in_vm || t_skip "runs in the VM only (tools/vm/kfit-vm test)"
	[ -x "$CG" ] || t_fail "$CG not built (make STATIC=1)"
	[ -x "$DS" ] || t_fail "$DS not built (make STATIC=1)"
}

# `deepstack SCENARIO 0.4` sampled (0.4 s of CPU: some 80 samples, and
# seconds of emulation): folded.txt; every stack of spin whole
sample_ds() {	# SCENARIO
	"$CG" -S 199 --folded --output folded.txt -- "$DS" "$1" 0.4 2>err.txt ||
		{ cat err.txt; t_fail "callgraph -- deepstack $1 failed"; }
	grep -q ';spin ' folded.txt || { cat folded.txt; t_fail "$1: no stack of spin"; }
	grep ';spin [0-9]*$' folded.txt | grep -v '^deepstack;_start;' &&
		t_fail "$1: stacks of spin not whole"
	true
}

test_chain_whole() {
	need_vm
	sample_ds chain
	t_assert_match "$(cat folded.txt)" \
		'^deepstack;_start;.*;main;c00;c01;c02;c03;c04;c05;c06;c07;c08;c09;c10;c11;c12;c13;c14;c15;c16;c17;c18;c19;c20;c21;c22;c23;c24;c25;c26;c27;c28;c29;c30;c31;c32;c33;c34;c35;c36;c37;c38;c39;c40;c41;spin [0-9]+$' \
		"the 44-frame chain on $(uname -r)"
}

test_signal_whole() {
	need_vm
	sample_ds signal
	t_assert_match "$(cat folded.txt)" '^deepstack;_start;.*;main;s_a;s_b;s_loop;.*;on_prof;h_a;spin [0-9]+$' \
		"the handler over the interrupted stack on $(uname -r)"
}

test_recursion_whole() {
	need_vm
	sample_ds recurse
	t_assert_match "$(grep ';spin [0-9]*$' folded.txt | head -1 | tr ';' '\n' | grep -c '^rec$')" '^40$' \
		"40 frames of rec (the 41st a tail call) on $(uname -r)"
}

t_run_all
