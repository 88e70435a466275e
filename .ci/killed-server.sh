#!/usr/bin/env bash
# Issue 21's scenario with real daemons, as a user meets it: a namenode, two DRAM storage servers and
# a disk server, each its own bin/creel process on this machine; an 80 MiB file with blocks on both
# DRAM servers; kill -9 of one of them; then `bin/creel fs get` of the file, several times. Every get
# must end with the right bytes (before the death is noticed) or one clear error line and a non-zero
# exit, never a JVM crash (SIGSEGV, "Aborted", exit 134, an hs_err_pid*.log). Before the fix, about
# one get in three crashed: the command closed its client while reads of other blocks were still
# copying from a mapped region, and the close unmapped it under them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gets=${CREEL_KILLED_SERVER_GETS:-10}

. "$root/.ci/free-port.sh"
port=$(free_port killed-server) || exit 1
work=$(mktemp -d)
shm=$(mktemp -d -p /dev/shm creel-killed-XXXXXX 2>/dev/null || mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$work" "$shm"
}
trap cleanup EXIT
fail() {
  echo "killed-server: FAILED: $*" >&2
  for f in "$work"/*.log; do echo "--- $f ---" >&2; tail -n 30 "$f" >&2 || true; done
  exit 1
}

mkdir -p "$work/conf"
cat >"$work/conf/creel-site.conf" <<EOF
creel.namenode.address = creel://localhost:$port
creel.block.size = 1m
creel.storage.advertise.host = 127.0.0.1
EOF
creel() { (cd "$work" && CREEL_CONF_DIR="$work/conf" "$root/bin/creel" "$@"); }
daemon() {
  local name=$1
  shift
  (cd "$work" && CREEL_CONF_DIR="$work/conf" exec "$root/bin/creel" "$@") >"$work/$name.log" 2>&1 &
  pids+=($!)
}

creel fs ls / >/dev/null 2>&1 || true # builds bin/creel on first use, outside the daemons' start timeouts
daemon namenode namenode
daemon dram1 datanode --tier dram --size 48m --path "$shm/dram1"
daemon dram2 datanode --tier dram --size 48m --path "$shm/dram2"
daemon disk datanode --tier disk --size 256m --path "$work/disk"
for _ in $(seq 1 150); do
  n=$(creel report 2>/dev/null | grep -c ' live ' || true)
  [ "$n" -ge 3 ] && break
  sleep 0.2
done
[ "${n:-0}" -ge 3 ] || fail "three storage servers did not register within 30 s"

head -c $((80 * 1024 * 1024)) /dev/urandom >"$work/in.bin"
creel fs put "$work/in.bin" /big.bin || fail "fs put"
creel fs get /big.bin "$work/out.bin" || fail "fs get before the kill"
cmp -s "$work/in.bin" "$work/out.bin" || fail "fs get returned different bytes"

# The first DRAM server's pid; its blocks hold part of the file (DRAM first, round-robin over both).
kill -9 "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true # reaped here, so the shell's "Killed" notice goes nowhere
# Gets right after the kill may still succeed (until three of the dead server's beats are missing
# its same-host readers take it as serving, and its region's bytes are still in the tmpfs): those must
# return the right bytes. Later ones fail; every one must end cleanly.
crashes=0
failed=0
for i in $(seq 1 "$gets"); do
  rc=0
  creel fs get /big.bin "$work/out-$i.bin" 2>"$work/err-$i" || rc=$?
  if [ "$rc" -ge 128 ] || ls "$work"/hs_err_pid*.log >/dev/null 2>&1; then
    crashes=$((crashes + 1))
    echo "get $i: exit $rc, the JVM crashed:" >&2
    cat "$work/err-$i" >&2
    head -n 40 "$work"/hs_err_pid*.log >&2 2>/dev/null || true
    rm -f "$work"/hs_err_pid*.log
    continue
  fi
  if [ "$rc" -eq 0 ]; then
    cmp -s "$work/in.bin" "$work/out-$i.bin" || fail "get $i succeeded with different bytes"
    echo "get $i: exit 0, the right bytes (the server is not taken as dead yet)"
  else
    failed=$((failed + 1))
    [ "$(wc -l <"$work/err-$i")" -eq 1 ] || fail "get $i should print one error line, got: $(cat "$work/err-$i")"
    echo "get $i: exit $rc: $(cat "$work/err-$i")"
  fi
  rm -f "$work/out-$i.bin"
done
[ "$crashes" -eq 0 ] || fail "$crashes of $gets gets crashed their JVM"
[ "$failed" -ge 1 ] || fail "no get failed: the killed server's death was never noticed"
echo "killed-server: $gets passed, 0 failed"
