package io.creel.cli;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.NodeInfo;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code creel fs ...}: the namespace and file data from the command line. */
@Command(name = "fs", description = "Work with files and directories.", mixinStandardHelpOptions = true,
        subcommands = {FsCommand.Ls.class, FsCommand.Mkdir.class, FsCommand.Put.class, FsCommand.Get.class,
                FsCommand.Cat.class, FsCommand.Rm.class, FsCommand.Mv.class, FsCommand.Stat.class, FsSpace.Du.class,
                FsSpace.Df.class, FsAccess.Chmod.class, FsAccess.Chown.class})
public final class FsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    public FsCommand() {
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
                "missing subcommand: ls, mkdir, put, get, cat, rm, mv, stat, du, df, chmod or chown");
    }

    /** Shared parts of the subcommands. */
    abstract static class Sub implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        static <T> T await(CreelClient c, java.util.concurrent.CompletableFuture<T> f, String what) {
            return Futures.await(f, c.requestTimeout().multipliedBy(2), what);
        }
    }

    @Command(name = "ls", description = "List a container (default /).")
    public static final class Ls extends Sub {
        @Option(names = "-l", description = "Long format: type, access (mode, owner, group), size, modified, expiry, "
                + "name.")
        boolean longFormat;
        @Option(names = "-R", description = "Recursive: everything below, one full path a line.")
        boolean recursive;
        @Option(names = "-h", description = "With -l: sizes with units (KiB, MiB, ...).")
        boolean human;
        @Parameters(arity = "0..1", paramLabel = "PATH")
        String path = "/";

        public Ls() {
        }

        @Override
        public Integer call() {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                List<DirectoryEntry> top = sorted(await(c, c.list(p.path()), "ls " + p.path()));
                TextTable t = new TextTable(new boolean[] {false, false, true, false, false, false}, "TYPE", "ACCESS",
                        "SIZE", "MODIFIED", "EXPIRY", "NAME");
                if (recursive) {
                    walk(c, p.path(), top, t);
                } else {
                    top.forEach(e -> line(t, e.name(), e.info()));
                }
                if (longFormat) {
                    t.print(out(), "");
                }
                out().flush();
            }
            return 0;
        }

        /** Depth first, each container's children right after it, as {@code ls -R} reads. */
        private void walk(CreelClient c, String dir, List<DirectoryEntry> entries, TextTable t) {
            for (DirectoryEntry e : entries) {
                String child = (dir.endsWith("/") ? dir : dir + "/") + e.name();
                line(t, child, e.info());
                if (e.info().type().isContainer()) {
                    walk(c, child, sorted(await(c, c.list(child), "ls " + child)), t);
                }
            }
        }

        private void line(TextTable t, String name, NodeInfo i) {
            String shown = name + (i.type().isContainer() ? "/" : "");
            if (!longFormat) {
                out().println(shown);
                return;
            }
            t.add(i.type().displayName(), FsAccess.column(i), i.type().isContainer() ? "-" : size(i.length(), human),
                    Instant.ofEpochMilli(i.modifiedMillis()).toString(), expiryColumn(i), shown);
        }

        private static List<DirectoryEntry> sorted(List<DirectoryEntry> entries) {
            List<DirectoryEntry> out = new ArrayList<>(entries);
            out.sort(Comparator.comparing(DirectoryEntry::name));
            return out;
        }
    }

    /** A --replication value, refused with the option's name if out of range. */
    static int checked(int replication) {
        if (replication < 0 || replication > io.creel.common.protocol.BlockLocation.MAX_COPIES) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new Object()),
                    "--replication " + replication + ": 1 to " + io.creel.common.protocol.BlockLocation.MAX_COPIES
                            + " copies");
        }
        return replication;
    }

    /** {@code ls -l}'s EXPIRY: "-" for a node that does not expire, else "session" or "ttl=" its time to live. */
    static String expiryColumn(NodeInfo i) {
        if (i.expiry() == null) {
            return "-";
        }
        return i.expiry().session() ? "session" : "ttl=" + duration(i.expiry().graceMillis());
    }

    /** Milliseconds as a person reads them, in the config's units: 750ms, 1.5s, 30s, 10m, 2h. */
    static String duration(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : String.format(java.util.Locale.ROOT, "%.1fs", millis / 1000.0);
    }

    /** A byte count as the size options ask: with units ({@code -h}) or plain. */
    static String size(long bytes, boolean human) {
        return human ? ConfValues.formatSize(bytes) : Long.toString(bytes);
    }

    @Command(name = "mkdir", description = "Create a Directory (or a Table or Bag with --type).")
    public static final class Mkdir extends Sub {
        @Option(names = "-p", description = "Create missing parents; an existing directory is fine.")
        boolean parents;
        @Option(names = "--type", description = "directory (default), table or bag.")
        String type = "directory";
        @Option(names = "--non-enumerable", description = "For a table: keep no list of keys (faster creates).")
        boolean nonEnumerable;
        @Option(names = "--ordered", description = "For a table: keep its keys in order, so 'kv scan' can read "
                + "them from a start key.")
        boolean ordered;
        @Option(names = "--class", paramLabel = "CLASS", description = "Storage class for everything below it.")
        String storageClass = "";
        @Option(names = "--replication", paramLabel = "N", description = "Copies of each block of every File and "
                + "KeyValue below it, on servers of different hosts (1-8; default: inherited).")
        int replication;
        @Option(names = "--ttl", paramLabel = "DURATION", description = "Remove it with everything below it this "
                + "long (e.g. 30m, 2h) after this command ends: scratch space that cleans itself up.")
        String ttl;
        @Parameters(paramLabel = "PATH")
        String path;

        public Mkdir() {
        }

        @Override
        public Integer call() {
            NodeType t;
            try {
                t = NodeType.parse(type);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            if (!t.isContainer()) {
                throw new ParameterException(spec.commandLine(), "--type must be directory, table or bag");
            }
            if (ordered && t != NodeType.TABLE) {
                throw new ParameterException(spec.commandLine(), "--ordered is for a table (--type table)");
            }
            io.creel.common.protocol.Expiry expiry = io.creel.common.protocol.Expiry.NONE;
            if (ttl != null) {
                try {
                    expiry = io.creel.common.protocol.Expiry.timeToLive(ConfValues.parseDuration(ttl));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--ttl: " + e.getMessage());
                }
            }
            CreelPath p = CreelPath.parse(path);
            PathName target = PathName.parse(p.path());
            try (CreelClient c = common.connect(p)) {
                if (parents) {
                    for (int i = 1; i < target.depth(); i++) {
                        PathName dir = PathName.parse("/" + String.join("/", target.components().subList(0, i)));
                        mkdir(c, dir.toString(), NodeType.DIRECTORY, CreateOptions.defaults(), true);
                    }
                }
                mkdir(c, target.toString(), t, CreateOptions.defaults().withEnumerable(!nonEnumerable)
                        .withOrdered(ordered).withStorageClass(storageClass).withReplication(checked(replication)).withExpiry(expiry),
                        parents);
            }
            return 0;
        }

        private static void mkdir(CreelClient c, String path, NodeType type, CreateOptions o, boolean existingOk) {
            try {
                await(c, c.create(path, type, o), "mkdir " + path);
            } catch (CreelException e) {
                if (!(existingOk && e.code() == ErrorCode.ALREADY_EXISTS
                        && await(c, c.lookup(path), "lookup " + path).type() == type)) {
                    throw e;
                }
            }
        }
    }

    @Command(name = "put", description = "Copy a local file (or - for stdin) into a new Creel File.")
    public static final class Put extends Sub {
        @Parameters(index = "0", paramLabel = "LOCAL")
        String local;
        @Parameters(index = "1", paramLabel = "PATH")
        String path;
        @Option(names = "--class", paramLabel = "CLASS", description = "Storage class to write to (dram, disk, ...).")
        String storageClass = "";
        @Option(names = "--replication", paramLabel = "N", description = "Copies of each block, on servers of "
                + "different hosts (1-8; default: creel.client.replication, else inherited).")
        int replication;

        public Put() {
        }

        @Override
        public Integer call() throws Exception {
            CreelPath p = CreelPath.parse(path);
            boolean stdin = "-".equals(local);
            Path file = stdin ? null : Path.of(local);
            try (CreelClient c = common.connect(p);
                 ReadableByteChannel in = stdin ? Channels.newChannel(System.in)
                         : FileChannel.open(file, StandardOpenOption.READ)) {
                String target = p.path();
                if (!stdin) {
                    target = intoContainer(c, target, file.getFileName().toString());
                }
                long size = stdin ? -1 : Files.size(file);
                // The file's size sizes the first block (a size class's when it is small); stdin's is unknown.
                CreelNode node = await(c, c.create(target, NodeType.FILE,
                        CreateOptions.defaults().withStorageClass(storageClass).withReplication(checked(replication))
                                .withSizeHint(Math.max(0, size))),
                        "create " + target);
                DirectWriter w = node.writer();
                Progress progress = Progress.forTransfer("put", size);
                try {
                    Transfers.upload(in, w, progress, c.requestTimeout());
                } finally {
                    progress.finish();
                }
                await(c, w.close(), "closing " + target);
            }
            return 0;
        }

        /** {@code put x.txt /dir} puts into {@code /dir/x.txt} when /dir is a Directory or Bag. */
        private static String intoContainer(CreelClient c, String target, String name) {
            try {
                NodeType t = await(c, c.lookup(target), "lookup " + target).type();
                if (t == NodeType.DIRECTORY || t == NodeType.BAG) {
                    return PathName.parse(target).child(name).toString();
                }
            } catch (CreelException e) {
                if (e.code() != ErrorCode.NOT_FOUND) {
                    throw e;
                }
            }
            return target;
        }
    }

    @Command(name = "get", description = "Copy a Creel File (or a whole Bag) to a local file (or - for stdout).")
    public static final class Get extends Sub {
        @Parameters(index = "0", paramLabel = "PATH")
        String path;
        @Parameters(index = "1", paramLabel = "LOCAL")
        String local;

        public Get() {
        }

        @Override
        public Integer call() throws Exception {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                CreelNode node = await(c, c.lookup(p.path()), "lookup " + p.path());
                if ("-".equals(local)) {
                    copyToStdout(c, node);
                    return 0;
                }
                Path file = Path.of(local);
                if (Files.isDirectory(file)) {
                    file = file.resolve(PathName.parse(p.path()).name());
                }
                try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    copy(c, node, out, Progress.forTransfer("get", node.length()));
                }
            }
            return 0;
        }
    }

    static void copyToStdout(CreelClient c, CreelNode node) throws java.io.IOException {
        WritableByteChannel out = Channels.newChannel(System.out);
        copy(c, node, out, Progress.forTransfer("get", -1));
        System.out.flush();
    }

    private static void copy(CreelClient c, CreelNode node, WritableByteChannel out, Progress progress)
            throws java.io.IOException {
        try {
            if (node.type() == NodeType.BAG) {
                try (InputStream in = node.bagStream()) {
                    byte[] buf = new byte[1 << 20];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        out.write(java.nio.ByteBuffer.wrap(buf, 0, n));
                        progress.advance(n);
                    }
                }
            } else {
                Transfers.download(node, out, progress, c.requestTimeout());
            }
        } finally {
            progress.finish();
        }
    }

    @Command(name = "cat", description = "Write a File, KeyValue or Bag to stdout.")
    public static final class Cat extends Sub {
        @Parameters(paramLabel = "PATH")
        String path;

        public Cat() {
        }

        @Override
        public Integer call() throws Exception {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                CreelNode node = await(c, c.lookup(p.path()), "lookup " + p.path());
                WritableByteChannel out = Channels.newChannel(System.out);
                copy(c, node, out, Progress.forTransfer("cat", 0));
                System.out.flush();
            }
            return 0;
        }
    }

    @Command(name = "rm", description = "Remove a node.")
    public static final class Rm extends Sub {
        @Option(names = {"-r", "-R"}, description = "Remove a container with everything in it.")
        boolean recursive;
        @Parameters(paramLabel = "PATH")
        String path;

        public Rm() {
        }

        @Override
        public Integer call() {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                await(c, c.delete(p.path(), recursive), "rm " + p.path());
            }
            return 0;
        }
    }

    @Command(name = "mv", description = "Move (rename) a node; the target must not exist.")
    public static final class Mv extends Sub {
        @Parameters(index = "0", paramLabel = "SRC")
        String source;
        @Parameters(index = "1", paramLabel = "DST")
        String target;

        public Mv() {
        }

        @Override
        public Integer call() {
            CreelPath s = CreelPath.parse(source);
            CreelPath t = CreelPath.parse(target);
            try (CreelClient c = common.connect(s, t)) {
                await(c, c.move(s.path(), t.path()), "mv " + s.path());
            }
            return 0;
        }
    }

    /**
     * {@code fs stat}'s expiry line: "never", or how long after whose last heartbeat the node goes,
     * and how long ago the namenode last heard that owner.
     */
    static String expiryText(NodeInfo i) {
        io.creel.common.protocol.NodeExpiry e = i.expiry();
        if (e == null) {
            return "never";
        }
        return duration(e.graceMillis()) + " after its owner's last heartbeat ("
                + (e.session() ? "session-bound" : "time to live") + "; owner session " + e.owner()
                + ", last heard " + duration(e.silentMillis()) + " ago)";
    }

    /**
     * For a node that does not expire itself: whether it goes with an expiring ancestor (nearest
     * first), as a crashed Spark driver's map outputs go with its application directory.
     */
    static String ancestorExpiry(CreelClient c, String path) {
        PathName p = PathName.parse(path);
        for (PathName up = p.isRoot() ? p : p.parent(); !up.isRoot(); up = up.parent()) {
            NodeInfo a = Sub.await(c, c.lookup(up.toString()), "stat " + up).info();
            if (a.expiry() != null) {
                return "with its ancestor " + up + ", " + expiryText(a);
            }
        }
        return "never";
    }

    @Command(name = "stat", description = "Show what the namenode knows about a node.")
    public static final class Stat extends Sub {
        @Parameters(paramLabel = "PATH")
        String path;

        public Stat() {
        }

        @Override
        public Integer call() {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                NodeInfo i = await(c, c.lookup(p.path()), "stat " + p.path()).info();
                PrintWriter o = out();
                o.println("path:       " + p.path());
                o.println("type:       " + i.type().displayName());
                o.println("size:       " + i.length() + " (" + ConfValues.formatSize(i.length()) + ")");
                o.println("id:         " + i.id());
                o.println("class:      " + (i.storageClass().isEmpty() ? "(inherited)" : i.storageClass()));
                o.println("location:   " + (i.locationClass().isEmpty() ? "(any)" : i.locationClass()));
                o.println("copies:     " + (i.replication() == 0 ? "(the storage class's factor)" : i.replication()));
                if (i.type() == NodeType.TABLE) {
                    o.println("enumerable: " + i.enumerable());
                }
                o.println("modified:   " + Instant.ofEpochMilli(i.modifiedMillis()));
                o.println("writing:    " + i.writing());
                o.println("expires:    " + (i.expiry() != null ? expiryText(i) : ancestorExpiry(c, p.path())));
                if (i.access() != null) {
                    o.println("owner:      " + i.access().owner());
                    o.println("group:      " + i.access().group());
                    o.println("mode:       " + String.format("%04o", i.access().mode()) + " ("
                            + io.creel.common.protocol.NodeAccess.modeText(i.access().mode()) + ")");
                }
                if ((i.type() == NodeType.FILE || i.type() == NodeType.KEYVALUE) && FsAccess.mayFsck(c)) {
                    var fsck = await(c, c.fsck(p.path()), "fsck " + p.path());
                    var damage = fsck.damaged();
                    o.println("lost:       " + (damage.isEmpty() ? "none" : damage.get(0).lostBlocks() + " of "
                            + damage.get(0).totalBlocks() + " blocks, on " + String.join(", ", damage.get(0).servers())));
                    var under = fsck.underReplicated();
                    o.println("short:      " + (under.isEmpty() ? "none" : under.get(0).lostBlocks() + " of "
                            + under.get(0).totalBlocks() + " blocks short of copies"));
                }
                o.flush();
            }
            return 0;
        }
    }
}
