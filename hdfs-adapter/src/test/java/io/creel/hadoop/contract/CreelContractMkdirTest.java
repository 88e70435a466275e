package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractMkdirTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Mkdir contract suite against the test cluster. */
public class CreelContractMkdirTest extends AbstractContractMkdirTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
