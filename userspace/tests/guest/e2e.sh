#!/bin/sh
# End-to-end tests of vgpu inside the guest (tools/vgpu-vm runs this with
# vgpud started). Prints "ok - NAME" / "not ok - NAME" lines.
#
#   e2e [PART...]
#
# The parts (each may run in a guest of its own; tools/check boots one per
# part): runs, daemon, knobs, benches, stress. Without a part, all of them
# in this order, in one guest.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }

cycles_of() { sed -n 's/.* ok cycles=\([0-9]*\) .*/\1/p'; }

cycle() { vgpu info | sed -n 's/^current_cycle *//p'; }
sysdev=/sys/class/drm/renderD128/device
# A choice attribute's names ("a [b] c": a b c) and its active one (b).
choices() { tr -d '[]' < "$1"; }
active() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"; }
pdef=$(cat $sysdev/.defaults/partition_policy)
predef=$(cat $sysdev/.defaults/preempt_policy)
policies=$(choices $sysdev/partition_policy)
preempts=$(choices $sysdev/preempt_policy)
# The workload suite, as vgpu list names it.
workloads=$(vgpu list | sed -n 's/^\([a-z0-9_][a-z0-9_]*\) .*/\1/p')
nall=$(echo $workloads | wc -w)

# Runs of single workloads, the suite, two processes, bad input.
part_runs() {
	for w in saxpy reduce histogram; do
		out1=$(vgpu run $w --size 100000 --seed 7); echo "$out1"
		out2=$(vgpu run $w --size 100000 --seed 7); echo "$out2"
		case "$out1" in "$w: ok "*) ok "$w gives the CPU reference's result" ;;
			*) notok "$w gives the CPU reference's result" ;; esac
		c1=$(echo "$out1" | cycles_of)
		c2=$(echo "$out2" | cycles_of)
		check "$w: the same run twice gives the same cycles ($c1 = $c2)" \
			test -n "$c1" -a "$c1" = "$c2"
	done

	# Odd sizes exercise the bounds checks of partial blocks.
	for w in saxpy reduce histogram; do
		out=$(vgpu run $w --size 1001 --seed 3); echo "$out"
		case "$out" in "$w: ok "*) ok "$w with a partial last block" ;;
			*) notok "$w with a partial last block" ;; esac
	done

	# The whole suite at its small sizes: every workload vgpu list names must
	# print "NAME: ok ..." (its result equals the CPU reference's).
	vgpu run --all --size small > /tmp/all.out 2>&1; rall=$?
	# tools/check compares these lines with the local device's (the same cycles).
	sed 's/^/suite-small: /' /tmp/all.out
	for w in $workloads; do
		line=$(grep "^$w: " /tmp/all.out)
		case "$line" in "$w: ok "*) ok "$w (run --all --size small) ${line#*: ok }" ;;
			*) notok "$w (run --all --size small) ${line:-printed nothing}" ;; esac
	done
	check "run --all --size small: $nall workloads (at least 20), exit status $rall" \
		test "$nall" -ge 20 -a "$rall" = 0

	# Two processes at once.
	vgpu run saxpy --size 200000 > /tmp/a.out 2>&1 &
	a=$!
	vgpu run histogram --size 200000 > /tmp/b.out 2>&1 &
	b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	cat /tmp/a.out /tmp/b.out
	check "two processes at once: saxpy ok" grep -q "^saxpy: ok" /tmp/a.out
	check "two processes at once: histogram ok" grep -q "^histogram: ok" /tmp/b.out
	check "two processes at once: exit status 0" test "$ra" = 0 -a "$rb" = 0

	# Launch dependencies on the unused device: a chain A -> B -> C of
	# launches without a buffer list, each starting at the cycle the
	# previous one ended, and one whose first link faults (vgpu_chain,
	# userspace/tests/chain.h). tools/check compares these lines with the
	# local device's.
	vgpu_chain > /tmp/chain.out 2>&1; rchain=$?
	sed 's/^/chain: /' /tmp/chain.out
	check "vgpu_chain: a chain of launch dependencies, and a failure carried down it" \
		test "$rchain" = 0

	# Bad input to every ioctl, with the daemon attached.
	ioctl_test
	check "ioctl_test (daemon attached)" test $? = 0

	# The runtime's port of runtime.cu (userspace/tests/test_runtime.c) on
	# the render node: kernels by name, a struct by value, module variables
	# through the runtime's copy kernel, two streams with a dependency, each
	# against the CPU references the local device's run checks too.
	VGPU_SRCDIR=/share/vgpu/src test_runtime --device /dev/dri/renderD128
	check "test_runtime --device (the runtime on the render node): exit status 0" test $? = 0
}

