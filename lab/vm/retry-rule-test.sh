#!/usr/bin/env bash
# Checks lab/vm/jit-crash-retry.sh's rule without a guest (a second): which JVM crash logs earn a
# suite a second run (generated code: J, j, v frames) and which do not (native C, the JVM's own V, no
# log, a second crash). Run by selftest.sh and by .ci/run's lab-build step.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
failures=0

check() { # description expected actual
	if [ "$2" = "$3" ]; then
		echo "retry-rule: ok   $1"
	else
		echo "retry-rule: FAIL $1 (expected $2, got $3)"
		failures=$((failures + 1))
	fi
}

. lab/vm/jit-crash-retry.sh
crash_dir=$(mktemp -d)
fake_crash() { # frame-kind
	rm -f "$crash_dir"/hs_err_pid*.log
	printf '#  SIGSEGV (0xb) at pc=0x1, pid=1, tid=2\n#\n# Problematic frame:\n# %s  some.Frame\n' "$1" \
		>"$crash_dir/hs_err_pid1.log"
}
for kind in J j v; do
	fake_crash "$kind"
	jit_code_crash "$crash_dir" >/dev/null
	check "a crash in generated code ($kind frame) earns a rerun" 0 $?
done
for kind in C V; do
	fake_crash "$kind"
	jit_code_crash "$crash_dir" >/dev/null
	check "a crash in native or JVM code ($kind frame) does not" 1 $?
done
rm -f "$crash_dir"/hs_err_pid*.log
jit_code_crash "$crash_dir" >/dev/null
check "a failure without a crash log does not" 1 $?
fails_once() { # marker
	if [ -f "$1" ]; then return 0; fi
	touch "$1"
	fake_crash J
	cp "$crash_dir/hs_err_pid1.log" "$CREEL_LAB_CRASHES/"
	return 134
}
CREEL_LAB_OUT=$crash_dir run_retrying_jit_crash retry-check fails_once "$crash_dir/ran" 2>/dev/null
check "a run that died in compiled code passes on its rerun" 0 $?
always_fails() { fake_crash J; cp "$crash_dir/hs_err_pid1.log" "$CREEL_LAB_CRASHES/"; return 134; }
CREEL_LAB_OUT=$crash_dir run_retrying_jit_crash twice always_fails 2>/dev/null
check "a second crash fails the run" 134 $?
rm -rf "$crash_dir"

echo "retry-rule: $failures failure(s)"
[ "$failures" -eq 0 ]
