#!/usr/bin/env bash
# Profiles the bulk transfers of issue 10's target 2 with async-profiler, as docs/benchmarks.md
# reads them: each transfer in a fresh JVM, as users run them, and the cluster process serving them.
#
#   bench/scripts/profile-fs.sh [--size 1g] [--event cpu|wall] [--out DIR]
#
# It starts `bin/creel local` with the profiler on, puts one file, warms the cluster with a get of
# each kind, then profiles: `fs get` same-host, `fs get` over TCP, `fs put`, and the API's get
# (same-host and TCP) in a fresh JVM (bench's FreshClientMain, which times its transfer itself);
# the CLI's against a profile of `fs stat` of the same file (JVM start, connection, lookup).
# For each it writes DIR/NAME.collapsed (async-profiler's collapsed stacks: open them with any
# flame-graph tool) and prints a summary (bench/scripts/profile_summary.py): samples per thread and
# the heaviest (thread, Creel frame, leaf) triples. The cluster's profile, cluster.collapsed, covers
# its whole life. --event cpu (default) counts CPU time; wall counts waiting as well, which shows
# what a thread waits for. async-profiler 3.0 comes from Maven Central (tools.profiler:async-profiler)
# into ~/.cache/creel-profiler the first time. Linux x86-64 only; perf events must be allowed
# (root, or kernel.perf_event_paranoid <= 1).
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CREEL="$HOME_DIR/bin/creel"
SIZE=1g
EVENT=cpu
OUT="$(pwd)/creel-profiles"
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE="$2"; shift 2 ;;
    --event) EVENT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile-fs: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$EVENT" in cpu|wall) ;; *) echo "profile-fs: --event is cpu or wall" >&2; exit 2 ;; esac
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "profile-fs: needs Linux on x86-64" >&2; exit 2; }
bytes=$(python3 -c "import sys; s=sys.argv[1].lower(); m={'k':1<<10,'m':1<<20,'g':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$SIZE")

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/creel-profiler"
AGENT="$CACHE/linux-x64/libasyncProfiler.so"
if [ ! -f "$AGENT" ]; then
  echo "profile-fs: fetching async-profiler 3.0 from Maven Central into $CACHE" >&2
  mkdir -p "$CACHE"
  mvn -q -B dependency:copy -Dartifact=tools.profiler:async-profiler:3.0 -DoutputDirectory="$CACHE" >&2
  (cd "$CACHE" && python3 -c "import zipfile; zipfile.ZipFile('async-profiler-3.0.jar').extract('linux-x64/libasyncProfiler.so')")
fi
"$CREEL" --help >/dev/null # builds on first use, outside the profiles
mkdir -p "$OUT"
agent() { echo "-agentpath:$AGENT=start,event=$EVENT,interval=1ms,threads,collapsed,file=$OUT/$1.collapsed"; }

# shellcheck source=bench/scripts/local-cluster.sh
source "$HOME_DIR/bench/scripts/local-cluster.sh"
local_cluster_start profile-fs "$(( bytes * 2 / 1048576 + 256 ))" CREEL_JAVA_OPTS="$(agent cluster)"
C=(--conf "creel.namenode.address=$NAMENODE")
TCP=(--conf creel.client.local.access=false)
head -c "$bytes" /dev/urandom >"$WORK/src"
"$CREEL" fs put "${C[@]}" "$WORK/src" /profile-src >/dev/null
"$CREEL" fs get "${C[@]}" /profile-src /dev/null >/dev/null
"$CREEL" fs get "${C[@]}" "${TCP[@]}" /profile-src /dev/null >/dev/null

summary() { # TITLE NAME [BASELINE]
  echo "### $1 (event $EVENT)"
  echo
  python3 "$HOME_DIR/bench/scripts/profile_summary.py" "$OUT/$2.collapsed" --top 15 \
      $([ "$EVENT" = wall ] && echo --skip-idle) ${3:+--baseline "$OUT/$3.collapsed"}
  echo
}
echo "profile-fs: $SIZE, event $EVENT, into $OUT; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# The baseline of the CLI's transfers: a fresh JVM that starts, connects and looks the file up.
CREEL_JAVA_OPTS="$(agent fs-stat)" "$CREEL" fs stat "${C[@]}" /profile-src >/dev/null
summary "bin/creel fs stat (JVM start, connection, lookup: the baseline below)" fs-stat
CREEL_JAVA_OPTS="$(agent fs-get)" "$CREEL" fs get "${C[@]}" /profile-src /dev/null >/dev/null
summary "bin/creel fs get, same host, against fs stat" fs-get fs-stat
CREEL_JAVA_OPTS="$(agent fs-get-tcp)" "$CREEL" fs get "${C[@]}" "${TCP[@]}" /profile-src /dev/null >/dev/null
summary "bin/creel fs get, over TCP, against fs stat" fs-get-tcp fs-stat
CREEL_JAVA_OPTS="$(agent fs-put)" "$CREEL" fs put "${C[@]}" "$WORK/src" /profile-put >/dev/null
summary "bin/creel fs put, against fs stat" fs-put fs-stat
"$CREEL" fs rm "${C[@]}" /profile-put >/dev/null
CP="$HOME_DIR/launcher/target/lib/*:$HOME_DIR/launcher/target/lib/bench/*" # FreshClientMain is a bench class
for kind in same tcp; do
  extra=(); [ "$kind" = tcp ] && extra=("${TCP[@]}")
  java --add-exports java.base/sun.nio.ch=ALL-UNNAMED "$(agent "api-get-$kind")" -cp "$CP" \
      io.creel.bench.user.FreshClientMain get /profile-src "${C[@]}" "${extra[@]}" >&2
  summary "API get in a fresh JVM, $kind" "api-get-$kind"
done
"$CREEL" fs rm "${C[@]}" /profile-src >/dev/null
local_cluster_stop # the cluster's profile is written as its JVM exits
summary "the cluster process, its whole life (start, the put, warm-up and every profiled transfer)" cluster
