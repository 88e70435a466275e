package io.creel.spark.broadcast;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.serializer.SerializationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.reflect.ClassTag;

/**
 * The driver's broadcasts of one application: writes each value to its File, removes a
 * broadcast's File on destroy, when the driver no longer references the broadcast (the cleaner,
 * fed by the garbage collector as Spark's ContextCleaner is), and all of them when the application
 * ends ({@link #stop()}, called by the plugin's driver component). The application's directory is
 * bound to the driver's Creel session: if the driver crashes, the namenode removes it with every
 * broadcast in it once the session times out.
 */
public final class DriverBroadcasts {
    private static final Logger LOG = LoggerFactory.getLogger(DriverBroadcasts.class);
    private static final AtomicReference<DriverBroadcasts> ACTIVE = new AtomicReference<>();
    /**
     * Our ids start far above the ones Spark's torrent broadcast counts up from 0: both kinds keep
     * their executor copies in the block manager under {@code broadcast_<id>}, and Spark's
     * ContextCleaner removes torrent broadcasts by id.
     */
    static final long FIRST_ID = 1L << 60;

    private final SparkContext sc;
    private final BroadcastSettings settings;
    /** The driver's hold on the process's client (the shuffle manager's, when both are in use). */
    private final SharedClient shared;
    private final CreelClient client;
    /** Set at the first broadcast: plugins start before Spark knows the application id. */
    private String appDir;
    private final AtomicLong nextId = new AtomicLong(FIRST_ID);
    private final ReferenceQueue<StoredBroadcast<?>> collected = new ReferenceQueue<>();
    private final Map<Long, Tracked> live = new ConcurrentHashMap<>();
    private final Thread cleaner;
    private boolean appDirMade;
    private volatile boolean stopped;

    /** A broadcast the driver may still reference; enqueued once it does not. */
    private static final class Tracked extends WeakReference<StoredBroadcast<?>> {
        final long id;
        final String path;

        Tracked(StoredBroadcast<?> b, ReferenceQueue<StoredBroadcast<?>> q) {
            super(b, q);
            this.id = b.id();
            this.path = b.path();
        }
    }

    private DriverBroadcasts(SparkContext sc, BroadcastSettings settings, SharedClient shared) {
        this.sc = sc;
        this.settings = settings;
        this.shared = shared;
        this.client = shared.client();
        this.cleaner = new Thread(this::clean, "creel-broadcast-cleaner");
        this.cleaner.setDaemon(true);
    }

    /** Starts the driver side for {@code sc}'s application (the plugin's driver component calls it). */
    static DriverBroadcasts start(SparkContext sc) {
        BroadcastSettings s = BroadcastSettings.from(sc.getConf());
        DriverBroadcasts d = new DriverBroadcasts(sc, s, SharedClients.acquire(s.client().creel()));
        DriverBroadcasts previous = ACTIVE.getAndSet(d);
        if (previous != null) {
            LOG.warn("Creel broadcasts of an earlier SparkContext were still active ({}); removing them",
                    previous.appDirOrNone());
            previous.stop();
        }
        d.cleaner.start();
        return d;
    }

    /** The driver side of {@code sc}'s application; fails naming the plugin key when the plugin is not loaded. */
    static DriverBroadcasts of(SparkContext sc) {
        DriverBroadcasts d = ACTIVE.get();
        if (d == null || d.stopped || d.sc != sc) {
            throw new IllegalStateException("Creel broadcasts need the plugin: add " + CreelBroadcastPlugin.class.getName()
                    + " to spark.plugins (it removes the application's broadcasts from Creel when it ends)");
        }
        return d;
    }

    /** Removes broadcast {@code id}'s File if its application is still running (after it ended, stop() removed it). */
    static void removeIfActive(long id, String path) {
        DriverBroadcasts d = ACTIVE.get();
        if (d != null && !d.stopped && path.startsWith(d.appDirOrNone() + "/")) {
            d.live.remove(id);
            d.delete(path, "destroyed broadcast " + id);
        }
    }

    /** The application's directory in Creel, or "(none)" before the first broadcast. */
    synchronized String appDirOrNone() {
        return appDir == null ? "(none)" : appDir;
    }

    /** Serializes {@code value} with Spark's serializer into a new File; the result reads it back anywhere. */
    <T> StoredBroadcast<T> broadcast(T value, ClassTag<T> tag) {
        long id = nextId.getAndIncrement();
        String path = BroadcastPaths.broadcastFile(ensureAppDir(), id);
        long length = write(path, value, tag);
        StoredBroadcast<T> b = new StoredBroadcast<>(id, path, length, value, tag);
        live.put(id, new Tracked(b, collected));
        return b;
    }

