package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractBulkDeleteTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's BulkDelete contract suite against the test cluster. */
public class CreelContractBulkDeleteTest extends AbstractContractBulkDeleteTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
