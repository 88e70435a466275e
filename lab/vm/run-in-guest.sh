#!/usr/bin/env bash
# Creel's RDMA / NVMe-oF lab: a throwaway QEMU guest running Debian's stock kernel, which has what
# this machine's kernel may lack: soft-RoCE (rdma_rxe) and the kernel NVMe-oF target. The guest
# mounts this machine's root read-only, so the host's java, rdma tools and built jars run inside it.
#
#   run-in-guest.sh [OPTIONS] -- COMMAND [ARG...]   boot, run COMMAND in the guest (as root, chrooted
#                                                   in the host root, in the current directory),
#                                                   power off; exits with COMMAND's exit code
#   run-in-guest.sh --host [OPTIONS] -- COMMAND...  boot, run COMMAND on this machine while the guest
#                                                   serves NVMe/TCP on a forwarded loopback port
#   run-in-guest.sh --up [OPTIONS]                  boot and leave the guest up (at most --timeout)
#   run-in-guest.sh --down [--name NAME]            stop a guest started with --up
#   run-in-guest.sh --build                         install what is missing, build the kernel cache
#   run-in-guest.sh --check                         only check the prerequisites
#
# Options:
#   --ns null|ram        namespace 1 of the NVMe-oF subsystem: null_blk (default; reads return
#                        zeroes, writes vanish) or a 512 MiB RAM disk (data reads back)
#   --out DIR            writable share, mounted at the same path in the guest
#                        (default lab/target/out-NAME); COMMAND writes results here
#   --timeout SECONDS    overall limit, boot included (default 1800; --up: lifetime of the guest)
#   --boot-timeout SECS  limit for the guest to become ready (default 300)
#   --fwd-port PORT      host loopback port for the guest's NVMe/TCP port 4420
#                        (default: the first free one from 14420)
#   --mem MIB, --cpus N  guest size (default 2048 MiB, 2 vCPUs)
#   --name NAME          instance name, for several guests at once (default: default)
#   --quiet              do not stream the guest console (it is always in OUT/console.log)
#
# In the guest: RDMA device rxe0 on eth0 = 10.0.2.15; NVMe-oF subsystem nqn.2024-01.io.creel:lab on
# tcp 10.0.2.15:4420 and rdma 10.0.2.15:4421. COMMAND sees CREEL_LAB=1, CREEL_LAB_RDMA_ADDR,
# CREEL_LAB_NVMF_NQN, CREEL_LAB_NVMF_ADDR, CREEL_LAB_NVMF_TCP_PORT, CREEL_LAB_NVMF_RDMA_PORT,
# CREEL_LAB_NVMF_NS (null or ram), CREEL_LAB_OUT, plus every CREEL_* variable of the caller. With --host, COMMAND sees
# CREEL_LAB_NVMF_ADDR=127.0.0.1 and CREEL_LAB_NVMF_TCP_PORT=<forwarded port> instead.
#
# Environment: CREEL_LAB_CACHE (kernel cache, default ${XDG_CACHE_HOME:-~/.cache}/creel-lab),
# CREEL_LAB_ACCEL=kvm (use KVM instead of software emulation where KVM works).
#
# Exit codes: COMMAND's own; 64 usage; 65 prerequisites missing (not root, or no apt-get);
# 66 kernel cache build failed; 67 the guest did not become ready; 68 the guest stopped without
# reporting COMMAND's exit code; 124 overall timeout. A guest started here is always stopped
# here, except with --up (then --down or --timeout stops it).
set -euo pipefail

readonly EX_USAGE=64 EX_PREREQ=65 EX_BUILD=66 EX_BOOT=67 EX_NORESULT=68 EX_TIMEOUT=124
readonly HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly REPO=$(cd "$HERE/../.." && pwd)
readonly CACHE=${CREEL_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/creel-lab}
readonly NQN=nqn.2024-01.io.creel:lab
readonly GUEST_ADDR=10.0.2.15
# Kernel modules the guest loads (guest-init.sh), copied with their dependencies into the initramfs.
readonly MODULES="virtio_pci virtio_net 9pnet_virtio 9p configfs crc32_generic crc32c_generic rdma_rxe ib_uverbs rdma_ucm
  nvmet nvmet_tcp nvmet_rdma null_blk brd"
readonly PACKAGES="qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-utils rdmacm-utils
  ibverbs-providers libibverbs-dev librdmacm-dev iproute2 coreutils"

mode=run ns=null out="" timeout=1800 boot_timeout=300 fwd_port="" mem=2048 cpus=2 name=default quiet=0
command=()

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
	exit "$EX_USAGE"
}

