/*
 * Creel's implementation of DiSNI 2.1's native contract: the connection manager (librdmacm) half
 * of com.ibm.disni.verbs.impl.NativeDispatcher.
 */
#include "disni_jni.h"

#include <errno.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <string.h>
#include <sys/socket.h>

#define DISPATCHER(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

/*
 * DiSNI's Java side never says how many scatter/gather entries a QP needs (IbvQPInitAttr's
 * max_*_sge never reach the native layer). DaRPC and jNVMf post one entry per work request;
 * a small fixed limit keeps work queue entries small on every device.
 */
#define DISNI_QP_MAX_SGE 4

JNIEXPORT jlong JNICALL DISPATCHER(createEventChannel)(JNIEnv *env, jobject self)
{
	(void)self;
	struct rdma_event_channel *channel = rdma_create_event_channel();
	if (channel == NULL) {
		/* ENODEV here means the kernel offers no /dev/infiniband/rdma_cm. */
		disni_throw_errno(env, "rdma_create_event_channel", errno);
		return -1;
	}
	/*
	 * _getCmEvent waits with poll() and a timeout; a non-blocking descriptor makes the read after
	 * it return EAGAIN instead of blocking when another thread took the event first.
	 */
	int err = disni_set_nonblocking(channel->fd);
	if (err != 0) {
		rdma_destroy_event_channel(channel);
		disni_throw_errno(env, "rdma_create_event_channel (O_NONBLOCK)", err);
		return -1;
	}
	return disni_handle(channel);
}

JNIEXPORT jlong JNICALL DISPATCHER(createId)(JNIEnv *env, jobject self, jlong channel, jshort ps)
{
	(void)self;
	struct rdma_cm_id *id = NULL;
	if (disni_null(env, "rdma_create_id", "rdma_event_channel", channel)) {
		return -1;
	}
	if (rdma_create_id(disni_ptr(channel), &id, NULL, (enum rdma_port_space)(uint16_t)ps) != 0) {
		disni_throw_errno(env, "rdma_create_id", errno);
		return -1;
	}
	return disni_handle(id);
}

static uint32_t qp_sge_limit(struct ibv_context *context)
{
	struct ibv_device_attr attr;
	if (ibv_query_device(context, &attr) != 0 || attr.max_sge <= 0) {
		return 1;
	}
	return attr.max_sge < DISNI_QP_MAX_SGE ? (uint32_t)attr.max_sge : DISNI_QP_MAX_SGE;
}

