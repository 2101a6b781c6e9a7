#!/usr/bin/env bash
# Builds Stratus's tiny bootable test image from Debian's packages, for the QEMU compute driver:
# the Debian cloud kernel (linux-image-cloud-amd64), busybox-static, dropbear-bin, and an init that
# applies the NoCloud seed (hostname, root password hash, SSH keys, a user-data script, the static
# addresses of its network-config in bridge mode, else DHCP) and powers off on the ACPI power button. Needs: qemu-utils, e2fsprogs, cpio, kmod (no root, no network).
#
#   scripts/build-test-image.sh [--name NAME] [OUT]
#
# OUT (default: $STRATUS_VM_IMAGES, else ./data/vm-images) receives:
#   NAME/disk.qcow2, NAME/vmlinuz, NAME/initrd.img   the public image compute/NAME (default alpine3.20)
#   kernel/vmlinuz, kernel/initrd.img                the host's default kernel
#   rescue/vmlinuz, rescue/initrd.img                the rescue system (the same system, from memory)
set -euo pipefail
# mke2fs and modprobe live in /usr/sbin and /sbin, which a non-root PATH lacks on Debian.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

name=alpine3.20
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) out=$1; shift ;;
  esac
done
out=${out:-${STRATUS_VM_IMAGES:-./data/vm-images}}

fail() { echo "build-test-image: $*" >&2; exit 1; }
kernel=$(ls -1 /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$kernel" ] || fail "no Debian cloud kernel in /boot: apt-get install linux-image-cloud-amd64"
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || fail "no modules for $kver in /lib/modules"
[ -r "$kernel" ] || fail "$kernel is not readable (run as root, or chmod a+r it)"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || busybox=/bin/busybox
[ -x "$busybox" ] || fail "no busybox: apt-get install busybox-static"
[ -x /usr/sbin/dropbear ] || fail "no dropbear: apt-get install dropbear-bin"
for t in qemu-img mke2fs cpio modprobe; do command -v "$t" >/dev/null || fail "$t is missing"; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,etc/init.d,etc/dropbear,proc,sys,dev,run,tmp,root,var/log,var/lib/stratus,usr/bin,usr/sbin,mnt,newroot}
chmod 700 "$root/root"
cp "$busybox" "$root/bin/busybox"
# Every applet as a link (the root disk boots read-only: nothing is installed at boot).
"$busybox" --list-full | while read -r applet; do
  [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
cp /usr/sbin/dropbear "$root/usr/sbin/dropbear"
cp /usr/bin/dropbearkey "$root/usr/bin/dropbearkey"
# dropbear's shared libraries, from the host (the same Debian release).
for lib in $(ldd /usr/sbin/dropbear /usr/bin/dropbearkey | awk '/=>/ {print $3} /^\t\/lib/ {print $1}' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
EOF
cat > "$root/etc/shadow" <<'EOF'
root:*:19000:0:99999:7:::
EOF
chmod 600 "$root/etc/shadow"
echo 'root:x:0:' > "$root/etc/group"
echo /bin/sh > "$root/etc/shells"
# busybox acpid: the power button's event (key PWRF) runs the handler PWRF/00000080 under /etc/acpi.
echo 'PWRF PWRF/00000080' > "$root/etc/acpid.conf"
mkdir -p "$root/etc/acpi/PWRF"
printf '#!/bin/sh\npoweroff\n' > "$root/etc/acpi/PWRF/00000080"
chmod 755 "$root/etc/acpi/PWRF/00000080"
cat > "$root/etc/inittab" <<'EOF'
::sysinit:/etc/init.d/rcS
ttyS0::respawn:/sbin/getty -L 115200 ttyS0 vt100
::ctrlaltdel:/sbin/reboot
::shutdown:/etc/init.d/rcK
EOF
cat > "$root/etc/udhcpc.script" <<'EOF'
#!/bin/sh
case "$1" in
  bound|renew)
    ip addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "$router" ] && ip route replace default via "${router%% *}" dev "$interface"
    : > /etc/resolv.conf
    for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done ;;
esac
EOF
chmod 755 "$root/etc/udhcpc.script"

