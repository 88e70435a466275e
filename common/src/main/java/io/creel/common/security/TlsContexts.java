package io.creel.common.security;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import javax.net.ssl.SSLException;

/**
 * The TLS contexts of a process, built from its PEM files ({@link SecurityKeys}): one for the
 * connections it serves and one for those it opens. Built once; the engine is OpenSSL's when
 * netty-tcnative is on the class path (and allowed), else the Java runtime's.
 */
final class TlsContexts {
    private final SslContext server;
    private final SslContext client;
    private final SslProvider provider;

    private TlsContexts(SslContext server, SslContext client, SslProvider provider) {
        this.server = server;
        this.client = client;
        this.provider = provider;
    }

    /** Reads the files {@code conf} names; fails CONFIGURATION naming the key and file at fault. */
    static TlsContexts of(CreelConf conf) {
        SslProvider provider = provider(conf.get(SecurityKeys.TLS_PROVIDER));
        File cert = file(SecurityKeys.TLS_CERT.name(), conf.get(SecurityKeys.TLS_CERT));
        File key = file(SecurityKeys.TLS_KEY.name(), conf.get(SecurityKeys.TLS_KEY));
        File trust = file(SecurityKeys.TLS_TRUST.name(), conf.get(SecurityKeys.TLS_TRUST));
        boolean clientAuth = conf.get(SecurityKeys.TLS_CLIENT_AUTH);
        if ((cert == null) != (key == null)) {
            throw new CreelException(ErrorCode.CONFIGURATION, SecurityKeys.TLS_CERT.name() + " and "
                    + SecurityKeys.TLS_KEY.name() + " go together: set both or neither");
        }
        if (clientAuth && trust == null) {
            throw new CreelException(ErrorCode.CONFIGURATION, SecurityKeys.TLS_CLIENT_AUTH.name() + " needs "
                    + SecurityKeys.TLS_TRUST.name() + ": the authority clients' certificates are checked against");
        }
        SslContext server = null;
        try {
            if (cert != null) {
                SslContextBuilder b = SslContextBuilder.forServer(cert, key).sslProvider(provider)
                        .clientAuth(clientAuth ? ClientAuth.REQUIRE : ClientAuth.NONE);
                if (trust != null) {
                    b.trustManager(trust);
                }
                server = b.build();
            }
            SslContextBuilder c = SslContextBuilder.forClient().sslProvider(provider)
                    .endpointIdentificationAlgorithm(conf.get(SecurityKeys.TLS_VERIFY_HOSTNAME) ? "HTTPS" : null);
            if (trust != null) {
                c.trustManager(trust);
            }
            if (clientAuth) {
                if (cert == null) {
                    throw new CreelException(ErrorCode.CONFIGURATION, SecurityKeys.TLS_CLIENT_AUTH.name()
                            + " is on: a client needs " + SecurityKeys.TLS_CERT.name() + " and "
                            + SecurityKeys.TLS_KEY.name());
                }
                c.keyManager(cert, key);
            }
            return new TlsContexts(server, c.build(), provider);
        } catch (SSLException | IllegalArgumentException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot set up TLS from " + SecurityKeys.TLS_CERT.name()
                    + "=" + cert + ", " + SecurityKeys.TLS_KEY.name() + "=" + key + ", " + SecurityKeys.TLS_TRUST.name()
                    + "=" + trust + ": " + e.getMessage(), e);
        }
    }

    private static SslProvider provider(String name) {
        return switch (name) {
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new CreelException(ErrorCode.CONFIGURATION, SecurityKeys.TLS_PROVIDER.name() + "=openssl but "
                            + "OpenSSL (netty-tcnative) is unavailable: " + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            default -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    private static File file(String key, String path) {
        if (path.isEmpty()) {
            return null;
        }
        File f = new File(path);
        if (!f.canRead()) {
            throw new CreelException(ErrorCode.CONFIGURATION, key + "=" + path + ": no such readable file");
        }
        return f;
    }

    /** For the connections this process serves; fails CONFIGURATION when it has no certificate. */
    SslContext server() {
        if (server == null) {
            throw new CreelException(ErrorCode.CONFIGURATION, "TLS is on but this server has no certificate: set "
                    + SecurityKeys.TLS_CERT.name() + " and " + SecurityKeys.TLS_KEY.name());
        }
        return server;
    }

    SslContext client() {
        return client;
    }

    SslProvider provider() {
        return provider;
    }

    /**
     * The name a verified TLS client certificate gives its holder: its subject's CN (the whole
     * subject when it has none), or {@code null} when {@code ssl} is null or its peer presented no
     * verified certificate.
     */
    static String subjectName(io.netty.handler.ssl.SslHandler ssl) {
        if (ssl == null) {
            return null;
        }
        try {
            java.security.cert.Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            if (chain.length == 0 || !(chain[0] instanceof java.security.cert.X509Certificate x)) {
                return null;
            }
            String dn = x.getSubjectX500Principal().getName();
            for (javax.naming.ldap.Rdn rdn : new javax.naming.ldap.LdapName(dn).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
            return dn;
        } catch (javax.net.ssl.SSLPeerUnverifiedException | javax.naming.InvalidNameException e) {
            return null;
        }
    }
}
