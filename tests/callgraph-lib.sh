# shellcheck shell=bash disable=SC2034 # variables for the files that source it
# SPDX-License-Identifier: GPL-2.0
# tests/callgraph-lib.sh: what the callgraph tests share (sourced after
# tests/lib.sh by tests/live/test_callgraph.sh and
# tests/vm/test_callgraph_vm.sh): callgraph's -j document checked and
# flattened, and call trees in the canonical form of uftrace-canon.
#
# cg_json FILE WHAT checks a document against the spec's schema and the
# invariants every tree must keep, whatever was lost:
#   - each call: the numbers are numbers, complete a boolean,
#     incomplete_reason (exited, exec, longjmp, end) only if not complete,
#     its tid the tid of its thread (task threads), local_ns <= duration_ns,
#     offcpu_ns = offcpu_blocked_ns + offcpu_preempt_ns <= duration_ns;
#   - its call children inside it in time, in time order, not overlapping;
#     local_ns = duration_ns minus its call children's durations (when it
#     has no interrupt child: whether an interrupt's time is local is not
#     fixed by the spec).
# and flattens it into FILE.kv (one jq run: jq is slow under emulation):
#   D KEY VALUE                   mode mechanism calls lost dropped
#                                 incomplete missed nthreads elapsed_ns
#                                 orphans bad
#   T TID PID COMM CONTEXT CPU
#   C TID DEPTH PATH NAME START DUR LOCAL OFF BLOCKED PREEMPT COMPLETE
#     REASON DROPPED CPU NSWITCH INHERITED LOST
#                                 a call, per thread in pre-order; PATH:
#                                 its callers and itself, "/"-separated
#                                 ("[irq NAME]" for an interrupt, "[lost]"
#                                 for the stand-in of calls whose caller's
#                                 record was lost: LOST true)
#   I TID DEPTH PATH IRQ CONTEXT START DUR NCALLS   an interrupt node
#   S TID DEPTH PATH SWITCH-JSON  a context switch node
# TID is the thread's tid (task threads) or CONTEXT:CPU (interrupt ones).
# A call's "ret" (a number, with "ret_str") only if it returned.
#
# cg_rets FILE NAME [FIELD]: "RANK VALUE" per call of NAME in a -j
# document, each thread's in order, VALUE its ret_str (or FIELD: ret, its
# number; "none" without one), RANK its
# thread's rank among them (cg_rank_pids): comparable with another run's.

CG="$KFIT_BIN/callgraph"
CGS="$KFIT_HELPERS/cgshape"
CGS_PG="$KFIT_HELPERS/cgshape-pg"
UCANON="$T_REPO/tests/helpers/uftrace-canon"

# shellcheck disable=SC2016
CG_JQ_DEFS='
def isnum: type == "number";
def iscall: type == "object" and (.name | type) == "string" and
	(has("irq") | not) and (has("switch") | not) and (has("event") | not);
def isirq: type == "object" and has("irq");
def callnums: ["tid", "cpu", "start_ns", "duration_ns", "local_ns", "offcpu_ns",
	"offcpu_blocked_ns", "offcpu_preempt_ns", "dropped"];
def end_ns: .start_ns + .duration_ns;

