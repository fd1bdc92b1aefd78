#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --serve against the real thing (root, host only): Debian's Prometheus
# server scrapes the tools every second from a temporary configuration and
# store, and what its HTTP API answers is compared with the tools' own
# figures (their scrapes, their final reports, /proc/softirqs under a known
# load); promtool checks each exposition; hostile clients (idle, never
# reading, a 1 MB request line or head, a flood from one address) leave the
# server answering others; SIGTERM, a busy port, bad addresses; memory flat
# over 2000 scrapes.
. "$(dirname "$0")/../lib.sh"

SL="$KFIT_BIN/softirqlat"
FD="$KFIT_BIN/funcdur"
PM="$KFIT_BIN/pmcstat"
PMC="$KFIT_BIN/pmcstat"
PY=/usr/bin/python3.11
CLIENTS="$T_REPO/tests/helpers/httpclients.py"
LOAD="$KFIT_HELPERS/softirqload"
LOOP="$KFIT_HELPERS/callloop"
PER_IP=16		# KFIT_SERVE_MAX_PER_IP
RSS_GROWTH_KIB=1024	# what 2000 scrapes may add to the resident set after warm-up

need() {
	t_need_root
	t_in_vm && t_skip "the static tools have no HTTP server: a host's test"
	local x
	for x in prometheus promtool curl; do
		command -v "$x" >/dev/null || t_skip "no $x (apt-get install prometheus curl)"
	done
	[ -x "$PY" ] || t_skip "no $PY (apt-get install python3.11)"
	for x in "$SL" "$FD" "$LOAD" "$LOOP"; do
		[ -x "$x" ] || t_fail "$x not built"
	done
}

clients() { "$PY" "$CLIENTS" "$@"; }
now() { date +%s.%N; }

# Wait for a line starting with WORD in FILE, 30 s at most
wait_line() {	# WORD FILE
	local i=0
	until grep -q "^$1" "$2"; do
		[ "$i" -ge 300 ] && t_fail "no '$1' line in $2 after 30 s: $(cat "$2")"
		t_pause 0.1
		i=$((i + 1))
	done
}

# Wait for FILE to exist, 30 s at most
wait_file() {	# FILE
	local i=0
	until [ -e "$1" ]; do
		[ "$i" -ge 300 ] && t_fail "no $1 after 30 s"
		t_pause 0.1
		i=$((i + 1))
	done
}

# ---- the tool ---------------------------------------------------------------

# Start TOOL ARGS... serving on 127.0.0.1 (a free port: sets PORT, URL) and
# wait for its "Serving metrics on" line
serve_start() {	# TOOL ARGS...
	local tool=$1 i=0
	shift
	PORT=$(clients freeport) || t_fail "no free port"
	URL="http://127.0.0.1:$PORT/metrics"
	t_bg_start "$tool" --serve "127.0.0.1:$PORT" "$@"
	until grep -q "Serving metrics on $URL" "$T_TMP/bg.err"; do
		if ! kill -0 "$BG" 2>/dev/null; then
			t_show_file "$T_TMP/bg.err" stderr
			t_fail "it exited before serving"
		fi
		[ "$i" -ge 300 ] && t_fail "no 'Serving metrics on $URL' after 30 s"
		t_pause 0.1
		i=$((i + 1))
	done
}

# Our own scrape, Prometheus' text format, into FILE
scrape() {	# FILE [curl args]
	local f=$1 code
	shift
	code=$(curl -s -o "$f" -w '%{http_code}' --max-time 10 "$@" "$URL") ||
		t_fail "curl $URL failed ($code)"
	t_assert_eq "$code" 200 "status of GET /metrics"
}

# A sample's value in an exposition: SERIES is name{labels} as written, or name
value_of() {	# FILE SERIES
	awk -v s="$2" 'substr($0, 1, length(s) + 1) == s " " { print $2; n++ }
		END { exit n != 1 }' "$1" || t_fail "no single sample $2 in $1"
}

