# SPDX-License-Identifier: GPL-2.0-only
# rel-refuse.sh NAME [FLAGS...] - on a kernel the scheduler does not support
# (Linux 7.2: its BTF lacks kfuncs every scheduler needs), the loader
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

$bin --features >/tmp/features.txt 2>&1
is "--features exits 0" $? 0
sed 's/^/# /' /tmp/features.txt | grep -v ' yes$'
awk -v k="$(uname -r)" -v s="$name" '$1 ~ /^(flag|callback|kfunc|ksym)$/ {
	print "# FEATURE", k, s, $1, $2, ($3 == "yes" ? "yes" : "no") }' /tmp/features.txt
check "--features marks a missing kfunc REQUIRED" grep -q '^kfunc .* no: REQUIRED' /tmp/features.txt

timeout 120 $bin $flags >/tmp/refuse.log 2>&1
rc=$?
sed 's/^/# /' /tmp/refuse.log | head -n 5
is "refused with exit 2" $rc 2
check "the message names what is missing and the kernels that have it" \
	grep -q 'lacks what the scheduler needs: .*scx_bpf.*6.12 to 7.1 and 7.3' /tmp/refuse.log
check "libbpf never got to load it (no verifier or extern error)" \
	sh -c "! grep -qiE 'libbpf:|verifier|failed to find' /tmp/refuse.log"
is "state still disabled" "$(state)" disabled
is "never enabled" "$(cat $SCX/enable_seq 2>/dev/null || echo 0)" "$seq0"
done_testing
