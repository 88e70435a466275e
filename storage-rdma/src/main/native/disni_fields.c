/*
 * Creel's implementation of DiSNI 2.1's native contract: field lookups, the structure sizes and
 * offsets DiSNI's Java side checks its own layouts against, and the version.
 */
#include "disni_jni.h"

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stddef.h>

#define DISPATCHER(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

JNIEXPORT jlong JNICALL DISPATCHER(getContext)(JNIEnv *env, jobject self, jlong id_handle)
{
	(void)self;
	struct rdma_cm_id *id = disni_ptr(id_handle);
	if (disni_null(env, "rdma_cm_id.verbs", "rdma_cm_id", id_handle)) {
		return -1;
	}
	if (id->verbs == NULL) {
		disni_throw_msg(env, "rdma_cm_id.verbs",
				"the id is not bound to an RDMA device (bind or resolve an address of an RDMA interface first)");
		return -1;
	}
	return disni_handle(id->verbs);
}

JNIEXPORT jint JNICALL DISPATCHER(getQpNum)(JNIEnv *env, jobject self, jlong qp)
{
	(void)self;
	if (disni_null(env, "ibv_qp.qp_num", "ibv_qp", qp)) {
		return -1;
	}
	return (jint)((struct ibv_qp *)disni_ptr(qp))->qp_num;
}

JNIEXPORT jint JNICALL DISPATCHER(getContextFd)(JNIEnv *env, jobject self, jlong context)
{
	(void)self;
	if (disni_null(env, "ibv_context.cmd_fd", "ibv_context", context)) {
		return -1;
	}
	return ((struct ibv_context *)disni_ptr(context))->cmd_fd;
}

JNIEXPORT jint JNICALL DISPATCHER(getContextNumCompVectors)(JNIEnv *env, jobject self, jlong context)
{
	(void)self;
	if (disni_null(env, "ibv_context.num_comp_vectors", "ibv_context", context)) {
		return -1;
	}
	return ((struct ibv_context *)disni_ptr(context))->num_comp_vectors;
}

JNIEXPORT jint JNICALL DISPATCHER(getPdHandle)(JNIEnv *env, jobject self, jlong pd)
{
	(void)self;
	if (disni_null(env, "ibv_pd.handle", "ibv_pd", pd)) {
		return -1;
	}
	return (jint)((struct ibv_pd *)disni_ptr(pd))->handle;
}

JNIEXPORT jint JNICALL DISPATCHER(getSockAddrInSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct sockaddr_in);
}

JNIEXPORT jint JNICALL DISPATCHER(getIbvRecvWRSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_recv_wr);
}

JNIEXPORT jint JNICALL DISPATCHER(getIbvSendWRSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_send_wr);
}

JNIEXPORT jint JNICALL DISPATCHER(getIbvSgeSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_sge);
}

JNIEXPORT jint JNICALL DISPATCHER(getIbvWCSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_wc);
}

JNIEXPORT jint JNICALL DISPATCHER(getRemoteAddressOffset)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
}

JNIEXPORT jint JNICALL DISPATCHER(getRKeyOffset)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)offsetof(struct ibv_send_wr, wr.rdma.rkey);
}

JNIEXPORT jint JNICALL DISPATCHER(getVersion)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return DISNI_JNI_VERSION;
}