# "key value" per sample, the key its name and labels sorted ("a=x,b=y"):
# the form prom_samples gives
expo_keys() {	# FILE
	awk '!/^#/ && NF == 2 {
		name = $1; lab = ""
		i = index(name, "{")
		if (i) { lab = substr(name, i + 1, length(name) - i - 1); name = substr(name, 1, i - 1) }
		n = split(lab, a, ",")
		for (j = 1; j <= n; j++) { gsub(/"/, "", a[j]) }
		for (j = 2; j <= n; j++) { t = a[j]; k = j - 1
			while (k >= 1 && a[k] > t) { a[k + 1] = a[k]; k-- }
			a[k + 1] = t }
		key = name "{"
		for (j = 1; j <= n; j++) key = key (j > 1 ? "," : "") a[j]
		print key "}", $2 }' "$1"
}

# ---- Prometheus ---------------------------------------------------------------

# Prometheus on a free port of 127.0.0.1 (PROM), its store in $T_TMP,
# scraping 127.0.0.1:$PORT every second as job kfit; waits until it is ready
prom_start() {
	local i=0 pport
	pport=$(clients freeport) || t_fail "no free port"
	PROM="http://127.0.0.1:$pport"
	cat >prom.yml <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	scrape_configs:
	  - job_name: kfit
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	EOF
	promtool check config prom.yml >promtool.out 2>&1 ||
		t_fail "promtool check config: $(cat promtool.out)"
	prometheus --config.file=prom.yml --storage.tsdb.path="$T_TMP/tsdb" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn >prom.log 2>&1 </dev/null &
	PROM_PID=$!
	t_on_exit "kill -KILL $PROM_PID 2>/dev/null"
	until curl -sf -o /dev/null "$PROM/-/ready"; do
		kill -0 "$PROM_PID" 2>/dev/null || { t_show_file prom.log prometheus; t_fail "prometheus exited"; }
		[ "$i" -ge 300 ] && { t_show_file prom.log prometheus; t_fail "prometheus not ready in 30 s"; }
		t_pause 0.1
		i=$((i + 1))
	done
}

# The API's answer to an instant query, its .data.result (fails on an error)
prom_query() {	# EXPR [TIME]
	local r
	r=$(curl -s -G --max-time 10 --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} \
		"$PROM/api/v1/query") || t_fail "query '$1': curl failed"
	[ "$(jq -r .status <<<"$r")" = success ] || t_fail "query '$1': $r"
	jq -c .data.result <<<"$r"
}

# One number: the value of a query that gives a single series
prom_value() {	# EXPR [TIME]
	local r
	r=$(prom_query "$@")
	[ "$(jq length <<<"$r")" = 1 ] || t_fail "query '$1' gave $(jq length <<<"$r") series: $r"
	jq -r '.[0].value[1]' <<<"$r"
}

# Every sample Prometheus stored of the series SELECTOR matches over the
# last SECS seconds: "key ts value" lines, the key as expo_keys makes it
prom_samples() {	# SELECTOR SECS
	prom_query "$1[$2s]" | jq -r '.[] | .metric as $m |
		($m.__name__ + "{" + ([$m | to_entries[] |
			select(.key != "__name__" and .key != "job" and .key != "instance") |
			"\(.key)=\(.value)"] | sort | join(",")) + "}") as $k |
		.values[] | "\($k) \(.[0]) \(.[1])"'
}

# Wait until Prometheus holds a scrape of kfit that started after T (a
# bound, not a timing); PROM_TS is its timestamp. 5 ms past T: Prometheus
# moves a scrape's timestamp by up to 2 ms, onto its schedule. The scrape
# must have succeeded: up == 1 means the OpenMetrics it asked for parsed.
prom_wait_scrape_after() {	# T
	local i=0 last
	while :; do
		last=$(prom_samples 'up{job="kfit"}' 60 | awk -v t="$1" '$2 > t + 0.005 { ts = $2; v = $3 }
			END { if (ts != "") print ts, v }')
		if [ -n "$last" ]; then
			PROM_TS=${last% *}
			t_assert_eq "${last#* }" 1 "up of the scrape at $PROM_TS (its lastError: $(
				curl -s "$PROM/api/v1/targets" | jq -r '.data.activeTargets[0].lastError'))"
			return 0
		fi
		[ "$i" -ge 300 ] && t_fail "no scrape of kfit after $1 in 30 s: $(
			curl -s "$PROM/api/v1/targets" | jq -c '.data.activeTargets[0] | {health, lastError}')"
		t_pause 0.1
		i=$((i + 1))
	done
}

