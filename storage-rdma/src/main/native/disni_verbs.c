/*
 * Creel's implementation of DiSNI 2.1's native contract: the verbs (libibverbs) half of
 * com.ibm.disni.verbs.impl.NativeDispatcher.
 *
 * Work request lists and work completion arrays are laid out by DiSNI's Java side in native
 * memory, in exactly the C layout (it checks sizes and offsets against _getIbvSendWRSize and
 * friends at start), so they are handed to libibverbs as they are.
 */
#include "disni_jni.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#define DISPATCHER(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

JNIEXPORT jlong JNICALL DISPATCHER(allocPd)(JNIEnv *env, jobject self, jlong context)
{
	(void)self;
	if (disni_null(env, "ibv_alloc_pd", "ibv_context", context)) {
		return -1;
	}
	struct ibv_pd *pd = ibv_alloc_pd(disni_ptr(context));
	if (pd == NULL) {
		disni_throw_errno(env, "ibv_alloc_pd", errno);
		return -1;
	}
	return disni_handle(pd);
}

JNIEXPORT jlong JNICALL DISPATCHER(createCompChannel)(JNIEnv *env, jobject self, jlong context)
{
	(void)self;
	if (disni_null(env, "ibv_create_comp_channel", "ibv_context", context)) {
		return -1;
	}
	struct ibv_comp_channel *channel = ibv_create_comp_channel(disni_ptr(context));
	if (channel == NULL) {
		disni_throw_errno(env, "ibv_create_comp_channel", errno);
		return -1;
	}
	/* Same reason as the CM event channel: _getCqEvent polls with a timeout, then reads. */
	int err = disni_set_nonblocking(channel->fd);
	if (err != 0) {
		ibv_destroy_comp_channel(channel);
		disni_throw_errno(env, "ibv_create_comp_channel (O_NONBLOCK)", err);
		return -1;
	}
	return disni_handle(channel);
}

JNIEXPORT jlong JNICALL DISPATCHER(createCQ)(JNIEnv *env, jobject self, jlong context,
		jlong comp_channel, jint ncqe, jint comp_vector)
{
	(void)self;
	if (disni_null(env, "ibv_create_cq", "ibv_context", context)) {
		return -1;
	}
	if (ncqe <= 0) {
		disni_throw_msg(env, "ibv_create_cq", "the number of completion entries must be positive");
		return -1;
	}
	/* comp_channel 0 creates a CQ without event notification (polling only). */
	struct ibv_cq *cq = ibv_create_cq(disni_ptr(context), ncqe, NULL, disni_ptr(comp_channel),
			comp_vector);
	if (cq == NULL) {
		disni_throw_errno(env, "ibv_create_cq", errno);
		return -1;
	}
	return disni_handle(cq);
}

/*
 * DiSNI's Java side always passes attr 0: QPs created through librdmacm are moved through
 * INIT/RTR/RTS by rdma_connect and rdma_accept. With no attributes to apply, the call checks
 * that the QP is alive and returns its current state (an ibv_qp_state, >= 0).
 */
JNIEXPORT jint JNICALL DISPATCHER(modifyQP)(JNIEnv *env, jobject self, jlong qp, jlong attr)
{
	(void)self;
	struct ibv_qp_attr current;
	struct ibv_qp_init_attr init;
	if (disni_null(env, "ibv_modify_qp", "ibv_qp", qp)) {
		return -1;
	}
	if (attr != 0) {
		disni_throw_msg(env, "ibv_modify_qp",
				"explicit QP attributes are not part of DiSNI 2.1's contract (attr must be 0)");
		return -1;
	}
	int err = ibv_query_qp(disni_ptr(qp), &current, IBV_QP_STATE, &init);
	if (err != 0) {
		disni_throw_errno(env, "ibv_query_qp", err);
		return -1;
	}
	return (jint)current.qp_state;
}

