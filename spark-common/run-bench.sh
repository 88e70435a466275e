#!/usr/bin/env bash
# Runs a Spark bench main class of one Spark module with that module's test class path, as both
# modules' bench.sh do: spark-common/run-bench.sh MODULE MAIN_CLASS [ARGS...]
# (SPARK_BENCH_VERSION picks the Spark line, default 4.0.4). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
module="$1"
main="$2"
shift 2
version="${SPARK_BENCH_VERSION:-4.0.4}"
# One reactor build compiles everything and writes each module's test class path to the same file; the
# last module, the bench's own, wins. Sibling modules appear as their target/classes (nothing is installed).
cp_file="$PWD/$module/target/bench.classpath"
mvn -B -q -pl "$module" -am test-compile dependency:build-classpath -Dspark.version="$version" \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"
cp="$PWD/$module/target/test-classes:$PWD/$module/target/classes:$(cat "$cp_file")"
export SPARK_HOME="$PWD/$module/target/spark-home" SPARK_SCALA_VERSION=2.13
mkdir -p "$SPARK_HOME/jars"
opens=""
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar jdk.internal.ref; do
  opens="$opens --add-opens=java.base/$p=ALL-UNNAMED"
done
# shellcheck disable=SC2086
exec nice java -Xmx6g $opens -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$cp" "$main" "$@"