# The daemon killed mid-job, and a new one.
part_daemon() {
	# vgpud dies while a job runs: the waiting process fails, it does not hang.
	c0=$(cycle)
	vgpu run saxpy --size 4000000 > /tmp/killed.out 2>&1 &
	victim=$!
	i=0
	while [ "$(cycle)" = "$c0" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	check "a job is running before vgpud is killed" test "$(cycle)" != "$c0"
	kill -9 "$(cat /run/vgpud.pid)"
	i=0
	while kill -0 $victim 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $victim 2>/dev/null; then
		notok "the waiting process returns after vgpud is killed"
		kill -9 $victim
	else
		ok "the waiting process returns after vgpud is killed"
	fi
	wait $victim; rv=$?
	cat /tmp/killed.out
	check "it fails with an I/O error" grep -q "Input/output error" /tmp/killed.out
	check "its exit status is non-zero" test "$rv" != 0
	check "no backend is attached after the daemon died" \
		sh -c 'vgpu info | grep -q "^backend_attached *0"'

	# A new daemon attaches and the device works again.
	rm -f /run/vgpud.ready
	vgpud > /tmp/vgpud2.log 2>&1 &
	echo $! > /run/vgpud.pid
	i=0
	while [ ! -e /run/vgpud.ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	out=$(vgpu run histogram --size 50000); echo "$out"
	case "$out" in "histogram: ok "*) ok "a restarted vgpud runs jobs again" ;;
		*) notok "a restarted vgpud runs jobs again"; cat /tmp/vgpud2.log ;; esac
}

