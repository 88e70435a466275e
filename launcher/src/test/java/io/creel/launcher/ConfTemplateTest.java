package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** conf/creel-site.conf documents every key with its true default, and nothing that is not a key. */
class ConfTemplateTest {
    private static final Pattern ENTRY = Pattern.compile("^#\\s*(creel\\.[a-z0-9.\\-]+)\\s*=\\s*(.*)$");

    private static Map<String, String> documented() throws IOException {
        Path template = Path.of("..", "conf", "creel-site.conf");
        Map<String, String> keys = new HashMap<>();
        for (String line : Files.readAllLines(template)) {
            Matcher m = ENTRY.matcher(line.trim());
            if (m.matches()) {
                keys.put(m.group(1), m.group(2).trim());
            }
        }
        return keys;
    }

    @Test
    void everyKeyIsDocumentedWithItsDefault() throws IOException {
        Map<String, String> doc = documented();
        for (ConfKey<?> key : ConfKeys.all().values()) {
            assertTrue(doc.containsKey(key.name()), key.name() + " is missing from conf/creel-site.conf");
            assertEquals(key.defaultText(), doc.get(key.name()), "documented default of " + key.name());
        }
    }

    @Test
    void theTemplateNamesNoUnknownKey() throws IOException {
        for (String name : documented().keySet()) {
            assertTrue(ConfKeys.all().containsKey(name), "conf/creel-site.conf documents unknown key " + name);
        }
    }

    @Test
    void theTemplateAsShippedLoadsCleanly() {
        CreelConf conf = CreelConf.load(Path.of("..", "conf", "creel-site.conf"), Map.of());
        assertEquals(ConfKeys.BLOCK_SIZE.parse(ConfKeys.BLOCK_SIZE.defaultText()), conf.get(ConfKeys.BLOCK_SIZE));
    }
}
