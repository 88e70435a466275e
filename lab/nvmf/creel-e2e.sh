#!/usr/bin/env bash
# Inside the lab guest (run by lab/nvmf/run-e2e.sh): bin/creel as a user runs it, with the guest's
# kernel NVMe-oF target as the cluster's flash tier. For each way the nvmf server reaches the target
# (NVMe/TCP, then RDMA):
#   - a namenode, a 32 MiB DRAM server and an nvmf server (storage classes dram,nvmf) as daemons;
#   - fs put of a 96 MiB file: DRAM fills, the rest spills into the nvmf tier;
#   - fs get by a client over NVMe/TCP and by one over RDMA (both straight to the target) and by one
#     through the server only; all byte-identical; bin/creel report shows the nvmf server and its use;
# and once (server over NVMe/TCP): the target goes away (the subsystem is unlinked from its ports),
# bin/creel report shows the nvmf server dead and a get fails naming it; the target comes back, the
# server reconnects, report shows it live and the get works again.
# Everything it prints and the daemons' logs land in $CREEL_LAB_OUT (lab/target/nvmf-e2e).
# CREEL_NVMF_E2E_TRANSPORTS="rdma" runs one of the two rounds only.
set -euo pipefail
out=${CREEL_LAB_OUT:?run me through lab/vm/run-in-guest.sh}
work=$(mktemp -d /tmp/creel-e2e.XXXXXX)
nvmet=/sys/kernel/config/nvmet
pids=()

