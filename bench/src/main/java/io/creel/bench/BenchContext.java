package io.creel.bench;

import io.creel.bench.report.BenchReport;
import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.storage.local.LocalTierKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What every mode of a bench run shares: the settings, the report, the progress line, the load
 * driver, and the clients (opened on first use, closed at the end of the run).
 *
 * @param durationPerPoint how long each measured point runs
 * @param maxOpsPerPoint   operation budget of each point (whichever of time and budget ends first)
 */
public record BenchContext(CreelConf conf, BenchReport report, Progress progress, LoadDriver driver,
                           Settings settings, ClientPool pool) {

    /** The options the modes read. */
    public record Settings(List<Integer> clients, List<Integer> inFlight, List<Long> sizes, List<Integer> buffers,
                           String storageClass, boolean tcpOnly, int nodes, Duration durationPerPoint,
                           long maxOpsPerPoint, long fileSize, int bagFiles, long bagFileSize, boolean local,
                           String transport) {

        /** The concurrency shapes (clients × in flight), every combination, in ascending order. */
        public List<int[]> shapes() {
            List<int[]> out = new ArrayList<>();
            for (int c : clients) {
                for (int f : inFlight) {
                    out.add(new int[] {c, f});
                }
            }
            return out;
        }

        /**
         * Names a data path in series names: the transport of {@code --transport} when one was forced
         * (then the one path measured), else "tcp" or "same-host".
         */
        public String pathName(boolean tcp) {
            return transport != null ? transport : BenchContext.pathName(tcp);
        }

        /** The data paths measured: same-host (mapped/local-file) and forced TCP, or TCP only. */
        public List<Boolean> paths() {
            return tcpOnly ? List.of(true) : List.of(false, true);
        }
    }

    /** Names a data path in series names. */
    public static String pathName(boolean tcp) {
        return tcp ? "tcp" : "same-host";
    }

    /** Clients of the cluster, same-host or forced-TCP, opened on first use. */
    public static final class ClientPool implements AutoCloseable {
        private final CreelConf conf;
        private final List<CreelClient> local = new ArrayList<>();
        private final List<CreelClient> tcp = new ArrayList<>();
        private CreelClient mainLocal;
        private CreelClient mainTcp;

        public ClientPool(CreelConf conf) {
            this.conf = conf;
        }

        /** The client of single-client runs (default event loops). */
        public synchronized CreelClient main(boolean forceTcp) {
            if (forceTcp) {
                if (mainTcp == null) {
                    mainTcp = CreelClient.connect(conf.with(LocalTierKeys.LOCAL_ACCESS, "false"));
                }
                return mainTcp;
            }
            if (mainLocal == null) {
                mainLocal = CreelClient.connect(conf);
            }
            return mainLocal;
        }

        /**
         * {@code n} independent clients (each its own connections and one event-loop thread), as
         * {@code n} separate client processes would be; the same ones are handed out again.
         */
        public synchronized List<CreelClient> many(int n, boolean forceTcp) {
            List<CreelClient> list = forceTcp ? tcp : local;
            CreelConf c = conf.with(ConfKeys.NET_EVENT_LOOPS, "1");
            if (forceTcp) {
                c = c.with(LocalTierKeys.LOCAL_ACCESS, "false");
            }
            while (list.size() < n) {
                list.add(CreelClient.connect(c));
            }
            return List.copyOf(list.subList(0, n));
        }

        @Override
        public synchronized void close() {
            List<CreelClient> all = new ArrayList<>(local);
            all.addAll(tcp);
            if (mainLocal != null) {
                all.add(mainLocal);
            }
            if (mainTcp != null) {
                all.add(mainTcp);
            }
            all.forEach(CreelClient::close);
        }
    }
}
