# SPDX-License-Identifier: GPL-2.0-only
# scxctl against a live sched_ext kernel: list, status, start, switch
# (through every installed scheduler, under load), stop, the error paths,
# scx.service's ExecStart (scxctl service-exec) with its environment, and
# the systemd path through a stand-in systemctl (the initramfs has no
# systemd; the stand-in runs what the unit's ExecStart would).
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
export SCXKIT_SCHED_DIR=/opt/scxkit/share/schedulers SCXKIT_BIN_DIR=/opt/scxkit/bin
LOGS=/tmp/scxctl-logs

# loader_pid NAME : pid of the scx_NAME process holding the scheduler
loader_pid() { scxctl status | sed -n "s/^scheduler: .*(scx_$1, pid \([0-9]*\).*/\1/p"; }
gone() { [ ! -d /proc/$1 ] || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }

# ---- list and status with nothing running ----
names=$(ls $SCXKIT_SCHED_DIR)
diag "installed: $(echo $names)"
out=$(scxctl list)
is "list exits 0" $? 0
is "list has one line per installed scheduler" "$(echo "$out" | wc -l)" "$(echo "$names" | wc -w)"
for n in $names; do
	like "list shows $n with its --help summary" "$(echo "$out" | grep "^$n ")" \
		"^$n +$(scx_$n --help | sed -n 3p | cut -c1-20 | sed 's/[][().*+?^$|\\]/./g')"
done
like "status with nothing running" "$(scxctl status)" "sched_ext: +disabled"

# ---- refusals: nothing is touched ----
scxctl start nosuch >/tmp/o 2>&1
is "unknown scheduler exits 2" $? 2
like "unknown scheduler message" "$(cat /tmp/o)" "not an installed scheduler"
scxctl start 'minimal;reboot' >/tmp/o 2>&1
is "a name with shell syntax exits 2" $? 2
scxctl start ../bin/sh >/dev/null 2>&1
is "a path as name exits 2" $? 2
scxctl start minimal -- --no-such-flag >/tmp/o 2>&1
is "flags the scheduler rejects exit 2" $? 2
like "the scheduler's own complaint is shown" "$(cat /tmp/o)" "unknown option '--no-such-flag'"
scxctl start >/dev/null 2>&1
is "start without a name exits 2" $? 2
scxctl stop extra >/dev/null 2>&1
is "stop with an argument exits 2" $? 2
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
su nobody -s /bin/sh -c "SCXKIT_SCHED_DIR=$SCXKIT_SCHED_DIR SCXKIT_BIN_DIR=$SCXKIT_BIN_DIR \
	scxctl start minimal" >/tmp/o 2>&1
is "start as non-root exits 1" $? 1
like "non-root message" "$(cat /tmp/o)" "needs root"
is "refusals left sched_ext disabled" "$(state)" disabled

# ---- direct start, status, second start refused ----
scxctl --log-dir $LOGS start minimal -- --slice-us 5000 >/tmp/o 2>&1
is "start minimal exits 0" $? 0
is "minimal is enabled" "$(state)/$(ops)" enabled/minimal
st=$(scxctl status)
diag "$(echo "$st" | tr '\n' '|')"
like "status names the scheduler and its loader" "$st" "scheduler: +minimal \(scx_minimal, pid [0-9]+\)"
like "status shows since when" "$st" "since: +20[0-9-]+ [0-9:]+"
like "status shows the command line" "$st" "command: +.*scx_minimal --slice-us 5000"
like "status shows stats from the socket" "$st" "stats: +.*local=[0-9]+"
like "status shows the scope" "$st" "scope: +all tasks"
like "the log file exists" "$(ls $LOGS)" "scxctl-minimal.log"
pid1=$(loader_pid minimal)
# A --monitor client runs the same binary; it must not be taken for the loader.
scx_minimal --monitor 1 >/dev/null 2>&1 &
mon=$!
sleep 1
is "a --monitor client is not taken for the loader" "$(loader_pid minimal)" "$pid1"
kill $mon; wait $mon 2>/dev/null
scxctl start brisk >/tmp/o 2>&1
is "start while one runs exits 1" $? 1
like "and says to switch" "$(cat /tmp/o)" "use 'scxctl switch brisk'"

