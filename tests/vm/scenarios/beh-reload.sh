# SPDX-License-Identifier: GPL-2.0-only
# beh-reload.sh CYCLES [NAME...] - attach/detach loops and an attach during
# a fork storm, for every scheduler (default: all of them) in one boot.
#
# Reload loop: CYCLES attach/detach cycles per scheduler, each one attached
# (state "enabled") and detached with exit 0. At the end the kernel holds
# as many BPF programs and maps as before the first cycle (counted with
# bpftool), and its memory is back to the baseline within one attached
# scheduler's footprint (see MEM_SLACK_KB).
# Fork storm: the scheduler starts while stress-ng --fork runs; it
# attaches, places tasks (its counters move), detaches with exit 0, and the
# storm completes.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v bpftool >/dev/null || skip_all "no bpftool in the guest image"
cycles=${1:-100}
[ $# -gt 0 ] && shift
scheds=${*:-$ALL_SCHEDS}
# Memory is compared after dropping caches; what stays different is noise
# from the shell and page tables of short-lived processes (a few MB on this
# guest). A leak of one cycle's BPF objects each cycle would cost CYCLES
# times the footprint of an attached scheduler, far above this.
MEM_SLACK_KB=16384
diag "schedulers: $scheds; $cycles cycles each; $(nproc) CPUs, kernel $(uname -r)"

nr_progs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*:'; }
nr_maps() { bpftool map show 2>/dev/null | grep -c '^[0-9]*:'; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}
# BPF objects are freed after an RCU grace period, off the detach path.
objects_back() { [ "$(nr_progs)" = "$progs0" ] && [ "$(nr_maps)" = "$maps0" ]; }

# ---- attach during a fork storm --------------------------------------------
for name in $scheds; do
	bin=scx_$name
	command -v $bin >/dev/null || { diag "SKIP $name: $bin not in this build"; continue; }
	stress-ng --fork 4 --timeout 12s --metrics-brief >/tmp/fork.log 2>&1 &
	storm=$!
	sleep 1
	check "$name: attaches during a fork storm" start_sched $bin $(sched_flags $name) || {
		wait $storm; continue; }
	d=$(sched_decisions $name)
	check "$name: places tasks during the storm ($d decisions)" [ "${d:-0}" -gt 0 ]
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0 during the storm" "$SCHED_RC" 0
	wait $storm
	rc=$?
	check "$name: the fork storm completed (exit $rc)" sh -c "[ $rc = 0 ] && grep -q 'successful run completed' /tmp/fork.log"
done

# ---- reload loop -------------------------------------------------------------
settle
progs0=$(nr_progs)
maps0=$(nr_maps)
avail0=$(meminfo MemAvailable)
unrecl0=$(meminfo SUnreclaim)
diag "baseline: $progs0 BPF programs, $maps0 maps, MemAvailable $avail0 kB, SUnreclaim $unrecl0 kB"
for name in $scheds; do
	bin=scx_$name
	command -v $bin >/dev/null || continue
	flags=$(sched_flags $name)
	start_sched $bin $flags
	foot=$((avail0 - $(meminfo MemAvailable)))
	diag "$name: $(nr_progs) programs, $(nr_maps) maps and $foot kB while attached"
	stop_sched INT
	t0=$(uptime_cs)
	i=0
	bad=0
	while [ $i -lt "$cycles" ]; do
		if ! start_sched $bin $flags; then
			bad=$((bad + 1))
			stop_sched KILL
		else
			stop_sched INT
			[ "$SCHED_RC" = 0 ] || { bad=$((bad + 1)); diag "cycle $i: exit $SCHED_RC"; }
		fi
		i=$((i + 1))
	done
	t1=$(uptime_cs)
	diag "$name: $cycles cycles in $(((t1 - t0) / 100)) s"
	is "$name: $cycles cycles attached and detached with exit 0" "$bad" 0
	wait_for 30 objects_back
	is "$name: BPF programs back to baseline" "$(nr_progs)" "$progs0"
	is "$name: BPF maps back to baseline" "$(nr_maps)" "$maps0"
	is "$name: state disabled" "$(state)" disabled
done
settle
avail1=$(meminfo MemAvailable)
unrecl1=$(meminfo SUnreclaim)
diag "after: MemAvailable $avail1 kB, SUnreclaim $unrecl1 kB"
check "MemAvailable back to baseline within $MEM_SLACK_KB kB (lost $((avail0 - avail1)) kB)" \
	[ $((avail0 - avail1)) -lt $MEM_SLACK_KB ]
check "unreclaimable slab back to baseline within $MEM_SLACK_KB kB (grew $((unrecl1 - unrecl0)) kB)" \
	[ $((unrecl1 - unrecl0)) -lt $MEM_SLACK_KB ]
done_testing
