/*
 * Creel's own connection-manager entry points: the private data of connection setup, which DiSNI
 * 2.1's Java side cannot reach. Its _getCmEvent returns only an event's type and ids (the private
 * data a CONNECT_REQUEST, ESTABLISHED or REJECTED event carries is lost), its _accept passes no
 * private data, and it has no reject at all. The exporter's admission check (a challenge-response
 * in private data) needs all three.
 *
 * _getCmEvent (disni_cm.c) acknowledges each event as it reads it, so the private data is copied
 * into a small table keyed by the event's id before that; CreelVerbs._takePrivateData takes it
 * out. The table is bounded: when it is full the oldest entry is dropped (its connection then
 * looks as if it carried none, and is refused).
 *
 * Java side: io.creel.storage.rdma.disni.CreelVerbs.
 */
#include "disni_jni.h"

#include <errno.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <string.h>

#define CREEL(name) Java_io_creel_storage_rdma_disni_CreelVerbs__1##name

/* Largest private data of any connection-manager message (an accept's: 196 bytes on IB/RoCE). */
#define CREEL_PRIVATE_MAX 256
#define CREEL_PRIVATE_SLOTS 256

struct creel_private {
	jlong id;
	uint8_t len;
	uint8_t data[CREEL_PRIVATE_MAX];
};

static struct creel_private table[CREEL_PRIVATE_SLOTS];
static unsigned next_victim;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

void creel_keep_private_data(jlong id, const void *data, uint8_t len)
{
	if (id == 0 || data == NULL || len == 0) {
		return;
	}
	pthread_mutex_lock(&table_lock);
	struct creel_private *slot = NULL;
	for (unsigned i = 0; i < CREEL_PRIVATE_SLOTS; i++) {
		if (table[i].id == id || (slot == NULL && table[i].id == 0)) {
			slot = &table[i];
			if (table[i].id == id) {
				break;
			}
		}
	}
	if (slot == NULL) {
		slot = &table[next_victim];
		next_victim = (next_victim + 1) % CREEL_PRIVATE_SLOTS;
	}
	slot->id = id;
	slot->len = len;
	memcpy(slot->data, data, len);
	pthread_mutex_unlock(&table_lock);
}

/* The private data kept for the id's last setup event (and forgets it), or null if there is none. */
JNIEXPORT jbyteArray JNICALL CREEL(takePrivateData)(JNIEnv *env, jclass cls, jlong id)
{
	(void)cls;
	uint8_t copy[CREEL_PRIVATE_MAX];
	int len = -1;
	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < CREEL_PRIVATE_SLOTS; i++) {
		if (table[i].id == id && id != 0) {
			len = table[i].len;
			memcpy(copy, table[i].data, (size_t)len);
			table[i].id = 0;
			break;
		}
	}
	pthread_mutex_unlock(&table_lock);
	if (len < 0) {
		return NULL;
	}
	jbyteArray out = (*env)->NewByteArray(env, len);
	if (out != NULL) {
		(*env)->SetByteArrayRegion(env, out, 0, len, (const jbyte *)copy);
	}
	return out;
}

/* Copies a Java byte array of at most `max` bytes; returns its length, or -1 with an exception pending. */
static int private_bytes(JNIEnv *env, const char *call, jbyteArray data, uint8_t *out, int max)
{
	if (data == NULL) {
		return 0;
	}
	jsize len = (*env)->GetArrayLength(env, data);
	if (len > max) {
		disni_throw_msg(env, call, "private data longer than the connection manager carries");
		return -1;
	}
	(*env)->GetByteArrayRegion(env, data, 0, len, (jbyte *)out);
	return (int)len;
}

JNIEXPORT void JNICALL CREEL(connect)(JNIEnv *env, jclass cls, jlong id, jint retry, jint rnr_retry,
		jbyteArray data)
{
	(void)cls;
	uint8_t bytes[CREEL_PRIVATE_MAX];
	struct rdma_conn_param param;
	if (disni_null(env, "rdma_connect", "rdma_cm_id", id)) {
		return;
	}
	int len = private_bytes(env, "rdma_connect", data, bytes, 56);
	if (len < 0) {
		return;
	}
	disni_fill_conn_param(&param, retry, rnr_retry);
	param.private_data = len > 0 ? bytes : NULL;
	param.private_data_len = (uint8_t)len;
	if (rdma_connect(disni_ptr(id), &param) != 0) {
		disni_throw_errno(env, "rdma_connect", errno);
	}
}

JNIEXPORT void JNICALL CREEL(accept)(JNIEnv *env, jclass cls, jlong id, jint retry, jint rnr_retry,
		jbyteArray data)
{
	(void)cls;
	uint8_t bytes[CREEL_PRIVATE_MAX];
	struct rdma_conn_param param;
	if (disni_null(env, "rdma_accept", "rdma_cm_id", id)) {
		return;
	}
	int len = private_bytes(env, "rdma_accept", data, bytes, 196);
	if (len < 0) {
		return;
	}
	disni_fill_conn_param(&param, retry, rnr_retry);
	param.private_data = len > 0 ? bytes : NULL;
	param.private_data_len = (uint8_t)len;
	if (rdma_accept(disni_ptr(id), &param) != 0) {
		disni_throw_errno(env, "rdma_accept", errno);
	}
}

JNIEXPORT void JNICALL CREEL(reject)(JNIEnv *env, jclass cls, jlong id, jbyteArray data)
{
	(void)cls;
	uint8_t bytes[CREEL_PRIVATE_MAX];
	if (disni_null(env, "rdma_reject", "rdma_cm_id", id)) {
		return;
	}
	int len = private_bytes(env, "rdma_reject", data, bytes, 148);
	if (len < 0) {
		return;
	}
	if (rdma_reject(disni_ptr(id), len > 0 ? bytes : NULL, (uint8_t)len) != 0) {
		disni_throw_errno(env, "rdma_reject", errno);
	}
}
