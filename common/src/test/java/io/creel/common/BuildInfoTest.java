package io.creel.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class BuildInfoTest {
    @Test
    void theVersionIsTheOneThePomDeclares() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher parent = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
        assertTrue(parent.find(), "common/pom.xml names its parent's version");
        assertEquals(parent.group(1), BuildInfo.current().version());
    }

    @Test
    void theCommitIsAnAbbreviatedHashOrUnknown() {
        String commit = BuildInfo.current().commit();
        assertTrue(commit.matches("[0-9a-f]{12}") || commit.equals(BuildInfo.UNKNOWN), commit);
    }

    @Test
    void aCheckoutBuildKnowsItsCommit() {
        // This test runs inside the git checkout the build took the commit from.
        if (Files.exists(Path.of("..", ".git"))) {
            assertTrue(BuildInfo.current().commit().matches("[0-9a-f]{12}"), BuildInfo.current().commit());
        }
    }

    @Test
    void readsAsVersionAndCommit() {
        BuildInfo b = BuildInfo.current();
        assertEquals(b.version() + " (commit " + b.commit() + ")", b.toString());
    }
}
