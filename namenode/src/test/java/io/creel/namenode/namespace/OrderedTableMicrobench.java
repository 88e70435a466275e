package io.creel.namenode.namespace;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.ScanRequest;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * What keeping a Table ordered costs the namenode, with no network in the way: creates of inline
 * KeyValues, lookups and removals in an ordered and an unordered Table, on one thread, alternating
 * rounds so both see the same JIT and heap state; plus scans of the ordered one. Times are the
 * thread's CPU time, so other processes on the machine do not count. Not a test (no
 * timing is asserted anywhere): run it by hand, e.g.
 * {@code java -cp <namenode test class path> io.creel.namenode.namespace.OrderedTableMicrobench 200000 5},
 * and read the medians. docs/benchmarks.md ("Ordered Tables") has figures.
 */
public final class OrderedTableMicrobench {
    private OrderedTableMicrobench() {
    }

    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        byte[] value = new byte[100];
        String[] names = new String[keys];
        java.util.Random random = new java.util.Random(1);
        for (int i = 0; i < keys; i++) {
            names[i] = "user" + Long.toUnsignedString(random.nextLong()); // YCSB's hashed insert order
        }
        double[][] create = new double[2][rounds];
        double[][] lookup = new double[2][rounds];
        double[][] remove = new double[2][rounds];
        double[] scan = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            for (int kind = 0; kind < 2; kind++) {
                boolean ordered = (r + kind) % 2 == 0; // alternate which goes first
                int slot = ordered ? 1 : 0;
                NamespaceFixture f = new NamespaceFixture(64, 64, 4096);
                Namespace ns = f.ns;
                done(ns.create(new CreateRequest("/t", NodeType.TABLE, "", "", false, null, 0, Expiry.NONE, ordered),
                        NamespaceFixture.CONN));
                long t0 = cpu();
                for (String n : names) {
                    done(ns.create(new CreateRequest("/t/" + n, NodeType.KEYVALUE, "", "", true, value),
                            NamespaceFixture.CONN));
                }
                long t1 = cpu();
                for (String n : names) {
                    ns.lookup("/t/" + n, false, NamespaceFixture.CONN);
                }
                long t2 = cpu();
                if (ordered) {
                    TableScans scans = new TableScans(ns, (1 << 20) + (64 << 10));
                    int scansDone = Math.max(1, keys / 100);
                    long s0 = cpu();
                    for (int i = 0; i < scansDone; i++) {
                        scans.scan(new ScanRequest("/t", names[i], false, 50));
                    }
                    scan[r] = (cpu() - s0) / (double) scansDone;
                }
                long t3 = cpu();
                for (String n : names) {
                    done(ns.remove("/t/" + n, false));
                }
                long t4 = cpu();
                if (Boolean.getBoolean("verbose")) {
                    System.out.printf(Locale.ROOT, "round %d %s: create %d, lookup %d, remove %d ns%n", r,
                            ordered ? "ordered" : "unordered", (t1 - t0) / keys, (t2 - t1) / keys, (t4 - t3) / keys);
                }
                create[slot][r] = (t1 - t0) / (double) keys;
                lookup[slot][r] = (t2 - t1) / (double) keys;
                remove[slot][r] = (t4 - t3) / (double) keys;
            }
        }
        System.out.printf(Locale.ROOT, "%d keys of 100 B (inline), %d rounds, median ns of this thread's CPU time per operation%n", keys, rounds);
        System.out.printf(Locale.ROOT, "%-10s %12s %12s %8s%n", "operation", "unordered", "ordered", "ratio");
        row("create", create);
        row("lookup", lookup);
        row("remove", remove);
        System.out.printf(Locale.ROOT, "scan of 50 keys with their values (ordered only): %.0f ns%n", median(scan));
    }

    private static void row(String name, double[][] figures) {
        double u = median(figures[0]);
        double o = median(figures[1]);
        System.out.printf(Locale.ROOT, "%-10s %12.0f %12.0f %8.2f%n", name, u, o, o / u);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }

    /**
     * This thread's CPU time: on a shared machine wall time would count the time other processes
     * had the CPU, which differs from round to round far more than the structures do.
     */
    private static long cpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static <T> T done(CompletableFuture<T> f) {
        return f.join();
    }
}
