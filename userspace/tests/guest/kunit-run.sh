#!/bin/sh
# Runs the vgpu KUnit suites in the guest and prints their KTAP results.
if ! insmod /lib/modules/vgpu_kunit.ko; then
	echo "not ok - insmod vgpu_kunit.ko"
	exit 1
fi
found=0
for r in /sys/kernel/debug/kunit/vgpu*/results; do
	[ -e "$r" ] || continue
	found=1
	cat "$r"
done
[ "$found" = 1 ] || { echo "not ok - no vgpu KUnit suite registered"; exit 1; }
rmmod vgpu_kunit