# The value of one series (a key of prom_samples) in the scrape at TS
prom_at() {	# KEY TS FILE-of-prom_samples
	awk -v k="$1" -v t="$2" '$1 == k && $2 == t { print $3; n++ } END { exit n != 1 }' "$3" ||
		t_fail "no single sample of $1 at $2"
}

# NET_RX softirqs over all CPUs, from /proc/softirqs
net_rx() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) s += $i; print s }' /proc/softirqs; }

# The log2 bucket of a duration in ns (kfit's: k holds 2^(k-1) .. 2^k - 1)
log2_bucket() { awk -v v="$1" 'BEGIN { k = 0; while (v >= 1) { v /= 2; k++ } print k }'; }

# Prometheus' p99 (seconds) and the tool's (ns) in the same log2 bucket, or the next
assert_same_bucket() {	# PROM_SECONDS TOOL_NS what
	local pns b1 b2
	pns=$(awk -v s="$1" 'BEGIN { printf "%.0f", s * 1e9 }')
	b1=$(log2_bucket "$pns")
	b2=$(log2_bucket "$2")
	echo "$3: Prometheus $pns ns (bucket $b1), the tool $2 ns (bucket $b2)"
	[ "$2" -gt 0 ] || t_fail "$3: the tool's p99 is $2"
	[ $((b1 - b2)) -le 1 ] && [ $((b2 - b1)) -le 1 ] && return 0
	t_fail "$3: Prometheus' histogram_quantile $pns ns and the tool's p99 $2 ns are more than a bucket apart"
}

# ---- Prometheus against the tools --------------------------------------------

# softirqlat's counters as Prometheus stored them:
# - NET_RX under softirqload -n: the raw values of two scrapes around the
#   load against /proc/softirqs read around those scrapes (the scrapes'
#   window holds the load's and lies within the outer reads), within 2%
#   as test_softirqlat.sh compares the tool with /proc/softirqs;
# - every series of a scrape (buckets, _sum, _count of both families)
#   between our own scrapes just before and after it, and equal to them
#   where they did not move;
# - histogram_quantile(0.99) within a bucket of the tool's final p99;
# - the final report, after SIGTERM, at least what Prometheus saw last.
test_softirqlat_prometheus() {
	need
	local snap t0 t1 t2 t3 p0 p1 p2 p3 ta tb va vb d12 d03 c1t c2t exact moved q99 n last
	snap=$(t_bpf_snapshot)
	serve_start "$SL" -j
	prom_start
	t0=$(now)
	p0=$(net_rx)
	prom_wait_scrape_after "$t0"
	ta=$PROM_TS
	t1=$(now)
	p1=$(net_rx)
	"$LOAD" -n -d 3 >load.out 2>&1 || t_fail "softirqload failed: $(cat load.out)"
	p2=$(net_rx)
	t2=$(now)
	prom_wait_scrape_after "$t2"
	tb=$PROM_TS
	p3=$(net_rx)
	t3=$(now)
	prom_samples 'kfit_softirq_handler_seconds_count{vector="net_rx"}' 120 >net.samples
	va=$(prom_at 'kfit_softirq_handler_seconds_count{vector=net_rx}' "$ta" net.samples)
	vb=$(prom_at 'kfit_softirq_handler_seconds_count{vector=net_rx}' "$tb" net.samples)
	d12=$((p2 - p1))
	d03=$((p3 - p0))
	echo "NET_RX: Prometheus $va at $ta, $vb at $tb: +$((vb - va)); /proc/softirqs +$d12 under the load ($t1 .. $t2), +$d03 around the scrapes ($t0 .. $t3); $(cat load.out)"
	[ "$d12" -ge 10000 ] || t_fail "softirqload -n made only $d12 NET_RX softirqs"
	awk -v d="$((vb - va))" -v lo="$d12" -v hi="$d03" 'BEGIN { exit !(d >= lo * 0.98 && d <= hi * 1.02) }' ||
		t_fail "NET_RX: Prometheus' +$((vb - va)) is not within [$d12 - 2%, $d03 + 2%] of /proc/softirqs"

	# every series of one scrape between two of ours
	scrape c1.prom
	c1t=$(now)
	prom_wait_scrape_after "$c1t"
	c2t=$(now)
	scrape c2.prom
	prom_samples '{__name__=~"kfit_softirq_.*"}' 30 >all.samples
	expo_keys c1.prom | grep '^kfit_softirq_' | LC_ALL=C sort >c1.keys
	expo_keys c2.prom | grep '^kfit_softirq_' | LC_ALL=C sort >c2.keys
	awk -v t="$PROM_TS" '$2 == t { print $1, $3 }' all.samples | LC_ALL=C sort >p.keys
	n=$(wc -l <c1.keys)
	# 2 families x 10 vectors x (32 buckets, _sum, _count)
	t_assert_eq "$n" 680 "series of both families in our scrape"
	t_assert_eq "$(wc -l <p.keys)" "$n" "series in Prometheus' scrape at $PROM_TS (after $c1t, before $c2t)"
	LC_ALL=C join c1.keys p.keys | LC_ALL=C join - c2.keys >cmp.txt
	t_assert_eq "$(wc -l <cmp.txt)" "$n" "series in all three (same names, labels and le)"
	awk '!($2 <= $3 && $3 <= $4) { print "not between our scrapes:", $0; bad++ }
		$2 == $4 && $3 != $2 { print "not equal to ours:", $0; bad++ }
		END { exit bad > 0 }' cmp.txt >bad || { head bad; t_fail "$(wc -l <bad) series of Prometheus' scrape out of line with ours"; }
	exact=$(awk '$2 == $4' cmp.txt | wc -l)
	moved=$(awk '$2 != $4' cmp.txt | wc -l)
	echo "Prometheus' scrape at $PROM_TS: $exact series equal to both of ours, $moved between them"
	[ "$moved" -lt "$n" ] || t_fail "every series moved between our scrapes: nothing compared exactly"

	q99=$(prom_value 'histogram_quantile(0.99, kfit_softirq_handler_seconds_bucket{vector="net_rx"})')
	t_bg_stop_ok TERM
	jq -e . bg.out >/dev/null || t_fail "no JSON report after SIGTERM"
	assert_same_bucket "$q99" "$(jq -r '.vectors[] | select(.vector == "net_rx") | .handler.p99_ns' bg.out)" \
		"net_rx handler p99"
	n=$(jq -r '.vectors[] | select(.vector == "net_rx") | .handler.count' bg.out)
	last=$(prom_value 'kfit_softirq_handler_seconds_count{vector="net_rx"}')
	echo "net_rx: the final report $n, Prometheus' last scrape $last, ours $(value_of c2.prom 'kfit_softirq_handler_seconds_count{vector="net_rx"}')"
	[ "$n" -ge "$last" ] || t_fail "the final report's net_rx count $n is below Prometheus' last $last"
	t_bpf_assert_same "$snap" "after softirqlat --serve"
}

