#!/usr/bin/env bash
# Runs every test of the Spark modules -- spark-common, spark-shuffle, spark-broadcast and spark-bundle
# (the default suite, ShadedJarIT and the heavy "matrix" tests) -- against each supported Spark line
# with ONE build of the plugins: the jar is built once against Spark 4.0.4, then for each line only
# the tests are recompiled (-Dmaven.main.skip keeps the classes under test, and the shaded jar
# repackages those same classes) and run with that Spark on the class path.
#
#   spark-bundle/test-matrix.sh                 # 4.0.4 4.1.3 4.2.0
#   CREEL_SPARK_VERSIONS="4.1.3" spark-bundle/test-matrix.sh
#   CREEL_SPARK_GROUPS=default spark-bundle/test-matrix.sh   # skip the heavy tests
#   CREEL_SPARK_HEAVY_LINES="4.0.4 4.2.0" spark-bundle/test-matrix.sh   # heavy tests on those lines only
#
# Ends with one line "N passed, N failed" over the lines tried; exit code 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

versions="${CREEL_SPARK_VERSIONS:-4.0.4 4.1.3 4.2.0}"
if [ "${CREEL_SPARK_GROUPS:-all}" = default ]; then
  excluded=matrix
else
  excluded=
fi
# spark-bundle and what it is built from: the four Spark modules (and the client below them).
mvn=(mvn -B -q -pl spark-bundle -am)
# Surefire runs only the Spark modules' *Test classes (-am would run the client's and the other
# upstream modules' tests too); failsafe keeps its default (*IT: ShadedJarIT), and only spark-bundle
# binds it.
spark_modules=(spark-common spark-shuffle spark-broadcast spark-bundle)
only_spark=(-Dtest='io.creel.spark.**.*Test' -Dsurefire.failIfNoSpecifiedTests=false)

echo "== building the plugins and their jar once, against Spark 4.0.4"
if ! "${mvn[@]}" package -DskipTests; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
# CREEL_SPARK_DEFAULT_DONE=V: the default group already ran on Spark V in this run (.ci/run's verify
# step runs it on the build's Spark line), so on V only the heavy group runs here.
default_done="${CREEL_SPARK_DEFAULT_DONE:-}"
# CREEL_SPARK_HEAVY_LINES: the lines that also run the heavy group (default: every line tried).
heavy_lines="${CREEL_SPARK_HEAVY_LINES:-$versions}"
for v in $versions; do
  echo "== Spark $v"
  start=$(date +%s)
  reports=()
  for m in "${spark_modules[@]}"; do
    rm -rf "$m/target/surefire-reports" "$m/target/failsafe-reports"
    reports+=("$m/target/surefire-reports")
  done
  reports+=(spark-bundle/target/failsafe-reports)
  groups=""
  skipped_groups="$excluded"
  if [ -z "$excluded" ] && [[ " $heavy_lines " != *" $v "* ]]; then
    skipped_groups=matrix
    echo "   (the default group only: the heavy group runs on $heavy_lines)"
  elif [ "$v" = "$default_done" ] && [ -z "$excluded" ]; then
    groups=matrix
    echo "   (the default group ran on $v in verify: the heavy group only)"
  fi
  # --fail-at-end: a failure in one plugin's tests does not keep the other plugin's from running on
  # this line (spark-broadcast does not depend on spark-shuffle; spark-bundle, on both, is skipped).
  if nice "${mvn[@]}" verify --fail-at-end -Dspark.version="$v" -Dmaven.main.skip=true \
      -Dspark.test.excludedGroups="$skipped_groups" -Dspark.test.groups="$groups" "${only_spark[@]}"; then
    passed=$((passed + 1))
    result=passed
  else
    failed=$((failed + 1))
    result=FAILED
  fi
  tests=$(for d in "${reports[@]}"; do cat "$d"/TEST-*.xml 2>/dev/null; done \
    | grep -o '<testsuite [^>]*tests="[0-9]*"' | grep -o 'tests="[0-9]*"' | grep -o '[0-9]*' | paste -sd+ | bc)
  # A line whose run selected nothing (-Dsurefire.failIfNoSpecifiedTests=false lets it pass) or skipped a
  # test did not test that line: it fails (.ci/check-test-reports.py, as the other CI steps use).
  if [ "$result" = passed ] && ! python3 .ci/check-test-reports.py "Spark $v" "${reports[@]}"; then
    passed=$((passed - 1))
    failed=$((failed + 1))
    result=FAILED
  fi
  echo "Spark $v: $result, ${tests:-0} tests, $(( $(date +%s) - start )) s"
done
echo "spark-matrix: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
