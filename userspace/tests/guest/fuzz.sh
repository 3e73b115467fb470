#!/bin/sh
# Fuzzing in the guest (tools/vgpu-vm runs this with vgpud started; tools/check
# and `make fuzz-long` with --kmemleak): vgpu_fuzz, then Debian's trinity
# against the render node as an unprivileged user, then a workload against
# its CPU reference. Prints "ok - NAME" / "not ok - NAME" lines.
#
#   fuzz [--calls N] [--seed N] [--rounds N] [--trinity N] [--hang-limit S]
#
# --calls N: vgpu_fuzz calls in all, in --rounds runs of N / rounds calls
# (seeds --seed, --seed + 1, ...; each run stops and restarts vgpud);
# --trinity N: trinity's syscalls (0: no trinity).
calls=10000
seed=1
rounds=1
tcount=2000
hang=60
while [ $# -gt 0 ]; do
	case "$1" in
	--calls) calls=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--trinity) tcount=$2; shift 2 ;;
	--hang-limit) hang=$2; shift 2 ;;
	*) echo "usage: fuzz [--calls N] [--seed N] [--rounds N] [--trinity N] [--hang-limit S]" >&2
	   exit 2 ;;
	esac
done
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
t0=$(date +%s)

# vgpu_fuzz prints its own ok/not ok lines; its exit status says whether
# any was "not ok".
i=0
while [ $i -lt "$rounds" ]; do
	s=$((seed + i))
	echo "# vgpu_fuzz round $((i + 1)) of $rounds, seed $s"
	# Streamed as it runs (its progress lines show where a slow round is).
	{ vgpu_fuzz --seed "$s" --calls $((calls / rounds)) --hang-limit "$hang" 2>&1
	  echo $? > /tmp/vgpu_fuzz.rc; } | tee /tmp/vgpu_fuzz.out
	rf=$(cat /tmp/vgpu_fuzz.rc)
	pass=$((pass + $(grep -c '^ok - ' /tmp/vgpu_fuzz.out)))
	fail=$((fail + $(grep -c '^not ok - ' /tmp/vgpu_fuzz.out)))
	if [ "$rf" != 0 ] && ! grep -q '^not ok - ' /tmp/vgpu_fuzz.out; then
		notok "vgpu_fuzz (seed $s) exited $rf"
	fi
	# What the daemons vgpu_fuzz restarted said (the first one's log is
	# printed by tools/vgpu-vm at the end): why one left, for example.
	if [ -s /tmp/vgpud-fuzz.log ]; then
		echo "# vgpud restarted by round $((i + 1)), its log (last 30 lines):"
		tail -n 30 /tmp/vgpud-fuzz.log | sed 's/^/#   /'
		: > /tmp/vgpud-fuzz.log
	fi
	i=$((i + 1))
done
echo "# vgpu_fuzz: $(( $(date +%s) - t0 )) s"

# trinity: as the unprivileged user "fuzz" (tools/mkinitramfs), which may
# open the render node, in a directory of its own; only the fd provider of
# the files named by -V (trinity's "pseudo"), so that every fd it uses is
# the render node, and only the syscalls that take one. madvise is left out
# (the test kernel has none), read() too (it sleeps until a DRM event comes,
# and none does).
node=$(ls /dev/dri/renderD* 2>/dev/null | head -n 1)
if [ "$tcount" -gt 0 ] && [ -n "$node" ] && command -v trinity > /dev/null; then
	t1=$(date +%s)
	mode=$(stat -c %a "$node")
	chmod 666 "$node"
	mkdir -p /tmp/trinity
	chown fuzz /tmp/trinity
	cd /tmp/trinity || exit 1
	# About 60 syscalls a second on an idle 2-core host; the limit is generous.
	limit=$((120 + tcount / 10))
	su -s /bin/sh fuzz -c "timeout -k 20 -s INT $limit trinity -q -l off -a64 -C 2 -s $seed \
		--enable-fds=pseudo -V $node -c ioctl -c mmap -c poll -c ppoll -c lseek -c fcntl \
		-c newfstat -c dup -c write -c mremap -c munmap -c mprotect -c msync \
		-N $tcount --stats" > /tmp/trinity.out 2>&1
	rt=$?
	cd / || exit 1
	chmod "$mode" "$node"
	grep -v '^\[main\] futex\|start: 0x' /tmp/trinity.out | tail -n 60
	ran=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' /tmp/trinity.out | tail -n 1)
	succ=$(sed -n 's/.*Successes: \([0-9]*\).*/\1/p' /tmp/trinity.out | tail -n 1)
	if [ "$rt" = 0 ] && [ "${ran:-0}" -ge "$tcount" ]; then
		ok "trinity: $ran syscalls on $node as user fuzz ($succ succeeded), $(( $(date +%s) - t1 )) s"
	else
		notok "trinity: ${ran:-no} syscalls of $tcount on $node (exit status $rt)"
	fi
	if [ "$(id -u fuzz 2>/dev/null)" != 0 ] && grep -q '^Trinity' /tmp/trinity.out; then
		ok "trinity ran as an unprivileged user (uid $(id -u fuzz))"
	else
		notok "trinity ran as an unprivileged user"
	fi
elif [ "$tcount" -gt 0 ]; then
	notok "trinity: not in the guest image, or no render node"
fi

# After all of that, the device still computes (and vgpud is attached).
out=$(vgpu run saxpy --size 1000 2>&1); echo "$out"
case "$out" in "saxpy: ok "*) ok "after the fuzzing, saxpy gives the CPU reference's result" ;;
	*) notok "after the fuzzing, saxpy gives the CPU reference's result" ;; esac

echo "# fuzz: $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
