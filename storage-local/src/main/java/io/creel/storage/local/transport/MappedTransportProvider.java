package io.creel.storage.local.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.MappedRegion;
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
        return TransportCost.SAME_HOST_MEMORY.value();
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        SameHostFiles files = LocalAccess.sameHost(server, "dram", context);
        if (files == null) {
            return null;
        }
        Path data = Path.of(files.dataPath());
        MappedRegion region = null;
        ServerLiveness liveness = null;
        PositionalFile file = null;
        try {
            liveness = ServerLiveness.open(Path.of(files.tagPath()), false);
            try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                region = new MappedRegion(ch, FileChannel.MapMode.READ_WRITE, files.dataOffset(), server.blockSize(),
                        server.blockCount());
            }
            file = new PositionalFile(data, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedTagTable tags = MappedTagTable.open(Path.of(files.tagPath()), server.blockCount(), true);
            return new MappedTransport(server, region, file, files.dataOffset(), tags, liveness);
        } catch (IOException e) {
            if (region != null) {
                region.close();
            }
            if (liveness != null) {
                liveness.close();
            }
            if (file != null) {
                try {
                    file.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            // Not fatal: the server is still reachable over TCP.
            LOG.info("cannot map {} of {} ({}); using another transport", data, server.address(), LocalAccess.whyNot(e));
            return null;
        }
    }
}
