#!/usr/bin/env bash
# The user-level bulk figures of issue 10 (target 2): `bin/creel fs get` and `fs put` of one large
# file, as a user runs them (a fresh JVM per command), against `cat` from a tmpfs, `cp` into a tmpfs
# and a raw loopback socket, in the same run.
#
#   bench/scripts/fs-bulk.sh [--size 1g] [--runs 3] [--namenode creel://host:port]
#
# Without --namenode it starts `bin/creel local` (its own process, a free port, a private DRAM
# directory under /dev/shm) and stops it at the end. Each command's transfer time is its wall time
# less that of an `fs stat` of the same file run just before it (JVM start, connection, lookup), as the
# issue counts it. Each run measures the baselines again between Creel's commands, so every baseline is
# sampled --runs times across the script. Every figure is the median of --runs repetitions with min-max;
# a ratio is Creel's median MB/s over the baseline's median MB/s (1.0: as fast as the baseline), its
# range per run; beside it the baseline's spread (how far its samples moved from their median), and the
# verdict of the bench's own rule (io.creel.bench.stats.Verdict: unsettled when the baseline moved more
# than 30 %). The result is markdown tables (with the load average at start and end), ready to paste.
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CREEL="$HOME_DIR/bin/creel"
SIZE=1g
RUNS=3
NAMENODE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --namenode) NAMENODE="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fs-bulk: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
bytes=$(python3 -c "import sys; s=sys.argv[1].lower(); m={'k':1<<10,'m':1<<20,'g':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$SIZE")
if [ "$RUNS" -lt 1 ]; then echo "fs-bulk: --runs must be at least 1" >&2; exit 2; fi

# shellcheck source=bench/scripts/local-cluster.sh
source "$HOME_DIR/bench/scripts/local-cluster.sh"
if [ -z "$NAMENODE" ]; then
  local_cluster_start fs-bulk "$(( bytes * 2 / 1048576 + 256 ))"
else
  WORK=$(mktemp -d /dev/shm/creel-fs-bulk.XXXXXX)
  trap local_cluster_stop EXIT
fi
C=(--conf "creel.namenode.address=$NAMENODE")
TCP=(--conf creel.client.local.access=false)

seconds() { # runs "$@" with output discarded and prints its wall time in seconds
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null
  t1=$(date +%s%N)
  echo "scale=4; ($t1 - $t0) / 1000000000" | bc
}

# The verdict rule is the bench's (bin/creel has built its jar by now, or the distribution ships it).
"$CREEL" --help >/dev/null
BENCH_JAR=$(ls "$HOME_DIR"/lib/bench/creel-bench-*.jar "$HOME_DIR"/launcher/target/lib/bench/creel-bench-*.jar \
  2>/dev/null | head -n 1 || true)
if [ -z "$BENCH_JAR" ]; then echo "fs-bulk: no creel-bench jar under lib/bench or launcher/target/lib/bench" >&2; exit 2; fi
JAVA="java"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; fi

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "fs-bulk: $SIZE, $RUNS runs, namenode $NAMENODE; load: $LOAD_START" >&2
head -c "$bytes" /dev/urandom >"$WORK/src"
src_sum=$(md5sum <"$WORK/src" | cut -d' ' -f1)
"$CREEL" fs put "${C[@]}" "$WORK/src" /fs-bulk-src >/dev/null
"$CREEL" fs get "${C[@]}" /fs-bulk-src "$WORK/check" >/dev/null # also warms the server's code paths
[ "$(md5sum <"$WORK/check" | cut -d' ' -f1)" = "$src_sum" ] || { echo "fs-bulk: fs get returned other bytes" >&2; exit 1; }
"$CREEL" fs get "${C[@]}" "${TCP[@]}" /fs-bulk-src "$WORK/check" >/dev/null
[ "$(md5sum <"$WORK/check" | cut -d' ' -f1)" = "$src_sum" ] || { echo "fs-bulk: fs get over TCP returned other bytes" >&2; exit 1; }
rm -f "$WORK/check"

