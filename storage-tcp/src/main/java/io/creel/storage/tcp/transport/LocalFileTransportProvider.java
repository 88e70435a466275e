package io.creel.storage.tcp.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.storage.BlockTransport;
import io.creel.common.storage.BlockTransportProvider;
import io.creel.common.storage.TransportContext;
import io.creel.storage.tcp.tags.MappedTagTable;
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
        return 20;
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        if (!LocalAccess.sameHost(server, "disk", context)) {
            return null;
        }
        FileChannel data = null;
        try {
            // Page-cache reads are coherent with the server's O_DIRECT writes (the kernel invalidates
            // cached pages that a direct write covers), so no alignment is needed here.
            data = FileChannel.open(Path.of(server.dataPath()), StandardOpenOption.READ);
            MappedTagTable tags = MappedTagTable.open(Path.of(server.tagPath()), server.blockCount(), false);
            return new LocalFileTransport(server, data, tags);
        } catch (IOException e) {
            if (data != null) {
                try {
                    data.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            LOG.info("cannot open {} of {} ({}); using another transport", server.dataPath(), server.address(),
                    e.toString());
            return null;
        }
    }
}
