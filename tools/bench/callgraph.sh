#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# callgraph's costs, side by side with what it is compared to (issue 8):
# Host (uprobes): wall time added per user call (cgshape loop: an empty
#   cg_leaf called N times) under an empty uprobe/uretprobe pair
#   (bpftrace), callgraph, and uftrace on the same program built with -pg
#   (cgshape-pg: compiled-in mcount hooks); callgraph's peak RSS for N
#   calls; calls per second streamed with zero loss (cgshape rate, the
#   rate doubled until a loss, or until cgshape cannot go faster).
# VM (Debian's kernel, TCG): BPF run time per traced call of callgraph and
#   funcdur on the same kernel function (tools/bench/callgraph-vm.sh), in
#   instructions (bench_vm_counted) unless BENCH_VM_ICOUNT is empty.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
CALLS=${BENCH_CALLS:-200000}
RUNS=${BENCH_RUNS:-3}		# each wall time: the least of RUNS runs
CG=$BIN/callgraph
CGS=$HELPERS/cgshape
CGSPG=$HELPERS/cgshape-pg
tmp=$(mktemp -d)

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT

# ns per call printed by `cgshape loop N` in FILE
ns_of() { sed -n 's/^cgshape: loop [0-9]*: ns_per_call //p' "$1"; }

