#!/usr/bin/env bash
# The Spark broadcast bench: one large broadcast read by every executor, Spark's torrent broadcast
# against CreelBroadcast, on local-cluster with separate executor JVMs (see README.md, "Benchmark").
#
#   spark-broadcast/bench.sh                                   # 256 MiB and 1 GiB, 3 executors of 3 GiB, 2 runs
#   spark-broadcast/bench.sh --sizes 16m --runs 1 --executors 2 --executor-memory 1g   # quick
#   SPARK_BENCH_VERSION=4.1.3 spark-broadcast/bench.sh         # against another Spark line
# Arguments: see io.creel.spark.bench.SparkBroadcastBench. (spark-shuffle/bench.sh broadcast ... runs this.)
set -euo pipefail
cd "$(dirname "$0")/.."
version="${SPARK_BENCH_VERSION:-4.0.4}"
# One reactor build compiles everything and writes each module's test class path to the same file; the
# last module, spark-broadcast, wins. Sibling modules appear as their target/classes (nothing is installed).
cp_file="$PWD/spark-broadcast/target/bench.classpath"
mvn -B -q -pl spark-broadcast -am test-compile dependency:build-classpath -Dspark.version="$version" \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"
cp="$PWD/spark-broadcast/target/test-classes:$PWD/spark-broadcast/target/classes:$(cat "$cp_file")"
export SPARK_HOME="$PWD/spark-broadcast/target/spark-home" SPARK_SCALA_VERSION=2.13
mkdir -p "$SPARK_HOME/jars"
opens=""
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar jdk.internal.ref; do
  opens="$opens --add-opens=java.base/$p=ALL-UNNAMED"
done
# shellcheck disable=SC2086
exec nice java -Xmx6g $opens -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" \
  io.creel.spark.bench.SparkBroadcastBench "$@"
