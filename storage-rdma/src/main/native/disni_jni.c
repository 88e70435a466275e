/* Creel's implementation of DiSNI 2.1's native contract: exceptions and descriptor helpers. */
#include "disni_jni.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static void throw_as(JNIEnv *env, const char *exception_class, const char *message)
{
	jclass cls = (*env)->FindClass(env, exception_class);
	if (cls != NULL) {
		(*env)->ThrowNew(env, cls, message);
	}
	/* When FindClass fails it has already raised NoClassDefFoundError, which is thrown instead. */
}

static void throw_io(JNIEnv *env, const char *message)
{
	throw_as(env, "java/io/IOException", message);
}

void disni_throw_errno_as(JNIEnv *env, const char *exception_class, const char *call, int err)
{
	char message[256];
	char text[128];
	/* GNU strerror_r may return a static string instead of filling text. */
	const char *reason = strerror_r(err, text, sizeof(text));
	snprintf(message, sizeof(message), "%s failed: %s (errno %d)", call, reason, err);
	throw_as(env, exception_class, message);
}

void disni_throw_errno(JNIEnv *env, const char *call, int err)
{
	disni_throw_errno_as(env, "java/io/IOException", call, err);
}

void disni_throw_msg(JNIEnv *env, const char *call, const char *what)
{
	char message[256];
	snprintf(message, sizeof(message), "%s: %s", call, what);
	throw_io(env, message);
}

int disni_null(JNIEnv *env, const char *call, const char *what, jlong handle)
{
	char message[128];
	if (handle != 0) {
		return 0;
	}
	snprintf(message, sizeof(message), "%s handle is 0 (object not created or already destroyed)", what);
	disni_throw_msg(env, call, message);
	return 1;
}

int disni_set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		return errno;
	}
	return 0;
}

int disni_wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
	int n = poll(&pfd, 1, timeout_ms < 0 ? -1 : timeout_ms);
	if (n < 0) {
		return errno == EINTR ? 0 : -errno;
	}
	return n > 0 ? 1 : 0;
}
