package io.creel.storage.local.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.ServerLiveness;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.spi.TransportCost;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "local-file": same-host reads of a "disk" server's data file (writes go elsewhere). Offered only
 * when {@code creel.client.local.access} is on and the server's tag file here carries its token.
 */
public final class LocalFileTransportProvider implements BlockTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(LocalFileTransportProvider.class);

    @Override
    public String name() {
        return "local-file";
    }

    @Override
    public int cost() {
        return TransportCost.SAME_HOST_FILE.value();
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        SameHostFiles files = LocalAccess.sameHost(server, "disk", context);
        if (files == null) {
            return null;
        }
        FileChannel data = null;
        ServerLiveness liveness = null;
        try {
            liveness = ServerLiveness.open(Path.of(files.tagPath()), false);
            // Page-cache reads are coherent with the server's O_DIRECT writes (the kernel invalidates
            // cached pages that a direct write covers), so no alignment is needed here.
            data = FileChannel.open(Path.of(files.dataPath()), StandardOpenOption.READ);
            MappedTagTable tags = MappedTagTable.open(Path.of(files.tagPath()), server.blockCount(), false);
            return new LocalFileTransport(server, files, data, tags, liveness);
        } catch (IOException e) {
            if (liveness != null) {
                liveness.close();
            }
            if (data != null) {
                try {
                    data.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            LOG.info("cannot open {} of {} ({}); using another transport", files.dataPath(), server.address(),
                    LocalAccess.whyNot(e));
            return null;
        }
    }
}
