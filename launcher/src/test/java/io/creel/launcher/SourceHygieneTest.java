package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules of the source tree that are not about dependencies (those are {@link ArchitectureTest}'s):
 * a main source file that keeps growing has stopped doing one job (the namespace was split once and
 * grew back to almost 900 lines), and a comment that sends the reader to a file of the project must
 * send them to one that exists.
 */
class SourceHygieneTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /**
     * The most lines a main source file may have. The largest files were split when this was set;
     * a file that needs more has two jobs: split it, do not raise the limit.
     */
    static final int MAX_MAIN_LINES = 660;
    /** A path of the project in a comment: it starts with a top-level folder of the tree. */
    private static final Pattern CITED = Pattern.compile("(?<![\\w./-])([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\\.(?:md|sh|conf|xml|java|properties|py|yml|yaml|json))\\b");

    @Test
    void noMainSourceFileOutgrowsOneJob() throws IOException {
        List<String> large = new ArrayList<>();
        int seen = 0;
        for (Path f : javaSources()) {
            if (!f.toString().contains("/src/main/")) {
                continue;
            }
            seen++;
            long lines;
            try (Stream<String> s = Files.lines(f, StandardCharsets.UTF_8)) {
                lines = s.count();
            }
            if (lines > MAX_MAIN_LINES) {
                large.add(ROOT.relativize(f) + " (" + lines + " lines)");
            }
        }
        assertTrue(seen > 300, "the main sources were read: " + seen);
        assertEquals(List.of(), large, "main source files over " + MAX_MAIN_LINES + " lines: split each by job");
    }

    @Test
    void commentsCiteFilesThatExist() throws IOException {
        Set<String> topLevel = new TreeSet<>();
        try (Stream<Path> s = Files.list(ROOT)) {
            s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).forEach(topLevel::add);
        }
        List<String> missing = new ArrayList<>();
        int cited = 0;
        for (Path f : javaSources()) {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (!(line.startsWith("//") || line.startsWith("*") || line.startsWith("/*"))) {
                    continue; // only comments: strings name files at run time, made where the code runs
                }
                Matcher m = CITED.matcher(line);
                while (m.find()) {
                    String path = m.group(1);
                    if (!topLevel.contains(path.substring(0, path.indexOf('/')))) {
                        continue; // a path on some machine (/etc/..., the guest's /lab/...), not in this tree
                    }
                    cited++;
                    if (!Files.exists(ROOT.resolve(path))) {
                        missing.add(ROOT.relativize(f) + ":" + (i + 1) + " cites " + path);
                    }
                }
            }
        }
        assertTrue(cited > 20, "comments citing files of the tree were found: " + cited);
        assertEquals(List.of(), missing, "comments citing files that do not exist");
    }

    private static List<Path> javaSources() throws IOException {
        try (Stream<Path> s = Files.walk(ROOT)) {
            return s.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .toList();
        }
    }
}