say() { echo "lab: $*" >&2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--host) mode=host ;;
		--up) mode=up ;;
		--down) mode=down ;;
		--build) mode=build ;;
		--check) mode=check ;;
		--ns) ns=${2:?--ns needs null or ram}; shift ;;
		--out) out=${2:?--out needs a directory}; shift ;;
		--timeout) timeout=${2:?}; shift ;;
		--boot-timeout) boot_timeout=${2:?}; shift ;;
		--fwd-port) fwd_port=${2:?}; shift ;;
		--mem) mem=${2:?}; shift ;;
		--cpus) cpus=${2:?}; shift ;;
		--name) name=${2:?}; shift ;;
		--quiet) quiet=1 ;;
		-h|--help) usage ;;
		--) shift; command=("$@"); break ;;
		*) say "unknown argument: $1 (--help lists the options)"; exit "$EX_USAGE" ;;
	esac
	shift
done
case "$ns" in null|ram) ;; *) say "--ns must be null or ram, got $ns"; exit "$EX_USAGE" ;; esac
for n in "$timeout" "$boot_timeout" "$mem" "$cpus" ${fwd_port:+"$fwd_port"}; do
	[[ "$n" =~ ^[0-9]+$ ]] || { say "not a number: $n"; exit "$EX_USAGE"; }
