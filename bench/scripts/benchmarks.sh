#!/usr/bin/env bash
# Regenerates the figures of docs/benchmarks.md in one command, on a quiet machine (about 20 min):
#
#   bench/scripts/benchmarks.sh [NAME]     (default: bench-YYYY-MM-DD-HHMM, UTC)
#
# writes the run's whole output to docs/runs/NAME.md, its charts to docs/runs/NAME.png and its JSON
# (every repetition and every baseline sample) to docs/runs/NAME.json; docs/benchmarks.md cites that file.
# 1. `bin/creel bench` of every mode but ycsb, the cluster in its own process, every point repeated
#    (--repeat 3) and every baseline (memory copy, socket, Redis, cat, cp) sampled 5 times more across
#    the run (before, between and after the modes);
# 2. target 4 apart: lookups at 10 M against 10 K nodes and the namenode's bytes per node, measured
#    in the cluster process (a 10 GiB heap and larger tiers for the 10 M directory records);
# 3. bench/scripts/fs-bulk.sh: bin/creel fs get/put of 1 GiB against cat, cp and a socket.
# Every part prints markdown (the machine, the load average at start and end, every baseline sample,
# medians with min-max, the targets with the baseline's spread and the verdict: met, missed, or
# unsettled when the baseline moved more than 30 % from its median). The first part that fails stops
# the script (each cleans up what it made).
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CREEL="$HOME_DIR/bin/creel"
case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
NAME="${1:-bench-$(date -u +%Y-%m-%d-%H%M)}"
RUNS="$HOME_DIR/docs/runs"
OUT="$RUNS/$NAME.md"
mkdir -p "$RUNS"
if [ -e "$OUT" ]; then echo "benchmarks: $OUT exists; give another NAME" >&2; exit 2; fi

started=$(date +%s)
{
  echo "# Run $NAME"
  echo
  echo "\`bench/scripts/benchmarks.sh $NAME\`, started $(date -u '+%Y-%m-%d %H:%M') UTC at commit" \
       "$(git -C "$HOME_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
       "($(git -C "$HOME_DIR" status --porcelain 2>/dev/null | grep -c . || true) files changed in the tree)." \
       "Three parts, one after the other."
  echo
  "$CREEL" bench baseline kv lookup create read write bag user --baseline-samples 5 \
      --png "$RUNS/$NAME.png" --json "$RUNS/$NAME.json"
  echo
  "$CREEL" bench lookup --nodes 10000000 --clients 50 --in-flight 16 --duration 5s --baseline-samples 2 \
      --dram 6g --disk 4g --cluster-jvm-opts=-Xmx10g
  echo
  "$HOME_DIR/bench/scripts/fs-bulk.sh" --size 1g --runs 3
} >"$OUT"
echo "benchmarks: $OUT, $NAME.png and $NAME.json written in $(( ($(date +%s) - started) / 60 )) min" >&2
