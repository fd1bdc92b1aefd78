#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The cost of `bootsum --early` on boot time (issue 10): Debian's 6.1 in
# the VM, booted to the end of the scripted boot tests/vm/bootsum_boot.sh
# (processes, module loads, direct reads from a virtio disk), as
#   plain:     the VM's /init as the first process
#   early:     rdinit=bootsum -- --early /init (recording everything)
#   bootchart: rdinit=systemd-bootchart -- -i /init (sampling /proc at 25 Hz)
# with the same kernel words (initcall_debug, the initcall trace events),
# interleaved, ROUNDS times. Per row, medians: the boot clock at the end of
# the scripted boot (CLOCK_BOOTTIME, tests/helpers/boottime), the user
# phase (printk clock: the kernel's "Run ... as init process" to the end)
# and bootsum's own setup (to its "bootsum: boot clock" line), with ratios
# to plain taken round by round. Then one more boot under bootsum with
# kernel.bpf_stats_enabled=1 from the command line: the run time of each
# of bootsum's programs over the whole boot. TCG emulation distorts the
# absolute times (everything runs some 10-50x slower than on hardware);
# the ratios are what counts.
#   BENCH_BOOT_ROUNDS (3), BENCH_BOOT_KERNEL (6.1), BENCH_KEEP=1 (keep the
#   VMs' files), BENCH_BOOT_ROWS (some of: plain early bootchart)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ROUNDS=${BENCH_BOOT_ROUNDS:-3}
KSER=${BENCH_BOOT_KERNEL:-6.1}
VM=$top/tools/vm/kfit-vm
BOOTCHART=/lib/systemd/systemd-bootchart
WORDS="initcall_debug log_buf_len=8M trace_event=initcall:*,module:module_load trace_buf_size=8M"
# not "-- --early -- /init": the kernel ends init's arguments at a second "--"
EARLY="rdinit=/kfit/build/bin/bootsum -- --early /init"
# -n: 20 s of samples, longer than the boot: it samples to the end
CHART="rdinit=$BOOTCHART -- -i /init -o /run -n 500 -f 25"
# the scripted boot, then its end on the printk clock and what it needs
CMD='bash /kfit/tests/vm/bootsum_boot.sh workload || exit 1
echo "bootbench: end" >/dev/kmsg
dmesg >/out/dmesg.txt
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 1 ]; then
	bpftool -j prog show >/out/progs.json
	bpftool -j map show >/out/maps.json
fi'
tmp=$(mktemp -d)
trap '[ "${BENCH_KEEP:-0}" = 1 ] && echo "bootsum bench: files kept in $tmp" >&2 || rm -rf "$tmp"' EXIT

# boot ROW DIR: one boot of ROW, its files into DIR; 1 if it failed
boot() {
	local row=$1 dir=$2 append=$WORDS more=
	case $row in
	early) append="$WORDS $EARLY" ;;
	stats) append="$WORDS sysctl.kernel.bpf_stats_enabled=1 $EARLY" ;;
	bootchart) append="$WORDS $CHART"; more=$BOOTCHART ;;
	esac
	KFIT_VM_DISK=$tmp/disk.img KFIT_VM_APPEND="$append" KFIT_VM_MORE_TOOLS=$more \
		"$VM" --kernel "$KSER" run --timeout 600 --out "$dir" -- "$CMD" \
		>"$dir.log" 2>&1 && grep -q '^end ' "$dir/truth.txt" 2>/dev/null
}

# times DIR: "END USER SETUP" of a boot: the boot clock at the end; the
# printk clock from the first process to the end; to bootsum's marker ("-")
times() {
	local end
	end=$(awk '$1 == "end" { print $2 }' "$1/truth.txt")
	awk -v end="$end" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		/\] Run .* as init process$/ && run == "" { run = ts($0) }
		/\] bootsum: boot clock / && mark == "" { mark = ts($0) }
		/\] bootbench: end$/ { e = ts($0) }
		END {
			if (run == "" || e == "") exit 1
			printf "%s %.6f %s\n", end, e - run, mark == "" ? "-" : sprintf("%.6f", mark - run)
		}' "$1/dmesg.txt"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# col ROW K: the median of column K of ROW's rounds
col() { awk -v k="$2" '$k != "-" { print $k }' "$tmp/$1.rows" 2>/dev/null | median; }

# ratio ROW K: the median over rounds of ROW's column K / plain's
ratio() {
	[ -s "$tmp/$1.rows" ] && [ -s "$tmp/plain.rows" ] || { echo "n/a"; return; }
	awk -v k="$2" 'NR == FNR { b[$4] = $k; next } ($4 in b) && b[$4] > 0 { print $k / b[$4] }' \
		"$tmp/plain.rows" "$tmp/$1.rows" | median |
		awk '{ if ($1 == "-") print "n/a"; else printf "%.3f\n", $1 }'
}

label() {
	case $1 in
	plain) echo "plain (/init first)" ;;
	early) echo "bootsum --early" ;;
	bootchart) echo "systemd-bootchart (25 Hz)" ;;
	esac
}