say() { echo "e2e: $*" | tee -a "$out/e2e.txt"; }
fail() { say "FAILED: $*"; exit 1; }
stop_daemons() {
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]+"${pids[@]}"}"; do
		for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$p" 2>/dev/null || true
	done
	pids=()
}
link_target() {
	local port
	for port in 1 2; do
		[ -e "$nvmet/ports/$port/subsystems/$CREEL_LAB_NVMF_NQN" ] ||
			ln -s "$nvmet/subsystems/$CREEL_LAB_NVMF_NQN" "$nvmet/ports/$port/subsystems/"
	done
}
cleanup() {
	stop_daemons
	link_target 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

export CREEL_CONF_DIR=$work/conf
mkdir -p "$CREEL_CONF_DIR"
rdma_opts="--add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path=$PWD/storage-rdma/target/native"
rdma_opts="$rdma_opts -Dorg.slf4j.simpleLogger.log.com.ibm=warn"
# JVM crash logs where the host's lab/nvmf/run-e2e.sh looks for them (lab/vm/jit-crash-retry.sh).
crashes=${CREEL_LAB_CRASHES:-$out/crashes}
mkdir -p "$crashes"
rdma_opts="$rdma_opts -XX:ErrorFile=$crashes/hs_err_pid%p.log"
# Clients say which controller they connect to (nvmf at debug), so the log shows the path taken.
client_opts="-Xmx256m $rdma_opts -Dorg.slf4j.simpleLogger.log.io.creel.storage.nvmf=debug"
creel() { CREEL_JAVA_OPTS="$client_opts" bin/creel "$@"; }

# Waits up to $2 seconds until `bin/creel report` matches the extended regex $1.
await_report() {
	local deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		if creel report --fail-on none >"$work/report.txt" 2>&1 && grep -Eq "$1" "$work/report.txt"; then
			return 0
		fi
		sleep 1
	done
	cat "$work/report.txt" >&2
	return 1
}

# daemon NAME READY-TEXT ARGS...: starts bin/creel ARGS in the background, logging to $out/NAME.log,
# and waits up to 180 s for READY-TEXT in the log.
daemon() {
	local name=$1 ready=$2
	shift 2
	CREEL_JAVA_OPTS="-Xmx256m $rdma_opts" bin/creel "$@" >"$out/$name.log" 2>&1 &
	pids+=($!)
	local pid=$! deadline=$((SECONDS + 180))
	until grep -q "$ready" "$out/$name.log"; do
		kill -0 "$pid" 2>/dev/null || fail "$name exited: $(tail -3 "$out/$name.log")"
		[ $SECONDS -lt $deadline ] || fail "$name did not start within 180 s"
		sleep 0.5
	done
}

start_cluster() {
	local transport=$1
	cat >"$CREEL_CONF_DIR/creel-site.conf" <<-EOF
		creel.namenode.address = creel://127.0.0.1:9060
		creel.storage.classes = dram,nvmf
		creel.namenode.server.timeout = 6s
		creel.storage.heartbeat.interval = 1s
		creel.storage.advertise.host = 127.0.0.1
		creel.storage.dram.path = $work/dram
		creel.storage.nvmf.address = $CREEL_LAB_NVMF_ADDR
		creel.storage.nvmf.transport = $transport
		creel.storage.nvmf.tcp.port = $CREEL_LAB_NVMF_TCP_PORT
		creel.storage.nvmf.rdma.port = $CREEL_LAB_NVMF_RDMA_PORT
		creel.storage.nvmf.nqn = $CREEL_LAB_NVMF_NQN
		creel.storage.nvmf.size = 256m
		# The guest's CPUs are emulated and slow; a real deployment keeps the defaults.
		creel.storage.nvmf.connect.timeout = 60s
		creel.storage.nvmf.command.timeout = 30s
		creel.client.nvmf.connect.timeout = 60s
		creel.client.nvmf.command.timeout = 30s
		creel.client.request.timeout = 120s
	EOF
	# One daemon at a time: the guest's two emulated CPUs are slow enough starting one JVM.
	daemon "namenode-$transport" "listening on" namenode
	daemon "dram-$transport" "storage server at" datanode --tier dram --size 32m
	daemon "nvmf-$transport" "storage server at" datanode --tier nvmf
	await_report "nvmf +nvmf +live" 180 || fail "the nvmf server did not register (see $out/nvmf-$transport.log)"
	await_report "dram +dram +live" 60 || fail "the DRAM server did not register"
	say "cluster up: namenode, DRAM server, nvmf server over $transport"
}

# get PATH NAME [conf...]: fetches PATH with the extra --conf settings, compares with the input.
get_and_compare() {
	local path=$1 name=$2
	shift 2
	local conf=()
	local c
	for c in "$@"; do conf+=(--conf "$c"); done
	creel fs get "${conf[@]+"${conf[@]}"}" "$path" "$work/out-$name.bin" 2>"$out/get-$name.log" ||
		fail "fs get by $name (see $out/get-$name.log)"
	cmp "$work/in.bin" "$work/out-$name.bin" || fail "the bytes $name got differ from what was put"
	say "fs get by $name: byte-identical ($(grep -o 'client connected to [^,]*' "$out/get-$name.log" | head -1 || true))"
}

head -c $((96 * 1024 * 1024)) /dev/urandom >"$work/in.bin"
say "input: 96 MiB, sha256 $(sha256sum "$work/in.bin" | cut -c1-16)"

for transport in ${CREEL_NVMF_E2E_TRANSPORTS:-tcp rdma}; do
	start_cluster "$transport"
	creel fs put "$work/in.bin" /in.bin 2>"$out/put-$transport.log" || fail "fs put (see $out/put-$transport.log)"
	creel report --fail-on none | tee "$out/report-$transport.txt"
	# The nvmf server's row: SERVER TIER CLASS STATE CAPACITY(2) USED(2) ...: live, and holding blocks.
	awk '$2 == "nvmf" && $3 == "nvmf" && $4 == "live" && $7 + 0 > 0 { found = 1 } END { exit !found }' \
		"$out/report-$transport.txt" || fail "report does not show the nvmf server live and holding blocks"
	say "fs put spilled into the nvmf tier; report: $(grep -E 'nvmf +nvmf' "$out/report-$transport.txt" | tr -s ' ')"
	get_and_compare /in.bin "nvme-tcp-client-$transport" creel.client.nvmf.rdma=false
	get_and_compare /in.bin "rdma-client-$transport"
	get_and_compare /in.bin "server-path-client-$transport" creel.client.nvmf.access=false

	if [ "$transport" = tcp ]; then
		rm "$nvmet/ports/1/subsystems/$CREEL_LAB_NVMF_NQN" "$nvmet/ports/2/subsystems/$CREEL_LAB_NVMF_NQN"
		say "the target went away (subsystem unlinked from both ports)"
		await_report "nvmf +nvmf +dead" 90 || fail "report never showed the nvmf server dead"
		cp "$work/report.txt" "$out/report-target-lost.txt"
		cat "$out/report-target-lost.txt"
		say "report: $(grep -E 'nvmf +nvmf' "$out/report-target-lost.txt" | tr -s ' ')"
		if creel fs get /in.bin "$work/out-lost.bin" 2>"$out/get-target-lost.log"; then
			fail "a get succeeded although the nvmf tier's target is gone"
		fi
		# (the guest's JVMs announce the JDK_JAVA_OPTIONS the lab gives them first: not the news here)
		say "fs get while the target is gone fails: $(grep -v '^NOTE: Picked up' "$out/get-target-lost.log" | head -c 300)"
		grep -q "lost the NVMe-oF target" "$out/nvmf-tcp.log" || fail "the nvmf server did not log the loss"
		link_target
		say "the target is back"
		await_report "nvmf +nvmf +live" 90 || fail "the nvmf server did not come back"
		grep -q "reconnected to the NVMe-oF target" "$out/nvmf-tcp.log" || fail "no reconnection in the server log"
		get_and_compare /in.bin "client-after-reconnect" creel.client.nvmf.rdma=false
	fi
	creel fs rm /in.bin
	stop_daemons
done
say "OK"
