package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that takes a device's work completions: it sleeps on the completion channel, re-arms
 * the notification, and drains the completion queue, handing each completion to the device.
 * Waits are bounded ({@link #WAIT_MS}) so the thread notices close without a wake-up.
 */
final class CompletionPoller implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);
    private static final int WAIT_MS = 50;
    private static final int BATCH = 32;

    /** Receives each completion: work request id and status (0 = success). */
    interface Sink {
        void completion(long wrId, int status);
    }

    private final IbvCompChannel channel;
    private final IbvCQ cq;
    private final Sink sink;
    private final IbvWC[] completions = new IbvWC[BATCH];
    private final SVCPollCq poll;
    private final SVCReqNotify notify;
    private final Thread thread;
    private volatile boolean running = true;

    CompletionPoller(IbvCompChannel channel, IbvCQ cq, Sink sink, String name) throws IOException {
        this.channel = channel;
        this.cq = cq;
        this.sink = sink;
        for (int i = 0; i < BATCH; i++) {
            completions[i] = new IbvWC();
        }
        this.poll = cq.poll(completions, BATCH);
        this.notify = cq.reqNotification(false);
        this.notify.execute();
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        while (running) {
            try {
                if (channel.getCqEvent(cq, WAIT_MS)) {
                    cq.ackEvents(1);
                    notify.execute();
                }
                drain();
            } catch (IOException | RuntimeException e) {
                if (running) {
                    LOG.error("taking RDMA completions failed", e);
                    pause(); // a broken queue must not turn this loop into a busy one
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void drain() throws IOException {
        int n;
        while ((n = poll.execute().getPolls()) > 0) {
            for (int i = 0; i < n; i++) {
                sink.completion(completions[i].getWr_id(), completions[i].getStatus());
            }
        }
    }

    /**
     * Stops the thread. Returns true when it has stopped, so the queue and channel may be
     * destroyed; false when it may still be inside a native call on them (then they must be left
     * alone). Closed from a completion callback, the thread stops when the callback returns; DiSNI
     * refuses calls on a destroyed queue, so destroying it meanwhile is safe: returns true.
     */
    boolean stop() {
        running = false;
        if (Thread.currentThread() == thread) {
            return true;
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("the RDMA completion thread {} did not stop within 2 s; its queue is left allocated",
                    thread.getName());
            return false;
        }
        poll.free();
        notify.free();
        return true;
    }

    @Override
    public void close() {
        stop();
    }
}
