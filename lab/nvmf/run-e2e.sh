#!/usr/bin/env bash
# End-to-end check of the nvmf tier with bin/creel inside the lab guest (lab/nvmf/creel-e2e.sh): a
# cluster whose flash tier is the guest's kernel NVMe-oF target, reached over NVMe/TCP and over RDMA,
# files spilling from DRAM into it, clients reading it directly and through the server, the target
# going away and coming back, and what bin/creel report shows meanwhile.
#
#   lab/nvmf/run-e2e.sh [run-in-guest.sh options]
#
# Builds bin/creel here first if needed (the guest sees this machine's files read-only). Output, the
# daemons' logs and the reports land in lab/target/nvmf-e2e. Exit code: the check's, or the harness's.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
started=$SECONDS
bin/creel --help >/dev/null # builds the project on first use or when sources changed
if [ ! -f storage-rdma/target/native/libdisni.so ]; then
	echo "lab: storage-rdma/target/native/libdisni.so was not built (see storage-rdma/README.md)" >&2
	exit 1
fi
out=$repo/lab/target/nvmf-e2e
rm -rf "$out"
mkdir -p "$out"
echo "lab: built in $((SECONDS - started)) s; booting the guest" >&2
# shellcheck source=../vm/jit-crash-retry.sh
. lab/vm/jit-crash-retry.sh
e2e() {
	lab/vm/run-in-guest.sh --ns ram --name nvmf-e2e --out "$out" --mem 3072 --quiet "$@" -- bash lab/nvmf/creel-e2e.sh
}
status=0
CREEL_LAB_OUT=$out run_retrying_jit_crash e2e e2e "$@" || status=$?
echo "lab: nvmf end-to-end check finished in $((SECONDS - started)) s with exit code $status" >&2
[ -f "$out/e2e.txt" ] && cat "$out/e2e.txt" >&2
exit "$status"
