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
exec spark-common/run-bench.sh spark-broadcast io.creel.spark.bench.SparkBroadcastBench "$@"
