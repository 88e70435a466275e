#!/usr/bin/env bash
# The Spark shuffle bench: wide (M x R small records), GroupBy (bulk) and SQL (join + aggregation) jobs,
# each with Spark's sort shuffle and with Creel alternating, on local-cluster with separate executor JVMs.
# Prints every run, the medians (min-max), the ratio Creel / vanilla and the verdict, and writes the table
# with every run and a chart to spark-shuffle/docs/bench-spark.{md,png} (what BENCHMARKS.md shows).
#
#   spark-shuffle/bench.sh                                   # M = R = 2000, 2 GiB GroupBy, 20 M-row SQL; 1 + 5 runs
#   spark-shuffle/bench.sh --wide-maps 200 --wide-reducers 200 --wide-records 1000000 --pairs 8192 \
#       --sql-rows 2000000 --runs 1 --out spark-shuffle/target/bench   # a quick run
#   SPARK_BENCH_VERSION=4.1.3 spark-shuffle/bench.sh         # against another Spark line
#   spark-shuffle/bench.sh broadcast [--sizes 256m,1g ...]   # the broadcast bench: runs spark-broadcast/bench.sh
# Arguments: see io.creel.spark.bench.SparkShuffleBench.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = broadcast ]; then
  shift
  exec spark-broadcast/bench.sh "$@"
fi
version="${SPARK_BENCH_VERSION:-4.0.4}"
main=io.creel.spark.bench.SparkShuffleBench
# One reactor build compiles everything and writes each module's test class path to the same file; the
# last module, spark-shuffle, wins. Sibling modules appear as their target/classes (nothing is installed).
cp_file="$PWD/spark-shuffle/target/bench.classpath"
mvn -B -q -pl spark-shuffle -am test-compile dependency:build-classpath -Dspark.version="$version" \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"
cp="$PWD/spark-shuffle/target/test-classes:$PWD/spark-shuffle/target/classes:$(cat "$cp_file")"
export SPARK_HOME="$PWD/spark-shuffle/target/spark-home" SPARK_SCALA_VERSION=2.13
mkdir -p "$SPARK_HOME/jars"
opens=""
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar jdk.internal.ref; do
  opens="$opens --add-opens=java.base/$p=ALL-UNNAMED"
done
# shellcheck disable=SC2086
exec nice java -Xmx6g $opens -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" \
  "$main" "$@"
