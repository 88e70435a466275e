package io.creel.spark.shuffle;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostIdentity;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.format.ShufflePaths;
import io.creel.spark.shuffle.read.CreelShuffleReader;
import io.creel.spark.shuffle.read.MapOutputCatalog;
import io.creel.spark.shuffle.write.CreelShuffleWriter;
import io.creel.spark.shuffle.write.Lanes;
import io.creel.spark.shuffle.write.MapOutputFile;
import io.creel.spark.shuffle.write.MapOutputSink;
import io.creel.spark.shuffle.write.MergedMapOutput;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.ShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleManager;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark's {@code spark.shuffle.manager} for Creel: map tasks write their output into Creel, reduce
 * tasks read it from there, so shuffle data does not live in (or die with) executors.
 *
 * <p>Map side: {@link CreelShuffleWriter} partitions (and combines) records in the task's memory
 * and writes them into Creel; when memory runs short the buffer goes there as a run, so nothing is
 * written to the executor's local disk. Two layouts ({@code spark.creel.shuffle.layout}): per map,
 * one File per map task attempt with an index of its partitions; merged, a Bag per reduce partition
 * holding one File per lane (an executor's writer, used by one task at a time) of batches tagged
 * with their map attempt. Reduce side: {@link CreelShuffleReader} reads the pieces it needs straight
 * from those Files (per map: each map's range; merged: each partition's few Files, skipping batches
 * of attempts the driver did not register), checks each piece's checksum, and aggregates and sorts
 * as Spark does.
 *
 * <p>Every shuffle goes through Creel, whatever its serializer, except when
 * {@code spark.shuffle.useOldFetchProtocol} is on (map ids are then not attempt ids): those fall
 * back to Spark's sort shuffle, logged once per shuffle.
 *
 * <p>One instance per JVM: the driver's registers shuffles, creates and removes their directories;
 * executors' write and read. In local mode one instance does both.
 */
public final class CreelShuffleManager implements ShuffleManager {
    private static final Logger LOG = LoggerFactory.getLogger(CreelShuffleManager.class);
    static final String PLUGIN_KEY = "spark.shuffle.sort.io.plugin.class";
    private static final String LOCAL_DISK_PLUGIN = "org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO";

    private final SparkConf conf;
    private final boolean isDriver;
    private final SparkCreelConf settings;
    /** Shuffles that do not go through Creel, and the resolver serving their local files. */
    private final SortShuffleManager fallback;
    /** Spark's {@code spark.shuffle.spill.numElementsForceSpillThreshold}: map tasks flush after this many records. */
    private final long forceSpillRecords;
    private final Set<Integer> creelShuffles = ConcurrentHashMap.newKeySet();
    private final Map<Integer, String> fallbacks = new ConcurrentHashMap<>();
    /** This executor's lanes of each merged shuffle it wrote map outputs of. */
    private final Map<Integer, Lanes> lanes = new ConcurrentHashMap<>();
    /** This manager's hold on the process's client (shared with broadcasts: {@link SharedClients}). */
    private volatile SharedClient shared;
    private volatile MapOutputCatalog catalog;
    private volatile String appDir;
    private boolean stopped;

    public CreelShuffleManager(SparkConf conf, boolean isDriver) {
        this.conf = conf;
        this.isDriver = isDriver;
        this.settings = SparkCreelConf.from(conf);
        if (isDriver) {
            String plugin = conf.get(PLUGIN_KEY, LOCAL_DISK_PLUGIN);
            if (plugin.equals(LOCAL_DISK_PLUGIN)) {
                // SparkContext loads its driver components after the shuffle manager: this makes it
                // declare reliable storage without a second key for the user to set.
                conf.set(PLUGIN_KEY, CreelShuffleDataIO.class.getName());
            } else if (!plugin.equals(CreelShuffleDataIO.class.getName())) {
                LOG.warn("{} is {}, not {}: Spark will not know that Creel's shuffle data outlives executors and "
                        + "reruns maps of lost executors", PLUGIN_KEY, plugin, CreelShuffleDataIO.class.getName());
            }
        }
        // The fallback writes local files as Spark's sort shuffle does: with Creel's plugin set it gets
        // Spark's local-disk executor components (CreelShuffleDataIO.executor()).
        this.fallback = new SortShuffleManager(conf);
        this.forceSpillRecords = conf.getLong("spark.shuffle.spill.numElementsForceSpillThreshold", Long.MAX_VALUE);
    }

    /** The settings read from {@code spark.creel.*}. */
    public SparkCreelConf settings() {
        return settings;
    }

    /** Shuffles registered here that fell back to Spark's sort shuffle, with the reason logged for each. */
    public Map<Integer, String> fallbacks() {
        return Map.copyOf(fallbacks);
    }

    /**
     * This JVM's Creel client, connected on first use; the same one the JVM's broadcasts use. Do not
     * close it: the manager gives it back when it stops.
     */
    public CreelClient client() {
        SharedClient c = shared;
        if (c == null) {
            synchronized (this) {
                if (stopped) {
                    throw new IllegalStateException("the Creel shuffle manager is stopped");
                }
                if (shared == null) {
                    shared = SharedClients.acquire(settings.creel());
                }
                c = shared;
            }
        }
        return c.client();
    }

    private MapOutputCatalog catalog() {
        MapOutputCatalog c = catalog;
        if (c == null) {
            synchronized (this) {
                if (catalog == null) {
                    catalog = new MapOutputCatalog(client(), settings.indexCacheBytes(), timeout());
                }
                c = catalog;
            }
        }
        return c;
    }

    private Duration timeout() {
        return client().requestTimeout();
    }

    @Override
    public <K, V, C> ShuffleHandle registerShuffle(int shuffleId, ShuffleDependency<K, V, C> dependency) {
        String reason = fallbackReason(dependency);
        if (reason != null) {
            fallbacks.put(shuffleId, reason);
            LOG.info("shuffle {} uses Spark's sort shuffle, not Creel: {}", shuffleId, reason);
            return fallback.registerShuffle(shuffleId, dependency);
        }
        String dir = ShufflePaths.shuffleDir(applicationDirectory(), shuffleId);
        createDirectory(dir);
        creelShuffles.add(shuffleId);
        CreelShuffleHandle.WriterKind kind;
        if (dependency.mapSideCombine()) {
            kind = CreelShuffleHandle.WriterKind.COMBINING;
        } else if (dependency.serializer().supportsRelocationOfSerializedObjects()) {
            kind = CreelShuffleHandle.WriterKind.SERIALIZED;
        } else {
            kind = CreelShuffleHandle.WriterKind.OBJECTS;
        }
        int reducers = dependency.partitioner().numPartitions();
        boolean merged = settings.merged(dependency.rdd().getNumPartitions(), reducers);
        if (merged) {
            createPartitionBags(dir, reducers);
        }
        LOG.debug("shuffle {} goes through Creel at {} ({} writer, {} layout)", shuffleId, dir, kind,
                merged ? "merged" : "per-map");
        return new CreelShuffleHandle<>(shuffleId, dependency, dir, kind, merged);
    }

    /**
     * The merged layout's Bag of every reduce partition, made here once rather than by each lane's
     * first task (which would race the other lanes to it, a failed create and a retry each), a
     * thousand creates in flight at a time.
     */
    private void createPartitionBags(String dir, int reducers) {
        for (int from = 0; from < reducers; from += 1000) {
            int to = Math.min(reducers, from + 1000);
            java.util.List<java.util.concurrent.CompletableFuture<?>> creates = new java.util.ArrayList<>(to - from);
            for (int p = from; p < to; p++) {
                creates.add(client().create(ShufflePaths.partitionBag(dir, p), NodeType.BAG).exceptionallyCompose(t -> {
                    CreelException e = CreelException.unwrap(t);
                    return e.code() == ErrorCode.ALREADY_EXISTS ? java.util.concurrent.CompletableFuture.completedFuture(null)
                            : java.util.concurrent.CompletableFuture.failedFuture(e);
                }));
            }
            try {
                Futures.await(java.util.concurrent.CompletableFuture.allOf(
                        creates.toArray(java.util.concurrent.CompletableFuture[]::new)), timeout(),
                        "creating the partition Bags " + from + ".." + (to - 1) + " of " + dir);
            } catch (CreelException e) {
                throw new CreelException(e.code(), "cannot create the shuffle's partition Bags in Creel: "
                        + e.getMessage(), e);
            }
        }
    }

    /** Why a shuffle cannot go through Creel, or null if it can. */
    private String fallbackReason(ShuffleDependency<?, ?, ?> dependency) {
        if (conf.getBoolean("spark.shuffle.useOldFetchProtocol", false)) {
            return "spark.shuffle.useOldFetchProtocol is on, so map ids do not tell task attempts apart";
        }
        return null;
    }

    /**
     * The application's directory, made (with the root) on the first shuffle; it expires with the
     * driver's client session.
     */
    private synchronized String applicationDirectory() {
        if (appDir == null) {
            String appId = conf.getAppId();
            String attempt = conf.get("spark.app.attempt.id", "");
            String name = attempt.isEmpty() ? appId : appId + "_" + attempt;
            createDirectory(settings.root(), CreateOptions.defaults());
            String dir = ShufflePaths.appDir(settings.root(), name);
            // Bound to the driver's session: a crashed driver's shuffle data goes by itself, once its
            // client's heartbeats have stopped for creel.namenode.session.timeout. Map outputs, written
            // by executors without an expiry of their own, go with it; an executor's end takes none.
            createDirectory(dir, CreateOptions.defaults().withExpiry(io.creel.common.protocol.Expiry.session()));
            appDir = dir;
        }
        return appDir;
    }

    private void createDirectory(String path) {
        createDirectory(path, CreateOptions.defaults());
    }

    private void createDirectory(String path, CreateOptions options) {
        try {
            Futures.await(client().create(path, NodeType.DIRECTORY, options), timeout(), "creating " + path);
        } catch (CreelException e) {
            if (e.code() != ErrorCode.ALREADY_EXISTS) {
                throw new CreelException(e.code(), "cannot create the shuffle directory " + path + " in Creel ("
                        + settings.creel().get(io.creel.common.conf.ConfKeys.NAMENODE_ADDRESS) + "): "
                        + e.getMessage(), e);
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> ShuffleWriter<K, V> getWriter(ShuffleHandle handle, long mapId, TaskContext context,
                                                ShuffleWriteMetricsReporter metrics) {
        if (!(handle instanceof CreelShuffleHandle)) {
            return fallback.getWriter(handle, mapId, context, metrics);
        }
        CreelShuffleHandle<K, V, Object> h = (CreelShuffleHandle<K, V, Object>) handle;
        CreateOptions placement = CreateOptions.defaults().withStorageClass(settings.storageClass())
                .withReplication(settings.replication()); // with preferLocal, the first copy is this host's
        if (settings.preferLocal()) {
            placement = placement.withLocationClass(HostIdentity.hostName());
        }
        int partitions = h.dependency().partitioner().numPartitions();
        SparkEnv env = SparkEnv.get();
        MapOutputSink file;
        if (h.merged()) {
            CreateOptions lanePlacement = placement;
            Lanes l = lanes.computeIfAbsent(h.shuffleId(), id -> new Lanes(client(), h.directory(), env.executorId(),
                    lanePlacement, timeout()));
            file = new MergedMapOutput(l, context.partitionId(), mapId, partitions);
        } else {
            file = new MapOutputFile(client(), ShufflePaths.mapOutput(h.directory(), context.partitionId(), mapId),
                    partitions, placement, timeout());
        }
        return new CreelShuffleWriter<>(h, mapId, file, context, env.serializerManager(),
                env.blockManager().shuffleServerId(), forceSpillRecords, metrics);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, C> ShuffleReader<K, C> getReader(ShuffleHandle handle, int startMapIndex, int endMapIndex,
                                                int startPartition, int endPartition, TaskContext context,
                                                ShuffleReadMetricsReporter metrics) {
        if (!(handle instanceof CreelShuffleHandle)) {
            return fallback.getReader(handle, startMapIndex, endMapIndex, startPartition, endPartition, context,
                    metrics);
        }
        return new CreelShuffleReader<>((CreelShuffleHandle<K, ?, C>) handle, startMapIndex, endMapIndex,
                startPartition, endPartition, context, metrics, catalog(), settings);
    }

    /**
     * Forgets a shuffle. On the driver this removes its Creel directory with every map output in it
     * (Spark calls this on the driver and every executor when the shuffle is no longer referenced);
     * executors drop their cached indexes of it.
     */
    @Override
    public boolean unregisterShuffle(int shuffleId) {
        boolean ok = fallback.unregisterShuffle(shuffleId);
        fallbacks.remove(shuffleId);
        Lanes l = lanes.remove(shuffleId);
        if (l != null) {
            l.close(); // before the driver (in local mode, this JVM) removes the directory
        }
        MapOutputCatalog c = catalog;
        if (c != null) {
            c.forget(shuffleId);
        }
        String dir = appDir;
        if (isDriver && dir != null && creelShuffles.remove(shuffleId)) {
            ok &= delete(client(), ShufflePaths.shuffleDir(dir, shuffleId));
        }
        return ok;
    }

    private static boolean delete(CreelClient c, String path) {
        try {
            Futures.await(c.delete(path, true), c.requestTimeout(), "removing " + path);
            return true;
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return true;
            }
            LOG.warn("could not remove shuffle data {} from Creel: {}", path, e.getMessage());
            return false;
        }
    }

    @Override
    public ShuffleBlockResolver shuffleBlockResolver() {
        return fallback.shuffleBlockResolver();
    }

    /** On the driver, removes the application's shuffle data; then gives the Creel client back. */
    @Override
    public void stop() {
        String dir;
        SharedClient c;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            dir = appDir;
            c = shared;
            shared = null; // client() now says the manager is stopped
        }
        try {
            fallback.stop();
            lanes.values().forEach(Lanes::close);
            lanes.clear();
            if (c != null && isDriver && dir != null) {
                delete(c.client(), dir);
            }
        } finally {
            if (c != null) {
                c.close();
            }
        }
    }
}