print_row() {
	local s
	if [ ! -s "$tmp/$1.rows" ]; then
		printf '%-28s could not run: %s\n' "$(label "$1")" "$(cat "$tmp/$1.why" 2>/dev/null)"
		return
	fi
	s=$(col "$1" 3)
	printf '%-28s %8.3f %7s %8.3f %7s %9s\n' "$(label "$1")" "$(col "$1" 1)" "$(ratio "$1" 1)" \
		"$(col "$1" 2)" "$(ratio "$1" 2)" \
		"$([ "$s" = - ] && echo - || awk -v s="$s" 'BEGIN { printf "%.1f", s * 1000 }')"
}

# The run time of each of bootsum's programs (those using its bs_meta map)
bpf_table() {
	local d=$1 user
	user=$(awk '{ print $2 }' <<<"$(times "$d")")
	echo
	echo "== bootsum's BPF programs over that boot (one boot with kernel.bpf_stats_enabled=1; TCG) =="
	jq -r --slurpfile m "$d/maps.json" --arg user "$user" '
		($m[0] | map(select(.name == "bs_meta") | .id)) as $ids |
		[.[] | select((.map_ids // []) | any(. as $x | $ids | index($x)))] as $p |
		($p | sort_by(-(.run_time_ns // 0))[] |
			"\(.name)\t\(.run_cnt // 0)\t\(.run_time_ns // 0)"),
		"total\t\($p | map(.run_cnt // 0) | add)\t\($p | map(.run_time_ns // 0) | add)\t\($user)"' \
		"$d/progs.json" | awk -F'\t' '
		BEGIN { printf "%-24s %10s %10s %8s\n", "PROGRAM", "RUNS", "RUN ms", "NS/RUN" }
		{ printf "%-24s %10d %10.3f %8.0f\n", $1, $2, $3 / 1e6, $2 ? $3 / $2 : 0 }
		$1 == "total" && $4 > 0 {
			printf "(total: %.2f%% of the user phase'"'"'s %.3f s, on one CPU'"'"'s time)\n", $3 / 1e7 / $4, $4 }'
}

command -v qemu-system-x86_64 >/dev/null || { echo "bootsum bench: qemu-system-x86_64 missing (make deps)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bootsum bench: jq missing (make deps)" >&2; exit 1; }
make -s -C "$top" STATIC=1 >/dev/null || exit 1
[ -x "$top/build/static/bin/bootsum" ] || { echo "bootsum bench: no build/static/bin/bootsum" >&2; exit 1; }
head -c $((4 << 20)) /dev/zero >"$tmp/disk.img"
ROWS=${BENCH_BOOT_ROWS:-"plain early bootchart"}
if [ ! -x "$BOOTCHART" ]; then
	ROWS=${ROWS/bootchart/}
	echo "no $BOOTCHART (Debian package systemd-bootchart; make deps)" >"$tmp/bootchart.why"
fi

for ((r = 1; r <= ROUNDS; r++)); do
	for row in $ROWS; do
		d=$tmp/$row.$r
		if boot "$row" "$d" && t=$(times "$d"); then
			echo "$t $r" >>"$tmp/$row.rows"
		else
			echo "the VM run failed (its log: $(tail -n 1 "$d.log"))" >"$tmp/$row.why"
			echo "bootsum bench: round $r: $(label "$row"): $(cat "$tmp/$row.why")" >&2
		fi
	done
done

echo "== bootsum --early: boot to the end of the scripted boot, Debian $KSER ($(awk -F"'" '/^KVER=/ { print $2 }' \
	"${KFIT_VM_CACHE:-${HOME:-/tmp}/.cache/kfit-vm}/kernel-$KSER.env" 2>/dev/null)) in QEMU/TCG, 2 vCPUs: medians of $ROUNDS interleaved rounds =="
printf '%-28s %8s %7s %8s %7s %9s\n' ROW "BOOT s" RATIO "USER s" RATIO "SETUP ms"
for row in plain early bootchart; do
	case " $ROWS " in *" $row "*) ;; *) [ -s "$tmp/$row.why" ] || continue ;; esac
	print_row "$row"
done
echo "(BOOT s: CLOCK_BOOTTIME at the end of the scripted boot; USER s: from the kernel's"
echo " \"Run ... as init process\" to the end (printk clock); SETUP ms: bootsum's, to its"
echo " \"bootsum: boot clock\" line; RATIO: to plain, the median of the rounds' ratios."
echo " Emulation (TCG, one host thread) makes every time larger than on hardware; the ratios count)"

status=0
[ -s "$tmp/plain.rows" ] && [ -s "$tmp/early.rows" ] || status=1
if [ "$status" = 0 ] && [ "$(col early 3)" != - ]; then
	awk -v p="$(col plain 2)" -v e="$(col early 2)" -v s="$(col early 3)" 'BEGIN {
		printf "bootsum --early added %.0f ms to the user phase (medians): %.0f ms of setup before\n", (e - p) * 1000, s * 1000
		printf " /init runs (loading, verifying, attaching, pinning), %.0f ms while recording\n", (e - p - s) * 1000 }'
fi
d=$tmp/stats
if [ "${BENCH_BOOT_STATS:-1}" = 0 ]; then
	:
elif boot stats "$d" && [ -s "$d/progs.json" ]; then
	bpf_table "$d"
else
	echo "bootsum bench: the boot with BPF statistics failed: $(tail -n 1 "$d.log")" >&2
	status=1
fi
exit $status
