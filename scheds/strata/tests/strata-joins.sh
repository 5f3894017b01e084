# SPDX-License-Identifier: GPL-2.0-only
# scx_strata's CmdJoin, HintEquals, NSEquals/NSPIDEquals and CgroupRegex matchers,
# as scx_layered defines them, checked with the layers' task counts:
#   - CmdJoin: a thread renames itself to a join command (bytes 0x10 0x5c,
#     opcode 1 = join / 2 = leave, then the layer name; intf.h) and stays
#     joined through later ordinary renames until it leaves. A plain name
#     that merely starts like the layer name does not join;
#   - HintEquals: a hint written into the pinned task-hint map
#     (--task-hint-map) by a client as scx_layered's (scxk-hint: pidfd
#     key) moves a running task in, another hint or none moves it out;
#   - NSEquals / NSPIDEquals [ns, pid]: tasks of a pid namespace made with
#     unshare, and its pid 1, by the namespace's inode;
#   - CgroupRegex: on the absolute path under /sys/fs/cgroup, for cgroups
#     created after the scheduler started (the loader's scan finds them);
#     the anchors hold (no nested cgroup, no non-digit name).
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
unshare -p -f true 2>/dev/null || skip_all "no pid namespaces (unshare -p)"

# A pid namespace: sh is its pid 1, two sleeps beside it.
unshare -p -f sh -c 'sleep 600 & sleep 600 & wait' &
u=$!
has_child() { [ -n "$(cat /proc/$u/task/$u/children 2>/dev/null)" ]; }
wait_for 5 has_child
ns1=$(cat /proc/$u/task/$u/children | tr -d ' ')
ino=$(readlink /proc/$ns1/ns/pid | tr -dc 0-9)
diag "namespace pid:[$ino], its pid 1 is $ns1 here"
sleep 600 &
outside=$!

cat >/tmp/joins.json <<JSON
[
  {"name": "joined", "comment": "threads that sent a join command for a layer named rend...",
   "matches": [[{"CmdJoin": "rend"}]], "kind": {"Open": {}}},
  {"name": "hinted", "comment": "tasks whose hint is 7",
   "matches": [[{"HintEquals": 7}]], "kind": {"Open": {}}},
  {"name": "ns pid 1", "comment": null,
   "matches": [[{"NSPIDEquals": [$ino, 1]}]], "kind": {"Open": {}}},
  {"name": "ns", "comment": "the other tasks of that namespace",
   "matches": [[{"NSEquals": $ino}, {"CommPrefix": "sleep"}]], "kind": {"Open": {}}},
  {"name": "ci", "comment": "sleeps in /ci-N.slice exactly",
   "matches": [[{"CgroupRegex": "^/sys/fs/cgroup/ci-[0-9]+\\\\.slice\$"}, {"CommPrefix": "sleep"}]],
   "kind": {"Open": {}}},
  {"name": "rest", "comment": null, "matches": [[]], "kind": {"Open": {}}}
]
JSON

# stays LAYER N : the count is N now and still N a second later
stays() { count_is "$1" "$2" && sleep 1 && count_is "$1" "$2"; }

HINTS=/sys/fs/bpf/strata_hints
check "attaches with CmdJoin, HintEquals, NS and CgroupRegex layers" \
	start_sched scx_strata --task-hint-map $HINTS f:/tmp/joins.json
# The command bytes through printf's octal escapes: 020 134 = 0x10 0x5c.
cat >/tmp/hog.sh <<'SH'
trap 'printf "\020\134\002" >/proc/self/comm' USR1
trap 'printf worker >/proc/self/comm' USR2
printf "$1" >/proc/self/comm
while :; do :; done
SH

# ---- pid namespace ----
check "the namespace's pid 1 is in 'ns pid 1'" layer_settle "ns pid 1" 1
check "its two sleeps are in 'ns' (the sleep outside is not)" layer_settle ns 2

# ---- CmdJoin: busy loops, so a rename is seen within a slice ----
check "nobody joined yet" layer_settle joined 0
sh /tmp/hog.sh '\020\134\001render' &
h1=$!
check "a join command for 'render' joins layer joined (CmdJoin rend)" layer_settle joined 1
sh /tmp/hog.sh 'render' &
h2=$!
sh /tmp/hog.sh '\020\134\001other' &
h3=$!
sleep 1
check "a plain name 'render' and a join for 'other' do not join" stays joined 1
kill -USR2 $h1
wait_for 5 grep -qx worker /proc/$h1/comm
check "renamed to 'worker' after joining: still joined" stays joined 1
kill -USR1 $h1
check "the leave command: joined is empty" layer_settle joined 0
kill $h1 $h2 $h3

# ---- HintEquals: the hint map is written from user space, read when the task runs ----
check "the hint map is pinned at $HINTS" test -e $HINTS
sh /tmp/hog.sh hintme &
h4=$!
check "no task is hinted yet" layer_settle hinted 0
check "scxk-hint sets hint 7" scxk-hint $HINTS $h4 7
check "a running task with hint 7 joins hinted" layer_settle hinted 1
check "scxk-hint sets hint 8" scxk-hint $HINTS $h4 8
check "hint 8: it leaves" layer_settle hinted 0
scxk-hint $HINTS $h4 7
check "hint 7 again: back in" layer_settle hinted 1
check "scxk-hint clears the hint" scxk-hint $HINTS $h4 none
check "hint cleared: it leaves" layer_settle hinted 0
scxk-hint $HINTS $h4 7
kill $h4

# ---- CgroupRegex, for cgroups made after the scheduler started ----
mkdir -p /sys/fs/cgroup/ci-7.slice/job /sys/fs/cgroup/ci-x.slice
sleep 1 # a scan every interval (0.1 s) maps the new cgroups
sleep 600 &
s1=$!
sleep 600 &
s2=$!
sleep 600 &
s3=$!
echo $s1 >/sys/fs/cgroup/ci-7.slice/cgroup.procs
check "a sleep moved into ci-7.slice joins ci" layer_settle ci 1
echo $s2 >/sys/fs/cgroup/ci-x.slice/cgroup.procs
echo $s3 >/sys/fs/cgroup/ci-7.slice/job/cgroup.procs
check "ci-x.slice and ci-7.slice/job do not match" stays ci 1
echo $s1 >/sys/fs/cgroup/cgroup.procs
check "moved back to the root: ci is empty" layer_settle ci 0

check "still attached" sched_alive
stop_sched INT
is "detaches with exit 0" "$SCHED_RC" 0
[ $_fail = 0 ] || show_loader_log
kill $s1 $s2 $s3 $outside $u 2>/dev/null
rm -f $HINTS
for p in $s1 $s2 $s3; do echo $p >/sys/fs/cgroup/cgroup.procs 2>/dev/null; done
done_testing
