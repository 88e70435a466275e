package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Seek contract suite against the test cluster. */
public class CreelContractSeekTest extends AbstractContractSeekTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
