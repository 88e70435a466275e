package io.creel.storage;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.format.ServerLiveness;
import io.creel.storage.format.TagFile;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The liveness words a server keeps in its tag file, as a same-host client reads them. */
class ServerLivenessTest {
    @TempDir
    Path dir;
    private Path file;
    private final AtomicLong now = new AtomicLong(1_000_000);

    @BeforeEach
    void tagFile() throws Exception {
        file = dir.resolve("t.tags");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(TagFile.size(4));
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            TagFile.initialize(ch, 4096, 4, 77, 0);
        }
    }

    @Test
    void aServingServerThatBeatsIsServingAndOneThatStoppedSaysSoAtOnce() throws Exception {
        try (ServerLiveness server = ServerLiveness.open(file, true, now::get);
             ServerLiveness client = ServerLiveness.open(file, false, now::get)) {
            server.serving(100);
            assertNull(client.notServing());
            now.addAndGet(250);
            server.beat();
            now.addAndGet(250);
            assertNull(client.notServing(), "a beat 250 ms ago: fine");
            server.stopped();
            assertTrue(client.notServing().contains("stopped"), client.notServing());
        }
    }

    @Test
    void aServerThatWentSilentForSeveralBeatsIsNotServing() throws Exception {
        try (ServerLiveness server = ServerLiveness.open(file, true, now::get);
             ServerLiveness client = ServerLiveness.open(file, false, now::get)) {
            server.serving(500);
            now.addAndGet(ServerLiveness.MISSED_BEATS * 500);
            assertNull(client.notServing(), "not yet");
            now.addAndGet(1);
            String why = client.notServing();
            assertTrue(why != null && why.contains("no sign of life for 1501 ms"), why);
        }
    }

    @Test
    void aServerThatBeatsOftenIsNotTakenAsDeadForAPauseShorterThanASecond() throws Exception {
        try (ServerLiveness server = ServerLiveness.open(file, true, now::get);
             ServerLiveness client = ServerLiveness.open(file, false, now::get)) {
            server.serving(100);
            now.addAndGet(ServerLiveness.MIN_SILENCE_MILLIS);
            assertNull(client.notServing(), "10 missed beats, but a loaded machine can pause a beat thread that long");
            now.addAndGet(1);
            String why = client.notServing();
            assertTrue(why != null && why.contains("no sign of life for 1001 ms"), why);
        }
    }

    @Test
    void aTagFileWithoutLivenessWordsIsTakenAsServing() throws Exception {
        try (ServerLiveness client = ServerLiveness.open(file, false, now::get)) {
            assertNull(client.notServing(), "a server that keeps no liveness words is not judged by them");
        }
    }
}
