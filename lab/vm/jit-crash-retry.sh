# Sourced by the lab's test runners. Under QEMU's software emulation a JVM now and then dies of a
# fatal signal (SIGILL, SIGSEGV) inside code HotSpot generated at run time — compiled Java methods,
# the interpreter, stubs — in different tests and methods each time, and the same tests pass when run
# again: multi-threaded TCG can run code one vCPU executes while the other patches it (lab/README.md
# "Debugging"). Such a crash gets one more run; a crash in native code (libdisni.so's C, "C [lib...]"
# frames) or in the JVM's own C++ ("V [libjvm.so...]") does not, nor does any other failure or a
# second crash.
#
#   run_retrying_jit_crash NAME FUNCTION [ARG...]
#
# Runs FUNCTION with CREEL_LAB_CRASHES set to a fresh directory, which FUNCTION passes to its JVMs as
# -XX:ErrorFile="$CREEL_LAB_CRASHES/hs_err_pid%p.log". If it fails and a crash log there names a
# generated-code frame as the problematic one, runs it once more, saying so on stderr. Returns the exit
# code of the last run.
run_retrying_jit_crash() {
	local name=$1 rc=0
	shift
	export CREEL_LAB_CRASHES="$CREEL_LAB_OUT/crashes/$name"
	mkdir -p "$CREEL_LAB_CRASHES"
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || crash_summaries "$CREEL_LAB_CRASHES" >&2
	if [ "$rc" -ne 0 ] && jit_code_crash "$CREEL_LAB_CRASHES" >/dev/null; then
		echo "lab: $name: a JVM died in JIT-compiled code ($(jit_code_crash "$CREEL_LAB_CRASHES")); not a test result: running $name once more" >&2
		CREEL_LAB_CRASHES="$CREEL_LAB_OUT/crashes/$name-rerun"
		mkdir -p "$CREEL_LAB_CRASHES"
		rc=0
		"$@" || rc=$?
		[ "$rc" -eq 0 ] || crash_summaries "$CREEL_LAB_CRASHES" >&2
	fi
	return "$rc"
}

# crash_summaries DIR: for each crash log in DIR, the lines that say what died where (signal, the
# problematic frame, the top of the native and Java stacks), so that a CI log shows them without the
# files.
crash_summaries() {
	local log
	for log in "$1"/hs_err_pid*.log; do
		[ -f "$log" ] || continue
		echo "lab: JVM crash log $log:"
		grep -m1 -E '^# +SIG[A-Z]+' "$log" | sed 's/^/lab:   /'
		grep -A1 '^# Problematic frame:' "$log" | tail -n 1 | sed 's/^/lab:   /'
		grep -m1 -E '^Current thread' "$log" | cut -c1-160 | sed 's/^/lab:   /'
		awk '/^Native frames:/ {n = 1} n && n <= 12 {print "lab:   " $0; n++} /^$/ && n {n = 0}' "$log"
		awk '/^Java frames:/ {n = 1} n && n <= 12 {print "lab:   " $0; n++} /^$/ && n {n = 0}' "$log"
	done
}

# jit_code_crash DIR: prints the signal and problematic frame of the first crash log in DIR whose
# problematic frame is code HotSpot generated: compiled ("J"), interpreted ("j") or a stub ("v");
# fails if there is none.
jit_code_crash() {
	local log
	for log in "$1"/hs_err_pid*.log; do
		[ -f "$log" ] || continue
		if grep -A1 "^# Problematic frame:" "$log" | grep -Eq "^# [Jjv] "; then
			echo "$(grep -m1 -o 'SIG[A-Z]*' "$log") in $(grep -A1 '^# Problematic frame:' "$log" | tail -n 1 | cut -c3-90), $log"
			return 0
		fi
	done
	return 1
}
