package io.creel.client.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What spans namenode partitions asks each of them once, at once, and answers in partition order. */
class EveryPartitionTest {
    private final EventLoops loops = EventLoops.create(CreelConf.defaults(), "test");
    private final RpcConnections connections = new RpcConnections(loops, CreelConf.defaults());
    private final NamenodeRouter router = new NamenodeRouter(List.of(new HostPort("creel", "nn0", 1),
            new HostPort("creel", "nn1", 1), new HostPort("creel", "nn2", 1)), connections,
            new NamenodeRouter.Retry(1, Duration.ofSeconds(1)), loops.group());
    private final List<CompletableFuture<String>> asked = new ArrayList<>();

    @AfterEach
    void close() {
        connections.close();
        loops.close();
    }

    private CompletableFuture<List<String>> askAll() {
        return router.everyPartition(i -> {
            assertEquals(asked.size(), i, "partitions are asked in order, each once");
            CompletableFuture<String> f = new CompletableFuture<>();
            asked.add(f);
            return f;
        });
    }

    @Test
    void everyPartitionIsAskedBeforeAnyAnswersAndTheAnswersComeInPartitionOrder() throws Exception {
        CompletableFuture<List<String>> all = askAll();
        assertEquals(3, asked.size(), "all three asked at once");
        asked.get(2).complete("two");
        asked.get(0).complete("zero");
        assertFalse(all.isDone(), "waits for every partition");
        asked.get(1).complete("one");
        assertEquals(List.of("zero", "one", "two"), all.get(10, TimeUnit.SECONDS));
    }

    @Test
    void onePartitionsFailureFailsTheWholeWithItsCreelExceptionUnwrapped() throws Exception {
        CompletableFuture<List<String>> all = askAll();
        CreelException down = new CreelException(ErrorCode.UNAVAILABLE, "nn1 is down");
        asked.get(0).complete("zero");
        asked.get(1).completeExceptionally(new CompletionException(down));
        asked.get(2).complete("two");
        Throwable failure = all.handle((v, t) -> t).get(10, TimeUnit.SECONDS);
        assertSame(down, failure, "callers see the CreelException itself");
    }
}
