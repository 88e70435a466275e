#!/usr/bin/env bash
# Inside the lab guest (run by lab/nvmf/run-tests.sh): runs storage-nvmf's nvmf-lab tests with the
# JUnit console launcher on the classpath Maven wrote at build time, against the guest's kernel target
# over NVMe/TCP and over RDMA (rxe0). Both are required: a skip is a failure.
# CREEL_NVMF_TESTS replaces the selection, e.g. "--select-class io.creel.storage.nvmf.tier.RealTargetTierLabTest".
set -euo pipefail
module=storage-nvmf/target
cp="$module/test-classes:$module/classes:$(cat "$module/test-classpath.txt")"
# shellcheck source=../vm/jit-crash-retry.sh
. lab/vm/jit-crash-retry.sh

nvmf_lab_tests() {
	rm -rf "$CREEL_LAB_OUT/reports"
	# shellcheck disable=SC2086 # CREEL_NVMF_JAVA_OPTS and CREEL_NVMF_TESTS are lists of options
	java -Xmx1g -XX:ErrorFile="$CREEL_LAB_CRASHES/hs_err_pid%p.log" ${CREEL_NVMF_JAVA_OPTS:-} \
	--add-exports java.base/sun.nio.ch=ALL-UNNAMED \
	-Djava.library.path="$PWD/storage-rdma/target/native" \
	-Dorg.slf4j.simpleLogger.log.com.ibm=warn \
	-Dcreel.test.nvmf.target="$CREEL_LAB_NVMF_ADDR:$CREEL_LAB_NVMF_TCP_PORT" \
	-Dcreel.test.nvmf.rdma.target="$CREEL_LAB_NVMF_ADDR:$CREEL_LAB_NVMF_RDMA_PORT" \
	-Dcreel.test.nvmf.nqn="$CREEL_LAB_NVMF_NQN" \
	-Dcreel.test.nvmf.required=true -Dcreel.test.nvmf.rdma.required=true \
	-cp "$cp" org.junit.platform.console.ConsoleLauncher execute \
	--disable-banner --details=testfeed --disable-ansi-colors \
	${CREEL_NVMF_TESTS:---select-package io.creel.storage.nvmf} --include-tag nvmf-lab \
	--fail-if-no-tests --reports-dir "$CREEL_LAB_OUT/reports"
}

run_retrying_jit_crash nvmf-lab nvmf_lab_tests
