#!/usr/bin/env bash
# Runs storage-nvmf's tests against the Linux kernel NVMe-oF target of the lab guest, twice:
#
#   1. on this machine (run-in-guest.sh --host): the NVMe/TCP initiator's RealTargetTest and the
#      nvmf-lab tests over NVMe/TCP, through the guest's target port forwarded to loopback;
#   2. inside the guest (JUnit console launcher, no Maven there): the nvmf-lab tests over NVMe/TCP and
#      over RDMA (soft-RoCE rxe0, jNVMf on storage-rdma's libdisni.so): the tier, clients reading and
#      writing the target directly, and a cluster whose flash tier is the target's namespace.
#
#   lab/nvmf/run-tests.sh [host|guest|all] [run-in-guest.sh options]     default all
#
# Nothing is skipped: both runs set the "required" switches, so a missing target or missing RDMA is a
# failure, and a test skipped all the same fails the run (.ci/check-test-reports.py reads the reports;
# the host run, which has no RDMA, is not given the RDMA cases at all). Reports land in
# storage-nvmf/target/surefire-reports (host) and lab/target/nvmf-tests/reports (guest); the guest
# console in lab/target/nvmf-tests/console.log. Exit code: the first failure's.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
which=${1:-all}
case "$which" in
	host|guest|all) [ $# -gt 0 ] && shift ;;
	*) which=all ;;
esac
started=$SECONDS
# Builds libdisni.so (storage-rdma) and writes storage-nvmf's test classpath for the guest.
mvn -q -B -pl storage-nvmf -am test-compile
if [ ! -f storage-rdma/target/native/libdisni.so ]; then
	echo "lab: storage-rdma/target/native/libdisni.so was not built (the build said why above)" >&2
	exit 1
fi
echo "lab: built in $((SECONDS - started)) s" >&2
status=0

if [ "$which" != guest ]; then
	step=$SECONDS
	host_reports=storage-nvmf/target/surefire-reports
	rm -rf "$host_reports" # reports of an earlier run (a default suite skips these tests) must not count
	# shellcheck disable=SC2016 # expanded by the host command, once the guest's port is known
	lab/vm/run-in-guest.sh --host --ns ram --name nvmf-host --quiet "$@" -- bash -c \
		'mvn -q -B -pl storage-nvmf -am test -Dcreel.rdma.native.skip=true \
			-Dtest="RealTargetTest,*LabTest" -Dsurefire.failIfNoSpecifiedTests=false \
			-Dcreel.test.nvmf.target=127.0.0.1:$CREEL_LAB_NVMF_TCP_PORT -Dcreel.test.nvmf.nqn=$CREEL_LAB_NVMF_NQN \
			-Dcreel.test.nvmf.required=true' || status=$?
	# The target's NVMe/RDMA port is not named here, so the RDMA cases are not generated (the guest run
	# has them): every test that is selected must run.
	if [ "$status" -eq 0 ]; then
		.ci/check-test-reports.py "lab: nvmf host tests" "$host_reports" || status=1
	fi
	echo "lab: host-side tests finished in $((SECONDS - step)) s with exit code $status" >&2
fi

if [ "$which" != host ] && [ "$status" -eq 0 ]; then
	step=$SECONDS
	out=$repo/lab/target/nvmf-tests
	rm -rf "$out"
	mkdir -p "$out"
	lab/vm/run-in-guest.sh --ns ram --name nvmf-guest --out "$out" --mem 3072 "$@" -- bash lab/nvmf/guest-tests.sh \
		|| status=$?
	if [ "$status" -eq 0 ]; then
		.ci/check-test-reports.py "lab: nvmf guest tests" "$out/reports" || status=1
	fi
	echo "lab: guest tests finished in $((SECONDS - step)) s with exit code $status" >&2
fi
echo "lab: nvmf lab tests took $((SECONDS - started)) s in all; exit code $status" >&2
exit "$status"
