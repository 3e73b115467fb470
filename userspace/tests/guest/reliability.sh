#!/bin/sh
# Reliability tests of vgpu inside the guest (tools/check runs this with
# vgpud started): no process can stall or wedge the device for the others.
# Each test reproduces a way a careless or hostile program took the device
# before: a kernel that never ends, an owner that dies, a clock holder that
# never waits, a not-before cycle at the end of time, a daemon stopped or
# told to terminate, the device removed under running jobs. vgpu_hog is
# the careless program. Prints "ok - NAME" / "not ok - NAME" lines.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }

sysdev() { echo /sys/class/drm/$(ls /sys/class/drm | grep -m1 '^renderD')/device; }
cycle() { vgpu info | sed -n 's/^current_cycle *//p'; }
active_jobs() { sed -n 's/.* active \([0-9]*\)$/\1/p' /sys/kernel/debug/dri/*/kcb | head -n 1; }
# waits up to $2 tenths of a second (generous: the machine may be busy)
# for the shell condition $1
wait_for() {
	i=0
	while ! eval "$1" && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	eval "$1"
}
start_vgpud() {
	rm -f /run/vgpud.ready
	vgpud "$@" >> /tmp/vgpud-rel.log 2>&1 &
	echo $! > /run/vgpud.pid
	wait_for '[ -e /run/vgpud.ready ]' 300
}
# the device still runs a job of another process correctly
works() {
	out=$(timeout 300 vgpu run saxpy --size 20000 2>&1)
	echo "$out"
	case "$out" in "saxpy: ok "*) return 0 ;; *) return 1 ;; esac
}

# 1. A kernel that never ends, while another process's jobs complete
#    correctly beside it (the sync quantum lets the scheduler place them);
#    then one with a time limit, which flushes the runaway off its SM. (The
#    limit cannot be the window for the other process: the model runs the
#    500 simulated us of one spinning block in under a second.)
vgpu_hog --blocks 1 > /tmp/hog0.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
check "a runaway kernel runs" test "$(active_jobs)" = 1
check "another process's job completes while a runaway kernel runs" works
check "the runaway kernel still runs beside it" test "$(active_jobs)" = 1
kill -9 $h
wait $h 2>/dev/null
wait_for '[ "$(active_jobs)" = 0 ]' 300
vgpu_hog --blocks 1 --timeout-us 500 --expect ETIMEDOUT > /tmp/hog1.out 2>&1; rh=$?
cat /tmp/hog1.out
check "the runaway kernel fails with ETIMEDOUT at its time limit (500 us)" test "$rh" = 0
span=$(sed -n 's/.* cycles \([0-9]*\)\.\.\([0-9]*\)$/\2 - \1/p' /tmp/hog1.out)
span=$((${span:-0}))
khz=$(vgpu info | sed -n 's/^core_clock_khz *//p')
limit=$((500 * ${khz:-0} / 1000))
# flushed at the deadline: off the SM within the same turn
check "it ends at its limit: 500 simulated us, $limit cycles from its start ($span)" \
	test "$limit" -gt 0 -a "$span" = "$limit"
# the device's limit, and the tracepoint that records the guilty job
t=/sys/kernel/tracing
[ -d $t/events ] || t=/sys/kernel/debug/tracing
echo 1 > $t/events/vgpu/vgpu_job_cancel/enable
echo > $t/trace
old=$(cat $(sysdev)/job_timeout_us)
echo 300 > $(sysdev)/job_timeout_us
vgpu_hog --blocks 2 --expect ETIMEDOUT > /tmp/hog2.out 2>&1; rh=$?
cat /tmp/hog2.out
echo "$old" > $(sysdev)/job_timeout_us
check "job_timeout_us applies to a launch that names no limit" test "$rh" = 0
check "the vgpu_job_cancel tracepoint records it (error -110)" \
	grep -q "vgpu_job_cancel: job=[0-9]* error=-110" $t/trace
echo 0 > $t/events/vgpu/vgpu_job_cancel/enable
check "job_timeout_us: a bad value is refused" sh -c \
	"! echo -1 > $(sysdev)/job_timeout_us 2>/dev/null && grep -qx '$old' $(sysdev)/job_timeout_us"
check "no job is left in the KCB" test "$(active_jobs)" = 0

# 2. The owner of running jobs is killed: its jobs are cancelled and their
#    SMs handed back. 400 blocks fill every SM, so under FCFS nothing else
#    could run while they stayed.
vgpu_hog --blocks 400 --no-wait --hold 600 > /tmp/hog3.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
check "the owner's job runs before it is killed" test "$(active_jobs)" = 1
kill -9 $h
wait $h 2>/dev/null
check "its jobs leave the KCB once it is killed" wait_for '[ "$(active_jobs)" = 0 ]' 300
check "another process's job runs on the SMs it held" works

# 3. A file of the synchronised clock that never waits does not stop a
#    process that did not join; one that joined too waits only for the
#    hold limit (clock_hold_ms), after which the holder leaves the clock.
vgpu_hog --join --loops 10 --no-wait --hold 600 > /tmp/hog4.out 2>&1 &
h=$!
wait_for 'grep -q submitted /tmp/hog4.out' 300
check "a process that did not join runs while a clock holder never waits" works
old=$(cat $(sysdev)/clock_hold_ms)
echo 2000 > $(sysdev)/clock_hold_ms
timeout 300 vgpu_hog --join --loops 1000 > /tmp/hog5.out 2>&1; rh=$?
cat /tmp/hog5.out
check "a joined process runs once the holder has held clock_hold_ms (2000)" test "$rh" = 0
check "the kernel log names the holder that was made to leave" sh -c \
	"dmesg | grep -q 'process $h ran 2000 ms on the synchronised clock without waiting'"
echo "$old" > $(sysdev)/clock_hold_ms
kill -9 $h
wait $h 2>/dev/null

# 4. Not-before cycles: at most 2^32 cycles ahead, exactly that is taken
#    and the device goes on working from there; the end of the cycle range
#    is refused (the KUnit suite vgpu_cancel tests the edges of the range).
check "a not-before cycle 2^32 + 1 ahead is refused with EINVAL" \
	vgpu_hog --ahead 4294967297 --expect SUBMIT:EINVAL
c0=$(cycle)
check "a not-before cycle 2^32 ahead is taken, the job runs" \
	vgpu_hog --ahead 4294967296 --loops 10
check "the device clock moved 2^32 ahead" test "$(cycle)" -ge $((c0 + 4294967296))
check "the device works on from there" works

# 5. vgpud told to terminate during a job that never ends: it stops at the
#    next sync quantum, detaches, and the job fails with EIO.
vgpu_hog --blocks 1 --expect EIO > /tmp/hog6.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
kill -TERM "$(cat /run/vgpud.pid)"
check "vgpud exits promptly on SIGTERM during a long job" \
	wait_for '! kill -0 $(cat /run/vgpud.pid) 2>/dev/null' 300
check "the job fails with EIO" wait $h
cat /tmp/hog6.out
check "no backend is attached after vgpud stopped" sh -c \
	'vgpu info | grep -q "^backend_attached *0"'
check "a new vgpud attaches" start_vgpud
check "the device works again" works

# 6. A daemon that stops answering (SIGSTOP) with work pending is taken for
#    dead after daemon_timeout_ms; its jobs fail, a new one attaches.
old=$(cat $(sysdev)/daemon_timeout_ms)
echo 2000 > $(sysdev)/daemon_timeout_ms
vgpu_hog --blocks 1 --expect EIO > /tmp/hog7.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
kill -STOP "$(cat /run/vgpud.pid)"
check "a stopped daemon's job fails with EIO after daemon_timeout_ms" wait $h
cat /tmp/hog7.out
check "the kernel log says the daemon was taken for dead" sh -c \
	"dmesg | grep -q 'vgpud has not answered for 2000 ms'"
kill -CONT "$(cat /run/vgpud.pid)"
check "the daemon exits once it runs again" \
	wait_for '! kill -0 $(cat /run/vgpud.pid) 2>/dev/null' 300
echo "$old" > $(sysdev)/daemon_timeout_ms
check "a new vgpud attaches after the dead one" start_vgpud
check "the device works after the daemon watchdog" works

# 8. Fair shares: beside 2^32-1 blocks of another process under FCFS, a
#    small job waits one fair slice (fair_slice_us, 1 ms), not for them all;
#    file_max_jobs refuses a process's launch beyond its limit.
vgpu_hog --blocks 4294967295 --loops 20 --no-wait --hold 600 > /tmp/hog9.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
timeout 600 vgpu_hog --blocks 4 --loops 20 > /tmp/hog10.out 2>&1; rh=$?
cat /tmp/hog10.out
check "a small job beside 2^32-1 blocks of another process ends, its results right" \
	test "$rh" = 0
sub=$(sed -n 's/.*submitted at cycle \([0-9]*\).*/\1/p' /tmp/hog10.out)
end=$(sed -n 's/.* cycles [0-9]*\.\.\([0-9]*\)$/\1/p' /tmp/hog10.out)
waited=$((${end:-0} - ${sub:-0}))
# a slice is 1000 us: khz cycles
check "it waited one fair slice, not for 2^32-1 blocks ($waited cycles, slice $khz)" \
	test "$waited" -ge "$khz" -a "$waited" -lt $((khz * 3 / 2))
kill -9 $h
wait $h 2>/dev/null
check "the 2^32-1 blocks leave the KCB once their owner is killed" \
	wait_for '[ "$(active_jobs)" = 0 ]' 300
old=$(cat $(sysdev)/file_max_jobs)
echo 1 > $(sysdev)/file_max_jobs
check "file_max_jobs 1: a launch beside the file's running one is refused" \
	vgpu_hog --blocks 1 --loops 100000 --launches 2 --expect SUBMIT:ENOSPC
echo "$old" > $(sysdev)/file_max_jobs

# 7. Hot unplug: the device is unbound with files open and a job running;
#    the job fails with ENODEV, every later call of the open file too, and
#    a new device binds and works.
vgpu_hog --blocks 1 --expect ENODEV > /tmp/hog8.out 2>&1 &
h=$!
wait_for '[ "$(active_jobs)" = 1 ]' 600
echo vgpu > /sys/bus/platform/drivers/vgpu/unbind
check "unbind: the running job fails with ENODEV" wait $h
cat /tmp/hog8.out
check "unbind: vgpud exits" wait_for '! kill -0 $(cat /run/vgpud.pid) 2>/dev/null' 300
check "unbind: no render node is left" sh -c '! ls /dev/dri/renderD* 2>/dev/null'
echo vgpu > /sys/bus/platform/drivers/vgpu/bind
check "bind: a new render node" wait_for 'ls /dev/dri/renderD* >/dev/null 2>&1' 100
check "bind: vgpud attaches to the new device" start_vgpud
check "bind: the new device works" works

echo "reliability: $pass passed, $fail failed"
[ "$fail" = 0 ]
