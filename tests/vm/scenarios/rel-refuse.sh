# SPDX-License-Identifier: GPL-2.0-only
# rel-refuse.sh NAME [FLAGS...] - on a kernel the scheduler does not support
# (Debian's 7.1.x and 7.2.x: their BTF declares kfuncs every scheduler
# calls with an extra argument, so libbpf cannot bind them), the loader
# refuses before loading anything: exit 2, one message naming what is
# missing and the kernels that have it, sched_ext left disabled. Its
# --features lists the missing kfuncs as REQUIRED. (tools/kernel-matrix)
. ./lib.sh
name=${1:-minimal}
[ $# -gt 0 ] && shift
flags="$*"
need_sched $name
[ -z "$flags" ] && [ "$name" = strata ] && flags=--run-example
diag "$bin $flags on $(nproc) CPUs, kernel $(uname -r)"
seq0=$(cat $SCX/enable_seq 2>/dev/null || echo 0)

$bin $flags --features >/tmp/features.txt 2>&1
is "--features says it would be refused (exit 2)" $? 2
check "--features ends with the verdict" grep -q '^verdict: refused' /tmp/features.txt
sed 's/^/# /' /tmp/features.txt | grep -v ' yes$'
awk -v k="$(uname -r)" -v s="$name" '$1 ~ /^(flag|callback|kfunc|ksym)$/ {
	print "# FEATURE", k, s, $1, $2, ($3 == "yes" ? "yes" : "no") }' /tmp/features.txt
check "--features marks a missing kfunc REQUIRED" grep -q '^kfunc .* no: REQUIRED' /tmp/features.txt

timeout 120 $bin $flags >/tmp/refuse.log 2>&1
rc=$?
sed 's/^/# /' /tmp/refuse.log | head -n 5
is "refused with exit 2" $rc 2
check "the message names the kfuncs and the kernels that have them" \
	grep -q 'cannot provide kfuncs the scheduler calls: scx_bpf.*Kernels known to have them: 6.12' /tmp/refuse.log
check "libbpf never got to load it (no verifier or extern error)" \
	sh -c "! grep -qiE 'libbpf:|verifier|failed to find' /tmp/refuse.log"
is "state still disabled" "$(state)" disabled
is "never enabled" "$(cat $SCX/enable_seq 2>/dev/null || echo 0)" "$seq0"
done_testing
