#!/usr/bin/env bash
# Stops the storage servers of conf/workers, then the namenodes of conf/namenodes, over ssh
# (see sbin/creel-cluster.sh).
exec "$(dirname "${BASH_SOURCE[0]}")/creel-cluster.sh" stop "$@"
