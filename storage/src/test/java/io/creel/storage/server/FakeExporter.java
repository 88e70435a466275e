package io.creel.storage.server;

import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.Volume;
import java.util.Map;

/**
 * An exporter that serves a volume as its {@link ServerPlan} says: routes the planned opcodes to a
 * handler that answers with an empty reply and records the request. Two are registered, so tests can
 * have two exporters meet on one server.
 */
public abstract class FakeExporter implements BlockExporter {
    private final String name;

    FakeExporter(String name) {
        this.name = name;
    }

    /** The first exporter on the class path. */
    public static final class Alpha extends FakeExporter {
        public Alpha() {
            super("alpha");
        }
    }

    /** The second exporter on the class path. */
    public static final class Beta extends FakeExporter {
        public Beta() {
            super("beta");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Export export(Volume volume, ExportContext context) {
        ServerPlan plan = ServerPlan.of(((FakeVolume) volume).hostId());
        ServerPlan.ExportPlan p = plan.exports.get(name);
        if (p == null) {
            plan.event("export " + name + " declined");
            return null;
        }
        RequestHandler handler = call -> served(plan, call);
        for (Opcode op : p.routes()) {
            context.route(op, handler);
        }
        if (p.failure() != null) {
            throw p.failure();
        }
        plan.event("export " + name + " started on " + context.serverName());
        return new Export() {
            @Override
            public Map<String, String> attributes() {
                return p.attributes();
            }

            @Override
            public void close() {
                plan.event("export " + name + " closed, port " + plan.portState());
            }
        };
    }

    private void served(ServerPlan plan, RpcCall call) {
        plan.event(name + " served " + call.opcode());
        call.reply(Empty.INSTANCE);
    }
}
