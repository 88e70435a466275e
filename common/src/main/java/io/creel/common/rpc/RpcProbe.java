package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.RequestType;

/**
 * What one kind of RPC server ("namenode", "dram storage") reports to whoever measures it: each
 * request answered, and connections opening and closing. Called on event-loop and reply threads
 * for every request: implementations count without locks and without allocating.
 * {@link RpcProbes} hands them out.
 */
public interface RpcProbe {
    /** Reports nowhere; the servers skip their clock reads for it. */
    RpcProbe NONE = new RpcProbe() {
        @Override
        public void answered(RequestType op, CreelException error, long nanos) {
        }

        @Override
        public void connectionOpened() {
        }

        @Override
        public void connectionClosed() {
        }
    };

    /**
     * A request was answered.
     *
     * @param error the error it was answered with (its code and message), or null when it succeeded
     * @param nanos from its arrival to its reply
     */
    void answered(RequestType op, CreelException error, long nanos);

    void connectionOpened();

    void connectionClosed();
}
