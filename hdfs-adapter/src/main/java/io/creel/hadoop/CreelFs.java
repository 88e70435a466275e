package io.creel.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * Creel for {@link org.apache.hadoop.fs.FileContext} users: set
 * {@code fs.AbstractFileSystem.creel.impl=io.creel.hadoop.CreelFs}. Every call goes to a
 * {@link CreelFileSystem}, so both APIs behave the same.
 */
public class CreelFs extends DelegateToFileSystem {
    public CreelFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
        super(uri, new CreelFileSystem(), conf, CreelFileSystem.SCHEME, false);
    }

    @Override
    public int getUriDefaultPort() {
        return CreelFileSystem.DEFAULT_PORT;
    }
}