# funcdur on a user function called a known number of times: Prometheus'
# count equals it exactly after each of two runs, and equals the final
# report's; the +Inf bucket equals the count; histogram_quantile(0.99)
# within a bucket of the tool's p99
test_funcdur_prometheus() {
	need
	local snap key v1 v2 t q99
	snap=$(t_bpf_snapshot)
	serve_start "$FD" -j "$LOOP:cl_empty"
	prom_start
	key='kfit_function_duration_seconds_count{function="cl_empty"}'
	prom_wait_scrape_after "$(now)"
	t_assert_eq "$(prom_value "$key")" 0 "Prometheus' count before any call"
	"$LOOP" 1234 >loop.out || t_fail "callloop failed"
	t=$(now)
	prom_wait_scrape_after "$t"
	v1=$(prom_value "$key")
	"$LOOP" 4321 >loop.out || t_fail "callloop failed"
	prom_wait_scrape_after "$(now)"
	v2=$(prom_value "$key")
	echo "cl_empty: Prometheus $v1 after 1234 calls, $v2 after 4321 more"
	t_assert_eq "$v1" 1234 "Prometheus' count after 1234 calls"
	t_assert_eq "$v2" 5555 "Prometheus' count after 4321 more"
	t_assert_eq "$(prom_value 'kfit_function_duration_seconds_bucket{function="cl_empty",le="+Inf"}')" 5555 \
		"Prometheus' +Inf bucket"
	q99=$(prom_value 'histogram_quantile(0.99, kfit_function_duration_seconds_bucket{function="cl_empty"})')
	t_bg_stop_ok TERM
	t_assert_eq "$(jq -r '.functions[] | select(.name == "cl_empty") | .count' bg.out)" 5555 \
		"the final report's count"
	assert_same_bucket "$q99" "$(jq -r '.functions[] | select(.name == "cl_empty") | .p99_ns' bg.out)" \
		"cl_empty p99"
	t_bpf_assert_same "$snap" "after funcdur --serve"
}

