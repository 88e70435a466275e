/*
 * Creel's implementation of DiSNI 2.1's native contract: com.ibm.disni.util.NativeAffinity.
 *
 * Not one of NativeDispatcher's 48 methods, but DiSNI's CQ processors call it from their threads
 * (DaRPC's server clusters pin them), so libdisni must provide it for DaRPC to run. The mask
 * covers the first 64 CPUs and applies to the calling thread.
 */
#include "disni_jni.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>

#define AFFINITY(name) Java_com_ibm_disni_util_NativeAffinity__1##name

JNIEXPORT void JNICALL AFFINITY(setAffinity)(JNIEnv *env, jclass cls, jlong mask)
{
	(void)cls;
	cpu_set_t set;
	CPU_ZERO(&set);
	for (int cpu = 0; cpu < 64; cpu++) {
		if (((uint64_t)mask >> cpu) & 1u) {
			CPU_SET(cpu, &set);
		}
	}
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		int err = errno;
		char call[64];
		snprintf(call, sizeof(call), "sched_setaffinity(mask 0x%llx)", (unsigned long long)mask);
		/* setAffinity declares no checked exception: a mask naming no usable CPU is a bad argument. */
		disni_throw_errno_as(env, "java/lang/IllegalArgumentException", call, err);
	}
}

JNIEXPORT jlong JNICALL AFFINITY(getAffinity)(JNIEnv *env, jclass cls)
{
	(void)cls;
	cpu_set_t set;
	uint64_t mask = 0;
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		disni_throw_errno_as(env, "java/lang/IllegalStateException", "sched_getaffinity", errno);
		return 0;
	}
	for (int cpu = 0; cpu < 64; cpu++) {
		if (CPU_ISSET(cpu, &set)) {
			mask |= (uint64_t)1 << cpu;
		}
	}
	return (jlong)mask;
}