JNIEXPORT jlong JNICALL DISPATCHER(regMr)(JNIEnv *env, jobject self, jlong pd, jlong addr,
		jint length, jint access, jlong lkey_out, jlong rkey_out, jlong handle_out)
{
	(void)self;
	if (disni_null(env, "ibv_reg_mr", "ibv_pd", pd)
			|| disni_null(env, "ibv_reg_mr", "buffer address", addr)) {
		return -1;
	}
	if (length <= 0) {
		disni_throw_msg(env, "ibv_reg_mr", "the length must be positive");
		return -1;
	}
	struct ibv_mr *mr = ibv_reg_mr(disni_ptr(pd), disni_ptr(addr), (size_t)length, access);
	if (mr == NULL) {
		disni_throw_errno(env, "ibv_reg_mr", errno);
		return -1;
	}
	if (lkey_out != 0) {
		*(uint32_t *)disni_ptr(lkey_out) = mr->lkey;
	}
	if (rkey_out != 0) {
		*(uint32_t *)disni_ptr(rkey_out) = mr->rkey;
	}
	if (handle_out != 0) {
		*(uint32_t *)disni_ptr(handle_out) = mr->handle;
	}
	return disni_handle(mr);
}

/*
 * The on-demand-paging operations DiSNI may use on a reliable connection, as IBV_ODP_SUPPORT_*
 * bits (0 when the device has no ODP), or -1 when the device cannot be queried.
 */
JNIEXPORT jint JNICALL DISPATCHER(queryOdpSupport)(JNIEnv *env, jobject self, jlong context)
{
	(void)env;
	(void)self;
	struct ibv_device_attr_ex attr;
	if (context == 0) {
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(disni_ptr(context), NULL, &attr) != 0) {
		return -1;
	}
	if ((attr.odp_caps.general_caps & IBV_ODP_SUPPORT) == 0) {
		return 0;
	}
	return (jint)attr.odp_caps.per_transport_caps.rc_odp_caps;
}

/*
 * DiSNI 2.1 named this after the Mellanox experimental verb ibv_exp_prefetch_mr; upstream
 * rdma-core offers the same as ibv_advise_mr(PREFETCH). Devices without ODP refuse it.
 */
