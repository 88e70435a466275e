# Sourced by the test runners inside the lab guest. Under QEMU's software emulation a JVM now and then
# dies of SIGILL in its own JIT-compiled code (an emulation fault: the same tests pass when run
# again; lab/README.md "Debugging"). That is not a test result, so such a crash gets one more run.
#
#   run_retrying_sigill NAME FUNCTION [ARG...]
#
# Runs FUNCTION with LAB_CRASHES set to a fresh directory, which FUNCTION passes to its JVM as
# -XX:ErrorFile="$LAB_CRASHES/hs_err_pid%p.log". If it exits 134 (abort) and a crash log there says
# SIGILL, runs it once more, saying so on stderr. Returns the exit code of the last run; any other
# failure, and a second crash, count as they are.
run_retrying_sigill() {
	local name=$1 rc=0
	shift
	LAB_CRASHES="$CREEL_LAB_OUT/crashes/$name"
	mkdir -p "$LAB_CRASHES"
	"$@" || rc=$?
	if [ "$rc" -eq 134 ] && grep -qs SIGILL "$LAB_CRASHES"/hs_err_pid*.log; then
		echo "lab: $name: the JVM died of SIGILL in JIT-compiled code ($(ls "$LAB_CRASHES"/hs_err_pid*.log | head -n 1)); an emulation fault, not a test result: running $name once more" >&2
		LAB_CRASHES="$CREEL_LAB_OUT/crashes/$name-rerun"
		mkdir -p "$LAB_CRASHES"
		rc=0
		"$@" || rc=$?
	fi
	return "$rc"
}
