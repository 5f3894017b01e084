#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# boot.sh - the Debian guest of tests/distro is a real systemd system with
# a sched_ext kernel: systemd is PID 1, the boot reaches running (or
# degraded, with the failed units listed), sched_ext is there and idle,
# and the journal records and returns messages. Prints the boot time
# (systemd-analyze) as a comment. Run by tests/distro/boot (meson test
# distro-boot); it also runs, and fails, anywhere else.
# shellcheck source=SCRIPTDIR/../../lib/tap.sh # boot puts it next to this file
. ./tap.sh

# 1. systemd is PID 1
is "PID 1 is systemd" "$(cat /proc/1/comm 2>/dev/null)" systemd
like "PID 1 runs systemd's binary" "$(readlink /proc/1/exe 2>/dev/null)" '/systemd/systemd$'

# 2. the boot finished: running, or degraded with the failed units shown
state=$(timeout 300 systemctl is-system-running --wait 2>&1)
like "systemctl is-system-running: running or degraded" "$state" '^(running|degraded)$'
diag "system state: $state"
if [ "$state" != running ]; then
	diag "failed units:"
	systemctl --failed --no-legend --no-pager 2>&1 | sed 's/^/#   /'
fi
if t=$(systemd-analyze time 2>&1); then
	diag "$(echo "$t" | head -n1)"
	systemd-analyze critical-chain --no-pager 2>&1 | grep -v '^The time' | head -n 8 |
		sed 's/^/#   /'
else
	diag "systemd-analyze time: $t"
fi

# 3. the kernel has sched_ext and no scheduler is attached
diag "kernel $(uname -r)"
check "/sys/kernel/sched_ext/state exists" test -r /sys/kernel/sched_ext/state
is "sched_ext state is disabled" "$(cat /sys/kernel/sched_ext/state 2>/dev/null)" disabled

# 4. the journal: this boot's messages, and a new one found again
check "journalctl reads this boot" sh -c 'journalctl -b --no-pager -q -n 5 | grep -q .'
mark=scxk-distro-$$-$RANDOM
echo "$mark" | systemd-cat -t scxk-boot 2>/dev/null
found=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	if journalctl -b -t scxk-boot --no-pager -q 2>/dev/null | grep -q "$mark"; then
		found=1
		break
	fi
	sleep 1
done
if [ -n "$found" ]; then ok "journalctl returns a message sent with systemd-cat"; else
	nok "journalctl returns a message sent with systemd-cat"; fi
done_testing
