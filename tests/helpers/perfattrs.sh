#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What perf builds for each event string, as an oracle for pmcstat's parser
# (tests/unit/test_pmu.c reads it): runs `perf stat -vv -x, -e STRING true`
# for every string below and writes, per string,
#
#   == STRING
#   rejected                  perf's parser refused it, or
#   attr F=V F=V ...          each event's perf_event_attr as perf printed it
#                             (its first attempt: perf retries without
#                             features the kernel refuses, e.g. exclude_guest)
#   label NAME                the counter names perf printed, in its order
#
# perf prints only the fields that are not zero; "{ bp_len, config2 }"
# becomes "{bp_len,config2}". Usage: perfattrs.sh [OUT] (default
# tests/fixtures/perf-attrs.txt). Needs perf and root (tracepoints).
set -u
out=${1:-$(dirname "$0")/../fixtures/perf-attrs.txt}
command -v perf >/dev/null || { echo "perfattrs.sh: no perf here" >&2; exit 1; }

# perf's own test strings (tools/perf/tests/parse-events.c) that need no
# special PMU, the forms of issue 11, and perf's cache-name spellings.
# No string here may hold an event the kernel refuses with EINVAL before
# another event: perf then drops exclude_guest for every later one.
strings() {
	cat <<'EOF'
syscalls:sys_enter_openat
syscalls:sys_enter_openat:k
syscalls:sys_enter_open*
syscalls:sys_enter_open*:u
sched:sched_process_*
syscalls:*
r1a
r1a:kp
r1234/name=rawpmu/
1:1
1:2:u
1:1:hp
4:0x6530160/name=numpmu/
instructions
instructions:h
instructions:G
instructions:H
instructions:I
instructions:kIG
instructions:uDp
instructions:P
instructions:uep
instructions/name=insn/
cycles:k
cycles:ppp
cycles//u
cycles/period=100000,config2/
cycles/name=cyc/Duk
cs/name=ctx/k
faults
faults:u
cs//
cs/config=3/
cs/config1=5,config2=0x10,metric-id=x/
cs/period=10/
task-clock:P,cycles
L1-dcache-load-miss
L1-dcache-load-miss:kp
L1-dcache-misses/name=cachepmu/
L1-dcache
L1-dcache-loads
L1-dcache-load
L1-dcache-stores
L1-dcache-prefetches
L1-dcache-prefetch-misses
L1-dcache-load-store
L1-dcache-miss-load
l1-d-loads
l1d-read-miss
L1-data-write-misses
L1-icache-load-misses
l1i-prefetch
L1-instruction-loads
LLC-loads
LLC-store-misses
L2-prefetch-miss
dTLB-load-misses
d-tlb-stores
Data-TLB-speculative-load-Reference
iTLB-load-misses
i-tlb-read-access
Instruction-TLB-ops
branch-loads
branch-load-misses
bpu-read
btb-miss
bpc-misses
node-loads
node-store-misses
node-speculative-read-refs
L1-icache-stores
iTLB-stores
mem:0
mem:0:x
mem:0:r
mem:0:w
mem:0:u
mem:0:x:k
mem:0:r:hp
mem:0:w:up
mem:0:rw
mem:0:rw:kp
mem:0/1
mem:0/2:w
mem:0/4:rw:u
mem:0/8:x
mem:0x1000:w
mem:0:rr
r1,syscalls:sys_enter_openat:k,1:1:hp
{instructions:k,cycles:upp}
{faults:k,cache-references}:u,cycles:k
group1{syscalls:sys_enter_openat:H,cycles:kppp},group2{cycles,1:3}:G,instructions:u
{cycles:u,instructions:kp}:p
{cycles,instructions}:G,{cycles:G,instructions:G},cycles
{cycles,cache-misses:G}:H
{cycles,cache-misses:H}:G
{cycles:G,cache-misses:H}:u
{cycles:G,cache-misses:H}:uG
{cycles,cache-misses,branch-misses}:S
{instructions,branch-misses}:Su
{cycles,cache-misses,branch-misses}:D
{cycles,cache-misses,branch-misses}:e
{cs,faults}:D
{cs,faults:k}:D
{cs,faults}:S
{cs:u,faults:kp}:p
{cs:G,faults:H}:u
{cs:G,faults:H}:uG
{cs,faults:G}:H
{cs,faults}:Su
{cs,faults}:ppp
{cs,faults}:I
group1{cs,faults},group2{minor-faults,major-faults}
group1{cs,faults}:u,group2{task-clock,cpu-clock}:k,cs
cycles:ukk
cycles:pppp
cs/foo=1/
cs/percore=2/
EOF
}

# perf stat's stderr for one string into "attr"/"label" lines
digest() {
	awk '
	function flush() {
		if (!inattr)
			return
		inattr = 0
		key = f["type"] "/" f["config"] "/" f["{bp_addr,config1}"] "/" f["{bp_len,config2}"] "/" f["bp_type"]
		# a retry of the event before it: same event, after a refusal perf retries
		if (n && !lastok && (lasterr == -22 || lasterr == -13 || lasterr == -1 || lasterr == -95) && key == lastkey)
			return
		print line
		n++
		lastkey = key
	}
	/^perf_event_attr:/ { inattr = 1; line = "attr"; delete f; next }
	inattr && /^  [a-z{]/ {
		v = $NF
		name = $0
		sub(/^  /, "", name)
		sub(/ +[^ ]+$/, "", name)
		gsub(/ /, "", name)
		f[name] = v
		line = line " " name "=" v
		next
	}
	/^sys_perf_event_open: / {
		flush()
		lastok = $0 ~ / = [0-9]+$/
		next
	}
	/^sys_perf_event_open failed, error / { lastok = 0; lasterr = $NF; next }
	/^-{20}/ { next }
	/^[^ ,]*,[^,]*,[^,]+,/ {
		split($0, c, ",")
		labels[++nl] = c[3]
	}
	END {
		flush()
		for (i = 1; i <= nl; i++)
			print "label " labels[i]
	}'
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "# perf stat -vv -x, -e STRING true, by tests/helpers/perfattrs.sh"
	echo "# perf $(perf version 2>/dev/null | awk '{print $3}'), kernel $(uname -r)"
	strings | while IFS= read -r s; do
		echo "== $s"
		perf stat -vv -x, -e "$s" true >"$tmp" 2>&1
		if grep -q "^Run 'perf list' for a list of valid events" "$tmp"; then
			echo rejected
			continue
		fi
		digest <"$tmp"
	done
} >"$out.new" && mv "$out.new" "$out"
echo "perfattrs.sh: $(grep -c '^== ' "$out") strings into $out"