JNIEXPORT jint JNICALL DISPATCHER(expPrefetchMr)(JNIEnv *env, jobject self, jlong mr_handle,
		jlong addr, jint length)
{
	(void)self;
	struct ibv_mr *mr = disni_ptr(mr_handle);
	struct ibv_sge sge;
	if (disni_null(env, "ibv_advise_mr", "ibv_mr", mr_handle)) {
		return -1;
	}
	if (length <= 0) {
		disni_throw_msg(env, "ibv_advise_mr", "the length must be positive");
		return -1;
	}
	sge.addr = (uint64_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;
	int err = ibv_advise_mr(mr->pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
			IB_UVERBS_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	if (err != 0) {
		disni_throw_errno(env, "ibv_advise_mr (prefetch)", err);
		return -1;
	}
	return 0;
}

JNIEXPORT void JNICALL DISPATCHER(deregMr)(JNIEnv *env, jobject self, jlong mr)
{
	(void)self;
	if (disni_null(env, "ibv_dereg_mr", "ibv_mr", mr)) {
		return;
	}
	int err = ibv_dereg_mr(disni_ptr(mr));
	if (err != 0) {
		disni_throw_errno(env, "ibv_dereg_mr", err);
	}
}

/* Position of bad in the list starting at first (1-based), for the error message. */
static int position_in_send_list(const struct ibv_send_wr *first, const struct ibv_send_wr *bad)
{
	int index = 1;
	for (const struct ibv_send_wr *wr = first; wr != NULL; wr = wr->next, index++) {
		if (wr == bad) {
			return index;
		}
	}
	return 0;
}

static int position_in_recv_list(const struct ibv_recv_wr *first, const struct ibv_recv_wr *bad)
{
	int index = 1;
	for (const struct ibv_recv_wr *wr = first; wr != NULL; wr = wr->next, index++) {
		if (wr == bad) {
			return index;
		}
	}
	return 0;
}

JNIEXPORT void JNICALL DISPATCHER(postSend)(JNIEnv *env, jobject self, jlong qp_handle, jlong list)
{
	(void)self;
	struct ibv_qp *qp = disni_ptr(qp_handle);
	struct ibv_send_wr *first = disni_ptr(list);
	struct ibv_send_wr *bad = NULL;
	char call[96];
	if (disni_null(env, "ibv_post_send", "ibv_qp", qp_handle)
			|| disni_null(env, "ibv_post_send", "work request list", list)) {
		return;
	}
	int err = ibv_post_send(qp, first, &bad);
	if (err != 0) {
		snprintf(call, sizeof(call), "ibv_post_send on QP %u (work request %d of the list)",
				qp->qp_num, position_in_send_list(first, bad));
		disni_throw_errno(env, call, err);
	}
}

JNIEXPORT void JNICALL DISPATCHER(postRecv)(JNIEnv *env, jobject self, jlong qp_handle, jlong list)
{
	(void)self;
	struct ibv_qp *qp = disni_ptr(qp_handle);
	struct ibv_recv_wr *first = disni_ptr(list);
	struct ibv_recv_wr *bad = NULL;
	char call[96];
	if (disni_null(env, "ibv_post_recv", "ibv_qp", qp_handle)
			|| disni_null(env, "ibv_post_recv", "work request list", list)) {
		return;
	}
	int err = ibv_post_recv(qp, first, &bad);
	if (err != 0) {
		snprintf(call, sizeof(call), "ibv_post_recv on QP %u (work request %d of the list)",
				qp->qp_num, position_in_recv_list(first, bad));
		disni_throw_errno(env, call, err);
	}
}

/*
 * Waits up to timeout_ms for a completion event and takes it: 0 when an event was taken (the
 * caller acknowledges it with _ackCqEvent), -1 on timeout. DiSNI's CQ processors call this in a
 * loop and re-check their closed flag between calls, so a timeout is a normal return.
 */
JNIEXPORT jint JNICALL DISPATCHER(getCqEvent)(JNIEnv *env, jobject self, jlong channel_handle,
		jint timeout_ms)
{
	(void)self;
	struct ibv_comp_channel *channel = disni_ptr(channel_handle);
	struct ibv_cq *cq = NULL;
	void *cq_context = NULL;
	if (disni_null(env, "ibv_get_cq_event", "ibv_comp_channel", channel_handle)) {
		return -1;
	}
	int ready = disni_wait_readable(channel->fd, timeout_ms);
	if (ready < 0) {
		disni_throw_errno(env, "ibv_get_cq_event (poll)", -ready);
		return -1;
	}
	if (ready == 0) {
		return -1;
	}
	if (ibv_get_cq_event(channel, &cq, &cq_context) != 0) {
		/* EAGAIN: another thread took the event between poll and read. */
		return -1;
	}
	return 0;
}

JNIEXPORT jint JNICALL DISPATCHER(pollCQ)(JNIEnv *env, jobject self, jlong cq, jint ne,
		jlong wc_list)
{
	(void)env;
	(void)self;
	if (cq == 0 || wc_list == 0 || ne < 0) {
		return -EINVAL;
	}
	return ibv_poll_cq(disni_ptr(cq), ne, disni_ptr(wc_list));
}

JNIEXPORT jint JNICALL DISPATCHER(reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq,
		jint solicited_only)
{
	(void)env;
	(void)self;
	if (cq == 0) {
		return -EINVAL;
	}
	return ibv_req_notify_cq(disni_ptr(cq), solicited_only);
}

JNIEXPORT jint JNICALL DISPATCHER(ackCqEvent)(JNIEnv *env, jobject self, jlong cq, jint nevents)
{
	(void)env;
	(void)self;
	if (cq == 0 || nevents < 0) {
		return -EINVAL;
	}
	ibv_ack_cq_events(disni_ptr(cq), (unsigned int)nevents);
	return 0;
}

JNIEXPORT jint JNICALL DISPATCHER(destroyCompChannel)(JNIEnv *env, jobject self, jlong channel)
{
	(void)env;
	(void)self;
	if (channel == 0) {
		return -EINVAL;
	}
	return ibv_destroy_comp_channel(disni_ptr(channel));
}

JNIEXPORT jint JNICALL DISPATCHER(deallocPd)(JNIEnv *env, jobject self, jlong pd)
{
	(void)env;
	(void)self;
	if (pd == 0) {
		return -EINVAL;
	}
	return ibv_dealloc_pd(disni_ptr(pd));
}

JNIEXPORT jint JNICALL DISPATCHER(destroyCQ)(JNIEnv *env, jobject self, jlong cq)
{
	(void)env;
	(void)self;
	if (cq == 0) {
		return -EINVAL;
	}
	return ibv_destroy_cq(disni_ptr(cq));
}