# pmcstat: a known number of forks (a shell's loop of 50 /bin/true; its
# reads of FIFOs fork nothing) counted by the sched_process_fork
# tracepoint event, as Prometheus scraped it, as the final report has it
test_pmcstat_prometheus() {
	need
	local key v
	mkfifo "$T_TMP/go" "$T_TMP/end"
	serve_start "$PM" -j -e sched:sched_process_fork -- /bin/sh -c \
		"read x <'$T_TMP/go'; i=0; while [ \$i -lt 50 ]; do /bin/true; i=\$((i + 1)); done
		 : >'$T_TMP/forked'; read y <'$T_TMP/end'"
	prom_start
	echo go >"$T_TMP/go"
	wait_file "$T_TMP/forked"
	key='kfit_pmc_count_total{event="sched:sched_process_fork"}'
	prom_wait_scrape_after "$(now)"
	v=$(prom_value "$key")
	echo "sched_process_fork: Prometheus $v after 50 forks"
	t_assert_eq "$v" 50 "Prometheus' count of the command's forks"
	echo end >"$T_TMP/end"
	t_bg_wait_exit
	t_assert_eq "$BG_RC" 0 "pmcstat's exit status (the command's)"
	# with a COMMAND the report is on stderr, the command keeping stdout
	t_assert_eq "$(grep '^{' bg.err | jq -r '.counts[] | select(.event == "sched:sched_process_fork") | .value')" 50 \
		"the final report's count"
}

# ---- the expositions ---------------------------------------------------------

# promtool check metrics (Prometheus' text format, promtool's parser and
# linter) takes each tool's exposition as it is, with every kind of series
promtool_ok() {	# FILE what
	promtool check metrics <"$1" >promtool.out 2>&1 || {
		t_show_file promtool.out "promtool check metrics"
		t_fail "$2: promtool check metrics refused it"
	}
	[ -s promtool.out ] && { t_show_file promtool.out "promtool"; t_fail "$2: promtool says something"; }
	return 0
}

test_promtool_softirqlat() {
	need
	serve_start "$SL" --per-cpu
	scrape text.prom
	promtool_ok text.prom "softirqlat --per-cpu"
	grep -q '^kfit_softirq_queue_seconds_bucket{vector="timer",cpu="0",le="+Inf"} ' text.prom ||
		t_fail "no per-CPU series in softirqlat --per-cpu's exposition"
	t_bg_stop_ok TERM
}

test_promtool_funcdur() {
	need
	serve_start "$FD" "$LOOP:cl_empty" sys:getppid
	"$LOOP" 100 >/dev/null
	scrape text.prom
	promtool_ok text.prom "funcdur"
	t_assert_eq "$(value_of text.prom 'kfit_function_duration_seconds_count{function="cl_empty"}')" 100 \
		"cl_empty's count in our scrape"
	t_bg_stop_ok TERM
}

test_promtool_pmcstat() {
	need
	"$PMC" --help 2>&1 | grep -q -- '--serve' || t_fail "pmcstat has no --serve"
	serve_start "$PMC" -a -e task-clock,page-faults
	scrape text.prom
	promtool_ok text.prom "pmcstat"
	grep -q '^kfit_pmc_count_total{.*event="page-faults"' text.prom ||
		{ t_show_file text.prom exposition; t_fail "no kfit_pmc_count_total{event=\"page-faults\"}"; }
	t_bg_stop_ok TERM
}

