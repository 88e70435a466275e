#!/usr/bin/env bash
# Inside the lab guest (run by lab/rdma/run-tests.sh): runs the rdma-lab tests of storage-rdma with
# the JUnit console launcher on the classpath Maven wrote at build time. RDMA must be there:
# CREEL_RDMA_REQUIRED=1 turns a skip into a failure. CREEL_RDMA_TESTS replaces the selection, e.g.
# CREEL_RDMA_TESTS="--select-class io.creel.storage.rdma.lab.JnvmfLabTest" lab/rdma/run-tests.sh;
# CREEL_RDMA_JAVA_OPTS adds JVM options (e.g. -verbose:jni lists every native method linked).
set -euo pipefail
module=storage-rdma/target
cp="$module/test-classes:$module/classes:$(cat "$module/test-classpath.txt")"
export CREEL_RDMA_REQUIRED=1
# shellcheck disable=SC2086 # CREEL_RDMA_JAVA_OPTS is a list of options
exec java -Xmx768m -XX:ErrorFile="$CREEL_LAB_OUT/hs_err_pid%p.log" ${CREEL_RDMA_JAVA_OPTS:-} \
	--add-exports java.base/sun.nio.ch=ALL-UNNAMED \
	-Djava.library.path="$PWD/$module/native" \
	-Djnvmf.legacy=true \
	-Dorg.slf4j.simpleLogger.log.com.ibm=warn \
	-cp "$cp" org.junit.platform.console.ConsoleLauncher execute \
	--disable-banner --details=testfeed --disable-ansi-colors \
	${CREEL_RDMA_TESTS:---select-package io.creel.storage.rdma} --include-tag rdma-lab \
	--fail-if-no-tests --reports-dir "$CREEL_LAB_OUT/reports"
