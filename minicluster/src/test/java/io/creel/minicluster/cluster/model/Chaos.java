package io.creel.minicluster.cluster.model;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeServer;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The faults of the model test's chaos mode ({@code -Dcreel.model.chaos=true}) and what they allow:
 * storage servers killed and started again (DRAM and disk; persistent ones keep their data, others
 * lose it), namenodes restarted from their log, every client connection to the namenodes cut. It
 * remembers which servers are down or lost their data, so the run can tell a clear error about
 * data whose server died (allowed) from any other failure (a mismatch). Derived from the seed alone.
 *
 * <p>With a replication factor above 1 (the replication mode) every block of a File or KeyValue has
 * that many copies on servers of different hosts, and a server is killed only while the cluster is
 * whole: no server down, the last one killed declared dead, no block short of its factor (the
 * namenodes have repaired what the last kill took) and no writer held open across operations (see
 * {@link #mayKill}). Then no kill can take a block's last copy, and the run allows no lost data at
 * all; only a directory's records, which have one copy, may still be lost with their server.
 */
final class Chaos implements AutoCloseable {
    /** A storage-server error a reader may get for data on a server that died. */
    static final Set<ErrorCode> LOSS = Set.of(ErrorCode.UNAVAILABLE, ErrorCode.SERVER_UNKNOWN, ErrorCode.TIMEOUT);
    /** How long the namenodes may take to see a restarted server (or restarted namenode) registered. */
    private static final long SETTLE_MILLIS = 30_000;
    /** The namenodes' server timeout in the chaos mode. */
    private static final long SERVER_TIMEOUT_MILLIS = 3_000;

    /**
     * Settings every chaos cluster gets on top of its shape: fast heartbeats, a log, short timeouts;
     * and the namenodes' replication factor for Files and KeyValues.
     */
    static Map<String, String> settings(long seed, String logDir, int replication) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("creel.namenode.replication", Integer.toString(replication));
        s.put("creel.namenode.log.dir", logDir);
        s.put("creel.storage.heartbeat.interval", "100ms");
        // Long enough that a loaded machine's pauses never make a live server look dead (then its
        // data would be refused, which the model does not allow), short enough to see real deaths.
        s.put("creel.namenode.server.timeout", SERVER_TIMEOUT_MILLIS + "ms");
        s.put("creel.client.connect.timeout", "2s");
        s.put("creel.storage.persistent", Boolean.toString(persistent(seed)));
        // A client whose connection the chaos cut keeps its leases this long (it retries and writes
        // on); short, since the run waits that long for the leases of a client it closed.
        s.put("creel.namenode.retry.lease.hold", "2s");
        return s;
    }

    /** Whether the seed's storage servers keep their data across a restart. */
    static boolean persistent(long seed) {
        return new SplittableRandom(seed ^ 0x5DEECE66DL).nextBoolean();
    }

    /** How long the replication mode waits for the cluster to be whole before it lets a kill go by. */
    private static final long WHOLE_MILLIS = 10_000;

    private final MiniCluster cluster;
    private final int replication;
    private final SplittableRandom random;
    private final boolean persistent;
    private final List<CuttableProxy> proxies = new ArrayList<>();
    /** Server address -> why reads of its blocks may fail (down now, or came back without its data). */
    private final Map<String, String> lost = new HashMap<>();
    /** Stopped server index -> the step at which it starts again. */
    private final Map<Integer, Integer> restartAt = new HashMap<>();
    private int kills;
    private int namenodeRestarts;
    private int cuts;
    /** When a namenode last restarted or a server was last killed (System.nanoTime), 0 if never. */
    private long lastFault;
    /** When a namenode last restarted (System.nanoTime), 0 if never. */
    private long lastNamenodeRestart;
    /** Kills the replication mode let go by because the cluster was not whole in time. */
    private int killsSkipped;
    /** The namenodes' failed repairs when the replication mode last asked. */
    private long failedRepairsSeen;

    Chaos(long seed, MiniCluster cluster, int replication) {
        this.cluster = cluster;
        this.replication = replication;
        this.random = new SplittableRandom(seed ^ 0xC4A05L);
        this.persistent = persistent(seed);
        for (NamenodeServer nn : cluster.namenodes()) {
            proxies.add(new CuttableProxy(new HostPort("127.0.0.1", nn.port())));
        }
    }

    /** The random stream of chaos decisions (which fault, when, where). */
    SplittableRandom random() {
        return random;
    }

    /** Client configuration that reaches the namenodes through the cuttable proxies. */
    CreelConf clientConf(boolean localAccess) {
        List<String> addresses = proxies.stream().map(p -> p.address().toUri()).toList();
        return cluster.clientConf().with(ConfKeys.NAMENODE_ADDRESS, String.join(",", addresses))
                .with(LocalTierKeys.LOCAL_ACCESS, Boolean.toString(localAccess));
    }

    /**
     * Kills a running storage server, to start again {@code after} steps from {@code step} (0: at
     * once). Its blocks are lost for good unless the servers are persistent, then only while it is
     * down. Returns what happened, for the trace.
     */
    String killServer(int step, int after) {
        List<Integer> running = new ArrayList<>();
        for (int i = 0; i < cluster.storageServerCount(); i++) {
            if (cluster.storageServer(i) != null) {
                running.add(i);
            }
        }
        if (running.isEmpty()) {
            return "no storage server runs";
        }
        int index = running.get(random.nextInt(running.size()));
        StorageServerRuntime victim = cluster.storageServer(index);
        String address = victim.info().address();
        String tier = cluster.storageServerTier(index);
        lost.put(address, tier + " server " + address + " killed at step " + step
                + (persistent ? " (persistent: its data returns with it)" : " (its data is gone)"));
        cluster.stopStorageServer(index);
        kills++;
        lastFault = System.nanoTime();
        String what = "killed " + tier + " server " + index + " at " + address;
        if (after == 0) {
            return what + "; " + start(index);
        }
        restartAt.put(index, step + after);
        return what + "; it starts again at step " + (step + after);
    }

    /** Whether blocks have more than one copy here (the replication mode). */
    boolean replicated() {
        return replication > 1;
    }

    int replication() {
        return replication;
    }

    /**
     * In the replication mode, whether a server may be killed now without taking the last copy of
     * any block: every storage server runs, every namenode has caught up with the kills (it reports
     * each running server live and every identity a kill ended dead: until then it counts no block
     * of that server short, nor repairs it), no writer is held open ({@code openWriter}, its path, or
     * null), and fsck through {@code client} finds no block short of its factor and none without a
     * live copy. Waits for that while the repair is under way (at most
     * {@value #WHOLE_MILLIS} ms). Returns null when a server may be killed, else why not: then the
     * kill is let go by, at once when waiting would not help — a held writer's blocks are repaired
     * only once it closes, a repair that failed (a full tier) only after a pause.
     */
    String mayKill(io.creel.client.CreelClient client, String openWriter) throws InterruptedException {
        if (!replicated()) {
            return null;
        }
        if (!restartAt.isEmpty()) {
            killsSkipped++;
            return "server(s) " + restartAt.keySet() + " still down";
        }
        if (openWriter != null) {
            // A writer that lost a copy goes on with the others, and what it writes then has one copy
            // fewer until it closes and the namenode repairs it; fsck sees only what it published.
            killsSkipped++;
            return "the writer of " + openWriter + " is open";
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WHOLE_MILLIS);
        while (true) {
            String why = notCaughtUp();
            io.creel.common.protocol.FsckReply fsck = null;
            if (why == null) {
                fsck = fsck(client);
                why = fsck == null ? "fsck failed" : !fsck.damaged().isEmpty()
                        ? "fsck finds blocks without a live copy: " + fsck.damaged()
                        : !fsck.underReplicated().isEmpty() ? "fsck finds blocks short of " + replication + " copies: "
                        + fsck.underReplicated() + "; repair: " + fsck.replication() : null;
            }
            if (why == null) {
                return null;
            }
            boolean stuck = fsck != null && (fsck.replication().waitingForWriter() > 0
                    || fsck.replication().failedRepairs() > failedRepairsSeen);
            if (fsck != null) {
                failedRepairsSeen = fsck.replication().failedRepairs();
            }
            if (stuck || System.nanoTime() > deadline) {
                killsSkipped++;
                return why;
            }
            Thread.sleep(50);
        }
    }

    /** Why a namenode has not caught up with the kills yet, or null when every one has. */
    private String notCaughtUp() {
        Set<String> running = new java.util.HashSet<>();
        for (StorageServerRuntime s : cluster.storageServers()) {
            running.add(s.info().address());
        }
        for (int i = 0; i < cluster.namenodes().size(); i++) {
            for (io.creel.common.protocol.ServerStatus x : cluster.namenodes().get(i).status().servers()) {
                boolean runs = running.contains(x.server().address());
                if (runs != x.state().equals("live")) {
                    return "namenode " + i + " reports storage server " + x.server().address() + " (id "
                            + x.server().serverId() + ") " + x.state() + (runs ? "" : " after it was killed");
                }
            }
        }
        return null;
    }

    private static io.creel.common.protocol.FsckReply fsck(io.creel.client.CreelClient client) {
        try {
            return client.fsck("/").get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Starts the servers whose time has come ({@code all}: every stopped one); the trace line or null. */
    String restartDue(int step, boolean all) {
        List<String> done = new ArrayList<>();
        for (Integer index : List.copyOf(restartAt.keySet())) {
            if (all || restartAt.get(index) <= step) {
                restartAt.remove(index);
                done.add(start(index));
            }
        }
        return done.isEmpty() ? null : String.join("; ", done);
    }

    private String start(int index) {
        StorageServerRuntime s = cluster.startStorageServer(index);
        String address = s.info().address();
        if (persistent) {
            lost.remove(address); // the same address, files and token: its blocks are readable again
        }
        awaitSettled();
        return "started " + cluster.storageServerTier(index) + " server " + index + " at " + address;
    }

    /** Restarts namenode {@code index} from its log and waits until every running server is registered again. */
    String restartNamenode(int index) {
        cluster.restartNamenode(index);
        namenodeRestarts++;
        lastFault = System.nanoTime();
        lastNamenodeRestart = lastFault;
        awaitSettled();
        return "restarted namenode " + index + " from its log";
    }

    /** Cuts every client connection to every namenode. */
    String cut() {
        int n = 0;
        for (CuttableProxy p : proxies) {
            n += p.cut();
        }
        cuts++;
        return "cut " + n / 2 + " client connection(s) to the namenodes";
    }

    int namenodes() {
        return proxies.size();
    }


    /**
     * Whether {@code failure} is a clear error about data on a server the chaos killed: a code a
     * reader gets for an unreachable server, and a message naming that server.
     */
    String justifies(Outcome failure) {
        if (!failure.failed() || !LOSS.contains(failure.error()) || failure.message() == null) {
            return null;
        }
        if (failure.is(ErrorCode.UNAVAILABLE) && failure.message().contains("not registered again since it restarted")
                && lastNamenodeRestart != 0
                && System.nanoTime() - lastNamenodeRestart < TimeUnit.MILLISECONDS.toNanos(SERVER_TIMEOUT_MILLIS)) {
            // Out of space while a restarted namenode still waits for a killed server known from its log.
            return "a namenode restarted with a killed server in its log, which it still waits for";
        }
        for (Map.Entry<String, String> e : lost.entrySet()) {
            if (failure.message().contains(e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    /**
     * Waits until every namenode reports every running storage server live, so what follows meets
     * a settled cluster (a restarted namenode refuses a server's blocks until it registers again).
     */
    private void awaitSettled() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        while (true) {
            String missing = unsettled();
            if (missing == null) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("chaos: the cluster did not settle within " + SETTLE_MILLIS + " ms: " + missing);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the cluster to settle", e);
            }
        }
    }

    private String unsettled() {
        for (StorageServerRuntime s : cluster.storageServers()) {
            if (!s.isRegistered()) {
                return "storage server " + s.info().address() + " is not registered with every namenode";
            }
            String address = s.info().address();
            for (int i = 0; i < cluster.namenodes().size(); i++) {
                boolean live = cluster.namenodes().get(i).status().servers().stream()
                        .anyMatch(x -> x.server().address().equals(address) && x.state().equals("live"));
                if (!live) {
                    return "namenode " + i + " does not report storage server " + address + " live";
                }
            }
        }
        return null;
    }

    /**
     * Waits until the namenodes have declared every killed server dead (they allocate on it until
     * then) and stopped waiting for servers known from their log that will not come back (a server
     * killed without persistence comes back as a new one): from then on the cluster is what the
     * phase after the chaos, which allows no fault, expects — and directory records on dead servers
     * have been moved.
     */
    void awaitQuiet() throws InterruptedException {
        if (lastFault == 0) {
            return;
        }
        long left = SERVER_TIMEOUT_MILLIS + 1_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastFault);
        if (lastNamenodeRestart != 0 && proxies.size() > 1) {
            // A restarted namenode's old regions are nobody else's for 10 s (its claim time, see
            // StorageServerRuntime): the other namenode may find the servers full until then.
            left = Math.max(left, 11_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastNamenodeRestart));
        }
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** For the run's summary. */
    String summary() {
        return kills + " server kills (" + (persistent ? "persistent" : "data lost")
                + (replicated() ? "; factor " + replication + ", " + killsSkipped + " kills let go by, the cluster not whole"
                : "") + "), " + namenodeRestarts
                + " namenode restarts, " + cuts + " connection cuts";
    }

    @Override
    public void close() {
        proxies.forEach(CuttableProxy::close);
    }
}
