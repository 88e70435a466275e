package io.creel.bench.cluster;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Memory a JVM holds for live data: heap in use after full collections, and NIO direct buffers
 * (off-heap structures a namenode may keep). Measured inside the process that holds the namenode.
 *
 * @param heapBytes   heap used after {@link #measureAfterGc}'s collections
 * @param directBytes bytes of direct buffers in use (the "direct" buffer pool; mapped files are not counted)
 */
public record MemoryUse(long heapBytes, long directBytes) {
    public MemoryUse {
        if (heapBytes < 0 || directBytes < 0) {
            throw new IllegalArgumentException("memory figures cannot be negative: heap " + heapBytes + ", direct "
                    + directBytes);
        }
    }

    /** Heap and direct memory together. */
    public long totalBytes() {
        return heapBytes + directBytes;
    }

    /**
     * Collects garbage three times and takes the smallest heap in use (a collection can end with
     * garbage of concurrent threads still uncollected), plus the direct buffers in use.
     */
    public static MemoryUse measureAfterGc() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        long heap = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            heap = Math.min(heap, m.getHeapMemoryUsage().getUsed());
        }
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = Math.max(0, pool.getMemoryUsed());
            }
        }
        return new MemoryUse(heap, direct);
    }
}
