package io.creel.hadoop.contract;

import io.creel.hadoop.CreelFileSystem;
import io.creel.hadoop.TestCluster;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract for {@code creel://}: the flags in {@code contract/creel.xml}, the shared test cluster. */
public class CreelContract extends AbstractFSContract {
    public static final String CONTRACT_XML = "contract/creel.xml";

    public CreelContract(Configuration conf) {
        super(TestCluster.configure(conf));
        addConfResource(CONTRACT_XML);
    }

    @Override
    public String getScheme() {
        return CreelFileSystem.SCHEME;
    }

    @Override
    public FileSystem getTestFileSystem() throws IOException {
        return FileSystem.get(TestCluster.uri(), getConf());
    }

    @Override
    public Path getTestPath() {
        return new Path("/test");
    }
}
