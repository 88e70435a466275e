package io.creel.common.namespace;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Directory records read from hostile bytes (a torn, stale or garbage slot of a directory's data):
 * every slot is either skipped ({@code null}) or read as a record that writes back to the very bytes
 * it was read from — a name that is not valid UTF-8 must not come back as a different name.
 */
class DirectoryRecordFuzzTest {
    @FuzzTest(maxDuration = "15s")
    void everySlotIsSkippedOrReadAsExactlyWhatItHolds(byte[] bytes) {
        ByteBuffer src = ByteBuffer.wrap(bytes);
        while (src.hasRemaining()) {
            int start = src.position();
            DirectoryRecord r = DirectoryRecord.readFrom(src);
            if (src.position() <= start && src.hasRemaining()) {
                throw new IllegalStateException("readFrom did not advance at " + start);
            }
            if (r == null) {
                continue;
            }
            ByteBuffer again = r.toBuffer();
            int len = (bytes[start + 2] & 0xff) << 8 | (bytes[start + 3] & 0xff);
            byte[] original = Arrays.copyOfRange(bytes, start, start + 12 + len);
            byte[] written = Arrays.copyOfRange(again.array(), 0, 12 + len);
            if (!Arrays.equals(original, written)) {
                throw new IllegalStateException("slot at " + start + " read as " + r + " ("
                        + new String(original, 12, len, StandardCharsets.ISO_8859_1).length() + " name bytes) but writes "
                        + "back differently");
            }
        }
    }
}