def check_call($tid):
	(.name | tostring) as $w | . as $p |
	(callnums[] as $f | select((.[$f] | isnum) | not)
		| "\($w).\($f) is not a number: \(.[$f] | tojson)"),
	(select((.complete | type) != "boolean") | "\($w).complete is not a boolean"),
	(select((.context | type) != "string") | "\($w).context is not a string"),
	(select((.children | type) != "array" and (.omitted | isnum | not))
		| "\($w): neither children (an array) nor omitted (a number)"),
	(select(.complete == false and
		(["exited", "exec", "longjmp", "end"] | index([$p.incomplete_reason]) | not))
		| "\($w): incomplete, incomplete_reason \(.incomplete_reason | tojson)"),
	(select(.complete == true and has("incomplete_reason"))
		| "\($w): complete, with an incomplete_reason"),
	(select(has("ret") and .complete != true) | "\($w): a ret, but it never returned"),
	(select(has("ret") and ((.ret | isnum | not) or (.ret_str | type) != "string"))
		| "\($w): ret \(.ret | tojson) not a number or ret_str \(.ret_str | tojson) no string"),
	(if ([callnums[] as $f | $p[$f] | isnum] | all) then
		(select($tid != null and .tid != $tid)
			| "\($w): tid \(.tid) in the tree of thread \($tid)"),
		(select(.local_ns > .duration_ns)
			| "\($w): local_ns \(.local_ns) > duration_ns \(.duration_ns)"),
		(select(.offcpu_ns != .offcpu_blocked_ns + .offcpu_preempt_ns)
			| "\($w): offcpu_ns \(.offcpu_ns) != blocked \(.offcpu_blocked_ns) + preempted \(.offcpu_preempt_ns)"),
		(select(.offcpu_ns > .duration_ns)
			| "\($w): offcpu_ns \(.offcpu_ns) > duration_ns \(.duration_ns)"),
		([.children[]? | select(iscall and ([callnums[] as $f | .[$f] | isnum] | all))] as $cs |
			($cs[] | select(.start_ns < $p.start_ns or end_ns > ($p | end_ns))
				| "\($w) [\($p.start_ns), \($p | end_ns)]: its callee \(.name) [\(.start_ns), \(end_ns)] is outside it"),
			(range(1; $cs | length) as $i | select($cs[$i].start_ns < ($cs[$i - 1] | end_ns))
				| "\($w): callees \($cs[$i - 1].name) and \($cs[$i].name) overlap or are out of order"),
			(select(([$p.children[]? | isirq] | any | not) and
				$p.local_ns != $p.duration_ns - ([$cs[].duration_ns] | add // 0))
				| "\($w): local_ns \($p.local_ns) != duration_ns \($p.duration_ns) - its callees \([$cs[].duration_ns] | add // 0)"))
	 else empty end);

# problems of a node and of everything under it
def check($tid):
	if iscall then check_call($tid), (.children[]? | check($tid))
	elif isirq then
		(select((.children | type) != "array") | "interrupt \(.irq) without children"),
		(.children[]? | check(null))
	else empty end;

def flat($tid; $depth; $path):
	if iscall then
		(if .lost == true then "[lost]" else .name end) as $n |
		([$path[], $n] | join("/")) as $me |
		([.children[]? | select(has("switch"))] | length) as $ns |
		"C\t\($tid)\t\($depth)\t\($me)\t\(.name)\t\(.start_ns)\t\(.duration_ns)\t\(.local_ns)\t\(.offcpu_ns)\t\(.offcpu_blocked_ns)\t\(.offcpu_preempt_ns)\t\(.complete)\t\(.incomplete_reason // "-")\t\(.dropped)\t\(.cpu)\t\($ns)\t\(.inherited == true)\t\(.lost == true)",
		(.children[]? | flat($tid; $depth + 1; $path + [$n]))
	elif isirq then
		"I\t\($tid)\t\($depth)\t\($path | join("/"))\t\(.irq)\t\(.context // "-")\t\(.start_ns // "-")\t\(.duration_ns // "-")\t\([.. | objects | select(iscall)] | length)",
		(.irq as $q | .children[]? | flat($tid; $depth + 1; $path + ["[irq \($q)]"]))
	elif type == "object" and has("switch") then
		"S\t\($tid)\t\($depth)\t\($path | join("/"))\t\(tojson)"
	else empty end;

def doc_checks:
	(select(.mode != "exact")
		| "mode \(.mode | tojson) (mechanism \(.mechanism | tojson)), not exact"),
	(["calls", "lost", "dropped", "incomplete", "missed", "elapsed_ns"][] as $f
		| select((.[$f] | isnum) | not) | "\($f) is not a number: \(.[$f] | tojson)"),
	(select((.skipped | type) != "array") | "skipped is not an array"),
	(if .mode != "exact" then empty
	 elif (.threads | type) != "array" then "threads is not an array"
	 else .threads[] |
		(select((.tid | isnum | not) or (.pid | isnum | not) or (.context | type) != "string"
			or (.calls | type) != "array")
			| "thread malformed: \(del(.calls) | tojson)"),
		(.context as $c | (if $c == "task" then .tid else null end) as $t | .calls[]? | check($t))
	 end);

def thread_id: if .context == "task" then .tid else "\(.context):\(.cpu)" end;
'

# shellcheck disable=SC2016
CG_JQ_FLAT='
(["mode", "mechanism", "calls", "lost", "dropped", "incomplete", "missed", "elapsed_ns",
	"orphans", "bad"][] as $k
	| "D\t\($k)\t\(.[$k])"),
"D\tnthreads\t\(.threads | length)",
(.threads[]? | thread_id as $id |
	"T\t\($id)\t\(.pid)\t\(.comm)\t\(.context)\t\(.cpu // "-")",
	(.calls[]? | flat($id; 0; [])))
'

# One document: checked, then flattened into FILE.kv; on a problem, the
# tool's stderr (ERRFILE, default bg.err) is shown
# "PID VALUE" lines, each PID replaced by its rank among the PIDs (1: the
# least), the lines kept in order: two runs of one workload compared
cg_rank_pids() {
	awk '{ pid[NR] = $1; v[NR] = $2; seen[$1] = 1 }
	END {
		n = 0
		for (p in seen) ids[++n] = p + 0
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (ids[j] < ids[i]) { t = ids[i]; ids[i] = ids[j]; ids[j] = t }
		for (i = 1; i <= n; i++) rank[ids[i]] = i
		for (i = 1; i <= NR; i++) print rank[pid[i]], v[i]
	}'
}

cg_rets() {	# FILE NAME [FIELD]
	jq -r --arg n "$2" --arg f "${3:-ret_str}" '.threads[] | .tid as $t | .calls[] |
		.. | objects | select(.name == $n) | "\($t) \(.[$f] // "none")"' "$1" | cg_rank_pids
}

cg_json() {	# FILE WHAT [ERRFILE]
	local out err=${3:-$T_TMP/bg.err}
	rm -f "$1.kv"
	[ -s "$1" ] || { [ -f "$err" ] && t_show_file "$err" "stderr"; t_fail "$2: no output"; }
	out=$(jq -s -r "$CG_JQ_DEFS if length != 1 then \"!\(length) JSON documents, expected 1\"
		else .[0] | ((doc_checks | \"!\" + .), ($CG_JQ_FLAT)) end" "$1" 2>&1) || {
		t_show_file "$1" "$2"
		t_fail "$2: not valid JSON: $(echo "$out" | head -n 1)"
	}
	if printf '%s\n' "$out" | grep -q '^!'; then
		[ -f "$err" ] && t_show_file "$err" "stderr"
		printf '%s\n' "$out" | sed -n 's/^!//p' | head -n 20 | cut -c1-400
		t_fail "$2: $(printf '%s\n' "$out" | sed -n 's/^!//p' | head -n 1) ($(printf '%s\n' "$out" | grep -c '^!') problems)"
	fi
	printf '%s\n' "$out" >"$1.kv"
}

# A value of the document ("-" if absent)
cg_d() {	# FILE KEY
	awk -F'\t' -v k="$2" '$1 == "D" && $2 == k { print $3; f = 1; exit }
		END { if (!f) print "-" }' "$1.kv"
}

cg_dnum() {	# FILE KEY
	local v
	v=$(cg_d "$1" "$2")
	_t_is_num "$v" || t_fail "$2 is not a number: '$v'"
	echo "$v"
}

# The C lines (calls), with an awk condition on the fields:
# $2 tid $3 depth $4 path $5 name $6 start $7 dur $8 local $9 off
# $10 blocked $11 preempt $12 complete $13 reason $14 dropped $15 cpu
# $16 switches $17 inherited $18 lost (a stand-in)
cg_calls() {	# FILE [AWK-CONDITION]
	awk -F'\t' "\$1 == \"C\" && (${2:-1})" "$1.kv"
}

cg_ncalls() {	# FILE [AWK-CONDITION]
	cg_calls "$@" | grep -c .
}

# The canonical form (tests/helpers/uftrace-canon): the calls of task
# threads whose names match REGEX, interrupts and stand-ins left out
cg_canon() {	# FILE [REGEX]
	awk -F'\t' -v re="${2:-^cg_}" '$1 == "C" && $4 !~ /\[irq / && $5 ~ re && $18 != "true" {
		n = split($4, p, "/"); d = 0
		for (i = 1; i < n; i++) if (p[i] ~ re && p[i] !~ /^\[/) d++
		if (!($2 in text)) tids[++nt] = $2
		text[$2] = text[$2] d " " $5 ($12 == "false" ? " incomplete" : "") "\n"
	}
	END { for (i = 1; i <= nt; i++) print text[tids[i]] }' "$1.kv" |
		canon_sort
}

# Blocks (tasks) separated by empty lines -> "TASK DEPTH NAME..." lines in
# the order of the blocks' text, then "count NAME N" lines
canon_sort() {
	LC_ALL=C awk '
	BEGIN { RS = "" }
	{ block[++nb] = $0 "\n" }
	END {
		for (i = 2; i <= nb; i++) {
			x = block[i]
			for (j = i - 1; j >= 1 && block[j] > x; j--) block[j + 1] = block[j]
			block[j + 1] = x
		}
		for (i = 1; i <= nb; i++) {
			n = split(block[i], l, "\n")
			for (j = 1; j < n; j++) {
				print i, l[j]
				split(l[j], f, " "); count[f[2]]++
			}
		}
		for (name in count) names[++nn] = name
		for (i = 2; i <= nn; i++) {
			x = names[i]
			for (j = i - 1; j >= 1 && names[j] > x; j--) names[j + 1] = names[j]
			names[j + 1] = x
		}
		for (i = 1; i <= nn; i++) print "count", names[i], count[names[i]]
	}'
}

# Fail unless two canonical forms are the same, showing both
canon_assert_eq() {	# GOT WANT what
	[ "$1" = "$2" ] && return 0
	echo "--- $3: got"
	printf '%s\n' "$1" | head -n 40
	echo "--- expected"
	printf '%s\n' "$2" | head -n 40
	echo "--- diff"
	diff <(printf '%s\n' "$2") <(printf '%s\n' "$1") | head -n 20
	t_fail "$3: the call trees differ"
}

# The functions of a scenario (cgshape's header), as targets: only those,
# since each uprobe takes the kernel about 0.1 s to remove (26 of them
# made every test 5 s longer); the trees still hold every cg_* call
cg_targets() {	# SCENARIO
	local f
	case $1 in
	nest) f="cg_a cg_b cg_c cg_d" ;;
	recurse) f="cg_rec cg_fib" ;;
	threads) f="cg_thread_0 cg_thread_1 cg_thread_2 cg_thread_3 cg_leaf" ;;
	fork)	# the children call at once, before uprobes of their own are
		# made: without the process filter, traced from their fork
		printf '%s\n' --no-uprobe-filter
		f="cg_forker cg_wait cg_child cg_leaf" ;;
	signal) f="cg_sig_victim cg_handler cg_leaf" ;;
	exit) f="cg_exit_outer cg_exit_mid cg_exit_inner cg_leaf" ;;
	longjmp) f="cg_jmp_outer cg_jmp_mid cg_jmp_inner cg_after_jump cg_leaf" ;;
	sleep) f="cg_sleep_outer cg_nap cg_leaf" ;;
	*) t_fail "cg_targets: no functions for scenario $1" ;;
	esac
	for f in $f; do printf '%s\n' "$CGS:$f"; done
}
