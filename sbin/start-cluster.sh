#!/usr/bin/env bash
# Starts the namenodes of conf/namenodes, then the storage servers of conf/workers, over ssh
# (see sbin/creel-cluster.sh).
exec "$(dirname "${BASH_SOURCE[0]}")/creel-cluster.sh" start "$@"
