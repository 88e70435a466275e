package io.creel.cli;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code creel kv ...}: KeyValues in Tables. */
@Command(name = "kv", description = "Put, get and remove values in a Table.", mixinStandardHelpOptions = true,
        subcommands = {KvCommand.Put.class, KvCommand.Get.class, KvCommand.Rm.class, KvCommand.Ls.class,
                KvCommand.Scan.class})
public final class KvCommand implements Runnable {
    @Spec
    CommandSpec spec;

    public KvCommand() {
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand: put, get, rm, ls or scan");
    }

    abstract static class Sub implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;

        static <T> T await(CreelClient c, CompletableFuture<T> f, String what) {
            return Futures.await(f, c.requestTimeout().multipliedBy(2), what);
        }

        static String keyPath(CreelPath table, String key) {
            return PathName.parse(table.path()).child(key).toString();
        }
    }

    @Command(name = "put", description = "Set KEY of TABLE from FILE or stdin (-); the Table is created if missing.")
    public static final class Put extends Sub {
        @Parameters(index = "0", paramLabel = "TABLE")
        String table;
        @Parameters(index = "1", paramLabel = "KEY")
        String key;
        @Parameters(index = "2", arity = "0..1", paramLabel = "FILE|-")
        String source = "-";

        public Put() {
        }

        @Override
        public Integer call() throws Exception {
            CreelPath t = CreelPath.parse(table);
            try (CreelClient c = common.connect(t);
                 ReadableByteChannel in = "-".equals(source) ? Channels.newChannel(System.in)
                         : FileChannel.open(Path.of(source), StandardOpenOption.READ)) {
                ensureTable(c, t.path());
                String path = keyPath(t, key);
                long size = "-".equals(source) ? 0 : Files.size(Path.of(source)); // sizes the first block
                CreelNode node = await(c, c.create(path, NodeType.KEYVALUE, CreateOptions.defaults().withSizeHint(size)),
                        "create " + path);
                DirectWriter w = node.writer();
                Transfers.upload(in, w, Progress.forTransfer("put", -1), c.requestTimeout());
                await(c, w.close(), "publishing " + path);
            }
            return 0;
        }

        private static void ensureTable(CreelClient c, String path) {
            try {
                await(c, c.create(path, NodeType.TABLE), "create " + path);
            } catch (CreelException e) {
                if (e.code() != ErrorCode.ALREADY_EXISTS) {
                    throw e;
                }
                NodeType type = await(c, c.lookup(path), "lookup " + path).type();
                if (type != NodeType.TABLE) {
                    throw new CreelException(ErrorCode.INVALID_PARENT, path + " is a " + type.displayName()
                            + ", not a Table: " + NodeType.containmentRule(NodeType.KEYVALUE));
                }
            }
        }
    }

    @Command(name = "get", description = "Write the value of KEY in TABLE to FILE or stdout (-).")
    public static final class Get extends Sub {
        @Parameters(index = "0", paramLabel = "TABLE")
        String table;
        @Parameters(index = "1", paramLabel = "KEY")
        String key;
        @Parameters(index = "2", arity = "0..1", paramLabel = "FILE|-")
        String target = "-";

        public Get() {
        }

        @Override
        public Integer call() throws Exception {
            CreelPath t = CreelPath.parse(table);
            try (CreelClient c = common.connect(t)) {
                String path = keyPath(t, key);
                CreelNode node = await(c, c.lookup(path), "lookup " + path);
                if ("-".equals(target)) {
                    FsCommand.copyToStdout(c, node);
                } else {
                    try (WritableByteChannel out = FileChannel.open(Path.of(target), StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                        Transfers.download(node, out, Progress.forTransfer("get", node.length()), c.requestTimeout());
                    }
                }
            }
            return 0;
        }
    }

    @Command(name = "rm", description = "Remove KEY from TABLE.")
    public static final class Rm extends Sub {
        @Parameters(index = "0", paramLabel = "TABLE")
        String table;
        @Parameters(index = "1", paramLabel = "KEY")
        String key;

        public Rm() {
        }

        @Override
        public Integer call() {
            CreelPath t = CreelPath.parse(table);
            try (CreelClient c = common.connect(t)) {
                String path = keyPath(t, key);
                await(c, c.delete(path, false), "rm " + path);
            }
            return 0;
        }
    }

    @Command(name = "ls", description = "List the keys of an enumerable TABLE.")
    public static final class Ls extends Sub {
        @Parameters(index = "0", paramLabel = "TABLE")
        String table;

        public Ls() {
        }

        @Override
        public Integer call() {
            CreelPath t = CreelPath.parse(table);
            try (CreelClient c = common.connect(t)) {
                List<DirectoryEntry> keys = await(c, c.list(t.path()), "ls " + t.path());
                keys.stream().sorted(Comparator.comparing(DirectoryEntry::name))
                        .forEach(e -> spec.commandLine().getOut().println(e.name() + "\t" + e.info().length()));
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }

    @Command(name = "scan", description = "List keys of an ordered TABLE in key order from a start key, with their "
            + "lengths (a table made with 'fs mkdir --type table --ordered').")
    public static final class Scan extends Sub {
        @Parameters(index = "0", paramLabel = "TABLE")
        String table;
        @Parameters(index = "1", arity = "0..1", paramLabel = "START", description = "The first key (default: the "
                + "table's first); a missing key starts at the next one.")
        String start = "";
        @picocli.CommandLine.Option(names = {"-n", "--limit"}, paramLabel = "N", description = "At most N keys "
                + "(default: ${DEFAULT-VALUE}).", defaultValue = "100")
        int limit;

        public Scan() {
        }

        @Override
        public Integer call() {
            if (limit < 1) {
                throw new ParameterException(spec.commandLine(), "--limit must be at least 1: " + limit);
            }
            CreelPath t = CreelPath.parse(table);
            try (CreelClient c = common.connect(t)) {
                List<DirectoryEntry> keys = await(c, c.scan(t.path(), start, limit), "scan " + t.path());
                keys.forEach(e -> spec.commandLine().getOut().println(e.name() + "\t" + e.info().length()));
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }
}