# least NAME CMD...: the least ns per call of RUNS runs of CMD (which runs
# cgshape loop, whose line ends up in $tmp/NAME.out)
least() {
	local name=$1 i ns best=""
	shift
	for ((i = 0; i < RUNS; i++)); do
		(cd "$tmp" && "$@") >"$tmp/$name.out" 2>"$tmp/$name.err" || {
			echo "callgraph bench: $name: '$*' failed:" >&2
			tail -n 5 "$tmp/$name.err" >&2
			return 1
		}
		ns=$(ns_of "$tmp/$name.out")
		[ -n "$ns" ] || { echo "callgraph bench: $name: no ns_per_call line" >&2; return 1; }
		best=$(awk -v a="$ns" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$best"
}

# The losses in callgraph's header ("lost N", "lost: N" or "N lost")
lost_of() {
	sed -nE 's/.*[Ll]ost:? ([0-9]+).*/\1/p; s/.*[^0-9]([0-9]+) lost.*/\1/p' "$1" | head -n 1
}

added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

wall() {
	local base basepg floor cg uf rss
	base=$(least base "$CGS" loop "$CALLS") || return 1
	basepg=$(least basepg "$CGSPG" loop "$CALLS") || return 1
	floor=$(least floor bpftrace -e "uprobe:$CGS:cg_leaf {} uretprobe:$CGS:cg_leaf {}" \
		-c "$CGS loop $CALLS") || return 1
	cg=$(least callgraph /usr/bin/time -f 'rss %M' -o "$tmp/rss" \
		"$CG" --summary "$CGS:cg_leaf" -- "$CGS" loop "$CALLS") || return 1
	rss=$(sed -n 's/^rss //p' "$tmp/rss")
	uf=$(least uftrace uftrace record -d "$tmp/uftrace.data" "$CGSPG" loop "$CALLS") || return 1
	echo "== callgraph, user function (uprobes), host $(uname -r): $CALLS calls of an empty function, least of $RUNS runs =="
	printf '%-34s %12s %14s\n' TRACER "NS/CALL" "ADDED NS/CALL"
	printf '%-34s %12s %14s\n' "untraced (cgshape)" "$base" 0
	printf '%-34s %12s %14s\n' "empty uprobe pair (bpftrace)" "$floor" "$(added "$floor" "$base")"
	printf '%-34s %12s %14s\n' "callgraph (uprobes)" "$cg" "$(added "$cg" "$base")"
	printf '%-34s %12s %14s\n' "cgshape-pg untraced (gprof mcount)" "$basepg" "$(added "$basepg" "$base")"
	printf '%-34s %12s %14s\n' "uftrace record (cgshape-pg)" "$uf" "$(added "$uf" "$base")"
	echo "ratio of added cost: callgraph/empty uprobe pair" \
		"$(bench_ratio "$(added "$cg" "$base")" "$(added "$floor" "$base")"), callgraph/uftrace" \
		"$(bench_ratio "$(added "$cg" "$base")" "$(added "$uf" "$base")")"
	echo "callgraph peak RSS for $CALLS calls: ${rss:-?} KiB"
	echo "(uftrace's hooks are compiled in: cheaper per call, but it needs a rebuild"
	echo " with -pg and cannot attach to a running process; callgraph traces any"
	echo " binary as it is, running processes, and kernel and user functions together)"
}

# BPF run time per traced user call on this host (real hardware, unlike
# the VM): callgraph against funcdur, both on cg_leaf, filtered by comm
bpfhost() {
	local f="$tmp/bpf.fd" c="$tmp/bpf.cg" n=$CALLS
	bench_stats_on
	bench_bpf_per_call funcdur "$n" "$CGS loop $n" "$BIN/funcdur" --comm cgshape \
		"$CGS:cg_leaf" >"$f"
	bench_bpf_per_call callgraph "$n" "$CGS loop $n" "$CG" --comm cgshape \
		"$CGS:cg_leaf" >"$c"
	bench_stats_restore
	echo "== callgraph against funcdur, user function cg_leaf (uprobes), host: BPF time, $n calls =="
	printf '%-24s %6s %10s %12s %12s\n' TRACER PROGS "BPF RUNS" "BPF NS" "BPF NS/CALL"
	cat "$f" "$c"
	[ -s "$f" ] && [ -s "$c" ] || return 1
	echo "ratio BPF time per call, callgraph/funcdur: $(bench_ratio "$(awk '{ print $NF }' "$c")" \
		"$(awk '{ print $NF }' "$f")") (goal: at most 1.5)"
}

# Calls per second streamed with zero loss: cgshape rate N RATE under
# callgraph (default ring buffer), RATE doubled from 25000 until a loss,
# or until cgshape reaches less than 90% of RATE (the traced program is
# then the limit, not callgraph)
stream() {
	local rate=25000 n got lost best="" ok
	echo "== callgraph, calls per second streamed (1 s at each rate, default buffer) =="
	printf '%12s %14s %10s %8s\n' RATE REACHED CALLS LOST
	while [ "$rate" -le 16000000 ]; do
		n=$rate
		"$CG" --summary --output "$tmp/rate.out" "$CGS:cg_leaf" -- \
			sh -c 'exec "$0" "$@" >"'"$tmp"'/rate.line"' \
			"$CGS" rate "$n" "$rate" >/dev/null 2>"$tmp/rate.err" || {
			echo "callgraph bench: callgraph failed at $rate calls/s:" >&2
			tail -n 5 "$tmp/rate.err" >&2
			return 1
		}
		got=$(sed -nE 's/^cgshape: rate [0-9]+ [0-9]+: ([0-9]+) calls\/s.*/\1/p' "$tmp/rate.line")
		lost=$(lost_of "$tmp/rate.out")
		n=$(awk '$1 == "cg_leaf" { print $2 }' "$tmp/rate.out")
		printf '%12s %14s %10s %8s\n' "$rate" "${got:-?}" "${n:-?}" "${lost:-?}"
		[ -n "$lost" ] || { echo "callgraph bench: no lost count in the header" >&2; return 1; }
		[ "$lost" = 0 ] || break
		best=$got
		ok=$(awk -v g="$got" -v r="$rate" 'BEGIN { print (g >= 0.9 * r) }')
		[ "$ok" = 1 ] || { echo "(cgshape reached only $got calls/s: the traced program is the limit)"; break; }
		rate=$((rate * 2))
	done
	echo "zero-loss stream: ${best:-none} calls/s"
}

# One callgraph run's BPF ns per call: ARGS... on LOAD
cg_ns() {	# NAME LOAD ARGS...
	local name=$1 load=$2 r
	shift 2
	r=$(bench_bpf_per_call "$name" "$CALLS" "$load" "$CG" --summary "$@") || return 1
	echo "${r##* }"
}

# Arguments (issue 20): callgraph's BPF time per call with arguments in
# every call record against the same targets without, medians of 5
# interleaved rounds: two integers and a string of a system call, a
# uprobe's int parameter (DWARF)
args() {
	local dd="dd if=/dev/zero of=/dev/null bs=1 count=$CALLS 2>/dev/null" loop=$HELPERS/callloop
	local k v name load t r
	local -A all=()
	local rows=(
		"sys|$dd|--comm dd|sys:write"
		"sys-ints|$dd|--comm dd|sys:write(fd, count)"
		"sys-str|$dd|--comm dd|sys:write(fd, buf:str, count)"
		"user|$loop $CALLS|--comm callloop|$loop:cl_empty"
		"user-ints|$loop $CALLS|--comm callloop|$loop:cl_empty(x)"
	)
	bench_stats_on
	for k in 1 2 3 4 5; do
		for r in "${rows[@]}"; do
			IFS='|' read -r name load v t <<<"$r"
			# shellcheck disable=SC2086 # --comm NAME: two words
			v=$(cg_ns "$name" "$load" $v "$t") || { bench_stats_restore; return 1; }
			all[$name]="${all[$name]:-} $v"
		done
	done
	bench_stats_restore
	for name in sys sys-ints sys-str user user-ints; do
		all[$name]=$(tr ' ' '\n' <<<"${all[$name]}" | grep . | bench_median)
	done
	echo "== callgraph, arguments, host: $CALLS calls, BPF ns per call (median of 5) =="
	printf '%-40s %12s %8s\n' TARGET NS/CALL RATIO
	printf '%-40s %12.1f %8s\n' "sys:write" "${all[sys]}" 1.00
	printf '%-40s %12.1f %8s\n' "sys:write(fd, count)" "${all[sys-ints]}" \
		"$(bench_ratio "${all[sys-ints]}" "${all[sys]}")"
	printf '%-40s %12.1f %8s\n' "sys:write(fd, buf:str, count)" "${all[sys-str]}" \
		"$(bench_ratio "${all[sys-str]}" "${all[sys]}")"
	printf '%-40s %12.1f %8s\n' "callloop:cl_empty (uprobe)" "${all[user]}" 1.00
	printf '%-40s %12.1f %8s\n' "callloop:cl_empty(x)" "${all[user-ints]}" \
		"$(bench_ratio "${all[user-ints]}" "${all[user]}")"
	awk -v s="${all[sys]}" -v si="${all[sys-ints]}" -v u="${all[user]}" -v ui="${all[user-ints]}" \
		'BEGIN { printf "goal: capturing adds at most 15%%: %s (sys %.2f, uprobe %.2f)\n",
			(si <= 1.15 * s && ui <= 1.15 * u) ? "met" : "NOT met", si / s, ui / u }'
}

