package io.creel.common.security;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;

/**
 * What protects a process's connections of the frame protocol, read from its configuration: TLS
 * ({@link SecurityKeys#TLS_ENABLED}), the cluster secret both ends must prove
 * ({@link SecurityKeys#SECRET_FILE}) or the named credential a client proves instead
 * ({@link SecurityKeys#CREDENTIAL_FILE}), and the handshake's timeout. A server proves and checks
 * with the secret; a client proves its credential when it has one, else the secret. A server and a client add their end
 * of it to a new connection's pipeline, in front of everything else; once the authentication
 * handshake is done its handlers are gone, so requests pay nothing for it (TLS, of course, costs its
 * encryption on every byte).
 */
public final class RpcSecurity {
    /** Set on a connection whose bytes go through TLS: nothing may be written to it as a file region. */
    public static final AttributeKey<Boolean> ENCRYPTED = AttributeKey.valueOf("creel.tls");
    /** Set on a server's connection once its peer has authenticated: who it proved to be. */
    public static final AttributeKey<Identity> IDENTITY = AttributeKey.valueOf("creel.identity");
    private static final RpcSecurity NONE = new RpcSecurity(null, null, null, Duration.ofSeconds(10));
    /** One per configuration object: PEM files and the secret are read once, not per connection. */
    private static final Map<CreelConf, RpcSecurity> BY_CONF = Collections.synchronizedMap(new WeakHashMap<>());

    private final ClusterSecret secret;
    /** What this process proves as a client instead of the secret, or null. */
    private final Credential credential;
    private final TlsContexts tls;
    private final Duration handshakeTimeout;
    /** Whether a client without secret or credential claims its TLS certificate's identity. */
    private final boolean certificateIdentity;

    private RpcSecurity(ClusterSecret secret, Credential credential, TlsContexts tls, Duration handshakeTimeout) {
        this(secret, credential, tls, handshakeTimeout, false);
    }

    private RpcSecurity(ClusterSecret secret, Credential credential, TlsContexts tls, Duration handshakeTimeout,
                        boolean certificateIdentity) {
        this.secret = secret;
        this.credential = credential;
        this.certificateIdentity = certificateIdentity;
        this.tls = tls;
        this.handshakeTimeout = handshakeTimeout;
    }

    /** No authentication: what a connection had before this layer existed. */
    public static RpcSecurity none() {
        return NONE;
    }

    /** The security {@code conf} asks for; fails CONFIGURATION when its secret file is unusable. */
    public static RpcSecurity of(CreelConf conf) {
        RpcSecurity known = BY_CONF.get(conf);
        if (known != null) {
            return known;
        }
        String file = conf.get(SecurityKeys.SECRET_FILE);
        String credential = conf.get(SecurityKeys.CREDENTIAL_FILE);
        RpcSecurity made = new RpcSecurity(file.isEmpty() ? null : ClusterSecret.read(Path.of(file)),
                credential.isEmpty() ? null : Credential.read(Path.of(credential)),
                conf.get(SecurityKeys.TLS_ENABLED) ? TlsContexts.of(conf) : null,
                conf.get(SecurityKeys.HANDSHAKE_TIMEOUT), conf.get(SecurityKeys.TLS_IDENTITY));
        if (made.certificateIdentity && (made.tls == null || !conf.get(SecurityKeys.TLS_CLIENT_AUTH))) {
            throw new CreelException(ErrorCode.CONFIGURATION, SecurityKeys.TLS_IDENTITY.name() + " needs a TLS client "
                    + "certificate: set " + SecurityKeys.TLS_ENABLED.name() + " and " + SecurityKeys.TLS_CLIENT_AUTH.name());
        }
        BY_CONF.put(conf, made);
        return made;
    }

    /** Whether connections are carried over TLS. */
    public boolean encrypts() {
        return tls != null;
    }

    /** Whether connections prove the cluster secret (a server's peers must; see {@link #clientIdentity} for a client). */
    public boolean authenticates() {
        return secret != null;
    }

    /**
     * Who this process's client connections prove to be: the credential's identity when
     * {@link SecurityKeys#CREDENTIAL_FILE} is set, else the cluster (with a secret), else {@code null}.
     */
    public Identity clientIdentity() {
        return credential != null ? Identity.named(credential.name(), credential.idText())
                : secret != null ? Identity.CLUSTER : null;
    }

