package io.creel.storage.rdma.lab;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Disables {@link RdmaLab} tests, naming what is missing, outside an RDMA lab. */
public final class RdmaLabCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String missing = LabEnvironment.missing();
        if (missing == null) {
            return ConditionEvaluationResult.enabled("RDMA is available");
        }
        if (LabEnvironment.required()) {
            // Run, so that the test fails on the gap instead of disappearing from the results.
            return ConditionEvaluationResult.enabled("RDMA is required here: the test will fail on: " + missing);
        }
        return ConditionEvaluationResult.disabled("RDMA lab test skipped: " + missing);
    }
}
