# Sourced by the bench scripts: a `bin/creel local` of their own, in its own process, on a free
# port, with its DRAM directory and disk files under a scratch directory in /dev/shm, stopped and
# removed when the script exits (also on failure).
#
#   source bench/scripts/local-cluster.sh
#   local_cluster_start NAME DRAM_MIB [ENV=VALUE...]   sets WORK, CLUSTER_PID and NAMENODE
#
# NAME prefixes the messages and the scratch directory; ENV=VALUE pairs are set for the cluster's
# JVM only (e.g. CREEL_JAVA_OPTS=...). The caller's own EXIT trap, if any, must call
# local_cluster_stop.

CREEL="${CREEL:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bin/creel}"
WORK="${WORK:-}"
CLUSTER_PID="${CLUSTER_PID:-}"

local_cluster_stop() {
  if [ -n "$CLUSTER_PID" ]; then
    kill "$CLUSTER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$CLUSTER_PID" 2>/dev/null || break; sleep 0.2; done
    CLUSTER_PID=""
  fi
  if [ -n "$WORK" ]; then
    rm -rf "$WORK"
  fi
}

local_cluster_start() {
  local name=$1 dram_mib=$2 port
  shift 2
  WORK=$(mktemp -d "/dev/shm/creel-$name.XXXXXX")
  trap local_cluster_stop EXIT
  port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
  env "$@" "$CREEL" local --port "$port" --dram "${dram_mib}m" --disk 64m --data-dir "$WORK/disk" \
      --conf creel.storage.dram.path="$WORK/dram" >"$WORK/local.log" 2>&1 &
  CLUSTER_PID=$!
  for _ in $(seq 1 240); do
    grep -q "serving at" "$WORK/local.log" && break
    kill -0 "$CLUSTER_PID" 2>/dev/null || { cat "$WORK/local.log" >&2; echo "$name: the local cluster did not start" >&2; exit 1; }
    sleep 0.25
  done
  grep -q "serving at" "$WORK/local.log" || { echo "$name: the local cluster did not start within 60 s" >&2; exit 1; }
  NAMENODE="creel://localhost:$port"
}
