package io.creel.storage.tcp.transport;

import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.storage.TagFile;
import io.creel.common.storage.TransportContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a client may reach a server's files directly: local access is enabled, and the
 * server's tag file exists here and carries the server's token. A file of the same name on another
 * machine (or left by an earlier server) has another token, so it is never mistaken for the server's.
 */
final class LocalAccess {
    private static final Logger LOG = LoggerFactory.getLogger(LocalAccess.class);

    private LocalAccess() {
    }

    static boolean sameHost(StorageServerInfo server, String tier, TransportContext context) {
        if (!tier.equals(server.tier()) || !context.conf().get(ConfKeys.CLIENT_LOCAL_ACCESS)
                || server.tagPath().isEmpty() || server.dataPath().isEmpty()) {
            return false;
        }
        Path tags = Path.of(server.tagPath());
        if (!Files.isRegularFile(tags) || !Files.isRegularFile(Path.of(server.dataPath()))) {
            return false;
        }
        try {
            TagFile.Header h = TagFile.readHeader(tags);
            boolean same = h.token() == server.localToken() && h.blockCount() == server.blockCount()
                    && h.blockSize() == server.blockSize() && h.dataOffset() == server.dataOffset();
            if (!same) {
                LOG.debug("{} exists but belongs to another server than {}", tags, server.address());
            }
            return same;
        } catch (IOException | CreelException e) {
            LOG.debug("cannot use {} for local access to {}: {}", tags, server.address(), e.toString());
            return false;
        }
    }
}
