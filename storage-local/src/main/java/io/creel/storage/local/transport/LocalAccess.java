package io.creel.storage.local.transport;

import io.creel.common.error.CreelException;
import io.creel.common.net.HostIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.TagFile;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.spi.TransportContext;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
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

    /**
     * The server's files, if this client may and can reach them directly: local access is on, the
     * server is of {@code tier}, and the tag file here carries the server's token (so it is the
     * server's file, not a namesake). {@code null} otherwise.
     */
    static SameHostFiles sameHost(StorageServerInfo server, String tier, TransportContext context) {
        SameHostFiles files = SameHostFiles.of(server);
        if (!tier.equals(server.tier()) || !context.conf().get(LocalTierKeys.LOCAL_ACCESS) || files == null) {
            return null;
        }
        Path tags = Path.of(files.tagPath());
        // notExists, not !exists: a file this user may not even look at must not pass for an absent one.
        if (Files.notExists(tags) || Files.notExists(Path.of(files.dataPath()))) {
            return null;
        }
        try {
            TagFile.Header h = TagFile.readHeader(tags);
            boolean same = h.token() == server.localToken() && h.blockCount() == server.blockCount()
                    && h.blockSize() == server.blockSize() && h.dataOffset() == files.dataOffset();
            if (!same) {
                LOG.debug("{} exists but belongs to another server than {}", tags, server.address());
            }
            return same ? files : null;
        } catch (AccessDeniedException e) {
            if (HostIdentity.machineId().equals(server.hostId())) {
                // Once per server: the transport selector remembers that this transport cannot reach it.
                LOG.info("cannot use the files of {} on this host ({}); using another transport", server.address(),
                        whyNot(e));
            } else {
                LOG.debug("cannot use {} for local access to {}: {}", tags, server.address(), e.toString());
            }
            return null;
        } catch (IOException | CreelException e) {
            LOG.debug("cannot use {} for local access to {}: {}", tags, server.address(), e.toString());
            return null;
        }
    }

    /**
     * Why a server's file could not be opened, for the one line that says a costlier transport is
     * used: a permission refusal says the files are private (not an unexplained failure).
     */
    static String whyNot(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "user " + System.getProperty("user.name") + " may not open it: a storage server's files are private "
                    + "to its user and the group named by " + LocalTierKeys.FILES_GROUP.name();
        }
        return e.toString();
    }
}
