package io.creel.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetEnclosingRoot;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's GetEnclosingRoot contract suite against the test cluster. */
public class CreelContractGetEnclosingRootTest extends AbstractContractGetEnclosingRoot {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new CreelContract(conf);
    }
}
