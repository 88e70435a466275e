package io.creel.common.security;

import io.creel.common.conf.CreelConf;
import io.netty.channel.ChannelPipeline;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What protects a process's connections of the frame protocol, read from its configuration: the
 * cluster secret both ends must prove ({@link SecurityKeys#SECRET_FILE}) and the handshake's timeout.
 * A server and a client add their end of it to a new connection's pipeline, in front of everything
 * else; once the handshake is done those handlers are gone, so requests pay nothing for it.
 */
public final class RpcSecurity {
    private static final RpcSecurity NONE = new RpcSecurity(null, Duration.ofSeconds(10));

    private final ClusterSecret secret;
    private final Duration handshakeTimeout;

    private RpcSecurity(ClusterSecret secret, Duration handshakeTimeout) {
        this.secret = secret;
        this.handshakeTimeout = handshakeTimeout;
    }

    /** No authentication: what a connection had before this layer existed. */
    public static RpcSecurity none() {
        return NONE;
    }

    /** The security {@code conf} asks for; fails CONFIGURATION when its secret file is unusable. */
    public static RpcSecurity of(CreelConf conf) {
        String file = conf.get(SecurityKeys.SECRET_FILE);
        Duration timeout = conf.get(SecurityKeys.HANDSHAKE_TIMEOUT);
        return file.isEmpty() ? new RpcSecurity(null, timeout)
                : new RpcSecurity(ClusterSecret.read(Path.of(file)), timeout);
    }

    /** Whether connections prove the cluster secret. */
    public boolean authenticates() {
        return secret != null;
    }

    /** Adds the server's end to a new connection's pipeline ({@code name} for log lines). */
    public void addServerHandlers(ChannelPipeline pipeline, String name) {
        if (secret != null) {
            pipeline.addFirst("auth", new ServerHandshake(name, secret, handshakeTimeout));
        }
    }

    /**
     * Adds the client's end to a new connection's pipeline; returns its handshake, whose
     * {@link ClientHandshake#done()} the connection waits for, or {@code null} without authentication.
     */
    public ClientHandshake addClientHandlers(ChannelPipeline pipeline, String server) {
        if (secret == null) {
            return null;
        }
        ClientHandshake handshake = new ClientHandshake(server, secret, handshakeTimeout);
        pipeline.addFirst("auth", handshake);
        return handshake;
    }
}
