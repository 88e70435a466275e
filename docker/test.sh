#!/usr/bin/env bash
# The container test: builds the image and runs the compose cluster for real.
#   1. Docker: installs Debian's docker.io, docker-compose and debootstrap when missing, starts dockerd
#      when none answers (host networking only: no bridge, no iptables rules), and stops it again at
#      the end if it started it.
#   2. The base images from Debian (docker/build-base.sh; cached under /var/cache/creel-docker).
#   3. The image, from the source tree (docker/Dockerfile; Maven runs inside the build), told the
#      commit it is built from (CREEL_COMMIT): its --version must name it.
#   4. The compose cluster with persistence (docker/compose.yml + compose.persist.yml) on free ports:
#      every daemon must turn healthy (its HEALTHCHECK: /health/ready), and the client's smoke job
#      must pass. The health check must also fail where no daemon answers.
#   5. Puts and gets from the client container and from this host (bin/creel), each side reading what
#      the other wrote; a container configured by a mounted creel-site.conf, a CREEL_* variable
#      overriding it, and a misspelt one refused.
#   6. The disk storage server's container restarts; it comes back healthy with its blocks, and both
#      files read back unchanged. Then both namenode containers restart: their logs are on volumes, so
#      the namespace is back once they are healthy, and the files and the KeyValue read back unchanged.
#   7. Everything torn down (containers, volumes, the compose project), also when a step fails.
# Each part is timed; a summary prints at the end. Needs root. Exit 0 only if every check passed.
#
# Env: DOCKER (the docker client; default Debian's /usr/bin/docker when present, whose BuildKit is
# built into the daemon), CREEL_DOCKER_KEEP=1 keeps the cluster running after a failure for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