done
[[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] || { say "--name may hold letters, digits, '.', '_' and '-' only"; exit "$EX_USAGE"; }
if [ "$mode" = run ] || [ "$mode" = host ]; then
	[ ${#command[@]} -gt 0 ] || { say "no COMMAND given (run-in-guest.sh [OPTIONS] -- COMMAND...)"; exit "$EX_USAGE"; }
fi
readonly STATE=${XDG_RUNTIME_DIR:-/tmp}/creel-lab-$(id -u)/$name
out=${out:-$REPO/lab/target/out-$name}

# ---------------------------------------------------------------------------------------------
# Prerequisites

check_prerequisites() {
	local missing=() p
	if ! command -v dpkg-query >/dev/null 2>&1; then
		say "this harness needs a Debian-based machine (dpkg, apt-get); missing: dpkg-query"
		exit "$EX_PREREQ"
	fi
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		say "missing Debian packages: ${missing[*]} (install them as root: apt-get install ${missing[*]})"
		exit "$EX_PREREQ"
	fi
	say "installing ${missing[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
		say "apt-get install ${missing[*]} failed"
		exit "$EX_PREREQ"
	fi
}

# ---------------------------------------------------------------------------------------------
# Kernel and base initramfs, cached under $CACHE/<kernel package>-<version>-<modules hash>

kernel_dir=""

build_kernel_cache() {
	local pkg pkgver key tmp ver m ko rel
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	if [ -z "$pkg" ]; then
		[ "$(id -u)" -eq 0 ] && apt-get update -qq
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	fi
	[ -n "$pkg" ] || { say "cannot find the kernel package behind linux-image-amd64 (apt-get update?)"; exit "$EX_BUILD"; }
	pkgver=$(apt-cache policy "$pkg" | awk '/Candidate:/{print $2; exit}')
	key=$pkg-$pkgver-$(printf '%s' "$MODULES" | md5sum | cut -c1-8)
	kernel_dir=$CACHE/$key
	[ -f "$kernel_dir/ready" ] && return 0

	mkdir -p "$CACHE"
	# Another run (another engineer) may be building the same cache: take turns.
	exec 9>"$CACHE/.build.lock"
	flock -w 900 9 || { say "another lab build holds $CACHE/.build.lock for 15 minutes"; exit "$EX_BUILD"; }
	if [ -f "$kernel_dir/ready" ]; then
		exec 9>&-
		return 0
	fi
	local started=$SECONDS
	say "building the guest kernel cache for $pkg $pkgver in $kernel_dir"
	rm -rf "$CACHE"/build.* # left by a build that failed
	tmp=$(mktemp -d "$CACHE/build.XXXXXX")
	(cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) || { say "apt-get download $pkg failed"; exit "$EX_BUILD"; }
	dpkg-deb -x "$tmp"/*.deb "$tmp/root" || { say "unpacking $pkg failed"; exit "$EX_BUILD"; }
	ver=$(ls "$tmp/root/lib/modules" | head -1)
	depmod -b "$tmp/root" "$ver"
	mkdir -p "$tmp/ird"/{bin,dev,proc,sys,tmp,host,lab,lib/modules/"$ver"}
	if ldd /bin/busybox >/dev/null 2>&1; then
		say "/bin/busybox is not static (install busybox-static)"
		exit "$EX_BUILD"
	fi
	cp /bin/busybox "$tmp/ird/bin/busybox"
	for m in $MODULES; do
		modprobe -d "$tmp/root" -S "$ver" --show-depends "$m" >"$tmp/deps" 2>&1 \
			|| { say "kernel $ver has no module $m: $(head -1 "$tmp/deps")"; exit "$EX_BUILD"; }
		awk '$1=="insmod"{print $2}' "$tmp/deps"
	done | sort -u | while read -r ko; do
		rel=${ko#"$tmp/root"}
		mkdir -p "$tmp/ird$(dirname "$rel")"
		cp "$ko" "$tmp/ird$rel"
	done
	cp "$tmp/root/lib/modules/$ver"/modules.{order,builtin,builtin.modinfo} "$tmp/ird/lib/modules/$ver/" 2>/dev/null || true
	depmod -b "$tmp/ird" "$ver"
	rm -rf "$kernel_dir.new" && mkdir -p "$kernel_dir.new"
	cp "$tmp/root/boot/vmlinuz-$ver" "$kernel_dir.new/vmlinuz"
	(cd "$tmp/ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$kernel_dir.new/base.cpio.gz"
	echo "$ver" >"$kernel_dir.new/version"
	touch "$kernel_dir.new/ready"
	rm -rf "$kernel_dir" && mv "$kernel_dir.new" "$kernel_dir"
	rm -rf "$tmp"
	exec 9>&-
	say "kernel cache ready ($ver, $((SECONDS - started)) s)"
}

# ---------------------------------------------------------------------------------------------
# Booting

qemu_pid=""
tail_pid=""
keep_guest=0

stop_guest() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

cleanup() {
	[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null || true
	if [ -n "$qemu_pid" ] && [ "$keep_guest" -eq 0 ]; then
		stop_guest "$qemu_pid"
		rm -rf "$STATE"
	fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

choose_port() {
	if [ -n "$fwd_port" ]; then
		port_free "$fwd_port" || { say "port $fwd_port on 127.0.0.1 is in use"; exit "$EX_USAGE"; }
		return
	fi
	local p
	for p in $(seq 14420 14499); do
		if port_free "$p"; then fwd_port=$p; return; fi
	done
	say "no free port in 127.0.0.1:14420-14499 for NVMe/TCP forwarding"
	exit "$EX_BOOT"
}

# The per-run initramfs part: /init and the command; appended to the cached base archive (the
# kernel unpacks concatenated archives in order).
make_initrd() {
	local run=$1 cmdfile v
	cmdfile=$run/piece/lab/cmd.sh
	mkdir -p "$run/piece/lab"
	cp "$HERE/guest-init.sh" "$run/piece/init"
	chmod 755 "$run/piece/init"
	{
		echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		echo "export HOME=/tmp/home LANG=C.UTF-8"
		echo 'mkdir -p "$HOME"'
		[ -n "${JAVA_HOME:-}" ] && printf 'export JAVA_HOME=%q\n' "$JAVA_HOME"
		[ -n "$(guest_jvm_options)" ] && printf 'export JDK_JAVA_OPTIONS=%q\n' "$(guest_jvm_options)"
		for v in $(compgen -e | grep '^CREEL_' | grep -v '^CREEL_LAB' || true); do
			printf 'export %s=%q\n' "$v" "${!v}"
		done
		printf 'export CREEL_LAB=1 CREEL_LAB_RDMA_ADDR=%s CREEL_LAB_NVMF_NQN=%s CREEL_LAB_NVMF_ADDR=%s\n' \
			"$GUEST_ADDR" "$NQN" "$GUEST_ADDR"
		printf 'export CREEL_LAB_NVMF_TCP_PORT=4420 CREEL_LAB_NVMF_RDMA_PORT=4421 CREEL_LAB_NVMF_NS=%s CREEL_LAB_OUT=%q\n' \
			"$ns" "$out"
		printf 'cd %q || exit 70\n' "$PWD"
		if [ "$mode" = run ]; then
			printf 'exec'
			printf ' %q' "${command[@]}"
			printf '\n'
		fi
	} >"$cmdfile"
	(cd "$run/piece" && find . | cpio -o -H newc --quiet | gzip -1) >"$run/piece.cpio.gz"
	cat "$kernel_dir/base.cpio.gz" "$run/piece.cpio.gz" >"$run/initrd.gz"
}

accel_kind() {
	echo "${CREEL_LAB_ACCEL:-tcg}"
}

# The options every JVM in the guest starts with (as JDK_JAVA_OPTIONS). Under software emulation,
# C1 only: with one host thread per vCPU, QEMU can run a method whose entry HotSpot is patching on
# the other vCPU half old and half new — crash logs showed SIGSEGV at a method entry that held the
# freshly patched jump, and SIGILL in compiled code, in tests that pass when run again. HotSpot
# patches entries when it replaces a method's code, which tiered compilation does for every hot
# method (level 3, then C2); stopping at level 1 compiles each method once, and spares the guest
# C2's compile time, which emulation makes long. CREEL_LAB_JVM_OPTS replaces the options ("" for none).
guest_jvm_options() {
	if [ -n "${CREEL_LAB_JVM_OPTS+set}" ]; then
		echo "$CREEL_LAB_JVM_OPTS"
	elif [ "$(accel_kind)" != kvm ]; then
		echo "-XX:TieredStopAtLevel=1"
	fi
}

# Starts QEMU in the background; sets qemu_pid (the pid of the `timeout` wrapping it).
start_guest() {
	local run=$1 accel cpu
	mkdir -p "$out"
	rm -f "$out/.lab-rc" "$out/.lab-stop"
	# Software emulation by default: /dev/kvm may exist and still hang a nested guest (it does on
	# the shared build machine). CREEL_LAB_ACCEL=kvm opts in where KVM works.
	# Under emulation the CPU model is QEMU's baseline qemu64: with "-cpu max" the JVM's JIT met
	# instructions QEMU 7.2 emulates wrongly (SIGILL in compiled code). CREEL_LAB_TCG_THREAD=single
	# makes the vCPUs take turns on one host thread (see guest_jvm_options; about half the speed).
	if [ "$(accel_kind)" = kvm ]; then
		accel="-accel kvm" cpu=host
	else
		accel="-accel tcg,thread=${CREEL_LAB_TCG_THREAD:-multi}" cpu=qemu64
	fi
	# Concurrent runs (other engineers, other --names) take turns from choosing a port until QEMU
	# has bound it, so two guests never pick the same free port.
	mkdir -p "$(dirname "$STATE")"
	exec 8>"$(dirname "$STATE")/.ports.lock"
	flock -w 120 8 || { say "another lab run holds the port lock for 2 minutes"; exit "$EX_BOOT"; }
	choose_port
	say "booting guest $name (NVMe/TCP forwarded to 127.0.0.1:$fwd_port)"
	: >"$out/console.log"
	# shellcheck disable=SC2086 # accel holds two options on purpose
	setsid nice -n 10 timeout -k 10 "$timeout" qemu-system-x86_64 $accel -cpu "$cpu" -m "$mem" -smp "$cpus" \
		-display none -vga none -monitor none -serial stdio -no-reboot \
		-kernel "$kernel_dir/vmlinuz" -initrd "$run/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3 lab.out=$out lab.ns=$ns lab.mode=$mode" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$out",mount_tag=out,security_model=none,multidevs=remap \
		-netdev user,id=n0,hostfwd=tcp:127.0.0.1:"$fwd_port"-:4420 -device virtio-net-pci,netdev=n0 \
		</dev/null >>"$out/console.log" 2>&1 8>&- &
	qemu_pid=$!
	local i
	for i in $(seq 1 300); do
		port_free "$fwd_port" || break
		kill -0 "$qemu_pid" 2>/dev/null || break
		sleep 0.1
	done
	exec 8>&-
	mkdir -p "$STATE"
	echo "$qemu_pid" >"$STATE/pid"
	echo "$fwd_port" >"$STATE/fwd-port"
	echo "$out" >"$STATE/out"
	if [ "$quiet" -eq 0 ]; then
		tail -n +1 -F --pid="$qemu_pid" "$out/console.log" 2>/dev/null \
			| grep --line-buffered -v "host doesn't support requested feature" >&2 &
		tail_pid=$!
	fi
}

# Waits for "lab: ready"; returns 0, or exits with EX_BOOT / EX_TIMEOUT.
wait_ready() {
	local started=$1
	while :; do
		if grep -q "^lab: ready" "$out/console.log" 2>/dev/null; then
			say "guest ready after $((SECONDS - started)) s (NVMe/TCP forwarded to 127.0.0.1:$fwd_port)"
			return 0
		fi
		if grep -q "^lab: FAILED" "$out/console.log" 2>/dev/null; then
			say "the guest failed to set up: $(grep -m1 '^lab: FAILED' "$out/console.log" | tr -d '\r')"
			exit "$EX_BOOT"
		fi
		if ! kill -0 "$qemu_pid" 2>/dev/null; then
			say "the guest stopped before it was ready (see $out/console.log)"
			exit "$EX_BOOT"
		fi
		if [ $((SECONDS - started)) -ge "$boot_timeout" ]; then
			say "the guest was not ready within $boot_timeout s (see $out/console.log)"
			exit "$EX_BOOT"
		fi
		sleep 0.5
	done
}

# Waits for QEMU to exit by itself, bounded by the overall timeout.
wait_exit() {
	local started=$1
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ $((SECONDS - started)) -ge "$timeout" ]; then
			say "timed out after $timeout s; stopping the guest"
			exit "$EX_TIMEOUT"
		fi
		sleep 0.5
	done
	wait "$qemu_pid" 2>/dev/null || true
}

guest_result() {
	if [ -f "$out/.lab-rc" ]; then
		local rc
		rc=$(tr -dc '0-9' <"$out/.lab-rc")
		return "${rc:-$EX_NORESULT}"
	fi
	say "the guest stopped without reporting the command's exit code (see $out/console.log)"
	return "$EX_NORESULT"
}

down() {
	local pid gout i
	[ -f "$STATE/pid" ] || { say "no guest named $name is up"; return 0; }
	pid=$(cat "$STATE/pid")
	gout=$(cat "$STATE/out" 2>/dev/null || true)
	if kill -0 "$pid" 2>/dev/null; then
		[ -n "$gout" ] && touch "$gout/.lab-stop"
		for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		stop_guest "$pid"
	fi
	rm -rf "$STATE"
	say "guest $name stopped"
}

# ---------------------------------------------------------------------------------------------

case "$mode" in
	check) check_prerequisites; say "prerequisites present"; exit 0 ;;
	down) down; exit 0 ;;
esac

if [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
	say "a guest named $name is already up (pid $(cat "$STATE/pid")); stop it with --down --name $name or use another --name"
	exit "$EX_USAGE"
fi

check_prerequisites
build_kernel_cache
[ "$mode" = build ] && { say "kernel cache: $kernel_dir"; exit 0; }

# The guest mounts its own /tmp, /proc, /sys and /dev over the host's: a checkout or an output share
# under them would be invisible (or unmountable) in the guest.
for p in "$REPO" "$out"; do
	case "$p/" in
		/tmp/*|/proc/*|/sys/*|/dev/*)
			say "$p is under ${p%"${p#/*/}"}, which the guest replaces with its own; use a checkout (and --out) elsewhere"
			exit "$EX_USAGE" ;;
	esac
done

trap cleanup EXIT
trap 'exit 130' INT TERM
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/creel-lab-run.XXXXXX")
trap 'cleanup; rm -rf "$run_dir"' EXIT
make_initrd "$run_dir"
began=$SECONDS
start_guest "$run_dir"
wait_ready "$began"

case "$mode" in
	run)
		wait_exit "$began"
		guest_result && rc=0 || rc=$?
		say "finished in $((SECONDS - began)) s, command exit code $rc"
		if [ "$rc" -ne 0 ] && [ "$quiet" -eq 1 ]; then
			# A quiet run's console is not on stderr: show what the failure left there (crash summaries,
			# the last test lines), so that a CI log explains the exit code on its own.
			say "the console's crash reports and last lines ($out/console.log):"
			grep -a '^lab:   \|^lab: JVM crash\|died in JIT' "$out/console.log" | tr -d '\r' | head -n 80 >&2 || true
			tail -n 40 "$out/console.log" | tr -d '\r' >&2
		fi
		exit "$rc"
		;;
	host)
		remaining=$((timeout - (SECONDS - began)))
		set +e
		CREEL_LAB=1 CREEL_LAB_NVMF_NQN=$NQN CREEL_LAB_NVMF_ADDR=127.0.0.1 CREEL_LAB_NVMF_TCP_PORT=$fwd_port \
			CREEL_LAB_NVMF_NS=$ns CREEL_LAB_OUT=$out \
			timeout -k 10 "$remaining" "${command[@]}"
		rc=$?
		set -e
		touch "$out/.lab-stop"
		for _ in $(seq 1 60); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.5; done
		[ "$rc" -eq 124 ] && say "the host command timed out"
		say "finished in $((SECONDS - began)) s, host command exit code $rc"
		exit "$rc"
		;;
	up)
		keep_guest=1
		say "guest $name is up for at most $timeout s: NVMe/TCP at 127.0.0.1:$fwd_port ($NQN)"
		say "stop it with: $0 --down --name $name"
		echo "$fwd_port"
		exit 0
		;;
esac
