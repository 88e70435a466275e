package io.creel.common.protocol;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Reply to {@link SyncManyRequest}: one result per entry, in the request's order. */
public record SyncManyReply(List<Result> results) implements Message {
    /**
     * One entry's outcome.
     *
     * @param error   {@code null} if the entry was applied, else why not
     * @param message what went wrong, naming the node ({@code ""} when applied)
     * @param length  the node's committed length after the entry (0 when it failed)
     */
    public record Result(ErrorCode error, String message, long length) {
        public Result {
            message = message == null ? "" : message;
        }

        public static Result applied(long length) {
            return new Result(null, "", length);
        }

        public static Result failed(CreelException e) {
            String m = e.getMessage() == null ? "" : e.getMessage();
            return new Result(e.code(), m.length() > 1024 ? m.substring(0, 1024) : m, 0);
        }

        /** The failure as an exception, or {@code null} if applied. */
        public CreelException failure() {
            return error == null ? null : new CreelException(error, message);
        }
    }

    public SyncManyReply {
        results = List.copyOf(results);
        if (results.isEmpty() || results.size() > SyncManyRequest.MAX_ENTRIES) {
            throw new IllegalArgumentException("a sync-many reply holds 1.." + SyncManyRequest.MAX_ENTRIES
                    + " results, not " + results.size());
        }
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(results.size());
        for (Result r : results) {
            out.writeShort(r.error() == null ? 0 : r.error().code());
            if (r.error() == null) {
                out.writeLong(r.length());
            } else {
                Wire.writeString(out, r.message());
            }
        }
    }

    public static SyncManyReply decode(ByteBuf in) {
        int n = Wire.readInt(in, "syncManyReply.results", 1, SyncManyRequest.MAX_ENTRIES);
        Wire.need(in, n * 4, "syncManyReply.results");
        List<Result> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int code = Wire.readUnsignedShort(in, "syncManyReply.error");
            if (code == 0) {
                results.add(Result.applied(Wire.readNonNegativeLong(in, "syncManyReply.length")));
            } else {
                ErrorCode e = ErrorCode.of(code);
                if (e.code() != code) {
                    throw new ProtocolException("sync-many reply: unknown error code " + code);
                }
                results.add(new Result(e, Wire.readString(in, "syncManyReply.message"), 0));
            }
        }
        Wire.expectEnd(in, "sync-many reply");
        return new SyncManyReply(results);
    }
}
