#!/usr/bin/env bash
# Builds libdisni.so into OUT_DIR when this machine can: gcc, make, the JDK's JNI headers and the
# RDMA headers (Debian: libibverbs-dev, librdmacm-dev). When something is missing it says what in
# one line and exits 0, so a machine without RDMA headers still builds and tests the rest of Creel.
#
#   build.sh OUT_DIR JAVA_HOME
set -euo pipefail
out=${1:?usage: build.sh OUT_DIR JAVA_HOME}
java_home=${2:?usage: build.sh OUT_DIR JAVA_HOME}
here=$(cd "$(dirname "$0")" && pwd)

skip() {
  echo "storage-rdma: libdisni.so not built: $1"
  exit 0
}

command -v gcc >/dev/null 2>&1 || skip "gcc not found (Debian: apt-get install gcc)"
command -v make >/dev/null 2>&1 || skip "make not found (Debian: apt-get install make)"
[ -f "$java_home/include/jni.h" ] || skip "no JNI headers in $java_home/include (needs a JDK, not a JRE)"
printf '#include <infiniband/verbs.h>\n' | gcc -fsyntax-only -x c - 2>/dev/null \
  || skip "RDMA verbs headers missing (Debian: apt-get install libibverbs-dev)"
printf '#include <rdma/rdma_cma.h>\n' | gcc -fsyntax-only -x c - 2>/dev/null \
  || skip "RDMA connection manager headers missing (Debian: apt-get install librdmacm-dev)"

mkdir -p "$out"
make --no-print-directory -s -C "$here" OUT="$(cd "$out" && pwd)" JAVA_HOME="$java_home"
