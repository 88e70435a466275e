package io.creel.namenode.allocation;

import io.creel.common.protocol.StorageServerInfo;

/**
 * What a storage server shares its fate with, for placing the copies of a replicated block: its
 * host (the name it advertises, {@code creel.storage.advertise.host}: two servers of one machine
 * die together), and the rack or zone it declares ({@code creel.storage.rack}, carried as the
 * {@value #RACK_ATTRIBUTE} attribute; "" when it declares none).
 */
public final class FailureDomains {
    /** The attribute a storage server declares its rack or zone in. */
    public static final String RACK_ATTRIBUTE = "rack";

    private FailureDomains() {
    }

    /** The host the server is on. */
    public static String host(StorageServerInfo s) {
        return s.host();
    }

    /** The rack or zone the server declared, or "". */
    public static String rack(StorageServerInfo s) {
        return s.attribute(RACK_ATTRIBUTE);
    }
}
