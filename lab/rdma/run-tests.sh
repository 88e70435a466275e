#!/usr/bin/env bash
# Runs the RDMA lab tests (JUnit tag rdma-lab) inside the lab guest, over soft-RoCE rxe0, with the
# libdisni.so this checkout builds. Two suites (lab/rdma/guest-tests.sh):
#   verbs    the device contract on DiSNI, writes and reads of many sizes, a server killed mid-read,
#            a DaRPC round trip, jNVMf against the kernel NVMe-oF target, the native calls nobody makes;
#   cluster  a Creel cluster of real daemons (a namenode at rdma://, DRAM storage servers exporting
#            over RDMA): metadata over rdma://, put/get across many blocks both ways, concurrent
#            clients, stale-block safety, a storage server killed mid-read.
#
#   lab/rdma/run-tests.sh [run-in-guest.sh options]     e.g. --quiet, --timeout 2400
#
# Builds on this machine first (mvn -pl storage-rdma,launcher -am test-compile); the guest only runs
# java. Reports land in lab/target/rdma-tests/reports/<suite>; the cluster's daemon logs in
# lab/target/rdma-tests/cluster/logs; the guest console in lab/target/rdma-tests/console.log.
# Exit code: the tests' (0 = all passed, none skipped: .ci/check-test-reports.py reads the suites'
# reports; 1 when a test was skipped), or the harness's (see run-in-guest.sh).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
started=$SECONDS
mvn -q -B -pl storage-rdma,launcher -am test-compile
if [ ! -f storage-rdma/target/native/libdisni.so ]; then
	echo "lab: storage-rdma/target/native/libdisni.so was not built (the build said why above)" >&2
	exit 1
fi
out=$repo/lab/target/rdma-tests
rm -rf "$out"
mkdir -p "$out"
echo "lab: built in $((SECONDS - started)) s; booting the guest" >&2
status=0
# Four JVMs (the tests, a namenode, storage servers) and their DRAM tiers: more memory than the default.
lab/vm/run-in-guest.sh --ns ram --mem 3072 --timeout 2400 --name rdma-tests --out "$out" "$@" \
	-- bash lab/rdma/guest-tests.sh || status=$?
# The console launcher passes a run whose tests were skipped (an assumption, a condition); here every
# selected test must run, and CREEL_RDMA_REQUIRED=1 should have turned a missing piece into a failure:
# a skip left over is one more way of not testing RDMA, and fails the run naming the test and its reason.
if [ "$status" -eq 0 ]; then
	for suite in ${CREEL_RDMA_SUITES:-verbs cluster}; do
		.ci/check-test-reports.py "lab: rdma suite $suite" "$out/reports/$suite" || status=1
	done
fi
echo "lab: rdma lab tests finished in $((SECONDS - started)) s with exit code $status" >&2
exit "$status"
