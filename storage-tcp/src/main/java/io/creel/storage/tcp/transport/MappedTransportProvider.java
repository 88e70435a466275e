package io.creel.storage.tcp.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.storage.BlockTransport;
import io.creel.common.storage.BlockTransportProvider;
import io.creel.common.storage.MappedRegion;
import io.creel.common.storage.TransportContext;
import io.creel.storage.tcp.tags.MappedTagTable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "mapped": same-host access to a "dram" server by mapping its region file. Offered only when
 * {@code creel.client.local.access} is on and the server's tag file here carries its token;
 * otherwise {@link #open} returns null and a costlier transport is used.
 */
public final class MappedTransportProvider implements BlockTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(MappedTransportProvider.class);

    @Override
    public String name() {
        return "mapped";
    }

    @Override
    public int cost() {
        return 10;
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        if (!LocalAccess.sameHost(server, "dram", context)) {
            return null;
        }
        Path data = Path.of(server.dataPath());
        MappedRegion region = null;
        try {
            try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                region = new MappedRegion(ch, FileChannel.MapMode.READ_WRITE, server.dataOffset(), server.blockSize(),
                        server.blockCount());
            }
            MappedTagTable tags = MappedTagTable.open(Path.of(server.tagPath()), server.blockCount(), true);
            return new MappedTransport(server, region, tags);
        } catch (IOException e) {
            if (region != null) {
                region.close();
            }
            // Not fatal: the server is still reachable over TCP.
            LOG.info("cannot map {} of {} ({}); using another transport", data, server.address(), e.toString());
            return null;
        }
    }
}