declare -A T
for r in $(seq 1 "$RUNS"); do
  T[cat,$r]=$(seconds cat "$WORK/src")
  T[cp,$r]=$(seconds cp "$WORK/src" "$WORK/copy"); rm -f "$WORK/copy"
  T[socket,$r]=$(python3 "$HOME_DIR/bench/scripts/loopback_socket.py" "$bytes")
  T[stat,$r]=$(seconds "$CREEL" fs stat "${C[@]}" /fs-bulk-src)
  T[get,$r]=$(seconds "$CREEL" fs get "${C[@]}" /fs-bulk-src /dev/null)
  T[gettcp,$r]=$(seconds "$CREEL" fs get "${C[@]}" "${TCP[@]}" /fs-bulk-src /dev/null)
  T[put,$r]=$(seconds "$CREEL" fs put "${C[@]}" "$WORK/src" "/fs-bulk-put-$r")
  "$CREEL" fs rm "${C[@]}" "/fs-bulk-put-$r" >/dev/null
  echo "fs-bulk: run $r: cat ${T[cat,$r]} cp ${T[cp,$r]} socket ${T[socket,$r]} stat ${T[stat,$r]} get ${T[get,$r]} get-tcp ${T[gettcp,$r]} put ${T[put,$r]} s" >&2
done
"$CREEL" fs rm "${C[@]}" /fs-bulk-src >/dev/null

python3 - "$RUNS" "$bytes" "$SIZE" "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)" "$JAVA" "$BENCH_JAR" <<PY
import statistics, subprocess, sys
runs = int(sys.argv[1]); size = int(sys.argv[2])
t = {}
$(for k in "${!T[@]}"; do echo "t['$k'] = ${T[$k]}"; done)
def series(name): return [t[name + ',' + str(r)] for r in range(1, runs + 1)]
def fmt(xs):
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))
stat = series('stat')
xfer = {k: [a - b for a, b in zip(series(k), stat)] for k in ('get', 'gettcp', 'put')}
def row(*cells): print("| " + " | ".join(cells) + " |")
print("### bin/creel fs get/put of %s, %d runs; load average %s at start, %s at end" % (sys.argv[3], runs, sys.argv[4], sys.argv[5]))
print()
row("figure", "seconds, median (min-max)", "MB/s, median (min-max)")
row("---", "---", "---")
for k, label in (('cat', 'cat from tmpfs to /dev/null'), ('cp', 'cp into tmpfs'), ('socket', 'loopback socket')):
    row(label, fmt(series(k)), fmt([size / x / 1e6 for x in series(k)]))
row("fs stat (JVM start, connect, lookup)", fmt(stat), "")
for k, label in (('get', 'fs get same-host, less stat'), ('gettcp', 'fs get over TCP, less stat'), ('put', 'fs put, less stat')):
    row(label, fmt(xfer[k]), fmt([size / x / 1e6 for x in xfer[k]]))
print()
keys = ('cat', 'cp', 'socket', 'stat', 'get', 'gettcp', 'put')
row("run (every sample, seconds)", *keys)
row(*(["---"] * (len(keys) + 1)))
for r in range(1, runs + 1):
    row(str(r), *("%.3f" % t[k + ',' + str(r)] for k in keys))
print()
row("target", "ratio of medians (per-run min-max)", "baseline MB/s, median (min-max)", "baseline spread", "goal", "verdict")
row("---", "---", "---", "---", "---", "---")
for label, base, k, goal in (("fs get same-host vs cat", 'cat', 'get', 0.5), ("fs get over TCP vs socket", 'socket', 'gettcp', 0.8),
                             ("fs put vs cp", 'cp', 'put', 0.9)):
    base_mb = [size / x / 1e6 for x in series(base)]
    if min(xfer[k]) <= 0:
        # The transfer hid inside the spread of the JVM's start: the size is too small to measure it.
        row(label, "-", fmt(base_mb), "-", ">= %.1f" % goal, "not measured (a transfer took less than fs stat's spread; use a larger --size)")
        continue
    creel_mb = [size / x / 1e6 for x in xfer[k]]
    m = statistics.median(creel_mb) / statistics.median(base_mb)
    rs = [c / b for c, b in zip(creel_mb, base_mb)]
    verdict, deviation = subprocess.run([sys.argv[6], "-cp", sys.argv[7], "io.creel.bench.stats.VerdictMain", "atLeast",
                                         str(goal), repr(m)] + [repr(b) for b in base_mb],
                                        check=True, capture_output=True, text=True).stdout.split()
    row(label, "%.2f (%.2f-%.2f)" % (m, min(rs), max(rs)), fmt(base_mb), "%.0f %% of %d" % (float(deviation) * 100, runs),
        ">= %.1f" % goal, verdict)
PY
