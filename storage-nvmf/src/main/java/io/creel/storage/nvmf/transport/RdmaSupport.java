package io.creel.storage.nvmf.transport;

import io.creel.rdma.RdmaAvailability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Whether this process can use RDMA, found out once (it looks at files and loads a library). */
final class RdmaSupport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaSupport.class);

    private RdmaSupport() {
    }

    private static final class Once {
        static final boolean AVAILABLE = detect();

        private static boolean detect() {
            RdmaAvailability a = RdmaAvailability.detect();
            if (a.available()) {
                LOG.info("NVMe-oF targets offering RDMA are reached over it: {}", a.message());
            } else {
                LOG.info("NVMe-oF targets are reached over NVMe/TCP, not RDMA: {}", a.message());
            }
            return a.available();
        }
    }

    static boolean available() {
        return Once.AVAILABLE;
    }
}
