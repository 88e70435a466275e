/*
 * Creel's own native entry points, beside its implementation of DiSNI's contract: what the RDMA
 * tier needs and DiSNI 2.1's Java side cannot express.
 *
 * DiSNI lays out a send work request itself and writes only the "rdma" member of the
 * ibv_send_wr union (remote address and rkey), so an atomic work request (whose compare, swap and
 * rkey live elsewhere in that union) cannot be posted through it. Creel posts its compare-and-swap
 * here, on the queue pair DiSNI created (its object id is the ibv_qp's address), and asks the
 * device how far its atomics are atomic.
 *
 * Java side: io.creel.storage.rdma.disni.CreelVerbs.
 */
#include "disni_jni.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#define CREEL(name) Java_io_creel_storage_rdma_disni_CreelVerbs__1##name

/* Bumped when an entry point changes; the Java side refuses a library of another version. */
#define CREEL_VERBS_VERSION 2

JNIEXPORT jint JNICALL CREEL(version)(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return CREEL_VERBS_VERSION;
}

/* The device's atomic_cap (IBV_ATOMIC_NONE 0, IBV_ATOMIC_HCA 1, IBV_ATOMIC_GLOB 2). */
JNIEXPORT jint JNICALL CREEL(atomicCapability)(JNIEnv *env, jclass cls, jlong context)
{
	(void)cls;
	struct ibv_device_attr attr;
	if (disni_null(env, "ibv_query_device", "ibv_context", context)) {
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	int err = ibv_query_device(disni_ptr(context), &attr);
	if (err != 0) {
		disni_throw_errno(env, "ibv_query_device", err);
		return -1;
	}
	return (jint)attr.atomic_cap;
}

/*
 * Posts one signaled IBV_WR_ATOMIC_CMP_AND_SWP: if the 8-byte word at remote_addr equals compare it
 * becomes swap; the previous value is written to the 8 bytes at local_addr. fence adds
 * IBV_SEND_FENCE (start after the earlier reads and atomics of the queue pair completed).
 */
JNIEXPORT void JNICALL CREEL(postCompareAndSwap)(JNIEnv *env, jclass cls, jlong qp_handle, jlong wr_id,
		jlong local_addr, jint lkey, jlong remote_addr, jint rkey, jlong compare, jlong swap,
		jboolean fence)
{
	(void)cls;
	struct ibv_qp *qp = disni_ptr(qp_handle);
	struct ibv_send_wr wr;
	struct ibv_send_wr *bad = NULL;
	struct ibv_sge sge;
	char call[96];
	if (disni_null(env, "ibv_post_send (compare-and-swap)", "ibv_qp", qp_handle)
			|| disni_null(env, "ibv_post_send (compare-and-swap)", "local buffer address", local_addr)) {
		return;
	}
	if ((local_addr & 7) != 0 || (remote_addr & 7) != 0) {
		disni_throw_msg(env, "ibv_post_send (compare-and-swap)", "addresses must be 8-byte aligned");
		return;
	}
	memset(&sge, 0, sizeof(sge));
	sge.addr = (uint64_t)local_addr;
	sge.length = 8;
	sge.lkey = (uint32_t)lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.send_flags = IBV_SEND_SIGNALED | (fence ? IBV_SEND_FENCE : 0);
	wr.wr.atomic.remote_addr = (uint64_t)remote_addr;
	wr.wr.atomic.compare_add = (uint64_t)compare;
	wr.wr.atomic.swap = (uint64_t)swap;
	wr.wr.atomic.rkey = (uint32_t)rkey;
	int err = ibv_post_send(qp, &wr, &bad);
	if (err != 0) {
		snprintf(call, sizeof(call), "ibv_post_send (compare-and-swap) on QP %u", qp->qp_num);
		disni_throw_errno(env, call, err);
	}
}