# Both formats of one scrape: what Prometheus asks for (OpenMetrics, its
# real Accept header) and what curl gets
test_formats_negotiated() {
	need
	local ct
	serve_start "$SL"
	ct=$(curl -s -o om.prom -w '%{content_type}' \
		-H 'Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' "$URL")
	t_assert_match "$ct" '^application/openmetrics-text; version=1.0.0' "Content-Type for Prometheus"
	t_assert_eq "$(tail -n 1 om.prom)" "# EOF" "OpenMetrics' last line"
	grep -q '^# UNIT kfit_softirq_handler_seconds seconds$' om.prom || t_fail "no # UNIT"
	grep -q '^# TYPE kfit_build info$' om.prom || t_fail "no info family"
	ct=$(curl -s -o text.prom -w '%{content_type}' "$URL")
	t_assert_match "$ct" '^text/plain; version=0.0.4' "Content-Type for curl"
	grep -q '^# EOF' text.prom && t_fail "# EOF in the text format"
	grep -q '^# TYPE kfit_build_info gauge$' text.prom || t_fail "info not a gauge in the text format"
	t_bg_stop_ok TERM
}

# The file descriptors the background tool holds
fd_count() { find "/proc/$BG/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# ---- hostile clients -----------------------------------------------------------

# While a client sits idle, one never reads what it asked for, one sends a
# 1 MB request line and one a 1 MB head, and 300 connections come from
# 127.0.0.2, scrapes from 127.0.0.1 get 200; the per-IP limit holds the
# flood to 16; POST and unknown paths counted by status; every connection
# closed in the end; the tool still traces and ends with its report.
test_hostile_clients() {
	need
	local fds0 fds s r i flood
	serve_start "$SL" -j --per-cpu
	fds0=$(fd_count)
	clients idle "$PORT" 60 >idle.out 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	clients stall "$PORT" 300 12 >stall.out 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	wait_line sent stall.out
	scrape during-stall.prom --interface 127.0.0.1

	r=$(clients bigline "$PORT" 1048576) || t_fail "bigline: $r"
	t_assert_match "$r" '^status (414|431)$' "a 1 MB request line"
	r=$(clients bighead "$PORT" 1048576) || t_fail "bighead: $r"
	t_assert_match "$r" '^status (413|431)$' "a 1 MB head"
	scrape after-big.prom

	clients flood 127.0.0.2 "$PORT" 300 3 >flood.out 2>&1 &
	flood=$!
	t_on_exit "kill $flood 2>/dev/null"
	wait_line connected flood.out
	scrape during-flood.prom --interface 127.0.0.1
	wait "$flood"
	r=$(sed -n 's/^open //p' flood.out)
	echo "flood from 127.0.0.2: $(head -n 1 flood.out), $r kept by the server"
	[ -n "$r" ] && [ "$r" -le "$PER_IP" ] && [ "$r" -ge 1 ] ||
		t_fail "the server kept ${r:-?} of 300 connections from one address (limit $PER_IP)"

	for i in 1 2 3; do
		t_assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x "$URL")" 405 "POST /metrics"
	done
	for s in /nope /metrics/x; do
		t_assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$s")" 404 "GET $s"
	done
	t_assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -I "$URL")" 200 "HEAD /metrics"
	scrape errors.prom
	t_assert_eq "$(value_of errors.prom 'kfit_http_errors_total{code="405"}')" 3 "405s counted"
	t_assert_eq "$(value_of errors.prom 'kfit_http_errors_total{code="404"}')" 2 "404s counted"
	t_assert_eq "$(value_of errors.prom 'kfit_http_errors_total{code="500"}')" 0 "500s counted"

	# the idle and the stalled client closed by the server's timeout
	i=0
	while ! grep -qE '^(closed|open)' idle.out || ! grep -qE '^(closed|open)' stall.out; do
		[ "$i" -ge 900 ] && t_fail "the idle or stalled client still waiting after 90 s"
		t_pause 0.1
		i=$((i + 1))
	done
	echo "idle client: $(cat idle.out); stalled client: $(tail -n 1 stall.out)"
	t_assert_match "$(cat idle.out)" '^closed ' "the idle client"
	t_assert_eq "$(tail -n 1 stall.out)" closed "the client that never read"
	i=0
	while fds=$(fd_count) && [ "$fds" -gt "$fds0" ]; do
		[ "$i" -ge 300 ] && t_fail "the tool holds $fds file descriptors, $fds0 before the clients"
		t_pause 0.1
		i=$((i + 1))
	done

	# still tracing: the timer's count moves between two scrapes
	scrape a.prom
	t_pause 0.5
	scrape b.prom
	r=$(awk '/^kfit_softirq_handler_seconds_count\{vector="timer"/ { s += $2 } END { print s + 0 }' a.prom)
	s=$(awk '/^kfit_softirq_handler_seconds_count\{vector="timer"/ { s += $2 } END { print s + 0 }' b.prom)
	[ "$s" -gt "$r" ] || t_fail "timer softirqs did not move between two scrapes ($r, $s)"
	t_bg_stop_ok TERM
	jq -e '.vectors | length > 0' bg.out >/dev/null || { t_show_file bg.out report; t_fail "no final report"; }
}

