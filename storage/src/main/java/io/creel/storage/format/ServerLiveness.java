package io.creel.storage.format;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.LongSupplier;

/**
 * Whether the storage server owning a tag file is serving, as words in the file's header that the
 * server keeps up to date and same-host clients read before each transfer. A remote client learns
 * that a server is gone from its connection; a client that maps the server's files would go on
 * reading and writing them, so it asks here instead, and fails like the remote client does
 * ({@link io.creel.storage.spi.ServerNotServing}).
 *
 * <pre>
 *  48  int64 magic "CRLVNS01" (absent: a server that keeps no liveness words; nothing is checked)
 *  56  int64 state: 1 serving, 2 stopped
 *  64  int64 last beat, wall-clock milliseconds
 *  72  int64 beat interval, milliseconds
 * </pre>
 *
 * A server that stops says so at once; one that dies without a word is taken as not serving once
 * {@link #MISSED_BEATS} beats are missing, and at least {@link #MIN_SILENCE_MILLIS}. Same-host
 * processes share the wall clock.
 */
public final class ServerLiveness implements AutoCloseable {
    public static final long MAGIC = 0x43524c564e533031L; // "CRLVNS01"
    /** Beats a server may miss before a same-host client takes it as not serving. */
    public static final int MISSED_BEATS = 3;
    /**
     * The shortest silence taken as death, whatever the beat: on a loaded machine a beat thread can
     * be kept off the CPU for a few hundred milliseconds, and a live server's blocks must not be
     * refused then (with 100 ms beats, 3 missed beats were 300 ms: tests under load saw it).
     */
    public static final long MIN_SILENCE_MILLIS = 1_000;

    private static final int MAGIC_AT = 48;
    private static final int STATE_AT = 56;
    private static final int BEAT_AT = 64;
    private static final int INTERVAL_AT = 72;
    private static final long SERVING = 1;
    private static final long STOPPED = 2;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final MappedRegion mapping;
    private final ByteBuffer header;
    private final LongSupplier clock;

    private ServerLiveness(MappedRegion mapping, LongSupplier clock) {
        this.mapping = mapping;
        this.header = mapping.slice(0, 0, (int) TagFile.TAG_OFFSET);
        this.clock = clock;
    }

    /** Maps the header of {@code tagFile}: read-write for its server, read-only for clients. */
    public static ServerLiveness open(Path tagFile, boolean writable) throws IOException {
        return open(tagFile, writable, System::currentTimeMillis);
    }

    /** {@link #open(Path, boolean)} with a clock of milliseconds (tests). */
    public static ServerLiveness open(Path tagFile, boolean writable, LongSupplier clock) throws IOException {
        StandardOpenOption[] options = writable
                ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
                : new StandardOpenOption[] {StandardOpenOption.READ};
        try (FileChannel ch = FileChannel.open(tagFile, options)) {
            MappedRegion region = new MappedRegion(ch, writable ? FileChannel.MapMode.READ_WRITE
                    : FileChannel.MapMode.READ_ONLY, 0, (int) TagFile.TAG_OFFSET, 1);
            return new ServerLiveness(region, clock);
        }
    }

    /** The server starts serving and will beat every {@code intervalMillis}. */
    public void serving(long intervalMillis) {
        LONGS.setVolatile(header, INTERVAL_AT, Math.max(1, intervalMillis));
        LONGS.setVolatile(header, BEAT_AT, clock.getAsLong());
        LONGS.setVolatile(header, STATE_AT, SERVING);
        LONGS.setVolatile(header, MAGIC_AT, MAGIC);
    }

    /** The server is alive now. */
    public void beat() {
        LONGS.setVolatile(header, BEAT_AT, clock.getAsLong());
    }

    /** The server stops serving: same-host clients fail from now on. */
    public void stopped() {
        LONGS.setVolatile(header, STATE_AT, STOPPED);
    }

    /**
     * Why the server is not serving (stopped, or silent for too long), or {@code null} if it is. A
     * header without the liveness words (an older server) counts as serving.
     */
    public String notServing() {
        if ((long) LONGS.getVolatile(header, MAGIC_AT) != MAGIC) {
            return null;
        }
        long state = (long) LONGS.getVolatile(header, STATE_AT);
        if (state != SERVING) {
            return state == STOPPED ? "it stopped" : "it has not started";
        }
        long interval = (long) LONGS.getVolatile(header, INTERVAL_AT);
        long silent = clock.getAsLong() - (long) LONGS.getVolatile(header, BEAT_AT);
        if (silent > Math.max(MISSED_BEATS * interval, MIN_SILENCE_MILLIS)) {
            return "no sign of life for " + silent + " ms; it beats every " + interval + " ms";
        }
        return null;
    }

    /** Unmaps the header. */
    @Override
    public void close() {
        mapping.close();
    }
}
