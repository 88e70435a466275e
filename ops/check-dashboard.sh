#!/usr/bin/env bash
# Checks the metrics against a real Prometheus: runs `bin/creel local` (with persistence, so the log
# and checkpoint figures exist) and Debian's Prometheus scraping it, makes some traffic, then
#   - promtool lints the /metrics exposition,
#   - Prometheus reports the target up (it parsed the exposition),
#   - every query of docker/grafana/creel-dashboard.json returns data.
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
rpc=$(free_port); http=$(free_port); web=$(free_port)
nn="creel.namenode.address=creel://localhost:$rpc"

bin/creel local --dram 64m --disk 64m --port "$rpc" --data-dir "$work/disk" --conf creel.http.port="$http" \
  --conf creel.namenode.log.dir="$work/nnlog" --conf creel.namenode.checkpoint.interval=2s >"$work/local.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do
  grep -q 'Status page' "$work/local.out" && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/local.out" >&2; echo "check-dashboard: bin/creel local exited" >&2; exit 1; }
  sleep 1
done
grep -q 'Status page' "$work/local.out" || { echo "check-dashboard: bin/creel local did not start in 120 s" >&2; exit 1; }

cat >"$work/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: creel
    static_configs: [{targets: ['127.0.0.1:$http']}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$web" >"$work/prometheus.log" 2>&1 &
pids+=($!)

head -c 300000 /dev/urandom >"$work/blob"
for i in 1 2 3; do
  bin/creel fs put "$work/blob" "/blob$i" --conf "$nn" >/dev/null
  bin/creel fs get "/blob$i" "$work/got$i" --conf "$nn" >/dev/null
done
bin/creel fs get /no-such-file "$work/none" --conf "$nn" >/dev/null 2>&1 && {
  echo "check-dashboard: reading a missing file succeeded" >&2; exit 1; }
sleep 5 # a few scrapes, and a checkpoint

curl -sf "http://127.0.0.1:$http/metrics" | promtool check metrics
python3 - "$web" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
base = "http://127.0.0.1:%s/api/v1/" % sys.argv[1]
def get(path, **q):
    with urllib.request.urlopen(base + path + "?" + urllib.parse.urlencode(q), timeout=10) as r:
        return json.load(r)
target = get("targets")["data"]["activeTargets"][0]
if target["health"] != "up":
    sys.exit("check-dashboard: Prometheus could not scrape /metrics: %s" % target["lastError"])
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
print("check-dashboard: Prometheus scraped /metrics; all %d dashboard queries return data" % count)
EOF