# Every scheduler knob of sysfs: values, refusals, runs under each.
part_knobs() {
	# Partition policies (issue 5): switch through sysfs, run two workloads
	# at once under each, reject a bad value, end back on the default. The
	# policies are those the attribute lists, the default the one .defaults
	# names.
	# Nothing has set a knob yet: each reads as its copy in .defaults.
	check "every attribute reads its .defaults value at first" sh -c '
		for f in '$sysdev'/.defaults/*; do
			d=$(cat $f); v=$(cat '$sysdev'/${f##*/}) || exit 1
			[ "$v" = "$d" ] || case " $v " in *" [$d] "*) ;; *) exit 1 ;; esac
		done'
	check "partition_policy lists $(echo $policies | wc -w) policies, each once, $pdef active" sh -c \
		"[ '$(active $sysdev/partition_policy)' = '$pdef' ] &&
		 [ \$(echo $policies | wc -w) -ge 2 ] &&
		 [ -z \"\$(echo $policies | tr ' ' '\n' | sort | uniq -d)\" ] &&
		 [ \$(grep -o '\[' $sysdev/partition_policy | wc -l) = 1 ]"
	# maestro with a short epoch, so that it decides during the run.
	echo 20000 > $sysdev/maestro_epoch_cycles
	for p in $(echo $policies | tr ' ' '\n' | grep -vx "$pdef") $pdef; do
		echo $p > $sysdev/partition_policy
		check "partition_policy: $p active" grep -q "\[$p\]" $sysdev/partition_policy
		vgpu run saxpy --size 200000 > /tmp/pa.out 2>&1 &
		a=$!
		vgpu run histogram --size 200000 > /tmp/pb.out 2>&1 &
		b=$!
		wait $a; ra=$?
		wait $b; rb=$?
		cat /tmp/pa.out /tmp/pb.out
		check "$p: saxpy and histogram at once are ok" \
			sh -c 'grep -q "^saxpy: ok" /tmp/pa.out && grep -q "^histogram: ok" /tmp/pb.out'
		check "$p: both exit 0" test "$ra" = 0 -a "$rb" = 0
	done
	# A switch while both run takes effect at the next decision; both finish.
	vgpu run saxpy --size 2000000 > /tmp/pa.out 2>&1 &
	a=$!
	vgpu run histogram --size 2000000 > /tmp/pb.out 2>&1 &
	b=$!
	sleep 0.2
	echo smk-drf > $sysdev/partition_policy
	sleep 0.2
	echo spatial > $sysdev/partition_policy
	wait $a; ra=$?
	wait $b; rb=$?
	cat /tmp/pa.out /tmp/pb.out
	check "policy switches mid-run: both results correct" sh -c \
		'grep -q "^saxpy: ok" /tmp/pa.out && grep -q "^histogram: ok" /tmp/pb.out'
	check "policy switches mid-run: both exit 0" test "$ra" = 0 -a "$rb" = 0
	echo $pdef > $sysdev/partition_policy
	if echo nosuch > $sysdev/partition_policy 2>/tmp/perr.out; then
		notok "an unknown partition_policy is rejected"
	else
		check "an unknown partition_policy is rejected with EINVAL" \
			grep -q "Invalid argument" /tmp/perr.out
	fi
	check "a rejected write changes nothing" grep -q "\[$pdef\]" $sysdev/partition_policy
	check "preempt_policy lists $(echo $preempts | wc -w) policies, each once, $predef active" sh -c \
		"[ '$(active $sysdev/preempt_policy)' = '$predef' ] &&
		 [ \$(echo $preempts | wc -w) -ge 2 ] &&
		 [ -z \"\$(echo $preempts | tr ' ' '\n' | sort | uniq -d)\" ]"
	for q in $preempts $predef; do
		echo $q > $sysdev/preempt_policy
		check "preempt_policy: $q reads back" grep -q "\[$q\]" $sysdev/preempt_policy
	done
	check "idempotence, latency_budget_us, latency_margin_pct and preempt_stress have their defaults" sh -c \
		"grep -q '^\[relaxed\] strict buffers$' $sysdev/idempotence &&
		 grep -qx 15 $sysdev/latency_budget_us && grep -qx 0 $sysdev/preempt_stress &&
		 grep -qx 15 $sysdev/.defaults/latency_budget_us &&
		 grep -qx 25 $sysdev/latency_margin_pct && grep -qx 25 $sysdev/.defaults/latency_margin_pct &&
		 grep -qx 0 $sysdev/latency_feedback && grep -qx 0 $sysdev/.defaults/latency_feedback"
	check "bad preemption knobs are refused and change nothing" sh -c \
		"! echo bogus > $sysdev/preempt_policy 2>/dev/null &&
		 ! echo lax > $sysdev/idempotence 2>/dev/null &&
		 ! echo 0 > $sysdev/latency_budget_us 2>/dev/null &&
		 ! echo -1 > $sysdev/preempt_stress 2>/dev/null &&
		 ! echo 91 > $sysdev/latency_margin_pct 2>/dev/null &&
		 ! echo maybe > $sysdev/latency_feedback 2>/dev/null && grep -qx 0 $sysdev/latency_feedback &&
		 grep -q '\[$predef\]' $sysdev/preempt_policy && grep -qx 15 $sysdev/latency_budget_us &&
		 grep -qx 25 $sysdev/latency_margin_pct"
	check "latency_margin_pct takes 0 to 90, latency_feedback 0 and 1" sh -c \
		"echo 90 > $sysdev/latency_margin_pct && grep -qx 90 $sysdev/latency_margin_pct &&
		 echo 0 > $sysdev/latency_margin_pct && grep -qx 0 $sysdev/latency_margin_pct &&
		 echo 25 > $sysdev/latency_margin_pct && echo 1 > $sysdev/latency_feedback &&
		 grep -qx 1 $sysdev/latency_feedback && echo 0 > $sysdev/latency_feedback"
	check "every attribute has its .defaults copy" sh -c \
		"cd $sysdev && for f in .defaults/*; do [ -f \${f#.defaults/} ] || exit 1; done &&
		 [ \$(ls .defaults | wc -l) -ge 12 ]"

	# Kernel-aware warp scheduling (issue 7): each mode reads back, a bad one
	# is refused, two programs sharing SMs (smk-even) under lrr still verify.
	check "kernel_sched lists none, lrr, ipr, fair; none active and the default" sh -c \
		"grep -q '^\[none\] lrr ipr fair$' $sysdev/kernel_sched &&
		 grep -qx none $sysdev/.defaults/kernel_sched"
	for m in lrr ipr fair none; do
		echo $m > $sysdev/kernel_sched
		check "kernel_sched: $m reads back" grep -q "\[$m\]" $sysdev/kernel_sched
	done
	if echo gto > $sysdev/kernel_sched 2>/tmp/kerr.out; then
		notok "an unknown kernel_sched is rejected"
	else
		check "an unknown kernel_sched is rejected with EINVAL" grep -q "Invalid argument" /tmp/kerr.out
	fi
	check "a rejected kernel_sched changes nothing" grep -q "^\[none\]" $sysdev/kernel_sched
	echo smk-even > $sysdev/partition_policy
	echo lrr > $sysdev/kernel_sched
	vgpu run saxpy --size 200000 > /tmp/ka.out 2>&1 &
	a=$!
	vgpu run histogram --size 200000 > /tmp/kb.out 2>&1 &
	b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	cat /tmp/ka.out /tmp/kb.out
	check "lrr, smk-even: saxpy and histogram at once are ok, exit 0" sh -c \
		"grep -q '^saxpy: ok' /tmp/ka.out && grep -q '^histogram: ok' /tmp/kb.out &&
		 test $ra = 0 -a $rb = 0"
	echo none > $sysdev/kernel_sched
	echo $pdef > $sysdev/partition_policy
	# Warp schedulers and sub-core assignment (issue 16): config by default;
	# elf++ and rba with srr reach the daemon: fdtd2d verifies, and
	# tools/check runs the same on the local device (the lines behind
	# "wsched: ", which must agree to the letter).
	check "warp_sched and subcore_assign list their values; config active and the default" sh -c \
		"grep -q '^\[config\] lrr gto two-level elf elf-newcar elf++ rba progress$' $sysdev/warp_sched &&
		 grep -q '^\[config\] rr srr shuffle$' $sysdev/subcore_assign &&
		 grep -qx config $sysdev/.defaults/warp_sched && grep -qx config $sysdev/.defaults/subcore_assign"
	check "a bad warp_sched or subcore_assign is refused and changes nothing" sh -c \
		"! echo elf+ > $sysdev/warp_sched 2>/dev/null && ! echo rand > $sysdev/subcore_assign 2>/dev/null &&
		 grep -q '^\[config\]' $sysdev/warp_sched && grep -q '^\[config\]' $sysdev/subcore_assign"
	for ws in elf++:config rba:srr; do
		echo ${ws%%:*} > $sysdev/warp_sched
		echo ${ws##*:} > $sysdev/subcore_assign
		vgpu run fdtd2d --size small > /tmp/ws.out 2>&1
		sed "s/^/wsched: ${ws%%:*} ${ws##*:} /" /tmp/ws.out
		check "warp_sched ${ws%%:*}, subcore_assign ${ws##*:}: fdtd2d ok" grep -q "^fdtd2d: ok" /tmp/ws.out
	done
	echo config > $sysdev/warp_sched
	echo config > $sysdev/subcore_assign
	# maestro's knobs (issue 7): defaults, a bad value refused, 2-way while active.
	echo 50000 > $sysdev/maestro_epoch_cycles
	check "maestro_epoch_cycles, maestro_objective, maestro_history, maestro_pairing and maestro_relaunch have their defaults" sh -c \
		"grep -qx 50000 $sysdev/maestro_epoch_cycles && grep -q '^\[stp\] antt$' $sysdev/maestro_objective &&
		 grep -qx '\[count\] partition' $sysdev/maestro_history &&
		 grep -qx '\[dispatch\] resident' $sysdev/maestro_pairing &&
		 grep -qx '\[known\] new' $sysdev/maestro_relaunch &&
		 grep -qx 50000 $sysdev/.defaults/maestro_epoch_cycles && grep -qx stp $sysdev/.defaults/maestro_objective &&
		 grep -qx count $sysdev/.defaults/maestro_history && grep -qx dispatch $sysdev/.defaults/maestro_pairing &&
		 grep -qx known $sysdev/.defaults/maestro_relaunch"
	check "bad maestro knobs are refused and change nothing" sh -c \
		"! echo 0 > $sysdev/maestro_epoch_cycles 2>/dev/null &&
		 ! echo fast > $sysdev/maestro_epoch_cycles 2>/dev/null &&
		 ! echo wips > $sysdev/maestro_objective 2>/dev/null &&
		 ! echo spatial > $sysdev/maestro_history 2>/dev/null &&
		 ! echo running > $sysdev/maestro_pairing 2>/dev/null &&
		 ! echo fresh > $sysdev/maestro_relaunch 2>/dev/null &&
		 grep -qx 50000 $sysdev/maestro_epoch_cycles && grep -q '^\[stp\]' $sysdev/maestro_objective &&
		 grep -q '^\[count\]' $sysdev/maestro_history && grep -q '^\[dispatch\]' $sysdev/maestro_pairing &&
		 grep -q '^\[known\]' $sysdev/maestro_relaunch"
	echo maestro > $sysdev/partition_policy
	check "maestro allocates 2-way while it is active" grep -q "\[2-way\]" $sysdev/smst_alloc
	# Two kernels with blocks to issue for several epochs: maestro decides
	# (vgpu_maestro_epoch in the trace), preempts with Chimera, and both
	# programs' results verify.
	echo antt > $sysdev/maestro_objective
	echo 10000 > $sysdev/maestro_epoch_cycles
	echo chimera > $sysdev/preempt_policy
	mtr=/sys/kernel/debug/tracing
	[ -d $mtr/events/vgpu ] || mtr=/sys/kernel/tracing
	echo > $mtr/trace
	echo 1 > $mtr/events/vgpu/vgpu_maestro_epoch/enable
	vgpu run saxpy --size 1000000 > /tmp/pa.out 2>&1 &
	a=$!
	vgpu run blackscholes --size 500000 > /tmp/pb.out 2>&1 &
	b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	echo 0 > $mtr/events/vgpu/vgpu_maestro_epoch/enable
	cat /tmp/pa.out /tmp/pb.out
	grep vgpu_maestro_epoch $mtr/trace | head -5
	check "maestro (antt, chimera): saxpy and blackscholes at once verify their results" sh -c \
		'grep -q "^saxpy: ok" /tmp/pa.out && grep -q "^blackscholes: ok" /tmp/pb.out'
	check "maestro (antt, chimera): both exit 0" test "$ra" = 0 -a "$rb" = 0
	check "maestro decided epochs while both ran" grep -q vgpu_maestro_epoch $mtr/trace
	echo > $mtr/trace
	echo $predef > $sysdev/preempt_policy
	echo stp > $sysdev/maestro_objective
	echo 50000 > $sysdev/maestro_epoch_cycles
	echo $pdef > $sysdev/partition_policy
	check "first fit again after maestro" grep -q "\[first-fit\]" $sysdev/smst_alloc
	echo 2-way > $sysdev/smst_alloc
	out=$(vgpu run reduce --size 100000); echo "$out"
	case "$out" in "reduce: ok "*) ok "reduce with 2-way allocation" ;;
		*) notok "reduce with 2-way allocation" ;; esac
	echo first-fit > $sysdev/smst_alloc
	check "smk_quota_min rejects 0" sh -c "! echo 0 > $sysdev/smk_quota_min 2>/dev/null"
	check "debugfs kcb and smst dumps" sh -c \
		'grep -q "^cycle" /sys/kernel/debug/dri/*/kcb && grep -q "^sms" /sys/kernel/debug/dri/*/smst'
	tr=/sys/kernel/debug/tracing
	[ -d $tr/events/vgpu ] || tr=/sys/kernel/tracing
	if [ -d $tr/events/vgpu ]; then
		echo 1 > $tr/events/vgpu/enable
		echo spatial > $sysdev/partition_policy
		vgpu run saxpy --size 10000 > /dev/null
		echo $pdef > $sysdev/partition_policy
		echo 0 > $tr/events/vgpu/enable
		check "tracepoints: dispatch, TB done, job end, policy change" sh -c \
			"grep -q vgpu_dispatch $tr/trace && grep -q vgpu_tb_done $tr/trace && grep -q vgpu_job_end $tr/trace && grep -q vgpu_policy_change $tr/trace"
		echo > $tr/trace
	else
		notok "tracepoints under events/vgpu"
	fi
}

