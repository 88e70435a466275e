package io.creel.storage.local.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.ServerLiveness;
import io.creel.storage.spi.ServerNotServing;
import java.util.Map;

/**
 * The files through which a client on the storage server's host reaches its blocks without the
 * server: where the block data starts in {@code dataPath}, where the tag table starts in
 * {@code tagPath} (one file for DRAM, two for disk). Travels in the server's description as
 * {@code local.*} attributes.
 */
public record SameHostFiles(String dataPath, long dataOffset, String tagPath, long tagOffset) {
    static final String DATA_PATH = "local.data.path";
    static final String DATA_OFFSET = "local.data.offset";
    static final String TAG_PATH = "local.tag.path";
    static final String TAG_OFFSET = "local.tag.offset";

    /**
     * Fails with {@link ServerNotServing} if the server owning the files is not serving: a same-host
     * client must not go on using a stopped server's files when a remote client cannot reach it.
     */
    static void checkServing(ServerLiveness liveness, StorageServerInfo server) {
        String why = liveness.notServing();
        if (why != null) {
            throw new ServerNotServing("storage server " + server.address() + " is not serving (" + why + ")");
        }
    }

    /** The attributes for the server's description. */
    public Map<String, String> toAttributes() {
        return Map.of(DATA_PATH, dataPath, DATA_OFFSET, Long.toString(dataOffset), TAG_PATH, tagPath, TAG_OFFSET,
                Long.toString(tagOffset));
    }

    /** The files a server describes, or {@code null} if it describes none (or nonsense). */
    public static SameHostFiles of(StorageServerInfo server) {
        String data = server.attribute(DATA_PATH);
        String tags = server.attribute(TAG_PATH);
        if (data.isEmpty() || tags.isEmpty()) {
            return null;
        }
        try {
            long dataOffset = Long.parseLong(server.attribute(DATA_OFFSET));
            long tagOffset = Long.parseLong(server.attribute(TAG_OFFSET));
            return dataOffset < 0 || tagOffset < 0 ? null : new SameHostFiles(data, dataOffset, tags, tagOffset);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
