package io.creel.storage.nvmf.tier;

import io.creel.storage.nvmf.protocol.NvmfOpcodes;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.Volume;
import java.util.Map;

/**
 * Serves {@link NvmfOpcodes#BLOCK_CLAIM} (this tier's own request) on the port of every nvmf storage
 * server, for clients that write its blocks at the target directly; declines every other volume.
 */
public final class NvmfClaimExporter implements BlockExporter {
    /** For {@link java.util.ServiceLoader}. */
    public NvmfClaimExporter() {
    }

    @Override
    public String name() {
        return "nvmf-claim";
    }

    @Override
    public Export export(Volume volume, ExportContext context) {
        if (!(volume instanceof NvmfVolume nvmf)) {
            return null;
        }
        context.route(NvmfOpcodes.BLOCK_CLAIM, nvmf.claimHandler(context.serverName()));
        return new Export() {
            @Override
            public Map<String, String> attributes() {
                return Map.of(); // the volume's own attributes say how to reach the target
            }

            @Override
            public void close() {
                // the route goes with the server's port; nothing of the export's own to stop
            }
        };
    }
}
