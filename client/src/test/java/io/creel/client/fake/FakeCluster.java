package io.creel.client.fake;

import io.creel.client.CreelClient;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Fake namenodes sharing one fake storage server, and clients configured for them (4 KiB blocks). */
public final class FakeCluster implements AutoCloseable {
    public static final int BLOCK = 4096;

    public final FakeStorage storage = new FakeStorage(BLOCK, 1 << 16);
    public final List<FakeNamenode> namenodes = new ArrayList<>();
    private final EventLoops loops;
    private final Map<String, String> settings = new LinkedHashMap<>();
    private final List<CreelClient> clients = new ArrayList<>();

    public FakeCluster(int namenodeCount) {
        CreelConf serverConf = CreelConf.defaults().with(Map.of("creel.block.size", "4k", "creel.net.event.loops", "2"));
        loops = EventLoops.create(serverConf, "fake-cluster");
        for (int i = 0; i < namenodeCount; i++) {
            namenodes.add(new FakeNamenode(loops, serverConf, storage));
        }
        settings.put("creel.block.size", "4k");
        settings.put("creel.client.buffer.size", "4k");
        settings.put("creel.net.event.loops", "2");
        settings.put("creel.client.request.timeout", "10s");
        settings.put("creel.namenode.address", addressList());
    }

    public FakeNamenode namenode() {
        return namenodes.get(0);
    }

    /** The value of creel.namenode.address for this cluster. */
    public String addressList() {
        return namenodes.stream().map(FakeNamenode::address).map(HostPort::toUri).collect(Collectors.joining(","));
    }

    /** Settings for clients (and the CLI's --conf); tests may change them before making a client. */
    public Map<String, String> settings() {
        return settings;
    }

    public CreelConf conf() {
        return CreelConf.of(settings);
    }

    public CreelClient client() {
        CreelClient c = CreelClient.connect(conf());
        clients.add(c);
        return c;
    }

    @Override
    public void close() {
        clients.forEach(CreelClient::close);
        namenodes.forEach(FakeNamenode::close);
        loops.close();
    }
}
