package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractUnbufferTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Unbuffer contract suite against the test cluster. */
public class CreelContractUnbufferTest extends AbstractContractUnbufferTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
