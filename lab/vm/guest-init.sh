#!/bin/busybox sh
# /init of the lab guest (runs as PID 1 from the initramfs that lab/vm/run-in-guest.sh assembles).
#
# Brings up: the host's root file system read-only over 9p at /host, the writable output share at
# the same path as on the host, soft-RoCE rxe0 on eth0 (10.0.2.15), and a kernel NVMe-oF target
# (subsystem nqn.2024-01.io.creel:lab, namespace 1 on null_blk or a RAM disk, ports tcp 4420 and
# rdma 4421). Then runs /lab/cmd.sh chrooted in the host root, writes its exit code to the output
# share, and powers off. Every step that fails says "lab: FAILED <step>" on the console, and the
# command is not run: the host reports the guest as not ready.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/shm /dev/pts
mount -t tmpfs shm /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
[ -f /lab/cmd.sh ] && cp /lab/cmd.sh /tmp/lab-cmd.sh

arg() { sed -n "s/.*lab\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
OUT=$(arg out)
NS_KIND=$(arg ns)
MODE=$(arg mode)
NQN=nqn.2024-01.io.creel:lab
ADDR=10.0.2.15

fail() {
	echo "lab: FAILED $*"
	sync
	poweroff -f
}

# Loading fails loudly: a missing module means the guest cannot give what the tests expect.
for m in virtio_pci virtio_net 9pnet_virtio 9p configfs crc32_generic crc32c_generic rdma_rxe ib_uverbs rdma_ucm \
		nvmet nvmet_tcp nvmet_rdma null_blk; do
	modprobe "$m" || fail "modprobe $m"
done

for _ in $(seq 1 40); do [ -e /sys/class/net/eth0 ] && break; sleep 0.25; done
[ -e /sys/class/net/eth0 ] || fail "no eth0 (virtio-net did not appear)"

mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose hostroot /host || fail "mount the host root over 9p"
mount -t configfs none /sys/kernel/config || fail "mount configfs"
for d in proc sys dev tmp; do
	mount -o rbind "/$d" "/host/$d" || fail "bind /$d into the host root"
done
if [ -n "$OUT" ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,rw out "/host$OUT" || fail "mount the output share at $OUT"
fi

ip link set lo up
ip link set eth0 up
ip addr add "$ADDR/24" dev eth0
ip route add default via 10.0.2.2
chroot /host rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 (soft-RoCE)"

if [ "$NS_KIND" = ram ]; then
	modprobe brd rd_nr=1 rd_size=524288 || fail "modprobe brd"
	NS=/dev/ram0
else
	NS=/dev/nullb0
fi
[ -b "$NS" ] || fail "no block device $NS for the NVMe-oF namespace"

N=/sys/kernel/config/nvmet
S=$N/subsystems/$NQN
{
	mkdir "$S" &&
	echo 1 > "$S/attr_allow_any_host" &&
	mkdir "$S/namespaces/1" &&
	echo "$NS" > "$S/namespaces/1/device_path" &&
	echo 1 > "$S/namespaces/1/enable" &&
	mkdir "$N/ports/1" &&
	echo ipv4 > "$N/ports/1/addr_adrfam" &&
	echo tcp > "$N/ports/1/addr_trtype" &&
	echo 0.0.0.0 > "$N/ports/1/addr_traddr" &&
	echo 4420 > "$N/ports/1/addr_trsvcid" &&
	ln -s "$S" "$N/ports/1/subsystems/" &&
	mkdir "$N/ports/2" &&
	echo ipv4 > "$N/ports/2/addr_adrfam" &&
	echo rdma > "$N/ports/2/addr_trtype" &&
	echo "$ADDR" > "$N/ports/2/addr_traddr" &&
	echo 4421 > "$N/ports/2/addr_trsvcid" &&
	ln -s "$S" "$N/ports/2/subsystems/"
} || fail "configure the NVMe-oF target"

echo "lab: ready (rxe0 on $ADDR, nvmet $NQN tcp :4420 rdma :4421, namespace $NS, mode ${MODE:-run})"

if [ "$MODE" = run ]; then
	chroot /host /bin/sh /tmp/lab-cmd.sh < /dev/null
	rc=$?
else
	# Kept up for host-side tests until the host drops the stop file into the output share.
	while [ ! -e "/host$OUT/.lab-stop" ]; do sleep 1; done
	rc=0
fi
echo "lab: command exit $rc"
echo "$rc" > "/host$OUT/.lab-rc"
sync
umount "/host$OUT" 2>/dev/null
poweroff -f
