#!/usr/bin/env bash
# Inside the lab guest (run by lab/rdma/run-tests.sh): runs the rdma-lab tests with the JUnit console
# launcher on the class paths Maven wrote at build time, one JVM per suite:
#   verbs    storage-rdma's tests of the verbs layer, libdisni, DaRPC and jNVMf (io.creel.storage.rdma)
#   cluster  the end-to-end tests of a Creel cluster over RDMA (io.creel.launcher.rdma, real daemons)
# RDMA must be there: CREEL_RDMA_REQUIRED=1 turns a skip into a failure. CREEL_RDMA_SUITES picks suites
# (default "verbs cluster"); CREEL_RDMA_TESTS replaces a suite's selection, e.g.
# CREEL_RDMA_SUITES=verbs CREEL_RDMA_TESTS="--select-class io.creel.storage.rdma.lab.JnvmfLabTest";
# CREEL_RDMA_JAVA_OPTS adds JVM options (e.g. -verbose:jni lists every native method linked).
set -uo pipefail
export CREEL_RDMA_REQUIRED=1
native="$PWD/storage-rdma/target/native"
status=0

# shellcheck source=../vm/jit-crash-retry.sh
. lab/vm/jit-crash-retry.sh

suite() {
	local name=$1
	run_retrying_jit_crash "$name" run_suite "$@" || status=$?
}

run_suite() {
	local name=$1 module=$2 selection=$3
	local target="$module/target"
	local cp="$target/test-classes:$target/classes:$(cat "$target/test-classpath.txt")"
	echo "lab: suite $name ($module)" >&2
	rm -rf "$CREEL_LAB_OUT/reports/$name" # a rerun's reports replace those of a crashed run
	# shellcheck disable=SC2086 # CREEL_RDMA_JAVA_OPTS and the selection are lists of options
	java -Xmx512m -XX:ErrorFile="$CREEL_LAB_CRASHES/hs_err_pid%p.log" ${CREEL_RDMA_JAVA_OPTS:-} \
		--add-exports java.base/sun.nio.ch=ALL-UNNAMED \
		-Djava.library.path="$native" \
		-Djnvmf.legacy=true \
		-Dorg.slf4j.simpleLogger.log.com.ibm=warn \
		-cp "$cp" org.junit.platform.console.ConsoleLauncher execute \
		--disable-banner --details=testfeed --disable-ansi-colors \
		${CREEL_RDMA_TESTS:-$selection} --include-tag rdma-lab \
		--fail-if-no-tests --reports-dir "$CREEL_LAB_OUT/reports/$name"
}

for s in ${CREEL_RDMA_SUITES:-verbs cluster}; do
	case "$s" in
	verbs) suite verbs storage-rdma "--select-package io.creel.storage.rdma" ;;
	cluster) suite cluster launcher "--select-package io.creel.launcher.rdma" ;;
	*) echo "lab: unknown suite $s (verbs, cluster)" >&2; status=64 ;;
	esac
done
rm -rf /dev/shm/creel-rdma-lab
exit "$status"
