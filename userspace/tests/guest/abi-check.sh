#!/bin/sh
# abi-check ABI_FILE - the sysfs ABI file against the attributes vgpu.ko
# creates (run in the guest; tools/check adds the file with --add):
#  - every entry's attribute exists, with the mode its description gives
#    ((RW): 0644, (RO): 0444);
#  - every attribute of the device that is the driver's has an entry;
#  - every attribute with a default (.defaults/NAME) holds it after the
#    module is loaded, and its entry names that default.
# Prints "ok - ..." / "not ok - ..." lines.
abi=${1:?usage: abi-check ABI_FILE}
node=$(ls -d /sys/class/drm/renderD* 2>/dev/null | head -n 1)
dev=$node/device
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }

if [ -z "$node" ] || [ ! -r "$abi" ]; then
	notok "a render node ($node) and the ABI file ($abi)"
	exit 1
fi

# One line per attribute: NAME MODE (RW/RO), then the entry's text on one
# line. Several What: lines share the description that follows them.
awk '
	BEGIN { mode = "?" }
	function flush(   i) {
		for (i = 0; i < n; i++) print names[i] "\t" mode "\t" text
		n = 0; mode = "?"; text = ""
	}
	/^What:/ {
		if (indesc) { flush(); indesc = 0 }
		sub(/.*\/device\//, ""); names[n++] = $0; next
	}
	/^Description:/ { indesc = 1; next }
	indesc {
		if (mode == "?" && match($0, /\((RW|RO)\)/))
			mode = substr($0, RSTART + 1, 2)
		gsub(/[ \t]+/, " "); text = text " " $0
	}
	END { if (n) flush() }' "$abi" > /tmp/abi.entries

# Files of the platform device that are the driver core's, not vgpu's.
core=" uevent modalias driver_override driver subsystem power drm waiting_for_supplier "

bad=0
while IFS="$(printf '\t')" read -r name mode text; do
	f=$dev/$name
	if [ ! -e "$f" ]; then
		echo "# $name: in the ABI file, not created by the module"
		bad=$((bad + 1))
		continue
	fi
	perm=$(ls -l "$f" | cut -c1-10)
	case "$mode" in
	RW) want=-rw-r--r-- ;;
	RO) want=-r--r--r-- ;;
	*) want="(RW) or (RO) in its description" ;;
	esac
	if [ "$perm" != "$want" ]; then
		echo "# $name: mode $perm, the ABI file says $want"
		bad=$((bad + 1))
	fi
done < /tmp/abi.entries
n=$(wc -l < /tmp/abi.entries)
[ "$bad" = 0 ] && ok "the $n attributes of the ABI file exist with their modes" ||
	notok "the attributes of the ABI file exist with their modes ($bad wrong)"

bad=0
for f in "$dev"/* "$dev"/.defaults/*; do
	name=${f#"$dev"/}
	case "$core" in *" $name "*) continue ;; esac
	if ! cut -f1 /tmp/abi.entries | grep -qx "$name"; then
		echo "# $name: created by the module, not in the ABI file"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] && ok "every attribute the module creates is in the ABI file" ||
	notok "every attribute the module creates is in the ABI file ($bad missing)"

bad=0
count=0
for d in "$dev"/.defaults/*; do
	name=${d#"$dev"/.defaults/}
	def=$(cat "$d")
	cur=$(cat "$dev/$name")
	count=$((count + 1))
	# A list attribute shows the active entry in brackets.
	case "$cur" in *"["*"]"*) cur=$(echo "$cur" | sed 's/.*\[\([^]]*\)\].*/\1/') ;; esac
	if [ "$cur" != "$def" ]; then
		echo "# $name: holds '$cur' after loading, its default is '$def'"
		bad=$((bad + 1))
	fi
	text=$(awk -F '\t' -v n="$name" '$1 == n { print $3 }' /tmp/abi.entries)
	if ! echo " $text " | grep -q "default" ||
		! echo " $text " | tr '();:,."' '       ' | grep -qw -- "$def"; then
		echo "# $name: its ABI entry does not give its default '$def'"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] && ok "the $count attributes with a default hold it and their entries name it" ||
	notok "the attributes with a default hold it and their entries name it ($bad wrong)"

echo "# abi-check: $pass passed, $fail failed"
[ "$fail" = 0 ]