# ---- switch: bad flags keep the old one, then every scheduler under load ----
scxctl switch brisk -- -m nosuchmode >/dev/null 2>&1
is "switch with bad flags exits 2" $? 2
is "and the old scheduler keeps running" "$(state)/$(ops)/$(loader_pid minimal)" "enabled/minimal/$pid1"
( end=$(($(date +%s) + 40)); while [ "$(date +%s)" -lt $end ]; do
	hackbench -g 2 -l 40 >/dev/null 2>&1; done ) &
load=$!
prev=$pid1
prevname=minimal
for n in $names minimal; do
	scxctl --log-dir $LOGS switch $n >/tmp/o 2>&1
	rc=$?
	if [ $rc = 2 ]; then
		# It rejected its (empty) configuration once started: the
		# previous scheduler must be running again.
		diag "scx_$n needs a configuration: $(grep -m1 "scx_$n:" /tmp/o)"
		is "failed switch to $n brings $prevname back" "$(state)/$(ops)" "enabled/$prevname"
		prev=$(loader_pid $prevname)
		continue
	fi
	[ $rc = 0 ] || sed 's/^/#   /' /tmp/o
	is "switch to $n: exit 0 and the kernel runs it" "$rc/$(state)/$(ops)" "0/enabled/$n"
	check "switch to $n: the previous loader is gone" gone $prev
	prev=$(loader_pid $n)
	prevname=$n
done
kill $load 2>/dev/null; wait $load 2>/dev/null

# ---- stop ----
scxctl stop >/tmp/o 2>&1
is "stop exits 0" $? 0
is "stop disables sched_ext" "$(state)" disabled
check "stop ends the loader" gone $prev
scxctl stop >/dev/null 2>&1
is "stop with nothing running exits 0" $? 0
scxctl switch minimal >/dev/null 2>&1
is "switch with nothing running starts it" "$?/$(state)/$(ops)" "0/enabled/minimal"
scxctl stop >/dev/null 2>&1
is "and stop again" "$(state)" disabled

# ---- scx.service's ExecStart: scxctl service-exec ----
scxctl service-exec >/tmp/o 2>&1
is "service-exec without SCX_SCHEDULER exits 2" $? 2
SCX_SCHEDULER=scx_nosuch scxctl service-exec >/dev/null 2>&1
is "service-exec with an unknown scheduler exits 2" $? 2
SCX_SCHEDULER=/bin/sh scxctl service-exec >/dev/null 2>&1
is "service-exec with a path exits 2" $? 2
start_sched env SCX_SCHEDULER=scx_minimal "SCX_FLAGS=--fifo   --slice-us 3000" scxctl service-exec
like "service-exec runs SCX_SCHEDULER with SCX_FLAGS split at blanks" \
	"$(ops) $(tr '\0' ' ' </proc/$SCHED_PID/cmdline)" "^minimal .*scx_minimal --fifo --slice-us 3000 $"
stop_sched TERM
is "the service's SIGTERM detaches with exit 0" "$SCHED_RC/$(state)" 0/disabled
# --fifo means nothing to brisk: an override scheduler must not get SCX_FLAGS.
start_sched env SCX_SCHEDULER=scx_minimal SCX_FLAGS=--fifo SCX_SCHEDULER_OVERRIDE=scx_brisk \
	"SCX_FLAGS_OVERRIDE=-s 10000" scxctl service-exec
like "the override wins, with the override flags only" \
	"$(ops) $(tr '\0' ' ' </proc/$SCHED_PID/cmdline)" "^brisk .*scx_brisk -s 10000 $"
stop_sched TERM
is "override run detaches" "$SCHED_RC" 0

