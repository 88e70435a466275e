package io.creel.minicluster.cluster;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Expiry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The child JVM of {@link ExpiringNodesTest}: a client that creates session-bound directories with
 * Files in them, prints {@code ready <session id>} and then lives until it is killed — as a Spark
 * driver that crashes holding its application's directory.
 *
 * <p>Arguments: files per directory, bytes per File, the directories, then {@code key=value}
 * configuration (the namenode addresses, the heartbeat).
 */
public final class ExpiringOwner {
    private ExpiringOwner() {
    }

    public static void main(String[] args) throws Exception {
        int files = Integer.parseInt(args[0]);
        int bytes = Integer.parseInt(args[1]);
        List<String> dirs = new ArrayList<>();
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq > 0) {
                settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            } else {
                dirs.add(args[i]);
            }
        }
        CreelClient client = CreelClient.connect(CreelConf.of(settings));
        for (String dir : dirs) {
            client.create(dir, NodeType.DIRECTORY, CreateOptions.defaults().withExpiry(Expiry.session())).join();
            List<CompletableFuture<?>> written = new ArrayList<>();
            for (int i = 0; i < files; i++) {
                written.add(client.create(dir + "/part-" + i, NodeType.FILE).thenCompose(fill(bytes)));
                if (written.size() == 64) { // a bounded number in flight
                    CompletableFuture.allOf(written.toArray(CompletableFuture[]::new)).join();
                    written.clear();
                }
            }
            CompletableFuture.allOf(written.toArray(CompletableFuture[]::new)).join();
        }
        System.out.println("ready " + client.sessionId());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until the test kills this JVM with -9
    }

    private static java.util.function.Function<CreelNode, CompletableFuture<io.creel.common.protocol.NodeInfo>> fill(
            int bytes) {
        return node -> {
            node.writer().write(ByteBuffer.allocate(bytes));
            return node.writer().close();
        };
    }
}
