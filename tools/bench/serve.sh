#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The cost of --serve: softirqlat --per-cpu on two CPUs (1,360 series of
# histograms) scraped every second by Debian's Prometheus server, beside
# the same tracer not serving and its twin (how far two identical tracers
# differ), all attached at once under the same load, in rounds of fresh
# processes (medians): the tools' CPU time, the scrape's latency
# (Prometheus' own scrape_duration_seconds, curl's time_total), series and
# bytes a scrape, BPF run time; then the BPF time the scrapes' own
# loopback traffic adds to any softirq tracer.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SECS=${BENCH_SECS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
CURLS=${BENCH_SERVE_CURLS:-50}
tmp=$(mktemp -d)
pids=""
prom=""

cleanup() {
	[ -n "$pids" ] && kill -INT $pids 2>/dev/null
	[ -n "$prom" ] && kill -TERM $prom 2>/dev/null
	wait 2>/dev/null
	bench_stats_restore
	rm -rf "$tmp"
}
trap cleanup EXIT

for x in prometheus curl jq; do
	if ! command -v $x >/dev/null; then
		echo "serve bench: no $x (Debian packages prometheus, curl, jq: make deps)" >&2
		exit 1
	fi
done

# A TCP port nothing listens on (the listening sockets of /proc/net/tcp*)
free_port() {
	local used p
	used=$(awk '$4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
	while :; do
		p=$((20000 + RANDOM % 30000))
		grep -qix "$(printf '%04X' $p)" <<<"$used" || { echo $p; return; }
	done
}

# CPU time of a process, all its threads: the scheduler's, in ns
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
# ... and utime + stime of /proc/PID/stat, in clock ticks
cpu_ticks() { sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'; }

# One number from Prometheus' HTTP API, at time T (default: now)
prom_value() {	# EXPR [T]
	curl -s -G --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} "$PROM/api/v1/query" |
		jq -r '.data.result[0].value[1] // "nan"'
}

cpus="-C 0"
[ "$(nproc)" -ge 2 ] && cpus="-C 0,1"
port=$(free_port)
url="http://127.0.0.1:$port/metrics"
bench_stats_on

# Prometheus first, scraping the port each round's server takes again
pport=$(free_port)
PROM="http://127.0.0.1:$pport"
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: kfit
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$tmp/prom.log" 2>&1 </dev/null &
prom=$!

# The three tracers of round R, started in an order that turns each round
start_tracers() {	# R
	local i
	for i in 0 1 2; do
		case $(((i + $1) % 3)) in
		0) "$BIN/softirqlat" --per-cpu $cpus -j >"$tmp/plain.out" 2>"$tmp/plain.err" &
		   plain=$! ;;
		1) "$BIN/softirqlat" --per-cpu $cpus -j >"$tmp/twin.out" 2>"$tmp/twin.err" &
		   twin=$! ;;
		2) "$BIN/softirqlat" --per-cpu $cpus -j --serve "127.0.0.1:$port" \
			>"$tmp/serve.out" 2>"$tmp/serve.err" &
		   serve=$! ;;
		esac
	done
	pids="$plain $twin $serve"
	bench_wait_for "$tmp/plain.err" Tracing 30 || { cat "$tmp/plain.err" >&2; exit 1; }
	bench_wait_for "$tmp/twin.err" Tracing 30 || { cat "$tmp/twin.err" >&2; exit 1; }
	bench_wait_for "$tmp/serve.err" "Serving metrics" 30 || { cat "$tmp/serve.err" >&2; exit 1; }
}

