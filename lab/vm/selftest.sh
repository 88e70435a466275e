#!/usr/bin/env bash
# Checks the harness itself (75-100 s, six guest boots): exit codes pass through, the
# NVMe/TCP target answers on the forwarded port in --host and --up mode, --down stops the guest,
# an overrun of --timeout ends with 124, bad usage with 64, and no QEMU of ours is left behind.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
lab=lab/vm/run-in-guest.sh
failures=0
state=${XDG_RUNTIME_DIR:-/tmp}/creel-lab-$(id -u)

check() { # description expected actual
	if [ "$2" = "$3" ]; then
		echo "selftest: ok   $1"
	else
		echo "selftest: FAIL $1 (expected $2, got $3)"
		failures=$((failures + 1))
	fi
}

no_guest_left() { # name
	if [ -f "$state/$1/pid" ] && kill -0 "$(cat "$state/$1/pid")" 2>/dev/null; then
		echo "left"
	else
		echo "none"
	fi
}

bash lab/vm/retry-rule-test.sh || failures=$((failures + 1))

$lab --quiet --name selftest -- sh -c 'exit 7'
check "the command's exit code passes through" 7 $?

$lab --quiet --name selftest --host -- python3 lab/vm/nvme-tcp-probe.py 127.0.0.1 0 >/dev/null 2>&1
check "a failing host command's exit code passes through" 1 $?

$lab --quiet --name selftest --host -- sh -c 'python3 lab/vm/nvme-tcp-probe.py "$CREEL_LAB_NVMF_ADDR" "$CREEL_LAB_NVMF_TCP_PORT"'
check "--host: the guest's NVMe/TCP target answers an ICReq on the forwarded port" 0 $?
check "--host: the guest is gone afterwards" none "$(no_guest_left selftest)"

port=$($lab --quiet --name selftest --up --timeout 600)
check "--up returns once the guest is ready" 0 $?
python3 lab/vm/nvme-tcp-probe.py 127.0.0.1 "$port"
check "--up: the target answers on port $port" 0 $?
$lab --name selftest --down
check "--down: the guest is gone" none "$(no_guest_left selftest)"

$lab --quiet --name selftest --timeout 40 -- sleep 600
check "a command that overruns --timeout ends with 124" 124 $?
check "... and leaves no guest" none "$(no_guest_left selftest)"

$lab --quiet --name selftest --boot-timeout 1 -- true 2>/dev/null
check "a guest not ready within --boot-timeout ends with 67" 67 $?
check "... and leaves no guest" none "$(no_guest_left selftest)"

$lab --ns disk -- true 2>/dev/null
check "bad usage ends with 64" 64 $?

echo "selftest: $failures failure(s)"
[ "$failures" -eq 0 ]
