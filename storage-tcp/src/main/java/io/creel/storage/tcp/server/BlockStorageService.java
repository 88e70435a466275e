package io.creel.storage.tcp.server;

import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcServer;
import io.creel.common.storage.StorageService;
import io.creel.common.storage.StorageTierContext;
import io.creel.storage.tcp.medium.BlockMedium;
import io.creel.storage.tcp.tags.MappedTagTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running storage server of the TCP tiers: an {@link RpcServer} serving a {@link BlockMedium}
 * through a {@link BlockRequestHandler}. Closing stops serving and releases the medium; a
 * persistent medium is forced to its files and kept, any other has its files deleted.
 */
public final class BlockStorageService implements StorageService {
    private static final Logger LOG = LoggerFactory.getLogger(BlockStorageService.class);

    /**
     * What a tier sets up once it knows its port (file names carry it).
     *
     * @param files      deleted at close (none for a persistent medium)
     * @param persistent whether the medium and tags are forced to their files at close
     * @param release    closed last (a persistent server's directory lock), or null
     */
    public record Medium(BlockMedium medium, MappedTagTable tags, StorageServerInfo info, String summary,
                         List<Path> files, boolean persistent, AutoCloseable release) {
        /** A medium whose files live only as long as the server. */
        public Medium(BlockMedium medium, MappedTagTable tags, StorageServerInfo info, String summary,
                      List<Path> files) {
            this(medium, tags, info, summary, files, false, null);
        }
    }

    /** Creates a tier's medium for the bound port. */
    @FunctionalInterface
    public interface MediumFactory {
        Medium create(int port) throws IOException;
    }

    private final RpcServer server;
    private final Medium medium;
    private volatile boolean closed;

    private BlockStorageService(RpcServer server, Medium medium) {
        this.server = server;
        this.medium = medium;
    }

    /**
     * Listens on {@code creel.storage.bind.host}:{@code creel.storage.port}, then lets {@code factory}
     * prepare the medium (its file names include the bound port), then serves it.
     */
    public static BlockStorageService start(StorageTierContext ctx, String tier, MediumFactory factory) {
        return start(ctx, tier, ctx.conf().get(ConfKeys.STORAGE_PORT), factory);
    }

    /** Like {@link #start(StorageTierContext, String, MediumFactory)} on a given port (0: a free one). */
    public static BlockStorageService start(StorageTierContext ctx, String tier, int port, MediumFactory factory) {
        Starting starting = new Starting(tier);
        RpcServer server = RpcServer.start(tier + " storage", ctx.conf().get(ConfKeys.STORAGE_BIND_HOST),
                port, ctx.loops(), ctx.conf().maxFrameSize(), ctx.conf().get(ConfKeys.NET_FRAME_TIMEOUT), starting);
        Medium medium;
        try {
            medium = factory.create(server.port());
        } catch (IOException e) {
            server.close();
            throw new CreelException(ErrorCode.CONFIGURATION, tier + " storage: cannot prepare the medium: " + e, e);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        starting.target = new BlockRequestHandler(tier + " storage " + medium.info().address(), medium.medium(),
                medium.tags().tags(), ctx.control());
        return new BlockStorageService(server, medium);
    }

    @Override
    public StorageServerInfo describe() {
        return medium.info();
    }

    @Override
    public io.creel.common.storage.BlockTags tags() {
        return medium.tags().tags();
    }

    @Override
    public String summary() {
        return medium.summary();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Stop serving first, so no request touches the medium after it is released.
        server.close();
        if (medium.persistent()) {
            // The next start serves these bytes and tags: they must be in the files, not only in memory.
            try {
                medium.medium().force();
                medium.tags().force();
            } catch (IOException | RuntimeException e) {
                LOG.error("{}: cannot force the medium to its files: {}", medium.info().address(), e.toString());
            }
        }
        medium.medium().close();
        medium.tags().close();
        if (medium.release() != null) {
            try {
                medium.release().close();
            } catch (Exception e) {
                LOG.warn("{}: releasing the storage directory failed: {}", medium.info().address(), e.toString());
            }
        }
        for (Path f : medium.files()) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.warn("cannot delete {}: {}", f, e.toString());
            }
        }
    }

    /** Answers UNAVAILABLE until the medium is ready (the port is bound before the files exist). */
    private static final class Starting implements RequestHandler {
        private final String tier;
        private volatile RequestHandler target;

        Starting(String tier) {
            this.tier = tier;
        }

        @Override
        public void handle(RpcCall call) {
            RequestHandler t = target;
            if (t == null) {
                throw new CreelException(ErrorCode.UNAVAILABLE, tier + " storage server is still starting");
            }
            t.handle(call);
        }
    }
}