# Wait for a scrape of this round's server by Prometheus, by its
# timestamp (our own scrapes would count in kfit_scrapes_total)
wait_scraped() {
	local i t
	t=$(date +%s.%N)
	for i in $(seq 1 300); do
		[ "$(prom_value "timestamp(up{job=\"kfit\"} == 1) > $t")" != nan ] && return 0
		sleep 0.1
	done
	echo "serve bench: Prometheus does not scrape $url" >&2
	tail -n 5 "$tmp/prom.log" >&2
	exit 1
}

: >"$tmp/rounds"
for r in $(seq 1 "$ROUNDS"); do
	start_tracers "$r"
	wait_scraped
	sleep 1
	read -r pr0 pt0 pn < <(bench_prog_stats $plain)
	read -r wr0 wt0 wn < <(bench_prog_stats $twin)
	read -r sr0 st0 sn < <(bench_prog_stats $serve)
	pc0=$(cpu_ns $plain)
	sc0=$(cpu_ns $serve)
	sk0=$(cpu_ticks $serve)
	t0=$(date +%s.%N)
	"$HELPERS/softirqload" -d "$SECS" >"$tmp/load.out"
	t1=$(date +%s.%N)
	read -r pr1 pt1 pn < <(bench_prog_stats $plain)
	read -r wr1 wt1 wn < <(bench_prog_stats $twin)
	read -r sr1 st1 sn < <(bench_prog_stats $serve)
	pc1=$(cpu_ns $plain)
	sc1=$(cpu_ns $serve)
	sk1=$(cpu_ticks $serve)
	win=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')
	sleep 1.5	# the window's last scrape stored
	n=$(prom_value "count_over_time(scrape_duration_seconds{job=\"kfit\"}[${win}s])" "$t1")
	med=$(prom_value "quantile_over_time(0.5, scrape_duration_seconds{job=\"kfit\"}[${win}s])" "$t1")
	max=$(prom_value "max_over_time(scrape_duration_seconds{job=\"kfit\"}[${win}s])" "$t1")
	# round scrapes cpu_ns cpu_ticks dur_med dur_max bpf ns/run: plain twin serve; rss plain serve
	awk -v r="$r" -v n="$n" -v sc=$((sc1 - sc0)) -v pc=$((pc1 - pc0)) -v sk=$((sk1 - sk0)) \
		-v med="$med" -v max="$max" \
		-v p=$((pt1 - pt0)) -v pr=$((pr1 - pr0)) -v w=$((wt1 - wt0)) -v wr=$((wr1 - wr0)) \
		-v s=$((st1 - st0)) -v sr=$((sr1 - sr0)) -v prss="$(bench_rss_kib $plain)" \
		-v srss="$(bench_rss_kib $serve)" -v win="$win" 'BEGIN {
		print r, n, sc, pc, sk, med, max, p / pr, w / wr, s / sr, prss, srss, win, pr }' >>"$tmp/rounds"
	if [ "$r" = "$ROUNDS" ]; then
		series=$(prom_value 'scrape_samples_scraped{job="kfit"}')
		render=$(curl -s "$url" | awk '$1 == "kfit_scrape_render_seconds_total" { t = $2 }
			$1 == "kfit_scrapes_total" { n = $2 } END { if (n) printf "%.2f", t / n * 1000 }')
		kill -TERM $prom
		wait $prom 2>/dev/null
		prom=""
		break
	fi
	kill -INT $pids
	wait $pids 2>/dev/null
	pids=""
done

# curl's own scrapes, Prometheus stopped: latency and bytes of each format
om='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
for i in $(seq 1 "$CURLS"); do
	curl -s -o /dev/null -H "Accept: $om" -w '%{time_total} %{size_download}\n' "$url" >>"$tmp/om.curl"
	curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "$url" >>"$tmp/text.curl"
done
om_med=$(awk '{ print $1 * 1000 }' "$tmp/om.curl" | bench_median)
tx_med=$(awk '{ print $1 * 1000 }' "$tmp/text.curl" | bench_median)
om_bytes=$(tail -n 1 "$tmp/om.curl" | awk '{ print $2 }')
tx_bytes=$(tail -n 1 "$tmp/text.curl" | awk '{ print $2 }')

# The scrapes' own traffic, with no load: the softirqs a scrape makes (its
# loopback packets), which every softirq tracer then traces, as the BPF
# runs of a tracer not serving over CURLS scrapes against as long a time
# without any
read -r q0 qt0 qn < <(bench_prog_stats $plain)
s0=$(date +%s%N)
for i in $(seq 1 "$CURLS"); do curl -s -o /dev/null "$url"; done
s1=$(date +%s%N)
read -r q1 qt1 qn < <(bench_prog_stats $plain)
sleep "$(awk -v n=$((s1 - s0)) 'BEGIN { printf "%.3f", n / 1e9 }')"
read -r q2 qt2 qn < <(bench_prog_stats $plain)
kill -INT $pids
wait $pids 2>/dev/null
pids=""

med_of() { awk -v c="$1" '{ print $c }' "$tmp/rounds" | bench_median; }
tck=$(getconf CLK_TCK)
echo "== the cost of --serve: softirqlat --per-cpu $cpus scraped every second by Prometheus $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }'), beside the same tracer not serving and its twin, all attached at once under ${SECS}s of softirqload: $ROUNDS rounds of fresh tracers (medians) =="
printf '%-6s %8s %12s %10s %10s %10s %12s %12s %12s\n' ROUND SCRAPES "SERVE CPU ms" "CPU ticks" \
	"DUR med ms" "DUR max ms" "BPF ns/run" "twin ns/run" "serve ns/run"
awk '{ printf "%-6s %8d %12.1f %10d %10.2f %10.2f %12.1f %12.1f %12.1f\n",
	$1, $2, $3 / 1e6, $5, $6 * 1000, $7 * 1000, $8, $9, $10 }' "$tmp/rounds"
echo "(SERVE CPU ms: the serving tracer's, every thread's /proc/PID/task/*/schedstat; CPU ticks: its utime + stime of /proc/PID/stat, 1/$tck s each;"
echo " DUR: Prometheus' scrape_duration_seconds over the round; BPF ns/run: per program run of the tracer not serving, its twin, the serving one)"
cpu=$(med_of 3)
n=$(med_of 2)
awk -v a="$cpu" -v n="$n" -v s="$series" -v w="$(med_of 13)" -v p="$(med_of 4)" 'BEGIN {
	printf "CPU of serving: %.1f ms in %d s (%.3f%% of a CPU): %.2f ms a scrape, %.2f us a series (the tracer not serving: %.1f ms, it sleeps until its report)\n",
		a / 1e6, w, a / 1e7 / w, n ? a / n / 1e6 : 0, n && s ? a / n / s / 1e3 : 0, p / 1e6 }'