# ---- the systemd path, through a stand-in systemctl ----
# It keeps the manager environment in a file and starts the unit's
# ExecStart (scxctl service-exec) with it, like systemd would.
mkdir -p /run/systemd/system /tmp/fakebin /tmp/fakesd
cat >/tmp/fakesd/default <<'EOF'
SCX_SCHEDULER=scx_minimal
SCX_FLAGS=--fifo
EOF
cat >/tmp/fakebin/systemctl <<'EOF'
#!/bin/sh
d=/tmp/fakesd
echo "systemctl $*" >>$d/calls
running() { [ -f $d/pid ] && kill -0 "$(cat $d/pid)" 2>/dev/null &&
	! grep -q '^State:.*Z' /proc/$(cat $d/pid)/status; }
stop() { running || return 0; kill -TERM "$(cat $d/pid)"; i=0
	while running && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; rm -f $d/pid; }
start() { ( set -a; . $d/default; [ -f $d/env ] && . $d/env; set +a
	exec scxctl service-exec ) >$d/unit.log 2>&1 & echo $! >$d/pid; }
case "$1" in
show) case "$2" in
	--property=LoadState) echo loaded ;;
	--property=ActiveState) running && echo active || echo inactive ;;
	esac ;;
set-environment) shift; for kv; do
	k=${kv%%=*}; grep -v "^$k=" $d/env >$d/env.new 2>/dev/null; mv $d/env.new $d/env
	printf "%s='%s'\n" "$k" "${kv#*=}" >>$d/env; done ;;
unset-environment) shift; for k; do grep -v "^$k=" $d/env >$d/env.new 2>/dev/null
	mv $d/env.new $d/env; done ;;
start) running || start ;;
restart) stop; start ;;
stop) stop ;;
reset-failed) ;;
*) exit 1 ;;
esac
EOF
chmod +x /tmp/fakebin/systemctl
export PATH=/tmp/fakebin:$PATH
scxctl start cadence -- --exit-dump-len 8192 >/tmp/o 2>&1
rc=$?
[ $rc = 0 ] || { sed 's/^/#   /' /tmp/o /tmp/fakesd/unit.log; }
is "start through the service: exit 0 and cadence runs" "$rc/$(state)/$(ops)" "0/enabled/cadence"
like "scxctl set the overrides with systemctl" "$(cat /tmp/fakesd/calls)" \
	"set-environment SCX_SCHEDULER_OVERRIDE=scx_cadence SCX_FLAGS_OVERRIDE=--exit-dump-len 8192"
like "and started scx.service" "$(cat /tmp/fakesd/calls)" "systemctl start scx.service"
like "status reports the service" "$(scxctl status)" "service: +scx.service active"
scxctl switch brisk -- --stats-socket "/run/scx/a b" >/tmp/o 2>&1
is "a flag with a blank is refused for the service" $? 2
like "with a reason" "$(cat /tmp/o)" "has blanks"
scxctl switch brisk -- -m performance >/tmp/o 2>&1
is "switch through the service restarts it with brisk" "$?/$(state)/$(ops)" "0/enabled/brisk"
like "switch used systemctl restart" "$(cat /tmp/fakesd/calls)" "systemctl restart scx.service"
scxctl stop >/tmp/o 2>&1
is "stop through the service" "$?/$(state)" "0/disabled"
like "stop dropped the overrides" "$(cat /tmp/fakesd/calls)" \
	"unset-environment SCX_SCHEDULER_OVERRIDE SCX_FLAGS_OVERRIDE"
is "the plain service start then uses /etc/default/scx" \
	"$(systemctl start scx.service; wait_for 60 state_is enabled; ops)" minimal
like "with its flags" "$(scxctl status)" "command: +.*scx_minimal --fifo"
scxctl --direct stop >/dev/null 2>&1
is "--direct stop ends it too" "$(state)" disabled
rm -rf /run/systemd
done_testing
