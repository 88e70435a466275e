#!/usr/bin/env bash
# Starts, stops or checks a whole Creel cluster from one machine over ssh, as Hadoop's
# start-dfs.sh and Spark's start-all.sh do (sbin/start-cluster.sh and sbin/stop-cluster.sh call it):
#
#   sbin/creel-cluster.sh start|stop|status
#
# Hosts come from two files in the configuration directory (CREEL_CONF_DIR, else $CREEL_HOME/conf):
#
#   namenodes   one host per line, in the order of creel.namenode.address: line i runs
#               `creel namenode --index i` there
#   workers     one storage server per line, HOST TIER [ARGS...] (ARGS go to `creel datanode`):
#                 dn1 dram --size 16g
#                 dn1 disk --size 500g --path /data/creel
#
# '#' starts a comment, blank lines are skipped. start starts the namenodes, then the storage
# servers; stop stops them the other way round; the hosts of a phase are reached in parallel. Each
# host runs sbin/creel-daemon.sh of the installation at this same path ($CREEL_HOME), with
# CREEL_CONF_DIR passed on when it is set; a host's own settings (JAVA_HOME, CREEL_JAVA_OPTS,
# CREEL_LOG_DIR, CREEL_PID_DIR) go into its conf/creel-env.sh. Every output line is prefixed by its
# host.
#
#   CREEL_SSH_OPTS  ssh options (default: -o BatchMode=yes -o ConnectTimeout=10)
#
# Exit codes: 0 done on every host (status: everything runs); 1 a host failed or (status) a daemon
# is not running; 2 usage or missing files.
set -uo pipefail

action=${1:-}
case "$action" in start|stop|status) ;; *)
  echo "usage: $(basename "$0") start|stop|status" >&2
  exit 2 ;;
esac

CREEL_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conf_dir="${CREEL_CONF_DIR:-$CREEL_HOME/conf}"
# shellcheck disable=SC2206
ssh_opts=(${CREEL_SSH_OPTS:--o BatchMode=yes -o ConnectTimeout=10})

# The lines of a host file without comments and blank lines.
entries() {
  [ -f "$1" ] || return 0
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$1"
}

# Runs sbin/creel-daemon.sh ARGS on HOST; prints its output prefixed by the host.
remote() {
  local host=$1
  shift
  local cmd
  cmd="cd $(printf '%q' "$CREEL_HOME") &&"
  if [ -n "${CREEL_CONF_DIR:-}" ]; then cmd+=" CREEL_CONF_DIR=$(printf '%q' "$CREEL_CONF_DIR")"; fi
  cmd+=" sbin/creel-daemon.sh$(printf ' %q' "$@")"
  local out rc=0
  out=$(ssh "${ssh_opts[@]}" "$host" "$cmd" </dev/null 2>&1) || rc=$?
  if [ -n "$out" ]; then printf '%s\n' "$out" | sed "s|^|$host: |"; fi
  return $rc
}

# Runs one phase: every daemon of a host file at once; fails if any failed.
namenodes() {
  local i=0 pids=() host
  while read -r host; do
    remote "$host" "$action" namenode --index "$i" &
    pids+=($!)
    i=$((i + 1))
  done < <(entries "$conf_dir/namenodes")
  wait_all "${pids[@]}"
}

workers() {
  local pids=() host tier args
  while read -r host tier args; do
    if [ -z "$tier" ]; then
      echo "$conf_dir/workers: '$host' has no tier (HOST TIER [ARGS...])" >&2
      return 1
    fi
    # shellcheck disable=SC2086
    remote "$host" "$action" datanode --tier "$tier" $args &
    pids+=($!)
  done < <(entries "$conf_dir/workers")
  wait_all "${pids[@]}"
}

wait_all() {
  local failed=0 pid
  for pid in "$@"; do
    wait "$pid" || failed=1
  done
  return $failed
}

if [ ! -f "$conf_dir/namenodes" ] && [ ! -f "$conf_dir/workers" ]; then
  echo "neither $conf_dir/namenodes nor $conf_dir/workers exists: no hosts to $action" >&2
  exit 2
fi

failed=0
case "$action" in
  start)
    # Storage servers register with every namenode: those come first.
    namenodes || failed=1
    workers || failed=1 ;;
  stop)
    workers || failed=1
    namenodes || failed=1 ;;
  status)
    namenodes || failed=1
    workers || failed=1 ;;
esac
exit $failed
