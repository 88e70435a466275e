/*
 * Creel's implementation of DiSNI 2.1's native contract: shared helpers.
 *
 * DiSNI's Java side (com.ibm.disni.verbs.impl.NativeDispatcher) passes every native object as a
 * Java long "object id". Here an object id is simply the address of the libibverbs / librdmacm
 * object (rdma_event_channel, rdma_cm_id, ibv_context, ibv_pd, ibv_comp_channel, ibv_cq, ibv_qp,
 * ibv_mr). Structures that the Java side lays out itself (work request lists, work completions,
 * socket addresses) are passed as the address of native memory it owns.
 *
 * Every entry point checks its handles for zero and turns failures into java.io.IOException with
 * the failing call and errno text, so a misuse from Java is an exception, never a crash.
 */
#ifndef CREEL_DISNI_JNI_H
#define CREEL_DISNI_JNI_H

#include <jni.h>
#include <stdint.h>

/* The version DiSNI 2.1's NativeDispatcher insists on (JVERBS_VERSION). */
#define DISNI_JNI_VERSION 32

static inline void *disni_ptr(jlong handle)
{
	return (void *)(intptr_t)handle;
}

static inline jlong disni_handle(const void *ptr)
{
	return (jlong)(intptr_t)ptr;
}

/* Throws java.io.IOException "<call> failed: <strerror(err)> (errno <err>)". */
void disni_throw_errno(JNIEnv *env, const char *call, int err);

/* Throws the given exception class (e.g. "java/lang/IllegalArgumentException") the same way. */
void disni_throw_errno_as(JNIEnv *env, const char *exception_class, const char *call, int err);

/* Throws java.io.IOException "<call>: <what>". */
void disni_throw_msg(JNIEnv *env, const char *call, const char *what);

/*
 * Throws "<call>: <what> handle is 0" and returns 1 when handle is zero, else returns 0.
 * Used as: if (disni_null(env, "rdma_listen", "rdma_cm_id", id)) return;
 */
int disni_null(JNIEnv *env, const char *call, const char *what, jlong handle);

/* Puts a file descriptor into non-blocking mode; returns 0 or an errno value. */
int disni_set_nonblocking(int fd);

/*
 * Waits until fd is readable. timeout_ms < 0 waits without limit (DiSNI's convention).
 * Returns 1 when readable, 0 on timeout or interruption, -errno on failure.
 */
int disni_wait_readable(int fd, int timeout_ms);

struct rdma_conn_param;

/* Fills a connection's parameters as DiSNI's _connect and _accept do (disni_cm.c). */
void disni_fill_conn_param(struct rdma_conn_param *param, jint retry, jint rnr_retry);

/* Keeps the private data of an id's setup event for CreelVerbs._takePrivateData (creel_cm.c). */
void creel_keep_private_data(jlong id, const void *data, uint8_t len);

#endif
