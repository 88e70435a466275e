package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.common.conf.ConfKeys;
import io.creel.common.protocol.StatusReply;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code creel fs du} and {@code creel fs df}: space used under a path, and space in the cluster. */
final class FsSpace {
    private FsSpace() {
    }

    @Command(name = "du", description = {"Bytes of data under each path: a File's or value's length, a "
            + "container's sum over everything below it.", "Without -s, each child of a container on a line."})
    public static final class Du extends FsCommand.Sub {
        @Option(names = "-s", description = "One total per PATH, not one line per child.")
        boolean summary;
        @Option(names = "-h", description = "Sizes with units (KiB, MiB, ...).")
        boolean human;
        @Parameters(arity = "0..*", paramLabel = "PATH", description = "Default: /.")
        List<String> paths = new ArrayList<>(List.of("/"));

        public Du() {
        }

        @Override
        public Integer call() {
            for (String path : paths) {
                CreelPath p = CreelPath.parse(path);
                try (CreelClient c = common.connect(p)) {
                    CreelNode node = await(c, c.lookup(p.path()), "du " + p.path());
                    if (!node.type().isContainer()) {
                        line(node.length(), p.path());
                    } else if (summary) {
                        line(total(c, p.path()), p.path());
                    } else {
                        long all = 0;
                        List<DirectoryEntry> entries = new ArrayList<>(await(c, c.list(p.path()), "du " + p.path()));
                        entries.sort(Comparator.comparing(DirectoryEntry::name));
                        for (DirectoryEntry e : entries) {
                            String child = (p.path().endsWith("/") ? p.path() : p.path() + "/") + e.name();
                            long bytes = e.info().type().isContainer() ? total(c, child) : e.info().length();
                            all += bytes;
                            line(bytes, child + (e.info().type().isContainer() ? "/" : ""));
                        }
                        line(all, p.path());
                    }
                }
            }
            out().flush();
            return 0;
        }

        /** Bytes of everything below {@code dir}, one listing per container. */
        private long total(CreelClient c, String dir) {
            long sum = 0;
            for (DirectoryEntry e : await(c, c.list(dir), "du " + dir)) {
                String child = (dir.endsWith("/") ? dir : dir + "/") + e.name();
                sum += e.info().type().isContainer() ? total(c, child) : e.info().length();
            }
            return sum;
        }

        private void line(long bytes, String path) {
            out().println(FsCommand.size(bytes, human) + "\t" + path);
        }
    }

    @Command(name = "df", description = {"Capacity, used and free space per storage class over the live storage "
            + "servers, and in all, as every namenode together sees it (bin/creel report has the servers)."})
    public static final class Df extends FsCommand.Sub {
        @Option(names = "-h", description = "Sizes with units (KiB, MiB, ...).")
        boolean human;

        public Df() {
        }

        @Override
        public Integer call() {
            try (CreelClient c = common.connect()) {
                List<StatusReply> replies = await(c, c.status(), "df");
                List<String> addresses = c.conf().get(ConfKeys.NAMENODE_ADDRESS).stream().map(Object::toString)
                        .toList();
                List<ClusterReport.ClassTotal> classes = ClusterReport.of(addresses, replies).classes();
                TextTable t = new TextTable(new boolean[] {false, true, true, true, true}, "CLASS", "SIZE", "USED",
                        "AVAIL", "USE%");
                long size = 0;
                long used = 0;
                long avail = 0;
                for (ClusterReport.ClassTotal cl : classes) {
                    row(t, cl.storageClass(), cl.capacity(), cl.used() + cl.pending(), cl.free());
                    size += cl.capacity();
                    used += cl.used() + cl.pending();
                    avail += cl.free();
                }
                row(t, "total", size, used, avail);
                t.print(out(), "");
                out().flush();
            }
            return 0;
        }

        /** Used includes blocks waiting out the reuse delay: they are not available yet. */
        private void row(TextTable t, String name, long size, long used, long avail) {
            t.add(name, FsCommand.size(size, human), FsCommand.size(used, human), FsCommand.size(avail, human),
                    size == 0 ? "-" : Math.round(100.0 * used / size) + "%");
        }
    }
}
