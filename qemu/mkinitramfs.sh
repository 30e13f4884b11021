#!/bin/bash
# Build the guest initramfs for one kernel: mkinitramfs.sh KERNEL_TAG OUT
#   KERNEL_TAG  e.g. patched-debug (modules come from build/mod/KERNEL_TAG)
# Contents: busybox-static, fio, nbd-client and every program in
# build/host/*/bin with the shared libraries ldd names, the out-of-tree
# modules, the guest library, tests, bench scripts and fio jobs. Left
# uncompressed: under TCG, gunzip of ~90 MB costs ~9 s of every boot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:?kernel tag}
out=${2:?output file}
root=$(mktemp -d "$top/build/initramfs-$tag.XXXXXX")
trap 'rm -rf "$root"' EXIT

die() { echo "mkinitramfs: $*" >&2; exit 1; }

busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list >/dev/null 2>&1 ||
	die "missing busybox-static: apt-get install busybox-static"
{ ldd "$busybox" 2>&1 || true; } | grep -q "not a dynamic" ||
	die "$busybox is not static: apt-get install busybox-static"

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib/tierswap/lib,usr/share/tierswap/fio,lib/modules/tierswap,tests,bench,proc,sys,dev,tmp,root,etc,run}
cp "$busybox" "$root/bin/busybox"
for app in $("$busybox" --list-full); do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done

# A dynamic program and the libraries it loads, at the paths ldd reports.
add_prog() { # path-on-host dest-dir
	local prog=$1 dest=$2 lib
	rm -f "$root/$dest/$(basename "$prog")"
	cp -L "$prog" "$root/$dest/"
	ldd "$prog" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# bash: the kernel's selftest scripts (tools/testing/selftests/zram) are #!/bin/bash
for p in fio nbd-client bash; do
	path=$(command -v "$p") || die "missing $p: apt-get install $p"
	add_prog "$path" usr/bin
done
ln -sf /usr/bin/bash "$root/bin/bash"
# mkfs.ext2 (busybox-static has none): zram01's and test_memcontrol's filesystems
path=$(command -v mke2fs || echo /sbin/mke2fs)
[ -x "$path" ] || die "missing mke2fs: apt-get install e2fsprogs"
add_prog "$path" usr/sbin
ln -sf mke2fs "$root/usr/sbin/mkfs.ext2"
# util-linux swapon, off PATH: busybox-static's swapon has no -p (priority);
# swapon_dev in qemu/guest/lib/mem.sh uses it only when a priority is given.
mkdir -p "$root/usr/lib/tierswap/util-linux"
path=/sbin/swapon
[ -x "$path" ] || die "missing $path: apt-get install mount"
add_prog "$path" usr/lib/tierswap/util-linux
for p in "$top"/build/host/*/bin/*; do
	[ -f "$p" ] && [ -x "$p" ] && add_prog "$p" usr/bin
done
for m in "$top/build/mod/$tag"/*/*.ko; do
	[ -f "$m" ] && cp "$m" "$root/lib/modules/tierswap/"
done

# The kernel's own selftests, built from this kernel's tree (build-kselftests.sh).
ksft=$top/build/kselftest/$tag
if [ -d "$ksft" ]; then
	mkdir -p "$root/usr/lib/tierswap/kselftest"
	# the parts built (KSELFTEST_PARTS): make test builds only what its tests run
	for part in mm cgroup zram; do
		if [ -d "$ksft/$part" ]; then cp -a "$ksft/$part" "$root/usr/lib/tierswap/kselftest/"; fi
	done
fi
cp "$top/qemu/guest/ksft2tap.awk" "$root/usr/lib/tierswap/"
cp "$top/qemu/kselftest-xfail" "$root/usr/lib/tierswap/kselftest-xfail"

cp "$top/qemu/guest/init" "$root/init"
cp "$top/qemu/guest/lib.sh" "$root/usr/lib/tierswap/"
cp "$top"/qemu/guest/lib/*.sh "$top/common/ktap.sh" "$root/usr/lib/tierswap/lib/"
install -m 755 "$top/qemu/guest/demo.sh" "$top/qemu/guest/demo-story.sh" "$root/usr/lib/tierswap/"
for t in "$top"/qemu/tests/*.sh; do [ -f "$t" ] && install -m 755 "$t" "$root/tests/"; done
for t in "$top"/qemu/bench/*.sh; do
	[ -f "$t" ] && grep -q '^# where: guest' "$t" && install -m 755 "$t" "$root/bench/"
done
for j in "$top"/workloads/fio/*.fio; do [ -f "$j" ] && cp "$j" "$root/usr/share/tierswap/fio/"; done
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
# name lookups of "localhost" (test_memcontrol's socket test) from the file
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n' > "$root/etc/hosts"
echo "hosts: files" > "$root/etc/nsswitch.conf"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
