package io.creel.storage.rdma.lab;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that needs real RDMA: tagged {@value LabEnvironment#TAG}, and skipped, each test
 * with the reason, where RDMA is missing (unless CREEL_RDMA_REQUIRED=1, where it then fails).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(LabEnvironment.TAG)
@ExtendWith(RdmaLabCondition.class)
public @interface RdmaLab {
}