    private synchronized String ensureAppDir() {
        if (stopped) {
            throw new IllegalStateException("the application's Creel broadcasts were removed at its end ("
                    + appDirOrNone() + ")");
        }
        if (!appDirMade) {
            String attempt = sc.applicationAttemptId().isDefined() ? "_" + sc.applicationAttemptId().get() : "";
            String dir = BroadcastPaths.appDir(settings.root(), sc.applicationId() + attempt);
            mkdir(settings.root(), CreateOptions.defaults());
            // Bound to the driver's session: a crashed driver's broadcasts go by themselves.
            mkdir(dir, CreateOptions.defaults().withExpiry(io.creel.common.protocol.Expiry.session()));
            appDir = dir;
            appDirMade = true;
        }
        return appDir;
    }

    private void mkdir(String path, CreateOptions options) {
        try {
            Futures.await(client.create(path, NodeType.DIRECTORY, options), client.requestTimeout(), "creating " + path);
        } catch (CreelException e) {
            if (e.code() != ErrorCode.ALREADY_EXISTS) {
                throw new CreelBroadcastException("cannot create the broadcast directory " + path + " in Creel at "
                        + namenode() + ": " + e.getMessage(), e);
            }
        }
    }

    private <T> long write(String path, T value, ClassTag<T> tag) {
        CreateOptions options = (settings.storageClass().isEmpty() ? CreateOptions.defaults()
                : CreateOptions.defaults().withStorageClass(settings.storageClass()))
                .withReplication(settings.replication());
        CreelNode node;
        try {
            node = Futures.await(client.create(path, NodeType.FILE, options), client.requestTimeout(),
                    "creating " + path);
        } catch (CreelException e) {
            throw new CreelBroadcastException("cannot create broadcast File " + path + " in Creel at " + namenode()
                    + ": " + e.getMessage(), e);
        }
        CountingStream counted = new CountingStream(node.outputStream());
        try {
            SerializationStream out = SparkEnv.get().serializer().newInstance().serializeStream(counted);
            out.writeObject(value, tag);
            out.close(); // closes the File, which publishes it
            return counted.count;
        } catch (Exception e) { // Scala serializers throw IOException undeclared
            counted.abandon();
            delete(path, "partly written broadcast");
            throw new CreelBroadcastException("cannot write broadcast File " + path + " (" + counted.count
                    + " bytes written) to Creel at " + namenode() + ": " + e, e);
        }
    }

    private String namenode() {
        return String.valueOf(settings.client().creel().get(ConfKeys.NAMENODE_ADDRESS));
    }

    private boolean delete(String path, String what) {
        try {
            Futures.await(client.delete(path, true), client.requestTimeout(), "removing " + path);
            return true;
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return true;
            }
            LOG.warn("could not remove {} {} from Creel: {}", what, path, e.getMessage());
            return false;
        }
    }

    /** Removes the broadcasts the garbage collector found unreferenced, until stopped. */
    private void clean() {
        while (!stopped) {
            Reference<? extends StoredBroadcast<?>> r;
            try {
                r = collected.remove(1000);
            } catch (InterruptedException e) {
                return;
            }
            if (r instanceof Tracked t && live.remove(t.id) != null) {
                SparkEnv env = SparkEnv.get();
                if (env != null) {
                    try {
                        env.blockManager().master().removeBroadcast(t.id, true, false);
                    } catch (RuntimeException e) {
                        LOG.warn("could not ask executors to drop Creel broadcast {}: {}", t.id, e.getMessage());
                    }
                }
                delete(t.path, "unreferenced broadcast");
            }
        }
    }

    /** Removes every broadcast of the application and gives the client back; idempotent. */
    void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        ACTIVE.compareAndSet(this, null);
        cleaner.interrupt();
        try {
            cleaner.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            String dir;
            synchronized (this) {
                dir = appDir;
            }
            if (dir != null) {
                delete(dir, "the application's broadcasts");
            }
            live.clear();
        } finally {
            shared.close();
        }
    }

    /** Counts what the serializer wrote; abandoning it closes the File so the partial File can be removed. */
    private static final class CountingStream extends OutputStream {
        private final OutputStream out;
        long count;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }

        void abandon() {
            try {
                out.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing an abandoned broadcast File: {}", e.getMessage());
            }
        }
    }
}
