#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The source tree as a new user meets it: the packages each make target
# installs (make demo only the build's), no run's leftovers tracked at the
# top (gmon.out, recordings, perf.data, core) and such files ignored, and
# README's first screen pasteable (sudo resets PATH) with KFI and FKT said.
. "$(dirname "$0")/../lib.sh"

TOP=$(cd "$(dirname "$0")/../.." && pwd)

need_tree() {
	[ -f "$TOP/Makefile" ] && [ -f "$TOP/README.md" ] || t_skip "no source tree at $TOP"
	command -v make >/dev/null || t_skip "no make"
}

# The packages `make -n TARGET` would check for (and install when missing)
pkgs_of() {	# target
	make -s -n -C "$TOP" "$1" 2>/dev/null |
		sed -n 's/.*for p in \(.*\); do.*/\1/p' | tr ' ' '\n' | grep . | sort -u
}

has() { grep -qx -- "$2" <<<"$1"; }	# LIST PKG

test_demo_installs_build_packages_only() {
	need_tree
	local demo p
	demo=$(pkgs_of demo)
	[ -n "$demo" ] || t_fail "make -n demo checks no package"
	for p in clang libbpf-dev bpftool libelf-dev; do
		has "$demo" "$p" || t_fail "make demo does not install $p: $(echo $demo)"
	done
	for p in chromium qemu-system-x86 libcmocka-dev libbpf-tools trace-cmd bpftrace uftrace; do
		has "$demo" "$p" && t_fail "make demo installs $p (a test or benchmark package)"
	done
	return 0
}

test_check_bench_deps_packages() {
	need_tree
	local check bench deps p
	check=$(pkgs_of check)
	bench=$(pkgs_of bench)
	deps=$(pkgs_of deps)
	for p in clang chromium qemu-system-x86 libcmocka-dev strace uftrace golang-go \
		prometheus libmicrohttpd-dev; do
		has "$check" "$p" || t_fail "make check does not install $p"
	done
	for p in clang libbpf-tools trace-cmd bpftrace linux-perf time; do
		has "$bench" "$p" || t_fail "make bench does not install $p"
	done
	# make deps (what .ci/run calls) installs what check and bench do
	for p in $check $bench; do
		has "$deps" "$p" || t_fail "make deps does not install $p (make check or bench does)"
	done
}

test_no_leftovers_tracked() {
	need_tree
	command -v git >/dev/null || t_skip "no git"
	git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || t_skip "$TOP is no git work tree"
	local tracked f
	tracked=$(git -C "$TOP" ls-files | grep -E '^(gmon\.out|[^/]*\.kft|perf\.data.*|core)$')
	[ -z "$tracked" ] || t_fail "run leftovers tracked at the top: $(echo $tracked)"
	for f in gmon.out pc.kft trace.kft perf.data perf.data.old core; do
		git -C "$TOP" check-ignore -q --no-index "$f" || t_fail "$f at the top is not ignored"
	done
	# only at the top: the tests' fixtures may be such files
	git -C "$TOP" check-ignore -q --no-index tests/fixtures/x.kft &&
		t_fail "*.kft ignored below the top too"
	return 0
}

# The section "On a fresh machine" and what comes before it
first_screen() { sed -n '1,/^## Flags every tool shares/p' "$TOP/README.md"; }

test_readme_first_screen() {
	need_tree
	local screen tools t line installed=
	screen=$(first_screen)
	tools=$(sed -n 's/^TOOLS := //p' "$TOP/Makefile")
	[ -n "$tools" ] || t_fail "no TOOLS in the Makefile"
	# a bare `sudo TOOL` is pasteable only once make install has put TOOL on root's PATH
	while IFS= read -r line; do
		case $line in
		*"sudo make install"*) installed=1 ;;
		esac
		for t in $tools; do
			case $line in
			*"sudo $t "*|*"sudo $t")
				[ -n "$installed" ] ||
					t_fail "README: '$line' before any 'sudo make install' (sudo resets PATH)"
				;;
			esac
		done
	done <<<"$screen"
	grep -q 'sudo build/bin/' <<<"$screen" || t_fail "README's first screen never shows sudo build/bin/TOOL"
	grep -q 'make install' <<<"$screen" || t_fail "README's first screen never says make install"
	t_assert_match "$screen" '^- KFI \(' "KFI explained"
	t_assert_match "$screen" '^- FKT \(' "FKT explained"
}

t_run_all
