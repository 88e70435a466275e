package io.creel.storage.rdma.disni;

import io.creel.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.RdmaSettings;
import java.net.InetAddress;

/**
 * Opens real RDMA devices through DiSNI and Creel's libdisni.so. Checks {@link RdmaAvailability}
 * first, so a machine without RDMA gets the one message that says what is missing.
 */
public final class DisniRdmaProvider implements RdmaProvider {
    @Override
    public RdmaDevice open(InetAddress localAddress, RdmaSettings settings) throws RdmaException {
        RdmaAvailability.detect().require(RdmaException::notAvailable);
        return DisniRdmaDevice.open(localAddress, settings);
    }
}
