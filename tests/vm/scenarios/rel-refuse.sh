# SPDX-License-Identifier: GPL-2.0-only
# rel-refuse.sh NAME [FLAGS...] | all - on a kernel the scheduler does not support
# (Debian's 7.1.x and 7.2.x: their BTF declares kfuncs every scheduler
# calls with an extra argument, so libbpf cannot bind them), the loader
# refuses before loading anything: exit 2, one message naming what is
# missing and the kernels that have it, sched_ext left disabled. Its
# --features lists the missing kfuncs as REQUIRED. "all": every scheduler
# of the build in one boot (the default suite's rel-refuse, on 7.2.12);
# one NAME: tools/kernel-matrix.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
seq0=$(cat $SCX/enable_seq 2>/dev/null || echo 0)

# refuse_one NAME FLAGS...
refuse_one() {
	_rn=$1
	shift
	bin=scx_$_rn
	diag "$bin $* on $(nproc) CPUs, kernel $(uname -r)"
	$bin "$@" --features >/tmp/features.txt 2>&1
	is "$_rn: --features says it would be refused (exit 2)" $? 2
	check "$_rn: --features ends with the verdict" grep -q '^verdict: refused' /tmp/features.txt
	sed 's/^/# /' /tmp/features.txt | grep -v ' yes$'
	awk -v k="$(uname -r)" -v s="$_rn" '$1 ~ /^(flag|callback|kfunc|ksym)$/ {
		print "# FEATURE", k, s, $1, $2, ($3 == "yes" ? "yes" : "no") }' /tmp/features.txt
	check "$_rn: --features marks a missing kfunc REQUIRED" \
		grep -q '^kfunc .* no: REQUIRED' /tmp/features.txt

	timeout 120 $bin "$@" >/tmp/refuse.log 2>&1
	_rc=$?
	sed 's/^/# /' /tmp/refuse.log | head -n 5
	is "$_rn: refused with exit 2" $_rc 2
	check "$_rn: the message names the kfuncs and the kernels that have them" \
		grep -q 'cannot provide kfuncs the scheduler calls: scx_bpf.*Kernels known to have them: 6.12' /tmp/refuse.log
	check "$_rn: libbpf never got to load it (no verifier or extern error)" \
		sh -c "! grep -qiE 'libbpf:|verifier|failed to find' /tmp/refuse.log"
	is "$_rn: state still disabled" "$(state)" disabled
}

if [ "${1:-minimal}" = all ]; then
	nr=0
	for n in minimal brisk cadence balance strata relay relay_fifo; do
		have_sched $n || continue
		refuse_one $n $(sched_flags $n)
		nr=$((nr + 1))
	done
	check "every scheduler of the build checked ($nr)" [ $nr -ge 7 ]
else
	name=${1:-minimal}
	[ $# -gt 0 ] && shift
	need_sched $name
	flags="$*"
	[ -z "$flags" ] && flags=$(sched_flags $name)
	refuse_one $name $flags
fi
is "never enabled" "$(cat $SCX/enable_seq 2>/dev/null || echo 0)" "$seq0"
done_testing