# The benches, vgpu top and the TB status table.
part_benches() {
	# Multi-programmed runs on the synchronised clock: a rerun gives the same
	# table, the policy in sysfs is left as it was, CSV and SVG are written.
	bench="vgpu bench pairs --workloads saxpy,sgemm,lud --policies fcfs,smk-even --size small"
	$bench --csv /tmp/pairs.csv --svg /tmp/pairs.svg > /tmp/pairs1.out 2>&1
	rb1=$?
	$bench > /tmp/pairs2.out 2>&1
	rb2=$?
	check "bench pairs: exit status 0 twice" test "$rb1" = 0 -a "$rb2" = 0
	check "bench pairs: 6 pair results and the geometric means" sh -c \
		'[ "$(grep -cE "^(fcfs|smk-even) +[a-z]+\+[a-z]+ " /tmp/pairs1.out)" = 6 ] &&
		 grep -q "^geometric means" /tmp/pairs1.out'
	grep -v "^csv:\|^svg:" /tmp/pairs1.out > /tmp/pairs1.cmp
	check "bench pairs: a rerun gives the same table" cmp -s /tmp/pairs1.cmp /tmp/pairs2.out
	check "bench pairs: CSV (header + 6 rows) and SVG written" sh -c \
		'[ "$(wc -l < /tmp/pairs.csv)" = 7 ] && grep -q "<svg" /tmp/pairs.svg'
	check "bench pairs: the partition policy is restored" grep -q "\[$pdef\]" $sysdev/partition_policy
	check "bench pairs: an unknown policy is refused" sh -c \
		"! vgpu bench pairs --workloads saxpy,sgemm --policies nosuch --size small 2>/dev/null"

	# Chimera's case study (thesis Sec. 4.4.4): preemption policies under
	# spatial, only the pairs with one workload, a knob set for the run.
	budget0=$(cat $sysdev/latency_budget_us)
	vgpu bench pairs --workloads saxpy,sgemm,lud --with lud --size small \
		--policies spatial/drain,spatial/chimera --set latency_budget_us=30 \
		> /tmp/pairs-lud.out 2>&1
	rl=$?
	check "bench pairs --with: exit status 0" test "$rl" = 0
	check "bench pairs --with: the 2 pairs with lud under each configuration" sh -c \
		'[ "$(grep -cE "^spatial/(drain|chimera) +[a-z]+\+lud " /tmp/pairs-lud.out)" = 4 ] &&
		 ! grep -q "^spatial/[a-z]* *saxpy+sgemm" /tmp/pairs-lud.out'
	check "bench pairs --with: policies and the --set knob are restored" sh -c \
		"grep -q '\[$pdef\]' $sysdev/partition_policy && grep -q '\[$predef\]' $sysdev/preempt_policy &&
		 [ \"\$(cat $sysdev/latency_budget_us)\" = '$budget0' ]"
	# Maestro's decisions over a pair (thesis Fig. 5.12): epochs counted and
	# split among spatial, SMK-even and other SMK partitions; with Chimera and
	# LRR between the kernels (§5.4.3), the modes restored after. tools/check
	# runs the same experiment on the local device and requires the same table
	# (the lines behind "pairs-eq: ").
	vgpu bench pairs --workloads saxpy,sgemm --policies fcfs,spatial,maestro/chimera:lrr \
		--size medium --set maestro_epoch_cycles=5000 --csv /tmp/pairs-m.csv > /tmp/pairs-m.out 2>&1
	rmae=$?
	grep -v '^csv:' /tmp/pairs-m.out | sed 's/^/pairs-eq: /'
	check "bench pairs maestro: exit status 0, the epoch setting and kernel_sched restored" sh -c \
		"[ $rmae = 0 ] && grep -qx 50000 $sysdev/maestro_epoch_cycles &&
		 grep -q '^maestro/chimera:lrr  *saxpy+sgemm ' /tmp/pairs-m.out &&
		 grep -q '^\[none\]' $sysdev/kernel_sched && grep -q '\[$predef\]' $sysdev/preempt_policy"
	check "bench pairs maestro: epochs decided, the decisions add up" sh -c \
		'sed -n "s/^maestro\/chimera:lrr decisions: \([0-9]*\) epochs: spatial \([0-9.]*\) %, smk-even \([0-9.]*\) %, smk-other \([0-9.]*\) %.*/\1 \2 \3 \4/p" \
		     /tmp/pairs-m.out | awk "{ s = \$2 + \$3 + \$4; ok = \$1 > 0 && s > 99.8 && s < 100.2 } END { exit !ok }" &&
		 awk -F, "\$1 ~ /^maestro/ { n++; if (!(\$11 > 0 && \$11 == \$12 + \$13 + \$14)) bad = 1 } END { exit bad || n != 1 }" /tmp/pairs-m.csv'
	check "bench pairs: bad --with, --set and preemption policy are refused" sh -c \
		"! vgpu bench pairs --workloads saxpy,sgemm --with lud --size small 2>/dev/null &&
		 ! vgpu bench pairs --workloads saxpy,sgemm --set nosuch=1 --size small 2>/dev/null &&
		 ! vgpu bench pairs --workloads saxpy,sgemm --set latency_budget_us --size small 2>/dev/null &&
		 ! vgpu bench pairs --workloads saxpy,sgemm --policies spatial/nosuch --size small 2>/dev/null &&
		 ! vgpu bench pairs --workloads saxpy,sgemm --policies smk-even:gto --size small 2>/dev/null &&
		 ! vgpu bench pairs --workloads saxpy,sgemm --policies smk-even/: --size small 2>/dev/null &&
		 [ \"\$(cat $sysdev/latency_budget_us)\" = '$budget0' ]"

	# The periodic real-time task (Chimera, thesis Sec. 4.4.1), scaled down to
	# the medium sizes: a rerun gives the same table, every request is counted,
	# the knobs are restored, bad options are refused.
	bench="vgpu bench chimera --workloads histogram,lud --size medium --budget-us 10
		--policies drain,chimera --period-us 50 --rt-us 10 --set latency_feedback=1"
	$bench --csv /tmp/chim.csv --svg /tmp/chim.svg > /tmp/chim1.out 2>&1
	rc1=$?
	$bench > /tmp/chim2.out 2>&1
	rc2=$?
	# tools/check compares these lines with the local device's.
	grep -v '^csv:\|^svg:' /tmp/chim1.out | sed 's/^/chimera-eq: /'
	check "bench chimera: exit status 0 twice" test "$rc1" = 0 -a "$rc2" = 0
	check "bench chimera: ideal, drain, chimera and chimera-strict for each workload" sh -c \
		'[ "$(grep -cE "^(histogram|lud) +(ideal|drain|chimera|chimera-strict) +[0-9]+ +[1-9]" \
		     /tmp/chim1.out)" = 8 ] && grep -q "^chimera-strict " /tmp/chim1.out'
	check "bench chimera: the ideal policy switched blocks and lost no work" sh -c \
		'grep -E "^(histogram|lud) +ideal " /tmp/chim1.out |
		 awk "{ sw += \$9; if (\$12 != 0) bad = 1 } END { exit bad || !sw }"'
	grep -v "^csv:\|^svg:" /tmp/chim1.out > /tmp/chim1.cmp
	check "bench chimera: a rerun gives the same table" cmp -s /tmp/chim1.cmp /tmp/chim2.out
	check "bench chimera: CSV (header + 6 rows) and SVG written" sh -c \
		'[ "$(wc -l < /tmp/chim.csv)" = 7 ] && grep -q "<svg" /tmp/chim.svg'
	# idempotence "buffers" through the driver (the descriptor's flag):
	# stencil3d reads one buffer and writes another, so flushing may take
	# its blocks only under buffers.
	vgpu bench chimera --workloads stencil3d --size medium --budget-us 10 \
		--policies flush,flush-buffers --period-us 50 --rt-us 10 > /tmp/chimb.out 2>&1
	rcb=$?
	grep -v '^csv:\|^svg:' /tmp/chimb.out | sed 's/^/chimera-buf-eq: /'
	check "bench chimera: stencil3d's blocks are flushed under buffers, not under relaxed" sh -c \
		"[ $rcb = 0 ] &&
		 grep -E '^stencil3d +flush-buffers ' /tmp/chimb.out | awk '{ exit !(\$11 > 0) }' &&
		 grep -E '^stencil3d +flush ' /tmp/chimb.out | awk '{ exit \$11 != 0 }'"
	check "bench chimera: the knobs are restored" sh -c \
		"grep -q '\[$pdef\]' $sysdev/partition_policy && grep -q '\[$predef\]' $sysdev/preempt_policy &&
		 grep -q '\[relaxed\]' $sysdev/idempotence && grep -qx 0 $sysdev/latency_feedback"
	check "bench chimera: bad options are refused" sh -c \
		"! vgpu bench chimera --budget-us 0 2>/dev/null &&
		 ! vgpu bench chimera --set latency_margin_pct=95 2>/dev/null &&
		 ! vgpu bench chimera --set nosuch=1 2>/dev/null &&
		 ! vgpu bench chimera --period-us 10 --rt-us 10 2>/dev/null &&
		 ! vgpu bench chimera --workloads nosuch 2>/dev/null &&
		 ! vgpu bench chimera --policies nosuch 2>/dev/null"

	# vgpu top while a workload runs: a frame has the header, one row per SM
	# and the KCB section; a second frame gives the rate; a bad option is 2.
	nsms=$(vgpu info | sed -n 's/^num_sms *//p')
	c0=$(cycle)
	vgpu run sgemm --size 128 > /tmp/top-run.out 2>&1 &
	toprun=$!
	i=0
	while [ "$(cycle)" = "$c0" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	vgpu top --once > /tmp/top.out 2>&1; rtop=$?
	vgpu top --count 2 --interval 200 > /tmp/top2.out 2>&1; rtop2=$?
	cat /tmp/top.out /tmp/top2.out
	check "top --once: exit status 0" test "$rtop" = 0
	check "top --once: the header (cycle, policies)" sh -c \
		'grep -qE "^vgpu top - cycle [0-9]+" /tmp/top.out &&
		 grep -q "^partition_policy '$pdef'  preempt_policy '$predef'  smst_alloc first-fit " /tmp/top.out'
	check "top --once: one row per SM ($nsms)" \
		test "$(grep -cE '^[0-9]+ +[0-9]+/[0-9]+ ' /tmp/top.out)" = "$nsms" -a -n "$nsms"
	check "top --once: the KCB section" sh -c \
		'grep -q "^KCB: " /tmp/top.out && grep -q "^K  *ID  *PID  *STATE" /tmp/top.out'
	check "top --count 2: two frames, the second with the rate" sh -c \
		"test $rtop2 = 0 && [ \"\$(grep -c '^vgpu top - cycle' /tmp/top2.out)\" = 2 ] &&
		 grep -qE '^vgpu top - cycle [0-9]+  [+][0-9]+ in ' /tmp/top2.out"
	vgpu top --bogus > /dev/null 2>&1
	check "top --bogus exits 2" test $? = 2
	wait $toprun; rrun=$?
	check "the workload watched by top is ok" sh -c \
		"test $rrun = 0 && grep -q '^sgemm: ok' /tmp/top-run.out"

	# The daemon's thread-block status table (per-TB progress, as of its last
	# kick) shows in the smst dump while blocks run.
	vgpu run saxpy --size 4000000 > /tmp/st-run.out 2>&1 &
	strun=$!
	i=0
	while [ $i -lt 200 ]; do
		cat /sys/kernel/debug/dri/*/smst > /tmp/smst-running.out 2>/dev/null
		grep -qE "^  slot [0-9]+ job [0-9]+ tb [0-9]+ .* insts [0-9]+" \
			/tmp/smst-running.out && break
		sleep 0.05
		i=$((i + 1))
	done
	wait $strun; rst=$?
	check "smst dump: running blocks show their progress (TB status table)" \
		grep -qE "^  slot [0-9]+ job [0-9]+ tb [0-9]+ .* insts [1-9][0-9]*" /tmp/smst-running.out
	check "the workload watched meanwhile is ok" test "$rst" = 0
}

# The suite under the preemption stress, DYNCTA/DYNCORE, Virtual Thread and
# virtual thread blocks.
part_stress() {
	# Preemption stress (Chimera's mechanisms): running blocks are flushed
	# (while idempotent) or context-switched every few thousand cycles; every
	# workload of the suite must still match its CPU reference bit for bit.
	tr=/sys/kernel/debug/tracing
	[ -d $tr/events/vgpu ] || tr=/sys/kernel/tracing
	echo > $tr/trace
	echo 1 > $tr/events/vgpu/vgpu_preempt_tb_done/enable
	echo 3000 > $sysdev/preempt_stress
	vgpu run --all --size small > /tmp/stress.out 2>&1
	rs=$?
	echo 0 > $sysdev/preempt_stress
	echo 0 > $tr/events/vgpu/vgpu_preempt_tb_done/enable
	nsw=$(grep -c "switched, kept" $tr/trace)
	nfl=$(grep -c "flushed, lost" $tr/trace)
	echo "# preemption stress: $nsw context switches, $nfl flushes"
	grep -v ": ok " /tmp/stress.out
	check "preemption stress: the whole suite is correct ($nall workloads)" sh -c \
		"test $rs = 0 && [ \"\$(grep -c ': ok ' /tmp/stress.out)\" = $nall ]"
	check "preemption stress: blocks were context-switched and flushed" \
		test "$nsw" -gt 0 -a "$nfl" -gt 0

	# DYNCTA and DYNCORE (issue 17, seed 001): the attributes' defaults and
	# ranges; under each policy, alone and with the preemption stress, every
	# workload of the suite matches its CPU reference; backprop at 16,384
	# changes limits and pauses blocks (DYNCTA) and turns SMs off (DYNCORE);
	# tools/check runs it on the local device (the lines behind "tlp: ").
	check "tlp_policy lists none, dyncta, dyncore, static; none active and the default" sh -c \
		"grep -q '^\[none\] dyncta dyncore static$' $sysdev/tlp_policy &&
		 grep -qx none $sysdev/.defaults/tlp_policy"
	check "the TLP thresholds have their defaults" sh -c \
		"grep -qx 16 $sysdev/dyncta_t_idle && grep -qx 128 $sysdev/dyncta_t_mem_l &&
		 grep -qx 384 $sysdev/dyncta_t_mem_h && grep -qx 8 $sysdev/dyncore_gate_sms &&
		 grep -qx 66 $sysdev/dyncore_t_act_pct && grep -qx 8 $sysdev/tlp_static_tbs"
	check "bad TLP values are refused and change nothing" sh -c \
		"! echo dyncta2 > $sysdev/tlp_policy 2>/dev/null &&
		 ! echo 0 > $sysdev/dyncta_t_idle 2>/dev/null &&
		 ! echo 2049 > $sysdev/dyncta_t_idle 2>/dev/null &&
		 ! echo 2049 > $sysdev/dyncta_t_mem_l 2>/dev/null &&
		 ! echo 0 > $sysdev/dyncta_t_mem_h 2>/dev/null &&
		 ! echo 1024 > $sysdev/dyncore_gate_sms 2>/dev/null &&
		 ! echo 101 > $sysdev/dyncore_t_act_pct 2>/dev/null &&
		 ! echo 0 > $sysdev/tlp_static_tbs 2>/dev/null &&
		 grep -q '^\[none\]' $sysdev/tlp_policy && grep -qx 16 $sysdev/dyncta_t_idle &&
		 grep -qx 128 $sysdev/dyncta_t_mem_l && grep -qx 384 $sysdev/dyncta_t_mem_h &&
		 grep -qx 8 $sysdev/dyncore_gate_sms && grep -qx 66 $sysdev/dyncore_t_act_pct &&
		 grep -qx 8 $sysdev/tlp_static_tbs"
	for ev in vgpu_tlp_limit vgpu_tlp_pause vgpu_tlp_gate; do
		echo 1 > $tr/events/vgpu/$ev/enable
	done
	for p in dyncta dyncore; do
		echo $p > $sysdev/tlp_policy
		echo > $tr/trace
		vgpu run backprop --size 16384 > /tmp/tlp.out 2>&1
		sed "s/^/tlp: $p /" /tmp/tlp.out
		check "$p: backprop at 16384 is ok" grep -q "^backprop: ok" /tmp/tlp.out
		nlim=$(grep -c "vgpu_tlp_limit:" $tr/trace)
		npau=$(grep -c "vgpu_tlp_pause:.* paused" $tr/trace)
		ngat=$(grep -c "vgpu_tlp_gate: off=[1-9]" $tr/trace)
		echo "# $p: $nlim changes of a limit, $npau pauses, $ngat times SMs turned off"
		if [ $p = dyncta ]; then
			check "dyncta: limits changed and blocks were paused, no SM turned off" \
				test "$nlim" -gt 0 -a "$npau" -gt 0 -a "$ngat" = 0
		else
			check "dyncore: SMs were turned off" test "$nlim" -gt 0 -a "$ngat" -gt 0
		fi
		check "$p: debugfs tlp shows the policy and each SM's limit" sh -c \
			"grep -qx 'policy $p' /sys/kernel/debug/dri/*/tlp &&
			 grep -q '^sm 0 limit [1-9]' /sys/kernel/debug/dri/*/tlp"
		for st in 0 3000; do
			echo $st > $sysdev/preempt_stress
			vgpu run --all --size small > /tmp/tlps.out 2>&1
			rs=$?
			grep -v ": ok " /tmp/tlps.out
			check "$p, preempt_stress $st: the whole suite is correct ($nall workloads)" sh -c \
				"test $rs = 0 && [ \"\$(grep -c ': ok ' /tmp/tlps.out)\" = $nall ]"
		done
		echo 0 > $sysdev/preempt_stress
	done
	for ev in vgpu_tlp_limit vgpu_tlp_pause vgpu_tlp_gate; do
		echo 0 > $tr/events/vgpu/$ev/enable
	done
	echo none > $sysdev/tlp_policy

	# Virtual Thread (issue 17): off by default, a bad value refused; the whole
	# suite under on (the lines behind "vt: ", which tools/check compares with
	# the local device), spmv and pathfinder under max, and the suite under on
	# with the preemption stress, each matching its CPU reference.
	check "virtual_thread lists its modes; off active and the default" sh -c \
		"grep -q '^\[off\] on max$' $sysdev/virtual_thread && grep -qx off $sysdev/.defaults/virtual_thread"
	check "a bad virtual_thread is refused and changes nothing" sh -c \
		"! echo yes > $sysdev/virtual_thread 2>/dev/null && grep -q '^\[off\]' $sysdev/virtual_thread"
	echo on > $sysdev/virtual_thread
	vgpu run --all --size small > /tmp/vt.out 2>&1
	rv=$?
	sed 's/^/vt: on /' /tmp/vt.out
	check "virtual_thread on: the whole suite is correct ($nall workloads)" sh -c \
		"test $rv = 0 && [ \"\$(grep -c ': ok ' /tmp/vt.out)\" = $nall ]"
	echo 3000 > $sysdev/preempt_stress
	vgpu run --all --size small > /tmp/vts.out 2>&1
	rv=$?
	echo 0 > $sysdev/preempt_stress
	grep -v ": ok " /tmp/vts.out
	check "virtual_thread on with the preemption stress: the whole suite is correct" sh -c \
		"test $rv = 0 && [ \"\$(grep -c ': ok ' /tmp/vts.out)\" = $nall ]"
	echo max > $sysdev/virtual_thread
	for w in spmv pathfinder; do
		vgpu run $w --size small > /tmp/vt.out 2>&1
		sed 's/^/vt: max /' /tmp/vt.out
		check "virtual_thread max: $w ok" grep -q "^$w: ok" /tmp/vt.out
	done
	echo off > $sysdev/virtual_thread

	# Virtual thread blocks (issue 18, seed 003): the suite compiled with
	# --virtual-tb (SameLane) under the progress-aware warp scheduler, and
	# mandel and reduce with the LowestToHighestLane and SlowestLane
	# assignments, each matching its CPU reference; launched through the
	# module, whose launch path gives a virtualised entry the blocks that fill
	# the device. tools/check compares the lines behind "vtb: " with the local
	# device.
	echo progress > $sysdev/warp_sched
	vgpu run --all --size small --virtual-tb > /tmp/vtb.out 2>&1
	rv=$?
	sed 's/^/vtb: same /' /tmp/vtb.out
	check "virtual thread blocks, progress scheduler: the whole suite is correct ($nall workloads)" \
		sh -c "test $rv = 0 && [ \"\$(grep -c ': ok ' /tmp/vtb.out)\" = $nall ]"
	for m in lowest slowest; do
		for w in mandel reduce; do
			vgpu run $w --size small --virtual-tb=$m > /tmp/vtb.out 2>&1
			sed "s/^/vtb: $m /" /tmp/vtb.out
			check "virtual thread blocks, $m lanes: $w ok" grep -q "^$w: ok" /tmp/vtb.out
		done
	done
	echo config > $sysdev/warp_sched
}

[ $# -gt 0 ] || set -- runs daemon knobs benches stress
for part in "$@"; do
	case "$part" in
	runs|daemon|knobs|benches|stress) echo "# e2e part: $part"; part_$part ;;
	*) echo "e2e: unknown part '$part' (runs, daemon, knobs, benches, stress)" >&2; exit 2 ;;
	esac
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
