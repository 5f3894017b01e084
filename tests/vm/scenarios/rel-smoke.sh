# SPDX-License-Identifier: GPL-2.0-only
# rel-smoke.sh NAME [FLAGS...] - the short run every scheduler gets on every
# kernel of the matrix (tools/kernel-matrix) and under the sanitizers
# (tools/asan-check): load and verify, attach, a few seconds of mixed load,
# stats, clean detach. It also prints each BPF program's verified
# instruction count (loader -v) as "# VERIFIED kernel sched prog insns" lines and fails
# when one comes within 10% of the verifier's limit, and what --features
# found as "# FEATURE kernel sched kind name yes|no" lines (checked against
# /proc/kallsyms for kfuncs).
. ./lib.sh
name=${1:-minimal}
[ $# -gt 0 ] && shift
flags="$*"
need_sched $name
# scx_strata cannot start without a layer config: the smoke uses its own.
[ -z "$flags" ] && [ "$name" = strata ] && flags=--run-example
# The verifier's budget per program (BPF_COMPLEXITY_LIMIT_INSNS) and the
# share of it we accept before calling a program too close to the edge.
insn_limit=1000000
insn_max=$((insn_limit * 9 / 10))
kver=$(uname -r)
diag "$bin $flags on $(nproc) CPUs, kernel $kver"

# --features: read from the kernel's BTF, before anything is loaded.
$bin $flags --features >/tmp/features.txt 2>&1
is "--features exits 0" $? 0
check "--features ends with the verdict" grep -q '^verdict: runs on this kernel' /tmp/features.txt
check "--features loaded nothing" [ "$(state)" = disabled ]
awk -v k="$kver" -v s="$name" '$1 ~ /^(flag|callback|kfunc|ksym)$/ {
	print "# FEATURE", k, s, $1, $2, ($3 == "yes" ? "yes" : "no") }' /tmp/features.txt
check "--features lists the callbacks" grep -q '^callback  *ops\.[a-z_]*  *yes' /tmp/features.txt
check "--features lists the kfuncs" grep -q '^kfunc ' /tmp/features.txt
check "--features names kfuncs as the kernel does (no ___ flavour suffix of ours)" \
	sh -c "! grep -q '___scxk ' /tmp/features.txt"
# Each kfunc's yes/no agrees with the kernel's own symbol table.
bad=$(awk '$1 == "kfunc" { print $2, $3 }' /tmp/features.txt | while read -r fn found; do
	if grep -q " [tT] $fn\$" /proc/kallsyms; then has=yes; else has=no:; fi
	[ "$has" = "$found" ] || echo "$fn:$found"
done)
is "--features agrees with /proc/kallsyms for every kfunc" "$bad" ""

# -v: the loader then logs each program's verified_insns (bpf_prog_info).
# A watchdog the settle period below can outlast.
export SCX_TIMEOUT_MS=$SETTLE_TIMEOUT_MS
check "loads, passes the verifier and attaches" start_sched $bin -v $flags || done_testing
like "root/ops names it" "$(ops)" "^$name"
# An ops flag this kernel lacks is dropped with a notice naming it.
for f in $(awk '$1 == "flag" && $3 != "yes" && $2 != "SCX_OPS_SWITCH_PARTIAL" { print $2 }' /tmp/features.txt); do
	check "the loader says it runs without $f" grep -q "has no $f; running without it" $SCHED_LOG
done

sed -n "s/^.*debug: BPF program \([^:]*\): \([0-9]*\) verified instructions$/VERIFIED $kver $name \1 \2/p" \
	$SCHED_LOG >/tmp/verified.txt
sed 's/^/# /' /tmp/verified.txt
check "verified instruction counts reported" [ -s /tmp/verified.txt ]
worst=$(awk 'BEGIN { m = 0 } $5 > m { m = $5 } END { print m }' /tmp/verified.txt)
check "every program below 90% of the verifier limit (largest: $worst)" [ "$worst" -lt $insn_max ]

check "runs mixed load" sh -c "hackbench -g 2 -l 50 >/dev/null 2>&1 &&
	stress-ng --cpu $(nproc) --fork 1 --pipe 1 --timeout 5s -q"
check "still attached" sched_alive
check "settle: one canary per CPU progresses for longer than the watchdog timeout" \
	settle $((SETTLE_TIMEOUT_MS / 1000 + 1))
out=$(timeout 20 $bin --monitor 0.2 --monitor-count 1 2>&1)
is "stats readable" $? 0
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
is "state back to disabled" "$(state)" disabled
# Sanitizer builds: any report in the loader's output is a failure.
check "no sanitizer report" sh -c "! grep -E 'Sanitizer|runtime error:' $SCHED_LOG"
done_testing
