#!/usr/bin/env bash
# Runs a Creel daemon in the background, as Hadoop's and Spark's daemon scripts do:
#
#   sbin/creel-daemon.sh start|stop|status namenode|datanode [ARGS...]
#
# ARGS go to `bin/creel namenode|datanode` (e.g. `--tier dram --size 16g`). One daemon of a kind per
# user and host: a datanode's kind includes its tier (datanode-dram, datanode-disk), and
# CREEL_INSTANCE=NAME tells two of the same tier apart.
#
#   CREEL_LOG_DIR        log files (default $CREEL_HOME/logs): creel-USER-KIND-HOST.log is the
#                        daemon's log (conf/log4j2.xml, rotated by size), .out its stdout and stderr
#   CREEL_PID_DIR        pid files (default /tmp): creel-USER-KIND.pid
#   CREEL_START_TIMEOUT  seconds `start` waits for the daemon to say it serves (default 60)
#   CREEL_STOP_TIMEOUT   seconds `stop` waits after SIGTERM before SIGKILL (default 30)
#   CREEL_CONF_DIR, CREEL_LOG_LEVEL, CREEL_JAVA_OPTS, JAVA_HOME: as for bin/creel
#
# conf/creel-env.sh (in CREEL_CONF_DIR, else $CREEL_HOME/conf), when there, is read first: the place
# for this machine's values of the variables above.
# Exit codes: 0 done (status: running); 1 failed (start: already running, or it died or did not
# come up; stop: it would not die); 2 usage; 3 status: not running.
set -euo pipefail

usage() {
  echo "usage: $(basename "$0") start|stop|status namenode|datanode [ARGS...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
action=$1
daemon=$2
shift 2
case "$action" in start|stop|status) ;; *) usage ;; esac
case "$daemon" in namenode|datanode) ;; *) usage ;; esac

CREEL_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CREEL_HOME
# This machine's own settings for its daemons (JAVA_HOME, CREEL_JAVA_OPTS, the log and pid directories).
if [ -f "${CREEL_CONF_DIR:-$CREEL_HOME/conf}/creel-env.sh" ]; then
  # shellcheck disable=SC1091
  . "${CREEL_CONF_DIR:-$CREEL_HOME/conf}/creel-env.sh"
fi
log_dir="${CREEL_LOG_DIR:-$CREEL_HOME/logs}"
pid_dir="${CREEL_PID_DIR:-/tmp}"
user="${USER:-$(id -un)}"
host="$(hostname)"

kind=$daemon
if [ "$daemon" = datanode ]; then
  # The tier, from --tier T or --tier=T: a host usually runs one storage server per tier.
  prev=""
  for a in "$@"; do
    case "$a" in --tier=*) kind="datanode-${a#--tier=}" ;; esac
    if [ "$prev" = --tier ]; then kind="datanode-$a"; fi
    prev=$a
  done
fi
if [ -n "${CREEL_INSTANCE:-}" ]; then kind="$kind-$CREEL_INSTANCE"; fi

pid_file="$pid_dir/creel-$user-$kind.pid"
log_name="creel-$user-$kind-$host.log"
out_file="$log_dir/creel-$user-$kind-$host.out"

# The pid of the running daemon, if the pid file names a live Creel process (not a reused pid).
running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [ -r "/proc/$pid/cmdline" ] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'io.creel.launcher.CreelMain'; then
    return 1
  fi
  echo "$pid"
}

case "$action" in
  status)
    if pid=$(running_pid); then
      echo "$kind is running as process $pid"
      exit 0
    fi
    echo "$kind is not running"
    exit 3
    ;;

  start)
    if pid=$(running_pid); then
      echo "$kind is already running as process $pid; stop it first" >&2
      exit 1
    fi
    mkdir -p "$log_dir" "$pid_dir"
    # The previous run's stdout is kept, once.
    if [ -f "$out_file" ]; then mv -f "$out_file" "$out_file.1"; fi
    echo "starting $kind, logging to $log_dir/$log_name"
    # bin/creel execs the JVM for a daemon, so $! is the daemon itself.
    CREEL_LOG_DIR="$log_dir" CREEL_LOG_FILE="$log_name" \
      nohup "$CREEL_HOME/bin/creel" "$daemon" "$@" >"$out_file" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$pid_file"
    # Up when it prints its address ("Creel namenode listening on ...", "Creel dram storage server at ...").
    deadline=$((SECONDS + ${CREEL_START_TIMEOUT:-60}))
    while ! grep -q '^Creel ' "$out_file" 2>/dev/null; do
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$pid_file"
        echo "$kind exited while starting; the end of $out_file:" >&2
        tail -n 20 "$out_file" >&2 || true
        exit 1
      fi
      if [ $SECONDS -ge $deadline ]; then
        echo "$kind (process $pid) did not report serving within ${CREEL_START_TIMEOUT:-60} s; see $out_file and $log_dir/$log_name" >&2
        exit 1
      fi
      sleep 0.2
    done
    grep '^Creel ' "$out_file"
    ;;

  stop)
    if ! pid=$(running_pid); then
      rm -f "$pid_file"
      echo "no $kind to stop"
      exit 0
    fi
    echo "stopping $kind (process $pid)"
    kill -TERM "$pid"
    deadline=$((SECONDS + ${CREEL_STOP_TIMEOUT:-30}))
    while kill -0 "$pid" 2>/dev/null; do
      if [ $SECONDS -ge $deadline ]; then
        echo "$kind did not stop within ${CREEL_STOP_TIMEOUT:-30} s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
          echo "$kind (process $pid) is still there after SIGKILL" >&2
          exit 1
        fi
        break
      fi
      sleep 0.2
    done
    rm -f "$pid_file"
    ;;
esac