# The seed's network-config (cloud-init's network config: version 2, as Stratus writes it in bridge
# mode, or version 1): the static addresses, gateway and name servers, or DHCP. Prints MAC, ADDR
# (address/prefix; a version 1 netmask becomes the prefix), GW, DNS and DHCP lines.
cat > "$root/etc/init.d/netcfg.awk" <<'EOF'
function unquote(s) { gsub(/^[ \t]*["']?|["']?[ \t]*$/, "", s); return s }
function indent(s) { match(s, /^ */); return RLENGTH }
function prefix(m,   n, i, v, parts, b) {
  n = split(m, parts, "."); b = 0
  for (i = 1; i <= n; i++) { v = parts[i] + 0; while (v > 0) { b += v % 2; v = int(v / 2) } }
  return b
}
function flush() {
  if (addr != "") print "ADDR " (addr ~ /\// ? addr : addr "/" (mask != "" ? prefix(mask) : 24))
  addr = ""; mask = ""
}
/^[ \t]*#/ || /^[ \t]*$/ { next }
{ ind = indent($0) }
# Leaving a block: a line at or left of the block's own key (list items may sit at its indent).
inlist && (ind < listind || (ind == listind && $0 !~ /^ *- /)) { inlist = 0 }
ns && ind <= nsind { ns = 0 }
/^ *dhcp4: *(true|yes|on)/ { print "DHCP"; next }
/^ *(macaddress|mac_address):/ { s = $0; sub(/^ *(macaddress|mac_address): */, "", s); print "MAC " tolower(unquote(s)); next }
/^ *nameservers:/ { ns = 1; nsind = ind; next }
/^ *dns_nameservers: *$/ { inlist = 1; listind = ind; listkind = "DNS"; next }
/^ *addresses: *\[/ {
  s = $0; sub(/^[^[]*\[/, "", s); sub(/\].*$/, "", s); n = split(s, items, ",")
  for (i = 1; i <= n; i++) print (ns ? "DNS " : "ADDR ") unquote(items[i])
  next
}
/^ *addresses: *$/ { inlist = 1; listind = ind; listkind = ns ? "DNS" : "ADDR"; next }
inlist && /^ *- / { s = $0; sub(/^ *- */, "", s); print listkind " " unquote(s); next }
/^ *(- )?type: *static/ { flush() }
/^ *(- )?address:/ { flush(); s = $0; sub(/^ *(- )?address: */, "", s); addr = unquote(s); next }
/^ *netmask:/ { s = $0; sub(/^ *netmask: */, "", s); mask = unquote(s); next }
/^ *(- )?(via|gateway4?):/ { s = $0; sub(/^ *(- )?(via|gateway4?): */, "", s); print "GW " unquote(s); next }
END { flush() }
EOF

# The seed's parser: the credentials of the vendor data Stratus writes (a cloud-config).
cat > "$root/etc/init.d/seed.awk" <<'EOF'
function unquote(s) { gsub(/^["']|["']$/, "", s); return s }
/^[ -]*hashed_passwd:/ { s = $0; sub(/^[ -]*hashed_passwd: */, "", s); print "PASS " unquote(s); next }
/^ *ssh_authorized_keys:/ { keys = 1; next }
keys && /^ *- / { s = $0; sub(/^ *- */, "", s); print "KEY " unquote(s); next }
keys { keys = 0 }
EOF

cat > "$root/etc/init.d/rcS" <<'EOF'
#!/bin/sh
# Stratus test image: the system's start. The NoCloud seed (a disk labelled CIDATA) gives the
# hostname and, once per instance-id, the root password hash, the SSH keys and a user-data script.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
grep -q ' /proc ' /proc/mounts 2>/dev/null || mount -t proc proc /proc
grep -q ' /sys ' /proc/mounts || mount -t sysfs sys /sys
grep -q ' /dev ' /proc/mounts || mount -t devtmpfs dev /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
grep -qw rescue /proc/cmdline || mount -o remount,rw,noinit_itable / 2>/dev/null || mount -o remount,rw /
chown -R 0:0 /root /etc /var 2>/dev/null
ip link set lo up
hostname stratus
seed=$(findfs LABEL=CIDATA 2>/dev/null || findfs LABEL=cidata 2>/dev/null || true)
if [ -n "$seed" ]; then
  mkdir -p /run/seed && mount -o ro "$seed" /run/seed
  h=$(sed -n 's/^local-hostname: *//p' /run/seed/meta-data | tr -d "\"'")
  [ -n "$h" ] && hostname "$h" && echo "$h" > /etc/hostname
  id=$(sed -n 's/^instance-id: *//p' /run/seed/meta-data | tr -d "\"'")
  if [ "$id" != "$(cat /var/lib/stratus/instance-id 2>/dev/null)" ]; then
    mkdir -p /root/.ssh && chmod 700 /root/.ssh && : > /root/.ssh/authorized_keys
    awk -f /etc/init.d/seed.awk /run/seed/vendor-data | while read -r kind value; do
      case "$kind" in
        PASS) sed -i "s|^root:[^:]*:|root:$value:|" /etc/shadow ;;
        KEY) echo "$value" >> /root/.ssh/authorized_keys ;;
      esac
    done
    chmod 600 /root/.ssh/authorized_keys
    if head -n 1 /run/seed/user-data | grep -q '^#!'; then
      cp /run/seed/user-data /run/user-data && chmod 700 /run/user-data
      /run/user-data > /var/log/user-data.log 2>&1 &
    fi
    echo "$id" > /var/lib/stratus/instance-id
  fi
fi
# The network: the seed's static addresses on its interface (by MAC, else eth0) with busybox ip,
# DHCP on the others (user-mode networking's seed asks for DHCP).
static=""
mac=""
if [ -n "$seed" ] && [ -f /run/seed/network-config ]; then
  awk -f /etc/init.d/netcfg.awk /run/seed/network-config > /run/network.conf 2>/dev/null
  grep -q '^ADDR ' /run/network.conf && ! grep -q '^DHCP' /run/network.conf && static=1
  mac=$(sed -n 's/^MAC //p' /run/network.conf | head -n 1)
fi
for n in /sys/class/net/*; do
  n=${n##*/}; [ "$n" = lo ] && continue
  ip link set "$n" up
  if [ -n "$static" ] && { [ "$(cat "/sys/class/net/$n/address")" = "$mac" ] || { [ -z "$mac" ] && [ "$n" = eth0 ]; }; }; then
    : > /etc/resolv.conf
    while read -r kind value; do
      case "$kind" in
        ADDR) ip addr add "$value" dev "$n" ;;
        GW) ip route replace default via "$value" dev "$n" ;;
        DNS) echo "nameserver $value" >> /etc/resolv.conf ;;
      esac
    done < /run/network.conf
  else
    udhcpc -i "$n" -s /etc/udhcpc.script -t 10 -T 1 -A 3 -b -q >/dev/null 2>&1
  fi
done
[ -f /etc/dropbear/dropbear_ed25519_host_key ] || dropbearkey -t ed25519 -f /etc/dropbear/dropbear_ed25519_host_key >/dev/null 2>&1
dropbear -E -p 22 -r /etc/dropbear/dropbear_ed25519_host_key 2>>/var/log/dropbear.log
acpid -c /etc/acpi -a /etc/acpid.conf
echo "stratus-test-image: up ($(hostname))" > /dev/console
EOF
cat > "$root/etc/init.d/rcK" <<'EOF'
#!/bin/sh
# The daemons first (dropbear keeps its log open), so the root filesystem goes read-only clean.
killall dropbear acpid udhcpc 2>/dev/null
sleep 0.3
sync
umount -a -r 2>/dev/null
mount -o remount,ro / 2>/dev/null
EOF
chmod 755 "$root/etc/init.d/rcS" "$root/etc/init.d/rcK"

# The root disk: the tree as an ext4 filesystem at offset 0 (as the service's disks are).
mke2fs -q -F -t ext4 -b 4096 -L stratus-root -d "$root" "$work/disk.raw" 64M

# The initramfs: the same tree, the drivers the disks, network, seed and power button need, and
# an /init that mounts the root disk (or, with `rescue`, stays in memory).
initrd=$work/initrd
cp -a "$root" "$initrd"
mkdir -p "$initrd/lib/modules"
: > "$initrd/lib/modules/load"
for m in virtio_pci virtio_scsi sd_mod virtio_net virtio_blk virtio_rng button evdev vfat \
  nls_cp437 nls_ascii nls_utf8 nls_iso8859_1; do
  modprobe -S "$kver" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$initrd/lib/modules/"
  echo "${ko##*/}" >> "$initrd/lib/modules/load"
done
cat > "$initrd/init" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for ko in $(/bin/busybox cat /lib/modules/load); do /bin/busybox insmod "/lib/modules/$ko" 2>/dev/null; done
root=/dev/sda
for a in $(/bin/busybox cat /proc/cmdline); do case "$a" in root=*) root=${a#root=} ;; esac; done
if /bin/busybox grep -qw rescue /proc/cmdline; then
  /bin/busybox umount /proc /sys
  exec /sbin/init
fi
# The guest names SCSI disks in the order it finds them; Stratus puts slot sdX on SCSI target X
# (sda = 0), so root=/dev/sdX means the disk at that target.
dev=$root
case "$root" in
  /dev/sd[a-h])
    want=$(echo abcdefgh | /bin/busybox awk -v l="${root#/dev/sd}" '{print index($0, l) - 1}')
    dev=""
    i=0
    while [ -z "$dev" ] && [ $i -lt 300 ]; do
      for b in /sys/block/sd*; do
        [ -e "$b/device" ] || continue
        t=$(/bin/busybox basename "$(/bin/busybox readlink "$b/device")" | /bin/busybox cut -d: -f3)
        [ "$t" = "$want" ] && dev=/dev/${b##*/}
      done
      [ -z "$dev" ] && /bin/busybox sleep 0.1
      i=$((i + 1))
    done ;;
esac
i=0
while [ ! -b "$dev" ] && [ $i -lt 300 ]; do /bin/busybox sleep 0.1; i=$((i + 1)); done
/bin/busybox mount -o ro "$dev" /newroot || { echo "cannot mount $root ($dev)"; exec /bin/sh; }
/bin/busybox umount /proc /sys
/bin/busybox mount --move /dev /newroot/dev
exec /bin/busybox switch_root /newroot /sbin/init
EOF
chmod 755 "$initrd/init"
(cd "$initrd" && find . | cpio -o -H newc --quiet --owner=0:0 | gzip -1 > "$work/initrd.img")

mkdir -p "$out/$name" "$out/kernel" "$out/rescue"
qemu-img convert -O qcow2 "$work/disk.raw" "$out/$name/disk.qcow2.part"
mv -f "$out/$name/disk.qcow2.part" "$out/$name/disk.qcow2"
for d in "$out/$name" "$out/kernel" "$out/rescue"; do
  cp "$kernel" "$d/vmlinuz"
  cp "$work/initrd.img" "$d/initrd.img"
done
echo "Built the test image compute/$name (kernel $kver) in $out"
