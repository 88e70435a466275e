#!/usr/bin/env bash
# Checks the metrics against a real Prometheus, on a cluster of two namenodes (two partitions, each
# with persistence, so the log and checkpoint figures exist) and two storage servers (dram, disk):
# four daemons, each with its own /metrics, and Debian's Prometheus scraping all four. It makes some
# traffic (puts to new paths, gets, and one failing request), then
#   - promtool lints every /metrics exposition,
#   - Prometheus reports every target up (it parsed the exposition),
#   - every query of docker/grafana/creel-dashboard.json returns data,
#   - the dashboard's capacity is the cluster's, not once per namenode, and use adds up partitions,
#   - the puts' LOOKUP NOT_FOUND (an answer) is not counted as an error, the failing MOVE is.
# Needs: prometheus and promtool (apt-get install -y --no-install-recommends prometheus), python3, curl.
# Everything it starts is stopped on exit. Usage: ops/check-dashboard.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in prometheus promtool python3 curl; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "check-dashboard: $tool is missing (apt-get install -y --no-install-recommends prometheus python3 curl)" >&2
    exit 2
  }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/creel-dashboard.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rpc1=$(free_port); rpc2=$(free_port); web=$(free_port)
http1=$(free_port); http2=$(free_port); http3=$(free_port); http4=$(free_port)
nn="creel.namenode.address=creel://localhost:$rpc1,creel://localhost:$rpc2"

start_daemon() { # NAME HTTP_PORT ARGS...: bin/creel ARGS in the background, its output in $work/NAME.out
  local name=$1 port=$2
  shift 2
  bin/creel "$@" --conf "$nn" --conf creel.storage.region.size=8m --conf creel.http.port="$port" \
    --conf creel.http.host=127.0.0.1 >"$work/$name.out" 2>&1 &
  pids+=($!)
}
start_daemon nn1 "$http1" namenode --index 0 --conf creel.namenode.log.dir="$work/nnlog1" \
  --conf creel.namenode.checkpoint.interval=2s
start_daemon nn2 "$http2" namenode --index 1 --conf creel.namenode.log.dir="$work/nnlog2" \
  --conf creel.namenode.checkpoint.interval=2s
start_daemon dram "$http3" datanode --tier dram --size 64m --port 0
start_daemon disk "$http4" datanode --tier disk --size 64m --port 0 --path "$work/disk"
for port in "$http1" "$http2" "$http3" "$http4"; do
  ready=
  for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then ready=1; break; fi
    sleep 1
  done
  [ -n "$ready" ] || {
    tail -n 20 "$work"/*.out >&2
    echo "check-dashboard: the daemon with HTTP port $port was not ready in 120 s" >&2
    exit 1
  }
done

cat >"$work/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: creel
    static_configs: [{targets: ['127.0.0.1:$http1', '127.0.0.1:$http2', '127.0.0.1:$http3', '127.0.0.1:$http4']}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$web" >"$work/prometheus.log" 2>&1 &
pids+=($!)

head -c 300000 /dev/urandom >"$work/blob"
for i in 1 2 3 4 5 6; do # paths in both partitions
  bin/creel fs put "$work/blob" "/blob$i" --conf "$nn" >/dev/null
  bin/creel fs get "/blob$i" "$work/got$i" --conf "$nn" >/dev/null
done
bin/creel fs get /no-such-file "$work/none" --conf "$nn" >/dev/null 2>&1 && {
  echo "check-dashboard: reading a missing file succeeded" >&2; exit 1; }
bin/creel fs mv /no-such-file /elsewhere --conf "$nn" >/dev/null 2>&1 && {
  echo "check-dashboard: moving a missing file succeeded" >&2; exit 1; }
sleep 5 # a few scrapes, and a checkpoint

for port in "$http1" "$http2" "$http3" "$http4"; do
  curl -sf "http://127.0.0.1:$port/metrics" | promtool check metrics
done
python3 - "$web" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
base = "http://127.0.0.1:%s/api/v1/" % sys.argv[1]
def get(path, **q):
    with urllib.request.urlopen(base + path + "?" + urllib.parse.urlencode(q), timeout=10) as r:
        return json.load(r)
targets = get("targets")["data"]["activeTargets"]
if len(targets) != 4:
    sys.exit("check-dashboard: Prometheus has %d targets, not 4" % len(targets))
for target in targets:
    if target["health"] != "up":
        sys.exit("check-dashboard: Prometheus could not scrape %s: %s" % (target["scrapeUrl"], target["lastError"]))
dash = json.load(open("docker/grafana/creel-dashboard.json"))
empty = []
count = 0
for panel in dash["panels"]:
    for t in panel.get("targets", []):
        count += 1
        expr = t["expr"].replace("$__rate_interval", "30s")
        r = get("query", query=expr)
        if r["status"] != "success" or not r["data"]["result"]:
            empty.append("%s: %s (%s)" % (panel["title"], expr, r.get("error", "no data")))
if empty:
    sys.exit("check-dashboard: queries without data:\n  " + "\n  ".join(empty))
def scalar(expr):
    r = get("query", query=expr)["data"]["result"]
    return float(r[0]["value"][1]) if r else None
capacity = [t["expr"] for p in dash["panels"] if p["title"] == "Capacity" for t in p.get("targets", [])][0]
if scalar(capacity) != 128 * 2**20:
    sys.exit("check-dashboard: the dashboard's capacity is %s, not the cluster's 128 MiB" % scalar(capacity))
if scalar("count(count by (namenode) (creel_class_used_bytes))") != 2:
    sys.exit("check-dashboard: creel_class_used_bytes does not come from both namenodes")
used = scalar("sum(creel_class_used_bytes)")
if used is None or used < 6 * 300000:
    sys.exit("check-dashboard: the partitions' use adds up to %s, less than the 6 files written" % used)
if scalar('sum(creel_rpc_errors_total{op="LOOKUP",code="NOT_FOUND"})') is not None:
    sys.exit("check-dashboard: a lookup of a missing path counted as an error")
if not scalar('sum(creel_rpc_errors_total{op="MOVE",code="NOT_FOUND"})'):
    sys.exit("check-dashboard: the failing move is not counted as an error")
print("check-dashboard: Prometheus scraped 4 daemons of 2 partitions; all %d dashboard queries return data, "
      "capacity counted once, use summed over partitions" % count)
EOF
