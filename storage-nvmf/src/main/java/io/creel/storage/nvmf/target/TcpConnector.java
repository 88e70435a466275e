package io.creel.storage.nvmf.target;

import io.creel.storage.nvmf.tcp.NvmeTcpController;
import io.creel.storage.nvmf.tcp.NvmeTcpEndpoint;
import io.creel.storage.nvmf.tcp.NvmeTcpEventLoops;
import io.creel.storage.nvmf.tcp.NvmeTcpOptions;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Connects NVMe/TCP controllers on event loops of its own: a storage server's medium waits for NVMe
 * commands on the server's event loops, so the commands must not need those loops to complete.
 */
public final class TcpConnector implements TargetConnector {
    private final NvmeTcpEventLoops loops;

    /** A connector with {@code threads} event loops named after {@code name}. */
    public TcpConnector(int threads, String name) {
        this.loops = NvmeTcpEventLoops.nio(threads, name);
    }

    @Override
    public Fabric fabric() {
        return Fabric.TCP;
    }

    @Override
    public CompletableFuture<TargetController> connect(TargetAddress address, TargetOptions options) {
        if (address.fabric() != Fabric.TCP) {
            throw new IllegalArgumentException("an NVMe/TCP connector cannot reach " + address);
        }
        NvmeTcpOptions o = NvmeTcpOptions.defaults()
                .withDigests(options.digest().header(), options.digest().data())
                .withIoQueues(options.ioQueues(), options.queueDepth())
                .withTimeouts(options.commandTimeout(), options.connectTimeout())
                .withKeepAlive(options.keepAlive());
        if (!options.hostNqn().isEmpty()) {
            // The Host Identifier goes with the NQN: the same NQN always presents the same id.
            o = o.withHost(options.hostNqn(), UUID.nameUUIDFromBytes(options.hostNqn().getBytes(StandardCharsets.UTF_8)));
        }
        NvmeTcpEndpoint endpoint = new NvmeTcpEndpoint(address.host(), address.port(), address.nqn());
        return NvmeTcpController.connect(endpoint, o, loops).thenApply(c -> new TcpTargetController(address, c));
    }

    @Override
    public void close() {
        loops.close();
    }
}