say() { echo "docker-test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (installs packages, starts dockerd, debootstraps a base image)"

times=()
part_start=0
part() {
  part_end
  say "--- $1"
  part_name=$1
  part_start=$SECONDS
}
part_name=""
part_end() {
  if [ -n "$part_name" ]; then
    times+=("$(printf '%-34s %4d s' "$part_name" $((SECONDS - part_start)))")
    part_name=""
  fi
}

work=$(mktemp -d)
project=creel-test-$$
started_dockerd=""
compose_up=""

cleanup() {
  local rc=$?
  set +e
  part_end
  if [ -n "$compose_up" ]; then
    if [ $rc -ne 0 ]; then
      say "cluster logs (last 40 lines per service):"
      compose logs --no-color --tail 40 >&2
      if [ "${CREEL_DOCKER_KEEP:-0}" = 1 ]; then
        say "CREEL_DOCKER_KEEP=1: the cluster stays up; remove it with: (cd $ROOT && $(compose_cmd_text) down -v --remove-orphans)"
        compose_up=""
      fi
    fi
    if [ -n "$compose_up" ]; then
      compose down -v --remove-orphans --timeout 20 >/dev/null 2>&1 \
        || say "compose down of project $project failed"
      left=$("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$project")
      # shellcheck disable=SC2086 # one word per container id
      [ -z "$left" ] || { say "containers of $project still there after down: $left; removing"; "$DOCKER" rm -fv $left >/dev/null; }
    fi
  fi
  # One-off containers (docker run --rm) remove themselves; an interrupted one may not have.
  left=$("$DOCKER" ps -aq --filter "label=creel.test.run=$project" 2>/dev/null)
  # shellcheck disable=SC2086 # one word per container id
  [ -z "$left" ] || "$DOCKER" rm -fv $left >/dev/null 2>&1
  rm -rf "$work"
  if [ -n "$started_dockerd" ]; then
    say "stopping the dockerd this test started (pid $started_dockerd)"
    kill "$started_dockerd" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$started_dockerd" 2>/dev/null && { say "dockerd $started_dockerd did not stop within 20 s; killing it"; kill -9 "$started_dockerd"; }
  fi
  say "times:"
  printf '  %s\n' "${times[@]}" >&2
  if [ $rc -eq 0 ]; then say "passed"; else say "FAILED (exit $rc)"; fi
  exit $rc
}
trap cleanup EXIT
# Stopped from outside (Ctrl-C, a CI timeout): exit through the same teardown.
trap 'say "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------
part "docker: install and start"
need=()
[ -x /usr/bin/docker ] || command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null \
    || fail "apt-get install ${need[*]} failed"
fi
# Debian's client matches Debian's daemon and drives its built-in BuildKit; another client found
# first on PATH may need a buildx plugin for the same build.
if [ -z "${DOCKER:-}" ]; then
  if [ -x /usr/bin/docker ]; then DOCKER=/usr/bin/docker; else DOCKER=docker; fi
fi
export DOCKER
if ! "$DOCKER" info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 || fail "no Docker daemon answers and dockerd is not installed"
  say "starting dockerd (log: /var/log/creel-dockerd.log)"
  # Only host networking is used: no docker0 bridge and no iptables rules on a shared machine.
  dockerd --bridge=none --iptables=false --ip6tables=false >>/var/log/creel-dockerd.log 2>&1 &
  started_dockerd=$!
  for _ in $(seq 1 150); do
    "$DOCKER" info >/dev/null 2>&1 && break
    kill -0 "$started_dockerd" 2>/dev/null || fail "dockerd exited at start; see /var/log/creel-dockerd.log"
    sleep 0.2
  done
  "$DOCKER" info >/dev/null 2>&1 || fail "dockerd did not answer within 30 s; see /var/log/creel-dockerd.log"
fi
# Compose: the v2 plugin of this client, else docker-compose (1.29 reads the same file).
if "$DOCKER" compose version >/dev/null 2>&1; then COMPOSE=("$DOCKER" compose); else COMPOSE=(docker-compose); fi
compose_files=(-f docker/compose.yml -f docker/compose.persist.yml)
compose() { "${COMPOSE[@]}" -p "$project" "${compose_files[@]}" "$@"; }
compose_cmd_text() { echo "${COMPOSE[*]} -p $project ${compose_files[*]}"; }

# ---------------------------------------------------------------------------------------------------
part "base images (debootstrap, cached)"
nice docker/build-base.sh || fail "docker/build-base.sh"

part "image build (Maven inside)"
image=creel:test
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DOCKER_BUILDKIT=1 nice "$DOCKER" build --network host -q -f docker/Dockerfile \
  --build-arg BUILD_IMAGE=creel-base/maven:bookworm --build-arg BASE_IMAGE=creel-base/jre:bookworm \
  --build-arg CREEL_COMMIT="$commit" \
  -t "$image" . >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "docker build"; }
# The image this run replaced is of no further use.
"$DOCKER" image prune -f --filter "label=org.opencontainers.image.title=creel" >/dev/null
[ "$("$DOCKER" image inspect -f '{{.Config.User}}' "$image")" = creel ] || fail "the image does not run as user creel"

part "host client (bin/creel)"
bin/creel --version >/dev/null || fail "bin/creel on this host"
# The image names the commit it was built from (its build context has no .git: CREEL_COMMIT).
# (Read whole: a pipe into head would break the docker client's output, and pipefail fail the line.)
image_version=$("$DOCKER" run --rm --label "creel.test.run=$project" "$image" --version) \
  || fail "creel --version in the image"
image_version=${image_version%%$'\n'*}
case "$image_version" in
  "creel "*" (commit $commit)") ;;
  *) fail "the image says '$image_version', not commit $commit" ;;
esac

