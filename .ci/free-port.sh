# Sourced by the CI scripts that start daemons on a fixed port: free_port NAME prints a port below
# Linux's ephemeral range (32768 and up, where outgoing connections take theirs) that nothing
# listens on now, or fails naming the script.
free_port() {
  local candidate
  for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "$1: FAILED: no free port found in 20000-31999" >&2
  return 1
}
