#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# funcdur's cost per call against libbpf-tools' funclatency and the floor.
# Host: wall time per call of an empty user function (uprobes), untraced,
# under an empty uprobe/uretprobe pair (bpftrace), funcdur and funclatency.
# VM (Debian's kernel, TCG: wall times are distorted there): BPF run time
# per call of funcdur and funclatency on the same kernel function, in
# instructions (bench_vm_counted) unless BENCH_VM_ICOUNT is empty.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
CALLS=${BENCH_CALLS:-200000}
LOOP=$HELPERS/callloop
tmp=$(mktemp -d)
tracer=""

cleanup() {
	[ -n "$tracer" ] && kill -INT "$tracer" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ns_per_call() {
	"$LOOP" "$CALLS" | awk '{ print $4 }'
}

# under NAME MINPROGS CMD...: start a tracer, wait until it attached, time the loop
under() {
	local name=$1 min=$2 ns
	shift 2
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	tracer=$!
	if ! bench_wait_progs "$tracer" "$min" 20; then
		cat "$tmp/$name.err" >&2
		return 1
	fi
	sleep 0.5
	ns=$(ns_per_call)
	kill -INT "$tracer"
	wait "$tracer" 2>/dev/null
	tracer=""
	echo "$ns"
}

host() {
	local base floor fd fl
	base=$(ns_per_call)
	floor=$(under floor 2 bpftrace -e "uprobe:$LOOP:cl_empty {} uretprobe:$LOOP:cl_empty {}") || return 1
	fd=$(under funcdur 2 "$BIN/funcdur" "$LOOP:cl_empty") || return 1
	fl=$(under funclatency 2 funclatency "$LOOP:cl_empty") || return 1
	echo "== funcdur, user function (uprobes), host: $CALLS calls of an empty function =="
	printf '%-28s %12s %14s\n' TRACER "NS/CALL" "ADDED NS/CALL"
	printf '%-28s %12s %14s\n' "untraced" "$base" 0
	for r in "empty uprobe pair:$floor" "funcdur:$fd" "funclatency:$fl"; do
		printf '%-28s %12s %14s\n' "${r%%:*}" "${r#*:}" \
			"$(awk -v a="${r#*:}" -v b="$base" 'BEGIN { printf "%.1f", a - b }')"
	done
	echo "ratio of added cost: funcdur/funclatency $(bench_ratio "$(awk -v a="$fd" -v b="$base" 'BEGIN { print a - b }')" "$(awk -v a="$fl" -v b="$base" 'BEGIN { print a - b }')")," \
		"funcdur/floor $(bench_ratio "$(awk -v a="$fd" -v b="$base" 'BEGIN { print a - b }')" "$(awk -v a="$floor" -v b="$base" 'BEGIN { print a - b }')")"
}

# Return values (issue 20): BPF time per call of funcdur alone, with --by ret
# (a row per value: a hash map's entry per call) and with --errors (the
# calls that did not fail rejected), on the same system call
rets() {
	local n=$CALLS load="dd if=/dev/zero of=/dev/null bs=1 count=$CALLS 2>/dev/null" r
	bench_stats_on
	echo "== funcdur, return values, host: $n write system calls of dd (tracepoints) =="
	printf '%-24s %6s %10s %12s %12s\n' TRACER PROGS "BPF RUNS" "BPF NS" "NS/CALL"
	for r in "funcdur:" "funcdur --by ret:--by ret" "funcdur --errors:--errors"; do
		# shellcheck disable=SC2086
		bench_bpf_per_call "${r%%:*}" "$n" "$load" "$BIN/funcdur" ${r#*:} sys:write ||
			{ bench_stats_restore; return 1; }
	done | tee "$tmp/rets"
	bench_stats_restore
	awk '{ v[NR] = $NF } END {
		printf "ratio of BPF time per call to funcdur alone: --by ret %.2f, --errors %.2f\n",
			v[2] / v[1], v[3] / v[1] }' "$tmp/rets"
}

# arg_one VARIANT LOAD FUNCDUR-ARGS...: "VARIANT NS/CALL", or fail
arg_one() {
	local v=$1 load=$2 r
	shift 2
	r=$(bench_bpf_per_call "$v" "$CALLS" "$load" "$BIN/funcdur" "$@") || return 1
	echo "$v ${r##* }"
}

# One round of the argument variants: "VARIANT NS/CALL" lines
args_round() {
	local dd="dd if=/dev/zero of=/dev/null bs=1 count=$CALLS 2>/dev/null"
	arg_one sys "$dd" sys:write &&
	arg_one sys-ints "$dd" 'sys:write(fd, count)' &&
	arg_one sys-str "$dd" 'sys:write(fd, buf:str, count)' &&
	arg_one sys-by "$dd" --by count 'sys:write(fd, count)' &&
	arg_one sys-ev "$dd" --events 'sys:write(fd, count)' &&
	arg_one sys-frej "$dd" --filter 'count > 100' 'sys:write(fd, count)' &&
	arg_one sys-fpass "$dd" --filter 'count >= 1 && fd == 1' 'sys:write(fd, count)' &&
	arg_one user "$LOOP $CALLS" "$LOOP:cl_empty" &&
	arg_one user-ints "$LOOP $CALLS" "$LOOP:cl_empty(x)"
}

# Arguments (issue 20): BPF time per call with arguments captured against
# funcdur alone on the same calls, medians of 5 interleaved rounds: two
# integers of a system call, a string (read from user memory), --by an
# argument (a hash map's entry per call), --filter rejecting and passing
# every call, and a uprobe's int parameter (DWARF)
args() {
	local k
	bench_stats_on
	for k in 1 2 3 4 5; do
		args_round || { bench_stats_restore; return 1; }
	done >"$tmp/args"
	bench_stats_restore
	echo "== funcdur, arguments, host: $CALLS calls, BPF ns per call (median of 5) =="
	sort -k1,1 -k2,2n "$tmp/args" | awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
		END {
			split("sys sys-ints sys-str sys-by sys-ev sys-frej sys-fpass user user-ints", order, " ")
			for (i = 1; i <= 9; i++) { k = order[i]; split(v[k], x, " "); m[k] = x[3] }
			printf "%-40s %12s %8s\n", "TARGET", "NS/CALL", "RATIO"
			printf "%-40s %12.1f %8s\n", "sys:write", m["sys"], "1.00"
			printf "%-40s %12.1f %8.2f\n", "sys:write(fd, count)", m["sys-ints"], m["sys-ints"] / m["sys"]
			printf "%-40s %12.1f %8.2f\n", "sys:write(fd, buf:str, count)", m["sys-str"], m["sys-str"] / m["sys"]
			printf "%-40s %12.1f %8.2f\n", "--by count sys:write(fd, count)", m["sys-by"], m["sys-by"] / m["sys"]
			printf "%-40s %12.1f %8.2f\n", "--events (each call recorded)", m["sys-ev"], m["sys-ev"] / m["sys"]
			printf "%-40s %12.1f %8.2f\n", "--filter rejecting every call", m["sys-frej"], m["sys-frej"] / m["sys"]
			printf "%-40s %12.1f %8.2f\n", "--filter passing every call", m["sys-fpass"], m["sys-fpass"] / m["sys"]
			printf "%-40s %12.1f %8s\n", "callloop:cl_empty (uprobe)", m["user"], "1.00"
			printf "%-40s %12.1f %8.2f\n", "callloop:cl_empty(x)", m["user-ints"], m["user-ints"] / m["user"]
			printf "goal: capturing adds at most 15%%: two integers %s (sys %.2f, uprobe %.2f)\n",
				(m["sys-ints"] <= 1.15 * m["sys"] && m["user-ints"] <= 1.15 * m["user"]) ? "met" : "NOT met",
				m["sys-ints"] / m["sys"], m["user-ints"] / m["user"]
			printf "goal: a filter that rejects costs less than recording each call (--events): %s (%.1f ns, %.1f ns)\n",
				m["sys-frej"] < m["sys-ev"] ? "met" : "NOT met", m["sys-frej"], m["sys-ev"]
		}'
}

vm() {
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "funcdur VM bench: qemu-system-x86_64 missing (make deps)" >&2
		return 1
	fi
	make -s -C "$top" STATIC=1 >/dev/null || return 1
	bench_vm_counted 1200 /kfit/tools/bench/funcdur-vm.sh
}

# BENCH_FUNCDUR: the parts to run, all by default
for part in ${BENCH_FUNCDUR:-host rets args vm}; do
	"$part" || exit 1
	echo
done
