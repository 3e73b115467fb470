# Shared helpers for the scripts in tools/. Sourced, not executed.

# vgpu_need_packages PKG... - installs the Debian packages that are missing
# (without the packages they only recommend when VGPU_APT_NO_RECOMMENDS is
# set: dkms recommends the running kernel's headers, which the test does
# not use).
vgpu_need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing Debian packages: ${missing[*]}"
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		${VGPU_APT_NO_RECOMMENDS:+--no-install-recommends} "${missing[@]}"
}

# vgpu_copy_libs DIR BINARY... - copies the shared libraries the binaries
# need (and the dynamic loader) into the root file system at DIR.
vgpu_copy_libs() {
	local dir=$1 lib f
	shift
	for lib in $(for f in "$@"; do
			head -c 4 "$f" 2>/dev/null | grep -q ELF || continue
			ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\).*/\1/p'
		done | sort -u); do
		[ -e "$dir$lib" ] && continue
		mkdir -p "$dir$(dirname "$lib")"
		cp -L "$lib" "$dir$lib"
	done
}