# ---------------------------------------------------------------------------------------------------
part "compose up until healthy + smoke job"
# Ports below Linux's ephemeral range that nothing listens on now, all different.
ports=()
free_port() {
  local candidate p taken
  for _ in $(seq 1 100); do
    candidate=$((20000 + RANDOM % 12000))
    taken=0
    for p in "${ports[@]}"; do [ "$p" != "$candidate" ] || taken=1; done
    [ $taken -eq 0 ] || continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      ports+=("$candidate")
      return 0
    fi
  done
  fail "no free port found in 20000-31999"
}
for _ in 1 2 3 4 5 6; do free_port; done
export CREEL_IMAGE=$image CREEL_ADVERTISE_HOST=localhost
export NN0_PORT=${ports[0]} NN1_PORT=${ports[1]}
export NN0_HTTP_PORT=${ports[2]} NN1_HTTP_PORT=${ports[3]} DRAM_HTTP_PORT=${ports[4]} DISK_HTTP_PORT=${ports[5]}
# 128 MiB of DRAM: the two files below (96 + 160 MiB) fill it and spill into the disk server.
export DRAM_SIZE=128m DRAM_SHM_SIZE=192m DISK_SIZE=1g
say "namenodes on $NN0_PORT and $NN1_PORT, HTTP on ${ports[*]:2}"
# The host's client finds the cluster through a site file, as a user's would.
mkdir -p "$work/conf"
echo "creel.namenode.address = creel://localhost:$NN0_PORT,creel://localhost:$NN1_PORT" >"$work/conf/creel-site.conf"
host() { CREEL_CONF_DIR="$work/conf" bin/creel "$@"; }
compose_up=1
compose up -d >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }

client_id=$(compose ps -q client)
[ -n "$client_id" ] || fail "compose created no client container"
# The client starts once the four daemons are healthy, then runs its smoke job and exits.
deadline=$((SECONDS + 240))
while [ "$("$DOCKER" inspect -f '{{.State.Status}}' "$client_id")" != exited ]; do
  [ $SECONDS -lt $deadline ] || fail "the client's smoke job did not finish within 240 s"
  sleep 1
done
compose logs --no-color client >"$work/client.log" 2>&1
[ "$("$DOCKER" inspect -f '{{.State.ExitCode}}' "$client_id")" = 0 ] \
  || { cat "$work/client.log" >&2; fail "the client's smoke job failed"; }
grep -q "creel-smoke: passed" "$work/client.log" || fail "the smoke job did not say it passed"
# The client shares the DRAM server's IPC namespace: it sees the tier's files (same-host mapping).
compose run --rm -T --no-deps --entrypoint ls client /dev/shm/creel >"$work/shm.txt" \
  || fail "the client container cannot list /dev/shm/creel"
grep -q '\.region$' "$work/shm.txt" || fail "the client container does not see the DRAM server's region files: $(cat "$work/shm.txt")"

health() { "$DOCKER" inspect -f '{{.State.Health.Status}}' "$(compose ps -q "$1")"; }
for s in nn0 nn1 dram disk; do
  [ "$(health $s)" = healthy ] || fail "service $s is $(health $s), not healthy"
done