JNIEXPORT jlong JNICALL DISPATCHER(createQP)(JNIEnv *env, jobject self, jlong id_handle, jlong pd,
		jlong send_cq, jlong recv_cq, jint qp_type, jint max_send_wr, jint max_recv_wr,
		jint max_inline)
{
	(void)self;
	struct rdma_cm_id *id = disni_ptr(id_handle);
	struct ibv_qp_init_attr attr;
	if (disni_null(env, "rdma_create_qp", "rdma_cm_id", id_handle)
			|| disni_null(env, "rdma_create_qp", "ibv_pd", pd)
			|| disni_null(env, "rdma_create_qp", "send ibv_cq", send_cq)
			|| disni_null(env, "rdma_create_qp", "receive ibv_cq", recv_cq)) {
		return -1;
	}
	if (id->verbs == NULL) {
		disni_throw_msg(env, "rdma_create_qp", "the rdma_cm_id is not bound to an RDMA device");
		return -1;
	}
	if (max_send_wr < 0 || max_recv_wr < 0 || max_inline < 0) {
		disni_throw_msg(env, "rdma_create_qp", "negative queue size or inline size");
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = disni_ptr(send_cq);
	attr.recv_cq = disni_ptr(recv_cq);
	attr.qp_type = (enum ibv_qp_type)qp_type;
	attr.sq_sig_all = 0;
	attr.cap.max_send_wr = (uint32_t)max_send_wr;
	attr.cap.max_recv_wr = (uint32_t)max_recv_wr;
	attr.cap.max_inline_data = (uint32_t)max_inline;
	attr.cap.max_send_sge = qp_sge_limit(id->verbs);
	attr.cap.max_recv_sge = attr.cap.max_send_sge;
	if (rdma_create_qp(id, disni_ptr(pd), &attr) != 0) {
		disni_throw_errno(env, "rdma_create_qp", errno);
		return -1;
	}
	return disni_handle(id->qp);
}

JNIEXPORT void JNICALL DISPATCHER(bindAddr)(JNIEnv *env, jobject self, jlong id, jlong addr)
{
	(void)self;
	if (disni_null(env, "rdma_bind_addr", "rdma_cm_id", id)
			|| disni_null(env, "rdma_bind_addr", "sockaddr", addr)) {
		return;
	}
	if (rdma_bind_addr(disni_ptr(id), disni_ptr(addr)) != 0) {
		disni_throw_errno(env, "rdma_bind_addr", errno);
	}
}

JNIEXPORT void JNICALL DISPATCHER(listen)(JNIEnv *env, jobject self, jlong id, jint backlog)
{
	(void)self;
	if (disni_null(env, "rdma_listen", "rdma_cm_id", id)) {
		return;
	}
	if (rdma_listen(disni_ptr(id), backlog) != 0) {
		disni_throw_errno(env, "rdma_listen", errno);
	}
}

JNIEXPORT void JNICALL DISPATCHER(resolveAddr)(JNIEnv *env, jobject self, jlong id, jlong src,
		jlong dst, jint timeout_ms)
{
	(void)self;
	if (disni_null(env, "rdma_resolve_addr", "rdma_cm_id", id)
			|| disni_null(env, "rdma_resolve_addr", "destination sockaddr", dst)) {
		return;
	}
	/* src 0 lets the kernel choose the local address from the routing table. */
	if (rdma_resolve_addr(disni_ptr(id), disni_ptr(src), disni_ptr(dst), timeout_ms) != 0) {
		disni_throw_errno(env, "rdma_resolve_addr", errno);
	}
}

JNIEXPORT void JNICALL DISPATCHER(resolveRoute)(JNIEnv *env, jobject self, jlong id, jint timeout_ms)
{
	(void)self;
	if (disni_null(env, "rdma_resolve_route", "rdma_cm_id", id)) {
		return;
	}
	if (rdma_resolve_route(disni_ptr(id), timeout_ms) != 0) {
		disni_throw_errno(env, "rdma_resolve_route", errno);
	}
}

/*
 * Returns the event type (the rdma_cm_event_type value, which DiSNI's RdmaCmEvent.EventType
 * mirrors by ordinal) and stores the listening id and the event's id at the two addresses, or
 * returns -1 when no event arrived within timeout_ms.
 *
 * The event is acknowledged here, right after its fields are copied: DiSNI's _ackCmEvent only
 * receives the event type, which cannot identify the event to release. Acknowledging early is
 * also what rdma_destroy_id needs (it waits for every event of the id to be acknowledged).
 */
JNIEXPORT jint JNICALL DISPATCHER(getCmEvent)(JNIEnv *env, jobject self, jlong channel_handle,
		jlong listen_id_out, jlong client_id_out, jint timeout_ms)
{
	(void)env;
	(void)self;
	struct rdma_event_channel *channel = disni_ptr(channel_handle);
	struct rdma_cm_event *event = NULL;
	if (channel_handle == 0) {
		return -1;
	}
	if (disni_wait_readable(channel->fd, timeout_ms) <= 0) {
		return -1;
	}
	if (rdma_get_cm_event(channel, &event) != 0) {
		return -1;
	}
	jint type = (jint)event->event;
	if ((event->event == RDMA_CM_EVENT_CONNECT_REQUEST || event->event == RDMA_CM_EVENT_ESTABLISHED
			|| event->event == RDMA_CM_EVENT_REJECTED) && event->id != NULL) {
		/* Gone once the event is acknowledged below; Creel's admission check reads it (creel_cm.c). */
		creel_keep_private_data(disni_handle(event->id), event->param.conn.private_data,
				event->param.conn.private_data_len);
	}
	if (listen_id_out != 0) {
		*(int64_t *)disni_ptr(listen_id_out) = (int64_t)disni_handle(event->listen_id);
	}
	if (client_id_out != 0) {
		*(int64_t *)disni_ptr(client_id_out) = (int64_t)disni_handle(event->id);
	}
	rdma_ack_cm_event(event);
	return type;
}

void disni_fill_conn_param(struct rdma_conn_param *param, jint retry, jint rnr_retry)
{
	memset(param, 0, sizeof(*param));
	/*
	 * DiSNI's Java side does not pass RDMA READ depths; without them a READ is refused. The
	 * "maximum" markers let librdmacm use what the device (and, when accepting, the peer) offers.
	 */
	param->responder_resources = RDMA_MAX_RESP_RES;
	param->initiator_depth = RDMA_MAX_INIT_DEPTH;
	/*
	 * DiSNI's RdmaConnParam starts both retry counts at 0, and callers that never set them (jNVMf
	 * 1.6 is one) would get a queue pair that breaks on the first late acknowledgement or
	 * receiver-not-ready (IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR): on RoCE, and on soft-RoCE
	 * under load, that is an ordinary event, not a failure. A 0 is read as "not set" and becomes 7,
	 * the most retries the verbs allow (for RNR: retry without limit). Creel's own connects set them.
	 */
	param->retry_count = (uint8_t)(retry > 0 ? retry : 7);
	param->rnr_retry_count = (uint8_t)(rnr_retry > 0 ? rnr_retry : 7);
}

JNIEXPORT void JNICALL DISPATCHER(connect)(JNIEnv *env, jobject self, jlong id, jint retry,
		jint rnr_retry, jlong private_data, jbyte private_data_len)
{
	(void)self;
	struct rdma_conn_param param;
	if (disni_null(env, "rdma_connect", "rdma_cm_id", id)) {
		return;
	}
	disni_fill_conn_param(&param, retry, rnr_retry);
	if (private_data != 0 && private_data_len != 0) {
		param.private_data = disni_ptr(private_data);
		param.private_data_len = (uint8_t)private_data_len;
	}
	if (rdma_connect(disni_ptr(id), &param) != 0) {
		disni_throw_errno(env, "rdma_connect", errno);
	}
}

JNIEXPORT void JNICALL DISPATCHER(accept)(JNIEnv *env, jobject self, jlong id, jint retry,
		jint rnr_retry)
{
	(void)self;
	struct rdma_conn_param param;
	if (disni_null(env, "rdma_accept", "rdma_cm_id", id)) {
		return;
	}
	disni_fill_conn_param(&param, retry, rnr_retry);
	if (rdma_accept(disni_ptr(id), &param) != 0) {
		disni_throw_errno(env, "rdma_accept", errno);
	}
}

/* Events are acknowledged when they are read (see _getCmEvent); nothing is left to release. */
JNIEXPORT jint JNICALL DISPATCHER(ackCmEvent)(JNIEnv *env, jobject self, jint event_type)
{
	(void)env;
	(void)self;
	return event_type >= 0 ? 0 : -1;
}

JNIEXPORT jint JNICALL DISPATCHER(disconnect)(JNIEnv *env, jobject self, jlong id)
{
	(void)env;
	(void)self;
	if (id == 0) {
		return -EINVAL;
	}
	return rdma_disconnect(disni_ptr(id)) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL DISPATCHER(destroyEventChannel)(JNIEnv *env, jobject self, jlong channel)
{
	(void)env;
	(void)self;
	if (channel == 0) {
		return -EINVAL;
	}
	rdma_destroy_event_channel(disni_ptr(channel));
	return 0;
}

JNIEXPORT jint JNICALL DISPATCHER(destroyCmId)(JNIEnv *env, jobject self, jlong id)
{
	(void)env;
	(void)self;
	if (id == 0) {
		return -EINVAL;
	}
	return rdma_destroy_id(disni_ptr(id)) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL DISPATCHER(destroyQP)(JNIEnv *env, jobject self, jlong id_handle)
{
	(void)env;
	(void)self;
	struct rdma_cm_id *id = disni_ptr(id_handle);
	if (id_handle == 0 || id->qp == NULL) {
		return -EINVAL;
	}
	rdma_destroy_qp(id);
	return 0;
}

/* Copies an IPv4 socket address into DiSNI's sockaddr_in buffer; other families are refused. */
static jint copy_ipv4(const struct sockaddr *from, jlong to)
{
	if (from == NULL || to == 0 || from->sa_family != AF_INET) {
		return -1;
	}
	memcpy(disni_ptr(to), from, sizeof(struct sockaddr_in));
	return 0;
}

JNIEXPORT jint JNICALL DISPATCHER(getSrcAddr)(JNIEnv *env, jobject self, jlong id, jlong addr)
{
	(void)env;
	(void)self;
	if (id == 0) {
		return -1;
	}
	return copy_ipv4(rdma_get_local_addr(disni_ptr(id)), addr);
}

JNIEXPORT jint JNICALL DISPATCHER(getDstAddr)(JNIEnv *env, jobject self, jlong id, jlong addr)
{
	(void)env;
	(void)self;
	if (id == 0) {
		return -1;
	}
	return copy_ipv4(rdma_get_peer_addr(disni_ptr(id)), addr);
}

JNIEXPORT jint JNICALL DISPATCHER(destroyEp)(JNIEnv *env, jobject self, jlong id)
{
	(void)env;
	(void)self;
	if (id == 0) {
		return -EINVAL;
	}
	rdma_destroy_ep(disni_ptr(id));
	return 0;
}
