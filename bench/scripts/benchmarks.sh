#!/usr/bin/env bash
# Regenerates the figures of docs/benchmarks.md and docs/bench.png in one command, on a quiet machine:
#
#   bench/scripts/benchmarks.sh [OUT.md]        (default: docs/benchmarks-run.md)
#
# 1. `bin/creel bench` of every mode but ycsb, the cluster in its own process, every point repeated
#    (--repeat 3), charts into docs/bench.png and the report into docs/bench.json;
# 2. target 4 apart: lookups at 10 M against 10 K nodes and the namenode's bytes per node, measured
#    in the cluster process (a 10 GiB heap and larger tiers for the 10 M directory records);
# 3. bench/scripts/fs-bulk.sh: bin/creel fs get/put of 1 GiB against cat, cp and a socket.
# Every part prints markdown (the machine, the load average at start and end, medians with min-max,
# the target ratios); OUT.md gets them one after the other, ready to paste. The first part that fails
# stops the script (each cleans up what it made).
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CREEL="$HOME_DIR/bin/creel"
OUT="${1:-$HOME_DIR/docs/benchmarks-run.md}"
case "${1:-}" in
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

started=$(date +%s)
{
  "$CREEL" bench baseline kv lookup create read write bag user \
      --png "$HOME_DIR/docs/bench.png" --json "$HOME_DIR/docs/bench.json"
  echo
  "$CREEL" bench lookup --nodes 10000000 --clients 50 --in-flight 16 --duration 5s \
      --dram 6g --disk 4g --cluster-jvm-opts=-Xmx10g
  echo
  "$HOME_DIR/bench/scripts/fs-bulk.sh" --size 1g --runs 3
} >"$OUT"
echo "benchmarks: $OUT, docs/bench.png and docs/bench.json written in $(( ($(date +%s) - started) / 60 )) min" >&2
