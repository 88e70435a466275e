package io.creel.storage.nvmf.tcp.pdu;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The NVMe/TCP PDU reader of either side given hostile bytes in hostile pieces, with and without
 * digests: it hands on PDUs or rejects the stream with a {@link PduException}; anything else thrown
 * is a finding, and so is data it hands on beyond what the PDU's header announced.
 */
class PduReaderFuzzTest {
    private static final long MAX_DATA = 1 << 20;

    @FuzzTest(maxDuration = "15s")
    void thePduReaderRejectsHostileBytesWithAPduException(FuzzedDataProvider data) {
        Counting handler = new Counting();
        PduReader reader = new PduReader(data.consumeBoolean() ? PduReader.Role.HOST : PduReader.Role.CONTROLLER,
                MAX_DATA, handler);
        reader.digests(data.consumeBoolean(), data.consumeBoolean());
        try {
            while (data.remainingBytes() > 0) {
                ByteBuf piece = Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(1, 2048)));
                try {
                    reader.read(piece);
                } finally {
                    piece.release();
                }
            }
        } catch (PduException rejected) {
            return; // the connection would be terminated with this reason
        }
    }

    /** Accepts every PDU, checking that the data handed on is what its header announced. */
    private static final class Counting implements PduReader.Handler {
        private long announced = -1;
        private long received;

        @Override
        public void onPdu(PduType type, ByteBuf header) {
            if (announced >= 0) {
                throw new IllegalStateException("a whole PDU in the middle of another's data");
            }
        }

        @Override
        public void onDataStart(PduType type, ByteBuf header, int dataLength) {
            if (dataLength < 0 || dataLength > MAX_DATA) {
                throw new IllegalStateException("announced " + dataLength + " data bytes (at most " + MAX_DATA + ")");
            }
            announced = dataLength;
            received = 0;
        }

        @Override
        public void onData(ByteBuf chunk) {
            received += chunk.readableBytes();
            if (announced < 0 || received > announced) {
                throw new IllegalStateException(received + " data bytes handed on where " + announced + " were announced");
            }
        }

        @Override
        public void onDataEnd(PduType type, ByteBuf header, boolean digestOk) {
            if (received != announced) {
                throw new IllegalStateException("data ended after " + received + " of " + announced + " bytes");
            }
            announced = -1;
        }
    }
}
