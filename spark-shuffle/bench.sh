#!/usr/bin/env bash
# The Spark shuffle bench: Spark's GroupBy and a sort of 100-byte records,
# each with Spark's sort shuffle and with Creel, on local-cluster with separate executor JVMs.
# Prints the runtime ratio Creel / vanilla and writes a chart (default spark-shuffle/target/bench-spark.png).
#
#   spark-shuffle/bench.sh                                   # 1 GiB GroupBy, 1 GB sort, 3 timed runs each
#   spark-shuffle/bench.sh --pairs 16384 --sort-records 1000000 --runs 1   # a quick run
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
