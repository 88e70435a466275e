package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractAppendTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Append contract suite against the test cluster. */
public class CreelContractAppendTest extends AbstractContractAppendTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
