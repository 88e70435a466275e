package io.creel.storage.local;

import static io.creel.storage.local.TestServer.failureCode;
import static io.creel.storage.local.TestServer.pattern;
import static io.creel.storage.local.TestServer.read;
import static io.creel.storage.local.TestServer.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.local.transport.LocalFileTransportProvider;
import io.creel.storage.local.transport.MappedTransportProvider;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.ServerNotServing;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Same-host access: the "mapped" transport for dram, "local-file" for disk, and when they decline. */
class LocalTransportsTest {
    @TempDir
    Path dir;

    @Test
    void mappedIsOfferedForASameHostDramServerAndSharesBytesWithTcp() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            assertNotNull(mapped, "the tag file here carries the server's token");
            assertEquals("mapped", mapped.name());
            byte[] a = pattern(70_000, 1);
            write(mapped, s.at(3, 7), 4000, a);
            assertArrayEquals(a, read(tcp, s.at(3, 7), 4000, a.length), "written mapped, read over TCP");
            byte[] b = pattern(5, 2);
            write(tcp, s.at(3, 7), 1, b);
            assertArrayEquals(b, read(mapped, s.at(3, 7), 1, 5), "written over TCP, read mapped");
            assertTrue(mapped.read(s.at(3, 7), 0, ByteBuffer.allocate(1)).isDone(), "no network: done at once");
        }
    }

    @Test
    void mappedDetectsStaleTagsLikeTheServer() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            write(mapped, s.at(4, 10), 0, pattern(10, 1));
            write(tcp, s.at(4, 11), 0, pattern(10, 2)); // reallocated, claimed by a newer writer via the server

            ByteBuffer dst = ByteBuffer.allocate(10);
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> TestServer.await(mapped.read(s.at(4, 10), 0, dst))));
            assertEquals(0, dst.position(), "a refused read moves nothing");
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> write(mapped, s.at(4, 10), 0, new byte[3])));
            assertArrayEquals(pattern(10, 2), read(mapped, s.at(4, 11), 0, 10), "the stale writer changed nothing");
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> read(tcp, s.at(4, 10), 0, 1)),
                    "a claim made through the mapping is seen by the server");
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> read(mapped, s.at(4, 11), TestServer.BLOCK, 1)));
        }
    }

    @Test
    void largeTransfersGoThroughTheFileUntilABlockIsUsedAgainAndAllPathsAgree() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            byte[] whole = pattern(TestServer.BLOCK, 3);
            // First use of block 5: a direct buffer of a whole block is written with pwrite.
            write(mapped, s.at(5, 2), 0, whole);
            assertArrayEquals(whole, read(tcp, s.at(5, 2), 0, whole.length), "the server sees the pwrite");
            // Second use: the block is mapped in and copied through the mapping; the bytes are the same.
            assertArrayEquals(whole, read(mapped, s.at(5, 2), 0, whole.length));
            byte[] part = pattern(200_000, 4);
            write(tcp, s.at(5, 2), 300_000, part);
            assertArrayEquals(part, read(mapped, s.at(5, 2), 300_000, part.length),
                    "a mapped-in block shows what the server wrote after it was mapped in");
            // A heap buffer always goes through the mapping; a large read of an unseen block through the file.
            write(tcp, s.at(6, 3), 0, whole);
            ByteBuffer heap = ByteBuffer.allocate(TestServer.BLOCK);
            TestServer.await(mapped.read(s.at(6, 3), 0, heap));
            assertArrayEquals(whole, heap.array());
            write(tcp, s.at(7, 3), 0, whole);
            assertArrayEquals(whole, read(mapped, s.at(7, 3), 0, whole.length), "pread of an unseen block");
        }
    }

    @Test
    void aStaleLargeReadThroughTheFileFailsLikeASmallOne() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            write(tcp, s.at(8, 20), 0, pattern(TestServer.BLOCK, 1));
            ByteBuffer dst = ByteBuffer.allocateDirect(TestServer.BLOCK);
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> TestServer.await(mapped.read(s.at(8, 19), 0, dst))),
                    "an older allocation's location");
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> write(mapped, s.at(8, 19), 0,
                    pattern(TestServer.BLOCK, 2))), "an older allocation may not write either");
            assertArrayEquals(pattern(TestServer.BLOCK, 1), read(tcp, s.at(8, 20), 0, TestServer.BLOCK));
        }
    }

    @Test
    void anInterruptedCallerGetsItsBytesAndDoesNotBreakTheTransportForOthers() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            byte[] a = pattern(TestServer.BLOCK, 5);
            byte[] b = pattern(TestServer.BLOCK, 6);
            write(tcp, s.at(9, 1), 0, a);
            write(tcp, s.at(10, 1), 0, b);
            ByteBuffer dst = ByteBuffer.allocateDirect(TestServer.BLOCK);
            Thread.currentThread().interrupt(); // the file channel closes itself on an interrupted reader
            try {
                mapped.read(s.at(9, 1), 0, dst).join();
            } finally {
                assertTrue(Thread.interrupted(), "the caller's interrupt is left for it to handle");
            }
            byte[] got = new byte[TestServer.BLOCK];
            dst.flip().get(got);
            assertArrayEquals(a, got, "the interrupted read fell back to the mapping");
            assertArrayEquals(b, read(mapped, s.at(10, 1), 0, TestServer.BLOCK), "a later pread reopens the file");
            write(mapped, s.at(11, 1), 0, a);
            assertArrayEquals(a, read(tcp, s.at(11, 1), 0, TestServer.BLOCK), "and so does a later pwrite");
        }
    }

    @Test
    void mappedDeclinesWhenTheTokenDiffersTheFileIsMissingOrLocalAccessIsOff() {
        try (TestServer s = TestServer.start("dram", dir)) {
            MappedTransportProvider p = new MappedTransportProvider();
            StorageServerInfo info = s.info();
            assertNull(p.open(withToken(info, info.localToken() + 1), s.transportContext),
                    "another server's file of that name (e.g. on another host)");
            assertNull(p.open(withPaths(info, dir.resolve("missing.region").toString()), s.transportContext),
                    "no such file here");
            CreelConf off = s.transportContext.conf().with(Map.of("creel.client.local.access", "false"));
            assertNull(p.open(info, new TransportContext(off, s.connections)), "local access disabled");
            assertNull(new LocalFileTransportProvider().open(info, s.transportContext), "local-file is for disk");
        }
    }

    @Test
    void localFileReadsWhatTcpWroteAndRefusesToWrite() {
        try (TestServer s = TestServer.start("disk", dir);
             BlockTransport local = s.transport("local-file");
             BlockTransport tcp = s.transport("tcp")) {
            assertNotNull(local);
            assertEquals("local-file", local.name());
            assertFalse(local.supportsWrite());
            byte[] a = pattern(9_999, 5);
            write(tcp, s.at(9, 3), 4095, a);
            assertArrayEquals(a, read(local, s.at(9, 3), 4095, a.length), "O_DIRECT writes are visible to file reads");
            assertEquals(ErrorCode.UNSUPPORTED, failureCode(() -> write(local, s.at(9, 3), 0, new byte[1])));

            write(tcp, s.at(9, 4), 0, new byte[1]); // a newer allocation
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> read(local, s.at(9, 3), 0, 1)));
            assertNull(new MappedTransportProvider().open(s.info(), s.transportContext), "mapped is for dram");
            assertNull(new LocalFileTransportProvider().open(withToken(s.info(), s.info().localToken() ^ 1),
                    s.transportContext), "token mismatch");
        }
    }

    @Test
    void aStoppedDramServerFailsMappedTransfersTheWayItFailsTcpOnes() {
        try (TestServer s = TestServer.start("dram", dir);
             BlockTransport mapped = s.transport("mapped");
             BlockTransport tcp = s.transport("tcp")) {
            byte[] a = pattern(1000, 3);
            write(mapped, s.at(2, 5), 0, a);
            assertArrayEquals(a, read(mapped, s.at(2, 5), 0, a.length));
            s.service.close(); // the file stays mapped in this process, the bytes are still there

            ErrorCode overTcp = failureCode(() -> read(tcp, s.at(2, 5), 0, 10));
            assertEquals(ErrorCode.UNAVAILABLE, overTcp);
            CreelException mappedRead = assertThrows(CreelException.class, () -> read(mapped, s.at(2, 5), 0, 10));
            assertEquals(overTcp, mappedRead.code(), "the same answer as a remote reader: " + mappedRead);
            assertTrue(mappedRead.getMessage().contains(s.info().address()) && mappedRead.getMessage().contains("stopped"),
                    mappedRead.getMessage());
            assertTrue(mappedRead instanceof ServerNotServing, "not the transport's fault: no other is tried");
            assertEquals(ErrorCode.UNAVAILABLE, failureCode(() -> write(mapped, s.at(2, 5), 0, new byte[3])),
                    "nor may a same-host writer put bytes into a stopped server's memory");
        }
    }

    @Test
    void aStoppedDiskServerFailsLocalFileReadsTheWayItFailsTcpOnes() {
        try (TestServer s = TestServer.start("disk", dir);
             BlockTransport local = s.transport("local-file");
             BlockTransport tcp = s.transport("tcp")) {
            write(tcp, s.at(1, 9), 0, pattern(100, 4));
            assertArrayEquals(pattern(100, 4), read(local, s.at(1, 9), 0, 100));
            s.service.close();
            assertEquals(ErrorCode.UNAVAILABLE, failureCode(() -> read(tcp, s.at(1, 9), 0, 10)));
            assertEquals(ErrorCode.UNAVAILABLE, failureCode(() -> read(local, s.at(1, 9), 0, 10)));
        }
    }

    @Test
    void providersAreCheapestSameHostFirst() {
        Map<String, Integer> costs = new java.util.HashMap<>();
        for (BlockTransportProvider p : java.util.ServiceLoader.load(BlockTransportProvider.class)) {
            costs.put(p.name(), p.cost());
        }
        assertEquals(Map.of("mapped", 10, "local-file", 20, "tcp", 100), costs);
    }

    private static StorageServerInfo withToken(StorageServerInfo i, long token) {
        return new StorageServerInfo(i.serverId(), i.tier(), i.storageClass(), i.host(), i.port(), i.hostId(),
                i.blockCount(), i.blockSize(), token, i.attributes());
    }

    private static StorageServerInfo withPaths(StorageServerInfo i, String path) {
        SameHostFiles f = SameHostFiles.of(i);
        return i.withAttributes(new SameHostFiles(path, f.dataOffset(), path, f.tagOffset()).toAttributes());
    }
}