# Clients that trickle a request (a header every 2 s, never its end) from
# four addresses hold every connection the server allows: libmicrohttpd's
# timeout counts idle time only, the server's deadline cuts them, and a
# scrape from 127.0.0.1 is answered again
test_slow_clients_cut() {
	need
	local src i=0 code r
	serve_start "$SL" -j
	for src in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5; do
		clients trickle "$src" "$PORT" "$PER_IP" 40 >"trickle.$src" 2>&1 &
		t_on_exit "kill $! 2>/dev/null"
	done
	for src in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5; do
		wait_line connected "trickle.$src"
	done
	# answered again within the deadline (15 s) and a little more
	until code=$(curl -s -o ok.prom -w '%{http_code}' --max-time 2 --interface 127.0.0.1 "$URL") &&
		[ "$code" = 200 ]; do
		[ "$i" -ge 30 ] && t_fail "no answer to 127.0.0.1 30 s after 64 trickling clients"
		t_pause 1
		i=$((i + 1))
	done
	for src in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5; do
		wait_line 'cut\|open' "trickle.$src"
		t_assert_match "$(cat "trickle.$src")" "^cut $PER_IP " "the trickling clients of $src cut"
	done
	scrape cut.prom
	r=$(value_of cut.prom kfit_http_connections_cut_total)
	[ "$r" -ge $((4 * PER_IP)) ] || t_fail "kfit_http_connections_cut_total $r, not >= $((4 * PER_IP))"
	echo "64 trickling clients: 127.0.0.1 answered after ${i}s, $r connections cut"
	t_bg_stop_ok TERM
}

# ---- ending, starting ----------------------------------------------------------

# SIGTERM with clients connected (one idle, one not reading): exit 0, the
# report, nothing left attached, the port free again
test_sigterm_with_clients() {
	need
	local snap
	snap=$(t_bpf_snapshot)
	serve_start "$SL" --per-cpu
	clients idle "$PORT" 60 >idle.out 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	clients stall "$PORT" 300 30 >stall.out 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	wait_line sent stall.out
	scrape before.prom
	t_bg_stop_ok TERM
	t_assert_match "$(cat bg.out)" '[Pp]99' "the report after SIGTERM"
	t_bpf_assert_same "$snap" "after SIGTERM"
	# the port is free: a new server binds it
	t_bg_start "$SL" --serve "127.0.0.1:$PORT" -d 1
	t_bg_wait_exit 30
	t_assert_eq "$BG_RC" 0 "a new softirqlat --serve on the same port"
}

# A busy port ends the tool before anything is loaded (strace: no bpf(2)
# call), status 1 and the address said
test_port_busy() {
	need
	command -v strace >/dev/null || t_skip "no strace (apt-get install strace)"
	serve_start "$SL"
	# LeakSanitizer cannot run under ptrace (make check SANITIZE=1)
	t_expect_exit 1 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=bpf -o strace.out "$SL" --serve "127.0.0.1:$PORT" -d 1
	t_assert_match "$(cat "$T_ERR")" "--serve 127.0.0.1:$PORT: cannot listen: Address already in use" \
		"the message"
	t_assert_no_match "$(cat "$T_ERR")" '^Tracing' "stderr of the second server"
	t_assert_no_match "$(cat strace.out)" 'BPF_PROG_LOAD|BPF_LINK_CREATE' "bpf(2) calls of the second server"
	t_bg_stop_ok TERM
}

test_bad_serve() {
	need
	local a
	for a in 0 65536 ::1:80 '' x: '80 ' -1; do
		t_expect_exit 2 "$SL" --serve "$a" -d 1
		t_assert_match "$(cat "$T_ERR")" "invalid address '$a' for --serve" "--serve '$a'"
	done
	t_expect_exit 2 "$SL" --serve 9435 -i 1s
	t_assert_match "$(cat "$T_ERR")" 'drop -i' "--serve with -i"
	t_expect_exit 2 "$FD" --serve 9435 -i 1s sys:getppid
	t_assert_match "$(cat "$T_ERR")" 'drop -i' "funcdur --serve with -i"
}

