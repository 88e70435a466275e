package io.creel.spark.broadcast;

import io.creel.client.CreelClient;
import io.creel.common.conf.CreelConf;

/**
 * The one Creel client of this JVM for broadcasts. In local mode the driver and the executor
 * components of the plugin share the JVM, so each holds a reference and the last release closes
 * the client. Readers that find no holder connect one themselves (a task deserialized before the
 * executor plugin started); the plugin's release closes it at the end.
 */
final class SharedClient {
    private static CreelClient client;
    private static int holders;

    private SharedClient() {
    }

    /** Takes a reference, connecting on the first one. */
    static synchronized CreelClient acquire(CreelConf conf) {
        if (client == null) {
            client = CreelClient.connect(conf);
        }
        holders++;
        return client;
    }

    /** The client, connecting without taking a reference when nobody holds one yet. */
    static synchronized CreelClient get(CreelConf conf) {
        if (client == null) {
            client = CreelClient.connect(conf);
        }
        return client;
    }

    /** Gives a reference back; the last one closes the client. */
    static synchronized void release() {
        if (holders > 0) {
            holders--;
        }
        if (holders == 0 && client != null) {
            CreelClient c = client;
            client = null;
            c.close();
        }
    }
}
