package io.creel.spark.shuffle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Corrupts shuffle data where it is stored: in the storage servers' region and data files. */
final class StoredBytes {
    private StoredBytes() {
    }

    /**
     * Flips the byte in the middle of every place the storage servers' files under {@code dirs} hold
     * {@code needle} (bytes read back from the store), and returns how many places it flipped.
     */
    static int flipTheMiddleOf(byte[] needle, List<Path> dirs) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path dir : dirs) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.filter(Files::isRegularFile).forEach(files::add);
            }
        }
        int middle = needle.length / 2;
        int flipped = 0;
        for (Path file : files) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
                for (int i = 0; i + needle.length <= m.limit(); i++) {
                    if (matches(m, i, needle)) {
                        m.put(i + middle, (byte) (m.get(i + middle) ^ 0x5a));
                        flipped++;
                    }
                }
                m.force();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot corrupt " + file, e);
            }
        }
        return flipped;
    }

    private static boolean matches(MappedByteBuffer b, int at, byte[] needle) {
        for (int k = 0; k < needle.length; k++) {
            if (b.get(at + k) != needle[k]) {
                return false;
            }
        }
        return true;
    }
}
