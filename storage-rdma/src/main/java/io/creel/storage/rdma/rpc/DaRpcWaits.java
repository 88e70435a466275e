package io.creel.storage.rdma.rpc;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.RdmaCmEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the waits DaRPC and DiSNI leave open: an endpoint's connect and accept wait for connection
 * events without a limit (a peer that never answers, or rejects, leaves them waiting forever), and
 * closing a group waits on threads that may be stuck. Such calls run on daemon threads here, and a
 * wait past its limit is ended by handing the endpoint a DISCONNECTED event, which is what its loops
 * wait for; a close past its limit is abandoned with a log line.
 */
final class DaRpcWaits {
    private static final Logger LOG = LoggerFactory.getLogger(DaRpcWaits.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(daemon("timer"));

    private DaRpcWaits() {
    }

    /** Daemon threads named creel-rdma-rpc-{@code what}-N: nothing of DaRPC's may keep a JVM alive. */
    static ThreadFactory daemon(String what) {
        return r -> {
            Thread t = new Thread(r, "creel-rdma-rpc-" + what + "-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A blocking DaRPC step. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code step} on a daemon thread; past {@code limit} the endpoint gets a DISCONNECTED event
     * (ending its wait with an exception) and the future fails with a {@link TimeoutException}. A
     * value the step still produces after that goes to {@code late}, which releases it.
     */
    static <T> CompletableFuture<T> bounded(String what, Duration limit, RdmaEndpoint endpoint, Step<T> step,
                                            Consumer<T> late) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = daemon("connect").newThread(() -> {
            try {
                T value = step.run();
                if (!result.complete(value)) {
                    late.accept(value);
                }
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        });
        t.start();
        TIMER.schedule(() -> {
            if (result.completeExceptionally(new TimeoutException(what + " did not complete within "
                    + limit.toMillis() + " ms"))) {
                disconnect(endpoint);
            }
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
        return result;
    }

    /** Hands {@code endpoint} a DISCONNECTED event, so every wait of its own ends. */
    static void disconnect(RdmaEndpoint endpoint) {
        try {
            endpoint.dispatchCmEvent(new RdmaCmEvent(RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal(), null,
                    endpoint.getIdPriv()));
        } catch (IOException e) {
            LOG.debug("ending the waits of an RDMA endpoint: {}", e.toString());
        }
    }

    /** Ends a server endpoint's accept wait the same way. */
    static void disconnect(RdmaServerEndpoint<?> endpoint) {
        try {
            endpoint.dispatchCmEvent(new RdmaCmEvent(RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal(), null,
                    null));
        } catch (IOException e) {
            LOG.debug("ending the accept wait of an RDMA listener: {}", e.toString());
        }
    }

    /** A closing step that may hang inside DaRPC.  */
    @FunctionalInterface
    interface Closing {
        void run() throws IOException, InterruptedException;
    }

    /** Runs {@code close} on a daemon thread without waiting for it (from threads that must not block). */
    static void closeInBackground(String what, Closing close) {
        daemon("close").newThread(() -> {
            try {
                close.run();
            } catch (IOException | InterruptedException | RuntimeException e) {
                LOG.debug("{} failed: {}", what, e.toString());
            }
        }).start();
    }

    /** Runs {@code close} on a daemon thread and waits at most {@code limit} for it. */
    static void closeWithin(String what, Duration limit, Closing close) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        daemon("close").newThread(() -> {
            try {
                close.run();
                done.complete(null);
            } catch (IOException | InterruptedException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        }).start();
        try {
            done.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{} did not finish within {} ms; left to finish on its own", what, limit.toMillis());
        } catch (ExecutionException e) {
            LOG.warn("{} failed: {}", what, e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
