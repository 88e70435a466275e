package io.creel.minicluster.cluster.model;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The randomized model test of the public client API (issue 9): seeded operations on a small
 * cluster, each compared with {@link ModelNamespace}, then the {@link ConcurrentPhase}. A failure
 * prints its seed, the replay command and the operations that led to it.
 *
 * <p>The chaos mode (issue 21) runs the same operations while storage servers are killed and
 * started again, namenodes restart from their log, client connections to the namenodes are cut,
 * and a third client is closed (or meets one of those faults) with calls in flight; see
 * {@link Chaos}. A clear error is allowed where the data's server died, the right bytes are
 * demanded everywhere else.
 *
 * <p>The replication mode (issue 23) is the chaos mode on a cluster whose Files and KeyValues have
 * {@code creel.model.replication} copies of each block (2 by default) on storage servers of different
 * hosts (one host more than the factor, each storage class on every host). A server is killed only
 * while the cluster is whole — the last one killed declared dead and its blocks copied again, no
 * writer held open (what it writes after losing a copy has one copy until it closes) — so
 * no data may be lost: every read and write of a File's or KeyValue's bytes must succeed, and fsck
 * must find no block without a live copy at the end. (A directory's records have one copy and are
 * still allowed to go with their server.)
 *
 * <ul>
 *   <li>default: a few fixed seeds (one and two namenodes), {@value #DEFAULT_OPS} operations each —
 *       a few seconds; one with chaos — about 10 s; and one in the replication mode,
 *       {@value #DEFAULT_REPLICATION_OPS} operations — about 9 s;</li>
 *   <li>{@code -Dcreel.model.chaos=false|true}: only the plain run, or only the chaos runs (with and
 *       without replication);</li>
 *   <li>{@code -Dcreel.model.replication=N}: the replication mode's factor (2 to 7; default 2);</li>
 *   <li>{@code -Dcreel.model.seeds=N}: N fresh random seeds (CI's longer runs);</li>
 *   <li>{@code -Dcreel.model.seed=S}: replay seed S;</li>
 *   <li>{@code -Dcreel.model.ops=M}: operations per seed.</li>
 * </ul>
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ModelTest {
    private static final Logger LOG = LoggerFactory.getLogger(ModelTest.class);
    static final int DEFAULT_OPS = 300;
    /**
     * Seeds of different clusters (see {@link ClusterShape#of}): 1 — two namenodes, 4 KiB blocks, a
     * 9-block DRAM tier; 3 — one namenode, an 8-block DRAM tier; 12 — one namenode, 16 KiB blocks,
     * same-host access off; 14 — two namenodes, 64 KiB blocks, two DRAM servers.
     */
    private static final List<Long> DEFAULT_SEEDS = List.of(1L, 3L, 12L, 14L);
    /**
     * The chaos mode's default: seed 3 (persistent servers, one namenode), about 10 s. A seed with two
     * namenodes takes twice that (a restarted namenode's regions wait for its claim): CI's model-chaos
     * step runs those.
     */
    private static final List<Long> DEFAULT_CHAOS_SEEDS = List.of(3L);
    /**
     * The replication mode's default: seed 4 (one namenode, 64 KiB blocks, volatile servers: a killed
     * server comes back empty, so the namenode copies its blocks again) and
     * {@value #DEFAULT_REPLICATION_OPS} operations — two kills with the repair of the first one's
     * blocks in between, about 9 s, most of it waiting for the namenode to declare the first server
     * dead. CI's model-chaos step runs longer seeds.
     */
    private static final List<Long> DEFAULT_REPLICATION_SEEDS = List.of(4L);
    static final int DEFAULT_REPLICATION_OPS = 150;

    @Test
    void theStoreAgreesWithTheModelOfItsSemantics() {
        Assumptions.assumeFalse(Boolean.parseBoolean(System.getProperty("creel.model.chaos", "false")),
                "-Dcreel.model.chaos=true runs only the chaos mode");
        runSeeds(seeds(DEFAULT_SEEDS), false);
    }

    @Test
    void theStoreKeepsItsPromisesWhileServersDieNamenodesRestartAndConnectionsBreak() {
        Assumptions.assumeTrue(Boolean.parseBoolean(System.getProperty("creel.model.chaos", "true")),
                "-Dcreel.model.chaos=false runs only the plain mode");
        runSeeds(seeds(DEFAULT_CHAOS_SEEDS), true);
    }

    @Test
    void withReplicationNoDataIsLostWhileServersDieOneAtATime() {
        Assumptions.assumeTrue(Boolean.parseBoolean(System.getProperty("creel.model.chaos", "true")),
                "-Dcreel.model.chaos=false runs only the plain mode");
        int factor = Integer.getInteger("creel.model.replication", 2);
        Assumptions.assumeTrue(factor > 1, "-Dcreel.model.replication=" + factor + ": no replication mode");
        runSeeds(seeds(DEFAULT_REPLICATION_SEEDS), true, factor,
                Integer.getInteger("creel.model.ops", DEFAULT_REPLICATION_OPS));
    }

    private static void runSeeds(List<Long> seeds, boolean chaos) {
        runSeeds(seeds, chaos, 1, Integer.getInteger("creel.model.ops", DEFAULT_OPS));
    }

    private static void runSeeds(List<Long> seeds, boolean chaos, int replication, int ops) {
        for (long seed : seeds) {
            long start = System.nanoTime();
            ModelRun.Summary s = new ModelRun(seed, ops, chaos, replication).run();
            LOG.info("model seed {}{} ({}): {} operations, {} calls refused as the model said {}, {} ran out of space; "
                    + "{}; {}; {} ms", seed, (chaos ? " with chaos" : "") + (replication > 1 ? ", replication "
                    + replication : ""), s.shape(), s.ops(), s.refusals(), s.refusedAs(),
                    s.outOfSpace(), s.chaos(), s.concurrent(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    private static List<Long> seeds(List<Long> defaults) {
        String one = System.getProperty("creel.model.seed");
        if (one != null && !one.isBlank()) {
            return List.of(Long.parseLong(one.trim()));
        }
        int fresh = Integer.getInteger("creel.model.seeds", 0);
        if (fresh <= 0) {
            return defaults;
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < fresh; i++) {
            out.add(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
        }
        LOG.info("model test seeds: {}", out);
        return out;
    }
}