echo "scrapes: $series samples each (scrape_samples_scraped); $om_bytes bytes as OpenMetrics, $tx_bytes as text (uncompressed: Prometheus asks for gzip)"
awk -v m="$(med_of 6)" -v x="$(sort -k7 -n "$tmp/rounds" | tail -n 1 | awk '{ print $7 }')" 'BEGIN {
	printf "scrape_duration_seconds (Prometheus'"'"' own): median %.2f ms, max %.2f ms\n", m * 1000, x * 1000 }'
echo "curl, $CURLS scrapes of each format: median $om_med ms (OpenMetrics), $tx_med ms (text); the tool's render time (maps read, text written): $render ms a scrape"
awk -v r1=$((q1 - q0)) -v t1=$((qt1 - qt0)) -v r2=$((q2 - q1)) -v t2=$((qt2 - qt1)) -v n="$CURLS" 'BEGIN {
	printf "a scrape'"'"'s own loopback traffic: %.1f more BPF program runs, %.0f ns more BPF time, for each softirq tracer (%d scrapes: %d runs, %d ns; as long without: %d runs, %d ns)\n",
		(r1 - r2) / n, (t1 - t2) / n, n, r1, t1, r2, t2 }'
awk '{ print $10 / $8 }' "$tmp/rounds" >"$tmp/sr"
awk '{ print $9 / $8 }' "$tmp/rounds" >"$tmp/tr"
echo "ratio serving/not serving, BPF time per run: $(bench_median <"$tmp/sr" | awk '{ printf "%.2f", $1 }') (rounds: $(awk '{ printf "%.2f ", $1 }' "$tmp/sr")); the twin's: $(bench_median <"$tmp/tr" | awk '{ printf "%.2f", $1 }') (rounds: $(awk '{ printf "%.2f ", $1 }' "$tmp/tr")), the noise; peak RSS $(bench_ratio "$(med_of 12)" "$(med_of 11)")"
echo "ebpf_exporter (Cloudflare's, in Go) is not measured: Debian does not package it and it cannot be built here (no Go module proxy reachable)."
echo "  It reads every map entry at scrape time too, a key per bucket, decodes each key into labels in Go (decoders: ksym, string, static_map, cgroup, ...)"
echo "  and builds cumulative buckets from its configuration (exp2: le = 2^k x multiplier, values past bucket_max clamped by the BPF program, _sum only"
echo "  where the program keeps one); kfit reads per-CPU log-linear histograms and writes exact log2 buckets (le = (2^k - 1) ns), _sum and +Inf, in C."