part "health endpoints from the host"
http_get() { # port path -> status line and body in $work/http.out
  (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$2" >&3 && timeout 10 cat <&3) >"$work/http.out" \
    || fail "GET http://127.0.0.1:$1$2: no answer"
  tr -d '\r' <"$work/http.out" >"$work/http.txt"
}
for p in "${ports[@]:2}"; do
  http_get "$p" /health/ready
  head -n 1 "$work/http.txt" | grep -q ' 200' || fail "GET /health/ready on port $p: $(head -n 1 "$work/http.txt")"
  tail -n 1 "$work/http.txt" | grep -q '^ready' || fail "GET /health/ready on port $p said: $(tail -n 1 "$work/http.txt")"
  http_get "$p" /metrics
  head -n 1 "$work/http.txt" | grep -q ' 200' || fail "GET /metrics on port $p: $(head -n 1 "$work/http.txt")"
  # The Prometheus text format (what the daemons export is checked by the ops module's own tests).
  grep -qi '^content-type: text/plain; version=0.0.4' "$work/http.txt" \
    || fail "GET /metrics on port $p is not in the Prometheus text format: $(grep -i '^content-type' "$work/http.txt")"
done
# What a new user of the compose file looks at: the namenodes count both servers live, each server
# is registered with both namenodes, and the status page names both servers.
for p in "$NN0_HTTP_PORT" "$NN1_HTTP_PORT"; do
  http_get "$p" /metrics
  grep -Eq '^creel_namenode_servers\{(namenode="[^"]*",)?state="live"\} 2(\.0)?$' "$work/http.txt" \
    || fail "namenode metrics on port $p do not count 2 live servers: $(grep '^creel_namenode_servers' "$work/http.txt")"
done
for p in "$DRAM_HTTP_PORT" "$DISK_HTTP_PORT"; do
  http_get "$p" /metrics
  [ "$(grep -Ec '^creel_storage_registered\{.*\} 1(\.0)?$' "$work/http.txt")" = 2 ] \
    || fail "storage server metrics on port $p do not show it registered with both namenodes: $(grep '^creel_storage_registered' "$work/http.txt")"
done
host report >"$work/report0.txt" || fail "report from the host"
http_get "$NN0_HTTP_PORT" /
head -n 1 "$work/http.txt" | grep -q ' 200' || fail "GET / (status page) on port $NN0_HTTP_PORT: $(head -n 1 "$work/http.txt")"
grep -qi '^content-type: text/html' "$work/http.txt" || fail "the status page is not HTML"
for server in $(awk '$4 == "live" { print $1 }' "$work/report0.txt"); do
  grep -q "$server" "$work/http.txt" || fail "the status page does not show storage server $server"
done
# The check itself must fail where nothing answers, saying so.
free_port
if "$DOCKER" run --rm --network host --label "creel.test.run=$project" -e "CREEL_HTTP_PORT=${ports[6]}" \
    --entrypoint creel-health "$image" 2>"$work/health.err"; then
  fail "creel-health passed with no daemon on port ${ports[6]}"
fi
grep -q "no answer from" "$work/health.err" || fail "creel-health said: $(cat "$work/health.err")"

# ---------------------------------------------------------------------------------------------------
part "puts and gets, container and host"
in_client() { compose run --rm -T --no-deps --entrypoint creel client "$@"; }

head -c $((96 * 1024 * 1024)) /dev/urandom >"$work/from-client.bin"
head -c $((160 * 1024 * 1024)) /dev/urandom >"$work/from-host.bin"
in_client fs mkdir /dockertest || fail "fs mkdir from the client container"
in_client fs put - /dockertest/from-client.bin <"$work/from-client.bin" || fail "fs put from the client container"
host fs put "$work/from-host.bin" /dockertest/from-host.bin || fail "fs put from the host"
host fs get /dockertest/from-client.bin "$work/got-client.bin" || fail "fs get on the host of the client's file"
cmp "$work/from-client.bin" "$work/got-client.bin" || fail "the host read other bytes than the client container wrote"
in_client fs get /dockertest/from-host.bin - >"$work/got-host.bin" || fail "fs get in the client container of the host's file"
cmp "$work/from-host.bin" "$work/got-host.bin" || fail "the client container read other bytes than the host wrote"
echo -n "from the host" | host kv put /dockertest/table k - || fail "kv put from the host"
[ "$(in_client kv get /dockertest/table k -)" = "from the host" ] || fail "kv get in the client container"
# A container configured only by a mounted site file (no CREEL_* variables) finds the cluster too.
"$DOCKER" run --rm --network host --label "creel.test.run=$project" \
  -v "$work/conf/creel-site.conf:/etc/creel/creel-site.conf:ro" "$image" fs ls /dockertest >"$work/ls.txt" \
  || fail "fs ls in a container with a mounted creel-site.conf"
grep -q from-host.bin "$work/ls.txt" || fail "fs ls with the mounted site file does not list from-host.bin: $(cat "$work/ls.txt")"
# A CREEL_* variable overrides the mounted file (here: a namenode address that leads nowhere) ...
free_port
echo "creel.namenode.address = creel://localhost:${ports[7]}" >"$work/wrong-site.conf"
"$DOCKER" run --rm --network host --label "creel.test.run=$project" \
  -v "$work/wrong-site.conf:/etc/creel/creel-site.conf:ro" \
  -e "CREEL_NAMENODE_ADDRESS=creel://localhost:$NN0_PORT,creel://localhost:$NN1_PORT" "$image" fs ls /dockertest >"$work/ls.txt" \
  || fail "fs ls with CREEL_NAMENODE_ADDRESS over a mounted site file"
grep -q from-client.bin "$work/ls.txt" || fail "CREEL_NAMENODE_ADDRESS did not override the mounted site file: $(cat "$work/ls.txt")"
# ... and one naming no key stops the command, naming the key it became.
if "$DOCKER" run --rm --network host --label "creel.test.run=$project" -e CREEL_NAMENODE_ADDRES=creel://localhost:1 \
    "$image" fs ls / 2>"$work/env.err"; then
  fail "a misspelt CREEL_NAMENODE_ADDRES was accepted"
fi
grep -Eq "creel\.namenode\.addres'?(, which is no key| is no key)|unknown key 'creel\.namenode\.addres'" "$work/env.err" \
  || fail "a misspelt variable gave: $(cat "$work/env.err")"

# --fail-on none: the put above filled DRAM on purpose, and report exits 3 while a tier is full.
host report --fail-on none >"$work/report.txt" || fail "report from the host"
cat "$work/report.txt"
disk_used=$(awk '$1 == "disk" && NF == 9 { print $4 " " $5 }' "$work/report.txt")
[ -n "$disk_used" ] && [ "$disk_used" != "0 B" ] || fail "nothing spilled into the disk server (disk used: '$disk_used')"

# ---------------------------------------------------------------------------------------------------
part "restart the disk server container"
disk_before=$(awk '$2 == "disk" && $3 == "disk" { print $1 }' "$work/report.txt")
compose restart -t 20 disk >/dev/null 2>&1 || fail "compose restart disk"
deadline=$((SECONDS + 120))
until [ "$(health disk)" = healthy ]; do
  [ $SECONDS -lt $deadline ] || fail "the disk server is $(health disk) 120 s after its restart"
  sleep 1
done
host fs get /dockertest/from-host.bin "$work/again.bin" || fail "fs get after the disk server restarted"
cmp "$work/from-host.bin" "$work/again.bin" || fail "after the restart the file read back differently"
in_client fs get /dockertest/from-client.bin - | cmp - "$work/from-client.bin" \
  || fail "after the restart the client container read the client's file differently"
host report --fail-on none >"$work/report2.txt" || fail "report after the restart"
# The same server (same address: its identity survived on the volume), live, and only one of it.
awk '$3 == "disk"' "$work/report2.txt" | grep -c . | grep -qx 1 || fail "after the restart the report lists other than one disk server: $(cat "$work/report2.txt")"
awk -v a="$disk_before" '$1 == a && $4 == "live"' "$work/report2.txt" | grep -q . \
  || fail "the disk server $disk_before is not live after its restart: $(cat "$work/report2.txt")"

part "restart both namenode containers"
# Their logs are on volumes (compose.persist.yml): the namespace comes back, and the storage servers,
# which kept running, register again.
compose restart -t 20 nn0 nn1 >/dev/null 2>&1 || fail "compose restart nn0 nn1"
deadline=$((SECONDS + 120))
for s in nn0 nn1 dram disk; do
  until [ "$(health $s)" = healthy ]; do
    [ $SECONDS -lt $deadline ] || fail "$s is $(health $s) 120 s after the namenodes restarted"
    sleep 1
  done
done
until host report --fail-on none 2>/dev/null | awk '$4 == "live" { n++ } END { exit n == 2 ? 0 : 1 }'; do
  [ $SECONDS -lt $deadline ] || fail "the storage servers are not both live 120 s after the namenodes restarted: $(host report 2>&1)"
  sleep 1
done
host fs get /dockertest/from-host.bin "$work/again.bin" || fail "fs get after the namenodes restarted"
cmp "$work/from-host.bin" "$work/again.bin" || fail "after the namenodes restarted the host's file read back differently"
in_client fs get /dockertest/from-client.bin - | cmp - "$work/from-client.bin" \
  || fail "after the namenodes restarted the client's file read back differently"
[ "$(in_client kv get /dockertest/table k -)" = "from the host" ] || fail "kv get after the namenodes restarted"
host fs rm -r /dockertest || fail "fs rm -r /dockertest"

part "tear down"
compose down -v --remove-orphans --timeout 20 >/dev/null 2>&1 || fail "compose down"
compose_up=""
[ -z "$("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$project")" ] || fail "containers left after compose down"
[ -z "$("$DOCKER" volume ls -q --filter "label=com.docker.compose.project=$project")" ] || fail "volumes left after compose down"
part_end
