package io.creel.storage.nvmf.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.format.TagSector;
import io.creel.storage.nvmf.format.VolumeHeader;
import io.creel.storage.nvmf.protocol.BlockClaimRequest;
import io.creel.storage.nvmf.protocol.NvmfOpcodes;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.volume.NvmfErrors;
import io.creel.storage.nvmf.volume.TagVerdict;
import io.creel.storage.nvmf.volume.VolumeIo;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes the blocks of one nvmf storage server at its NVMe-oF target, without the server
 * in the data path, keeping the stale-block guarantee with the target's tag sectors:
 *
 * <ul>
 *   <li>A read reads the bytes, and after they have arrived reads the block's tag sector: a tag other
 *       than the location's fails the read with STALE_BLOCK. A new owner of the block wrote its tag
 *       before any of its bytes (and waited for that write to complete), so a reader that still finds
 *       the old tag after its data read cannot have read any of the new owner's bytes.</li>
 *   <li>A write reads the tag sector first. The location's own tag: the bytes go to the target. A
 *       newer tag: STALE_BLOCK, nothing is written. An older one (or none): the allocation's first
 *       write here; the server claims the block (BLOCK_CLAIM), answering once the tag sector holds the
 *       tag, and the bytes go after that.</li>
 * </ul>
 *
 * Before its first transfer the transport reads the namespace's header and goes on only if it names
 * the server's volume (its token); otherwise every transfer fails UNAVAILABLE and the client goes
 * through the server instead. Futures complete on the initiator's threads.
 */
final class NvmfTransport implements BlockTransport {
    private final String name;
    private final StorageServerInfo server;
    private final TargetAddress target;
    private final SharedTargets.Lease lease;
    private final RpcConnections connections;
    private final HostPort serverAddress;
    private final CompletableFuture<VolumeIo> volume;

    NvmfTransport(String name, StorageServerInfo server, NvmfAttributes attributes, TargetAddress target,
                  SharedTargets.Lease lease, RpcConnections connections) {
        this.name = name;
        this.server = server;
        this.target = target;
        this.lease = lease;
        this.connections = connections;
        this.serverAddress = new HostPort(server.host(), server.port());
        this.volume = lease.namespace().thenCompose(ns -> VolumeIo.readHeader(ns.device())
                .thenApply(header -> {
                    checkVolume(header, attributes, ns.device().describe());
                    return new VolumeIo(ns.bytes(), attributes.layout(), server.localToken());
                }));
    }

    /** The namespace reached must hold the server's volume, laid out as the server says. */
    private void checkVolume(Optional<VolumeHeader> header, NvmfAttributes attributes, String device) {
        if (header.isEmpty()) {
            throw new CreelException(ErrorCode.UNAVAILABLE, device + " holds no Creel volume: it is not the "
                    + "namespace storage server " + server.address() + " uses (is " + target
                    + " the address the server's target has from here?)");
        }
        VolumeHeader h = header.get();
        if (h.token() != server.localToken()) {
            throw new CreelException(ErrorCode.UNAVAILABLE, device + " holds Creel volume "
                    + Long.toHexString(h.token()) + ", not volume " + Long.toHexString(server.localToken())
                    + " of storage server " + server.address() + " (another server's namespace, or the server "
                    + "restarted)");
        }
        if (!h.layout().equals(attributes.layout())) {
            throw new CreelException(ErrorCode.UNAVAILABLE, device + ": the volume's header says " + h.layout()
                    + " but storage server " + server.address() + " describes " + attributes.layout());
        }
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        try {
            BlockRanges.check(server, block, offset, dst.remaining());
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        long b = block.blockNumber();
        String where = where(block);
        return volume.thenCompose(io -> io.read(b, offset, dst)
                        .thenCompose(v -> io.readTag(b))
                        .thenAccept(found -> {
                            if (found.tag() != block.tag()) {
                                throw TagVerdict.stale(where, b, block.tag(), found);
                            }
                        }))
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(NvmfErrors.toCreel(e, where)));
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        try {
            BlockRanges.check(server, block, offset, src.remaining());
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        long b = block.blockNumber();
        String where = where(block);
        return volume.thenCompose(io -> io.readTag(b)
                        .thenCompose(found -> claimed(block, found, where))
                        .thenCompose(v -> io.write(b, offset, src)))
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(NvmfErrors.toCreel(e, where)));
    }

    /** Completes when the block's tag sector holds the location's tag; fails STALE_BLOCK if it holds a newer one. */
    private CompletableFuture<Void> claimed(BlockLocation block, TagSector.Reading found, String where) {
        if (found.tag() == block.tag()) {
            return CompletableFuture.completedFuture(null);
        }
        if (TagVerdict.newer(found, block.tag())) {
            return CompletableFuture.failedFuture(TagVerdict.stale(where, block.blockNumber(), block.tag(), found));
        }
        BlockClaimRequest claim = new BlockClaimRequest(block.blockNumber(), block.tag());
        return connections.get(serverAddress)
                .thenCompose(c -> c.call(NvmfOpcodes.BLOCK_CLAIM, claim, Empty::decode))
                .thenApply(ok -> null);
    }

    private String where(BlockLocation block) {
        return name + " " + target + " (storage server " + server.address() + ") block " + block.blockNumber();
    }

    @Override
    public String name() {
        return name;
    }

    /** Gives the process's controller back; the last user closes it. */
    @Override
    public void close() {
        lease.close();
    }
}
