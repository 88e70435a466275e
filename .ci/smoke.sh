#!/usr/bin/env bash
# End-to-end check of the quickstart: bin/creel local with a 128 MiB DRAM tier, a 300 MiB fs put
# that must spill into the disk tier (seen in bin/creel report), fs get returning the same bytes,
# and KV put/get/replace from the CLI. Cleans up after itself, also on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/free-port.sh # the working directory is the repository's root here
port=$(free_port smoke) || exit 1
work=$(mktemp -d)
log="$work/local.log"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "smoke: FAILED: $*" >&2; echo "--- local cluster log ---" >&2; cat "$log" >&2 || true; exit 1; }
# Clients find the cluster through a site file, as a user's would.
mkdir -p "$work/conf"
echo "creel.namenode.address = creel://localhost:$port" >"$work/conf/creel-site.conf"
creel() { CREEL_CONF_DIR="$work/conf" bin/creel "$@"; }

bin/creel local --dram 128m --disk 1g --data-dir "$work/disk" --port "$port" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q "serving at" "$log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "bin/creel local exited"
  sleep 0.2
done
grep -q "serving at" "$log" || fail "local cluster did not start within 60 s"

head -c $((300 * 1024 * 1024)) /dev/urandom >"$work/in.bin"
creel fs mkdir /smoke || fail "fs mkdir"
creel fs put "$work/in.bin" /smoke/big.bin || fail "fs put"
creel fs get /smoke/big.bin "$work/out.bin" || fail "fs get"
cmp "$work/in.bin" "$work/out.bin" || fail "fs get returned different bytes"
creel fs ls /smoke | grep -q big.bin || fail "fs ls does not list the file"

report=$(creel report) || fail "report"
echo "$report"
# The per-class totals: "disk  CAPACITY  USED  FREE  PENDING", sizes written as "174.0 MiB".
disk_used=$(echo "$report" | awk '$1 == "disk" { u = $4 " " $5 } END { print u }')
dram_free=$(echo "$report" | awk '$1 == "dram" { f = $6 " " $7 } END { print f }')
[ -n "$disk_used" ] && [ "$disk_used" != "0 B" ] || fail "the put did not spill into the disk tier (disk used: '$disk_used')"
[ "$dram_free" = "0 B" ] || fail "DRAM should be full before disk is used (dram free: '$dram_free')"

echo -n "first" | creel kv put /smoke/table k1 - || fail "kv put"
[ "$(creel kv get /smoke/table k1 -)" = "first" ] || fail "kv get"
echo -n "second value" | creel kv put /smoke/table k1 - || fail "kv replace"
[ "$(creel kv get /smoke/table k1 -)" = "second value" ] || fail "kv get after replace"

if creel fs get /smoke/missing "$work/x" 2>"$work/err"; then fail "get of a missing file succeeded"; fi
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "an error should print one line, got: $(cat "$work/err")"

creel fs rm /smoke/big.bin || fail "fs rm"
# The client commands above share a class-data archive, written by the first (bin/creel); the kv
# get checks above show it leaves their output alone.
if [ "${CREEL_CDS:-on}" != off ] && [ -w launcher/target/lib ]; then
  [ -s launcher/target/lib/creel-client.jsa ] || fail "no class-data archive (launcher/target/lib/creel-client.jsa) after the client commands"
  ls launcher/target/lib/creel-client.jsa.* >/dev/null 2>&1 && fail "a half-written class-data archive was left behind"
fi
echo "smoke: 1 passed, 0 failed"
