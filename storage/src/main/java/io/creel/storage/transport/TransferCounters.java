package io.creel.storage.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bytes this process moved to and from storage servers, per transport ({@code mapped}, {@code tcp},
 * {@code rdma}, ...) and direction: counted by {@link BlockTransfers} when a piece completes, so
 * client and namenode (whose directory records go the same way) are counted alike. Process-wide,
 * lock-free; metrics read {@link #forEach}.
 */
public final class TransferCounters {
    private static final Map<String, LongAdder[]> BY_TRANSPORT = new ConcurrentHashMap<>();

    private TransferCounters() {
    }

    /** One observed count: bytes moved, and transfers (pieces). */
    @FunctionalInterface
    public interface Visitor {
        void visit(String transport, TransportSelector.Direction direction, long bytes, long pieces);
    }

    static void moved(String transport, TransportSelector.Direction direction, int bytes) {
        LongAdder[] c = BY_TRANSPORT.get(transport);
        if (c == null) {
            c = BY_TRANSPORT.computeIfAbsent(transport, t -> new LongAdder[] {new LongAdder(), new LongAdder(),
                    new LongAdder(), new LongAdder()});
        }
        int i = direction.ordinal() * 2;
        c[i].add(bytes);
        c[i + 1].increment();
    }

    /** Every transport that has moved anything, both directions. */
    public static void forEach(Visitor visitor) {
        BY_TRANSPORT.forEach((transport, c) -> {
            for (TransportSelector.Direction d : TransportSelector.Direction.values()) {
                int i = d.ordinal() * 2;
                visitor.visit(transport, d, c[i].sum(), c[i + 1].sum());
            }
        });
    }
}