# ":PORT" is every address, IPv4 and IPv6 on one socket
test_every_address() {
	need
	local p i=0
	p=$(clients freeport)
	URL="http://127.0.0.1:$p/metrics"
	t_bg_start "$SL" --serve ":$p"
	t_bg_wait_tracing
	i=0
	until grep -q "Serving metrics on http://0.0.0.0:$p/metrics" bg.err; do
		[ "$i" -ge 300 ] && { t_show_file bg.err stderr; t_fail "no Serving line"; }
		t_pause 0.1
		i=$((i + 1))
	done
	scrape v4.prom
	if [ -e /proc/net/if_inet6 ] && [ "$(cat /proc/sys/net/ipv6/conf/lo/disable_ipv6 2>/dev/null)" = 0 ]; then
		URL="http://[::1]:$p/metrics"
		scrape v6.prom
	else
		echo "no IPv6 on lo: [::1] not tried"
	fi
	t_bg_stop_ok TERM
}

# The static tools (the VM's) have no HTTP server, and say so
test_static_has_no_http() {
	need
	local st="$T_REPO/build/static/bin/softirqlat"
	[ -x "$st" ] || t_skip "no $st (make static)"
	t_expect_exit 1 "$st" --serve 127.0.0.1:1 -d 1
	t_assert_match "$(cat "$T_ERR")" 'no HTTP server' "the static softirqlat's message"
}

# libmicrohttpd is loaded for --serve alone: a run without it maps none of
# it (nor GnuTLS); where it cannot be loaded (a private mount namespace
# puts an empty file in its place), --serve exits 1, says what to install,
# and leaves nothing attached
test_http_library_only_for_serve() {
	need
	local lib snap
	t_bg_start "$SL" -d 20s
	t_bg_wait_tracing
	grep -E 'libmicrohttpd|libgnutls' "/proc/$BG/maps" | head -n 3 | grep . &&
		t_fail "softirqlat without --serve maps the HTTP library"
	t_bg_stop_ok INT
	lib=$(ldconfig -p | awk '$1 == "libmicrohttpd.so.12" { print $NF; exit }')
	[ -n "$lib" ] || t_fail "libmicrohttpd.so.12 not in ldconfig's cache (make deps)"
	snap=$(t_bpf_snapshot)
	t_expect_exit 1 unshare -m sh -c "mount --bind /dev/null '$lib' && exec '$SL' --serve 127.0.0.1:1 -d 1"
	t_assert_match "$(cat "$T_ERR")" '--serve needs libmicrohttpd \(Debian package libmicrohttpd12\)' \
		"the message where the library cannot be loaded"
	t_bpf_assert_same "$snap" "after --serve without its library"
}

# ---- memory --------------------------------------------------------------------

# 2000 scrapes after 200 of warm-up: the resident set grows by at most
# RSS_GROWTH_KIB, and the exporter's own figure says what /proc says.
# AddressSanitizer's quarantine (SANITIZE=1) would keep every freed
# scrape: off for this run, the leaks still checked at exit
test_memory_flat() {
	need
	local r0 r1 r
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" serve_start "$SL" --per-cpu
	r=$(clients scrape "$PORT" 200) || t_fail "warm-up scrapes: $r"
	r0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$BG/status")
	r=$(clients scrape "$PORT" 2000) || t_fail "scrapes: $r"
	r1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$BG/status")
	echo "VmRSS $r0 KiB after 200 scrapes, $r1 KiB after 2000 more ($r: scrapes, bytes)"
	[ $((r1 - r0)) -le "$RSS_GROWTH_KIB" ] ||
		t_fail "VmRSS grew by $((r1 - r0)) KiB over 2000 scrapes (bound $RSS_GROWTH_KIB KiB)"
	scrape last.prom
	r=$(value_of last.prom process_resident_memory_bytes)
	r1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$BG/status")
	t_within_pct "$((r / 1024))" "$r1" 10 "process_resident_memory_bytes against VmRSS"
	t_assert_eq "$(value_of last.prom kfit_scrapes_total)" 2201 "kfit_scrapes_total"
	t_bg_stop_ok TERM
}

t_run_all
