package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns a device's connection-manager event channel: every rdma_cm call on the
 * channel's ids and every event dispatch runs here, so DiSNI's per-channel id table is never used
 * from two threads. Tasks from other threads are run between short waits for events.
 */
final class CmEventLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CmEventLoop.class);
    /** How long one wait for an event lasts; tasks wait at most this long to start. */
    private static final int POLL_MS = 10;

    /** Reacts to the events of one id. */
    interface Handler {
        void onEvent(RdmaCmEvent.EventType type, RdmaCmEvent event);
    }

    private final RdmaEventChannel channel;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Map<RdmaCmId, Handler> handlers = new HashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Runnable lastAction;

    CmEventLoop(RdmaEventChannel channel, String name) {
        this.channel = channel;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Runs the task on the loop thread. */
    void execute(Runnable task) {
        tasks.add(task);
    }

    /**
     * Runs the call on the loop thread; the future carries its result or exception. Called on the
     * loop thread itself (a connect callback closing the device), it runs the queued tasks and then
     * the call at once: waiting for a task that thread would only run later could never end.
     */
    <T> CompletableFuture<T> call(Callable<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (Thread.currentThread() == thread) {
            runTasks(); // keep the order: what was queued before this call runs before it
            try {
                result.complete(call.call());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
            return result;
        }
        execute(() -> {
            try {
                result.complete(call.call());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Creates a reliable-connection id on the channel (loop thread only). */
    RdmaCmId createId() throws IOException {
        return channel.createId(RdmaCm.RDMA_PS_TCP);
    }

    /** Routes the id's events to the handler (loop thread only). */
    void register(RdmaCmId id, Handler handler) {
        handlers.put(id, handler);
    }

    /** Stops routing the id's events (loop thread only). */
    void unregister(RdmaCmId id) {
        handlers.remove(id);
    }

    private void run() {
        try {
            loop();
        } finally {
            Runnable last = lastAction;
            if (last != null) {
                last.run();
            }
        }
    }

    private void loop() {
        while (running) {
            runTasks();
            RdmaCmEvent event;
            try {
                event = channel.getCmEvent(POLL_MS);
            } catch (IOException e) {
                if (running) {
                    LOG.warn("waiting for RDMA connection events failed: {}", e.getMessage());
                    pause(); // never spin on a broken channel
                }
                continue;
            }
            if (event != null) {
                dispatch(event);
            }
        }
        runTasks();
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("an RDMA connection-manager task failed", e);
            }
        }
    }

    private void dispatch(RdmaCmEvent event) {
        RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
        int code = event.getEvent();
        if (code < 0 || code >= types.length) {
            LOG.warn("ignoring RDMA connection event with unknown type {}", code);
            return;
        }
        RdmaCmEvent.EventType type = types[code];
        RdmaCmId target = type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST ? event.getListenIdPriv()
                : event.getConnIdPriv();
        Handler handler = target == null ? null : handlers.get(target);
        if (handler == null) {
            LOG.debug("no handler for RDMA connection event {}", type);
        } else {
            try {
                handler.onEvent(type, event);
            } catch (RuntimeException e) {
                LOG.error("handling RDMA connection event {} failed", type, e);
            }
        }
        try {
            event.ackEvent();
        } catch (IOException e) {
            LOG.debug("acknowledging RDMA connection event {} failed: {}", type, e.getMessage());
        }
    }

    /**
     * Stops the loop: it runs the tasks already queued, then {@code last} (on the loop thread, after
     * every task, so ids are destroyed before their channel), then ends. Waits at most
     * {@code millis} for that unless called on the loop thread itself, where it all happens when
     * the current task returns.
     */
    void stop(Runnable last, long millis) {
        lastAction = last;
        running = false;
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("the RDMA connection-manager thread {} did not stop within {} ms; it finishes on its own",
                    thread.getName(), millis);
        }
    }

    @Override
    public void close() {
        stop(null, 2000);
    }
}
