#!/usr/bin/env bash
# Fuzzes every Jazzer target (@FuzzTest) for its bounded time (maxDuration, 15 s each: 10 targets,
# about 4.5 minutes in all with Maven's start-up), one JVM per target: Jazzer fuzzes one target per
# run. A crash fails the step, and Jazzer writes the input that caused it under
# src/test/resources/<package>/<Class>Inputs/<method>/, where the default suite replays it from then
# on (commit it with the fix). The default build (mvn verify) runs only those
# regression inputs.
set -uo pipefail
cd "$(dirname "$0")/.."

targets=(
  "common MessageDecodersFuzzTest#decodersRejectHostileBytesWithAProtocolError"
  "common FramesFuzzTest#aServerConnectionSurvivesAnyBytes"
  "common FramesFuzzTest#aClientConnectionSurvivesAnyReplyBytes"
  "common HandshakeFuzzTest#aServerNeverAdmitsAPeerWithoutTheSecret"
  "common HandshakeFuzzTest#aClientNeverAcceptsAServerWithoutTheSecret"
  "common TlsRequiredFuzzTest#aPlainPeerGetsOneClearAnswerAndNoBytePassesWithoutTls"
  "common CredentialFileFuzzTest#aCredentialFileIsReadWholeOrRefusedAsConfiguration"
  "common DirectoryRecordFuzzTest#everySlotIsSkippedOrReadAsExactlyWhatItHolds"
  "namenode LogReaderFuzzTest#aHostileLogIsRestoredOrRefusedAsCorrupt"
  "storage-nvmf PduReaderFuzzTest#thePduReaderRejectsHostileBytesWithAPduException"
)
rc=0
for t in "${targets[@]}"; do
  read -r module test <<<"$t"
  echo "=== fuzz: $module $test"
  t0=$SECONDS
  # -Dsurefire.failIfNoSpecifiedTests=false (the modules -am builds have no such test) would also pass a
  # target that was renamed or lost its @FuzzTest having run nothing: its report must show it ran.
  reports="$module/target/surefire-reports"
  rm -f "$reports"/TEST-*."${test%%#*}".xml
  if ! JAZZER_FUZZ=1 nice mvn -q -B test -pl "$module" -am -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false; then
    echo "=== fuzz: $test FOUND A CRASH (see the reproducer Jazzer wrote under $module/src/test/resources)"
    rc=1
  elif ! python3 .ci/check-test-reports.py "fuzz: $test" "$reports"/TEST-*."${test%%#*}".xml; then
    rc=1
  fi
  echo "=== fuzz: $test took $((SECONDS - t0)) s"
done
exit $rc
