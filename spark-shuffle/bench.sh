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
exec spark-common/run-bench.sh spark-shuffle io.creel.spark.bench.SparkShuffleBench "$@"