vm() {
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "callgraph VM bench: qemu-system-x86_64 missing (make deps)" >&2
		return 1
	fi
	local m v rc
	make -s -C "$top" STATIC=1 >/dev/null || return 1
	bench_vm_counted 900 /kfit/tools/bench/callgraph-vm.sh | tee "$tmp/vm.out"
	rc=${PIPESTATUS[0]}
	# callgraph's BPF time per call over funcdur's, each mechanism: the
	# difference is what callgraph writes of a call (a ring-buffer record)
	for m in fentry kprobes; do
		v=$(sed -nE "s/^ratio BPF time per call, callgraph\/funcdur, $m: ([0-9.]+).*/\1/p" \
			"$tmp/vm.out")
		bench_goal callgraph "BPF time per call / funcdur's, $m (VM)" "${v:-n/a}" 1.25 \
			"funcdur's ($m, same VM run)" "-"
	done
	return "$rc"
}

for t in "$CG" "$CGS" "$CGSPG"; do
	[ -x "$t" ] || { echo "callgraph bench: $t not built (make)" >&2; exit 1; }
done
for t in bpftrace uftrace /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "callgraph bench: $t missing (make deps)" >&2; exit 1; }
done
status=0
for part in ${BENCH_CALLGRAPH:-wall bpfhost stream args vm}; do
	"$part" || status=1
	echo
done
exit $status
