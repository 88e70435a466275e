package io.creel.multihost;

/**
 * How a lab cluster protects its connections. Scenarios take it as a parameter
 * ({@code @ParameterizedTest @EnumSource(LabSecurity.class)}) and so run once each way.
 */
public enum LabSecurity {
    /** No authentication, clear text: what {@code bin/creel} does by default. */
    PLAIN,
    /**
     * A cluster secret every process holds (mutual challenge-response on every connection) and TLS
     * on every port with client certificates required: each host has its own certificate, naming only
     * its address, from one throw-away authority (see {@link LabCredentials}).
     */
    AUTH_TLS
}