    /** How long a peer may take for the TLS and authentication handshakes. */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /**
     * The client's end of a new connection's authentication handshake, for a transport that is not
     * a Netty channel ({@link #addClientHandlers} is the TCP one); {@code null} when there is no secret.
     */
    public ClientAuthentication clientAuthentication() {
        return credential != null ? new ClientAuthentication(credential) : secret != null
                ? new ClientAuthentication(secret) : certificateIdentity ? ClientAuthentication.byCertificate() : null;
    }

    /**
     * The server's end of a new connection's authentication handshake, for a transport that is not
     * a Netty channel ({@link #addServerHandlers} is the TCP one); {@code null} when there is no secret.
     */
    public ServerAuthentication serverAuthentication() {
        return secret == null ? null : new ServerAuthentication(secret);
    }

    /** Adds the server's end to a new connection's pipeline ({@code name} for log lines). */
    public void addServerHandlers(Channel channel, String name) {
        ChannelPipeline pipeline = channel.pipeline();
        if (secret != null) {
            pipeline.addFirst("auth", new ServerHandshake(name, secret, handshakeTimeout));
        }
        if (tls != null) {
            pipeline.addFirst("tls-required", new TlsRequired(name, tls.server(), handshakeTimeout.toMillis()));
            channel.attr(ENCRYPTED).set(Boolean.TRUE);
        }
    }

    /**
     * Checks, before a server binds, that this process can serve with this security (with TLS: that
     * it has a certificate); fails CONFIGURATION saying what is missing.
     */
    public void checkServable() {
        if (tls != null) {
            tls.server();
        }
    }

    /**
     * Adds the client's end to a new connection's pipeline; returns what completes once the
     * connection is secured (TLS handshake, then authentication) and fails with UNAUTHENTICATED
     * saying why it could not be, or {@code null} when there is nothing to wait for.
     */
    public CompletableFuture<Void> addClientHandlers(Channel channel, HostPort server) {
        ChannelPipeline pipeline = channel.pipeline();
        CompletableFuture<Void> authenticated = null;
        ClientAuthentication proving = clientAuthentication();
        if (proving != null) {
            ClientHandshake handshake = new ClientHandshake(server.toString(), proving, handshakeTimeout);
            pipeline.addFirst("auth", handshake);
            authenticated = handshake.done();
        }
        if (tls == null) {
            return authenticated;
        }
        SslHandler ssl = tls.client().newHandler(channel.alloc(), server.host(), server.port());
        ssl.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        pipeline.addFirst("tls", ssl);
        channel.attr(ENCRYPTED).set(Boolean.TRUE);
        CompletableFuture<Void> encrypted = new CompletableFuture<>();
        ssl.handshakeFuture().addListener(f -> {
            if (f.isSuccess()) {
                encrypted.complete(null);
            } else {
                encrypted.completeExceptionally(new CreelException(ErrorCode.UNAUTHENTICATED, "TLS handshake with "
                        + server + " failed: " + f.cause().getMessage() + " (is TLS on there ("
                        + SecurityKeys.TLS_ENABLED.name() + "), and does its certificate chain to "
                        + SecurityKeys.TLS_TRUST.name() + " and name the host?)", f.cause()));
                channel.close();
            }
        });
        CompletableFuture<Void> auth = authenticated;
        return auth == null ? encrypted : encrypted.thenCompose(ok -> auth);
    }

    /**
     * Why a connection whose TLS handshake had succeeded was refused by the server's TLS (an alert),
     * worded for the client, or {@code null} when {@code cause} is no such refusal. Under TLS 1.3 a client's handshake is over
     * before the server has checked the client's certificate, so a server that refuses it answers
     * the first request with an alert instead of failing the handshake.
     */
    public static String tlsRefusal(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            // Only an alert the server sent: a record this side could not decrypt is no refusal.
            if (t instanceof javax.net.ssl.SSLException && t.getMessage() != null
                    && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("alert")) {
                return "the server refused this client's TLS: " + t.getMessage() + " (does it require client "
                        + "certificates (" + SecurityKeys.TLS_CLIENT_AUTH.name() + "), and is this client's "
                        + SecurityKeys.TLS_CERT.name() + " a certificate its authority signed?)";
            }
        }
        return null;
    }

    /** Whether {@code channel}'s bytes go through TLS (so a reply must be a buffer, not a file region). */
    public static boolean isEncrypted(Channel channel) {
        return channel.hasAttr(ENCRYPTED);
    }
}
