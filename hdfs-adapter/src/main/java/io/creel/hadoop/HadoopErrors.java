package io.creel.hadoop;

import io.creel.client.CreelIOException;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;

/**
 * Turns Creel's errors into the {@link IOException} subclasses Hadoop callers test for
 * ({@link FileNotFoundException}, {@link FileAlreadyExistsException}, ...), keeping Creel's message
 * (which names the path and the rule) and the {@link CreelException} as the cause.
 */
final class HadoopErrors {
    private HadoopErrors() {
    }

    /** Waits for {@code f} at most {@code timeout}; a failure becomes the matching Hadoop exception. */
    static <T> T await(CompletableFuture<T> f, Duration timeout, String what) throws IOException {
        try {
            return Futures.await(f, timeout, what);
        } catch (CreelException e) {
            throw toIOException(e);
        }
    }

    /** The Hadoop exception for a Creel error. */
    static IOException toIOException(CreelException e) {
        IOException io = switch (e.code()) {
            case NOT_FOUND -> new FileNotFoundException(e.getMessage());
            case ALREADY_EXISTS -> new FileAlreadyExistsException(e.getMessage());
            case NOT_EMPTY -> new PathIsNotEmptyDirectoryException(e.getMessage());
            case NOT_A_CONTAINER, INVALID_PARENT -> new ParentNotDirectoryException(e.getMessage());
            case PERMISSION_DENIED, UNAUTHENTICATED ->
                    new org.apache.hadoop.security.AccessControlException(e.getMessage());
            default -> null;
        };
        if (io == null) {
            return new CreelIOException(e);
        }
        io.initCause(e);
        return io;
    }
}
