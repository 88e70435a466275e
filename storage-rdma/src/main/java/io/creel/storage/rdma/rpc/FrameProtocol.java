package io.creel.storage.rdma.rpc;

import com.ibm.darpc.DaRPCProtocol;

/** DaRPC's view of Creel frames: requests and replies are both {@link FrameMessage}s of one capacity. */
class FrameProtocol implements DaRPCProtocol<FrameMessage, FrameMessage> {
    private final int capacity;

    FrameProtocol(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    @Override
    public FrameMessage createRequest() {
        return new FrameMessage(capacity);
    }

    @Override
    public FrameMessage createResponse() {
        return new FrameMessage(capacity);
    }
}
