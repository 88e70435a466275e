#!/usr/bin/env bash
# Builds the two base images the Creel image is built on where no registry is reachable, from
# Debian's packages only (deb.debian.org):
#   creel-base/jre:bookworm     debootstrap (minbase) + openjdk-17-jre-headless, `docker import`ed
#   creel-base/maven:bookworm   the JRE image + openjdk-17-jdk-headless, maven, gcc (the build stage)
# The debootstrap root file system is cached as a tarball under $CREEL_DOCKER_CACHE
# (/var/cache/creel-docker), so a second run on one machine only re-imports it when the image is gone.
# Elsewhere, use the defaults of docker/Dockerfile (eclipse-temurin / maven images) instead.
#
# Usage: docker/build-base.sh            (needs root, debootstrap and a running dockerd)
# Env:   DOCKER (docker client), CREEL_DOCKER_CACHE, CREEL_DEBIAN_MIRROR.
set -euo pipefail

DOCKER=${DOCKER:-docker}
CACHE=${CREEL_DOCKER_CACHE:-/var/cache/creel-docker}
MIRROR=${CREEL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
JRE_IMAGE=creel-base/jre:$SUITE
MAVEN_IMAGE=creel-base/maven:$SUITE
# Bump when the package list below changes, so a cached tarball of the old list is not reused.
ROOTFS_VERSION=1
TARBALL=$CACHE/debian-$SUITE-jre17-v$ROOTFS_VERSION.tar

say() { echo "build-base: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "debootstrap and docker import need root"
"$DOCKER" info >/dev/null 2>&1 || die "no Docker daemon answers ($DOCKER info failed)"

if ! "$DOCKER" image inspect "$JRE_IMAGE" >/dev/null 2>&1; then
  if [ ! -s "$TARBALL" ]; then
    command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (apt-get install debootstrap)"
    mkdir -p "$CACHE"
    root=$(mktemp -d "$CACHE/rootfs.XXXXXX")
    # The partly built root file system goes away also when debootstrap fails.
    trap 'rm -rf "$root"' EXIT
    say "debootstrap $SUITE with openjdk-17-jre-headless into $root (a few minutes, once per machine)"
    nice debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates \
      "$SUITE" "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || die "debootstrap failed; see $CACHE/debootstrap.log"
    # Package lists and downloaded .debs are of no use in an image.
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -cf "$TARBALL.part" . && mv "$TARBALL.part" "$TARBALL"
    rm -rf "$root"
    trap - EXIT
  fi
  say "importing $TARBALL as $JRE_IMAGE"
  "$DOCKER" import \
    -c 'ENV LANG=C.UTF-8 JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' \
    -c 'CMD ["/bin/bash"]' \
    "$TARBALL" "$JRE_IMAGE" >/dev/null
fi

if ! "$DOCKER" image inspect "$MAVEN_IMAGE" >/dev/null 2>&1; then
  say "building $MAVEN_IMAGE (JDK, Maven and gcc from Debian)"
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' EXIT
  # Certificate authorities this machine added locally (e.g. for a TLS-inspecting proxy in front of
  # Maven Central) go into the build stage's trust store too, so Maven inside the build reaches
  # Central the way Maven on this machine does. This image stays on this machine.
  mkdir -p "$ctx/ca"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  # gcc: storage-rdma's build compiles libdisni.so unless told not to; the image build skips it, but
  # a compiler keeps the build stage able to build the whole reactor.
  printf '%s\n' \
    "FROM $JRE_IMAGE" \
    "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\" \
    "      openjdk-17-jdk-headless maven gcc libc6-dev >/dev/null && rm -rf /var/lib/apt/lists/*" \
    "COPY ca/ /usr/local/share/ca-certificates/" \
    "RUN update-ca-certificates >/dev/null" \
    >"$ctx/Dockerfile"
  "$DOCKER" build --network host -q -t "$MAVEN_IMAGE" "$ctx" >/dev/null \
    || die "docker build of $MAVEN_IMAGE failed"
  rm -rf "$ctx"
  trap - EXIT
fi
say "ready: $JRE_IMAGE $MAVEN_IMAGE"
