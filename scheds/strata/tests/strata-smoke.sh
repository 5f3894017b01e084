# SPDX-License-Identifier: GPL-2.0-only
# scx_strata end to end: bad configs refused with exit 2 before the kernel
# is touched; --run-example attaches, serves per-layer stats, survives 30 s
# of mixed load, detaches cleanly, and recovers from SIGKILL.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
diag "$(nproc) CPUs"

is "starts disabled" "$(state)" disabled

# bad CASE WANT_REGEX ARGS... : exit 2, message matches, kernel untouched
bad() {
	_c=$1 _w=$2; shift 2
	scx_strata "$@" >/tmp/bad.out 2>&1
	_rc=$?
	if [ $_rc = 2 ] && grep -qE "$_w" /tmp/bad.out && state_is disabled; then
		_report 0 "bad config exits 2: $_c"
	else
		_report 1 "bad config exits 2: $_c"
		diag "  rc $_rc, state $(state), output: $(head -c 300 /tmp/bad.out)"
	fi
}
ok_tail='"matches":[[]],"kind":{"Open":{}}}'
bad "no config" "no layer config" 
bad "not JSON" "invalid JSON" '[{"name":'
bad "unknown field with --strict" '\$\[0\]\.kind\.Open\.colour: colour: unknown field \(an error with --strict\)' --strict '[{"name":"a","matches":[[]],"kind":{"Open":{"colour":1}}}]'
bad "inverted util_range" 'util_range: inverted range' '[{"name":"a","matches":[[]],"kind":{"Confined":{"util_range":[0.9,0.1]}}}]'
bad "empty cpus_range" 'cpus_range: empty range' '[{"name":"a","matches":[[]],"kind":{"Grouped":{"util_range":[0.1,0.9],"cpus_range":[0,0]}}}]'
bad "last layer not catch-all" 'must be a catch-all' '[{"name":"a","matches":[[{"CommPrefix":"x"}]],"kind":{"Open":{}}}]'
bad "missing file" 'cannot read' f:/nonexistent.json
bad "unsupported matcher" 'DsqInsertBelow: matcher not supported' '[{"name":"a","matches":[[{"DsqInsertBelow":0.5}]],"kind":{"Open":{}}},{"name":"b",'"$ok_tail"']'
bad "bad --interval" 'interval' --run-example --interval 0
bad "example plus spec" 'exclude each other' --run-example '[{"name":"b",'"$ok_tail"']'

# Without --strict scx_layered's leniency: an unknown field is ignored, with a warning.
out=$(scx_strata --print-and-exit '[{"name":"a b","matches":[[]],"kind":{"Open":{"colour":1}}}]' 2>&1)
is "unknown field without --strict: --print-and-exit exits 0" $? 0
like "... with a warning naming it" "$out" 'warning: .*\$\[0\]\.kind\.Open\.colour: ignored: unknown field'

scx_strata -e /tmp/example.json
is "-e writes the example and exits 0" $? 0
out=$(scx_strata f:/tmp/example.json --print-and-exit 2>&1)
is "--print-and-exit on the example exits 0" $? 0
like "--print-and-exit expands the defaults" "$out" '"growth_algo": "Sticky"'
is "... without touching the kernel" "$(state)" disabled

check "--run-example attaches" start_sched scx_strata --run-example
is "state is enabled" "$(state)" enabled
like "root/ops names it" "$(ops)" "^strata"

scx_strata --run-example >/tmp/second.out 2>&1
is "second instance exits 1" $? 1
like "second instance says why" "$(cat /tmp/second.out)" "already enabled.*strata"

sleep 1
line=$(stats_line scx_strata)
like "stats list every layer" "$line" '"batch":\{.*"immediate":\{.*"stress-ng":\{.*"normal":\{'
like "the catch-all layer has tasks" "$line" '"normal":\{"tasks":[1-9]'
like "layers report CPU lists" "$line" '"cpu_list":"[0-9]'

check "survives 30 s of mixed load" mixed_workload 30
check "not ejected by the mixed load" sched_alive
like "scheduler log has no error" "$(cat $SCHED_LOG)" '^([^E]|E[^R])*$'

stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
is "state back to disabled" "$(state)" disabled

check "attaches again" start_sched scx_strata --run-example
hackbench -g 2 -l 100 >/dev/null 2>&1
stop_sched KILL
check "SIGKILL returns the kernel to its default scheduler" wait_for 10 state_is disabled
done_testing
