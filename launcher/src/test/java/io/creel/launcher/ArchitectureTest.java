package io.creel.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The module map of docs/architecture.md, checked: every module sits in a layer, and dependencies
 * point down (a test may also use a module of its own layer, never one above). Inside the code, the
 * packages keep to their side of the same lines.
 */
class ArchitectureTest {
    /** Layers, lowest first; docs/architecture.md draws the same table. */
    private static final Map<String, Integer> LAYER = new LinkedHashMap<>();

    static {
        layer(0, "common");
        layer(1, "storage");
        layer(2, "storage-tcp", "storage-local", "storage-rdma");
        // NVMe-oF over RDMA runs jNVMf on storage-rdma's libdisni.so and asks it whether RDMA is there.
        layer(3, "storage-nvmf", "namenode", "client");
        layer(4, "cli", "minicluster", "ops");
        layer(5, "hdfs-adapter", "spark-shuffle", "spark-broadcast", "ycsb-binding", "bench");
        layer(6, "launcher");
        layer(7, "multihost-tests", "dist");
    }

    private static void layer(int level, String... modules) {
        for (String m : modules) {
            LAYER.put(m, level);
        }
    }

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.creel");
    }

    /** A dependency of one module on another Creel module. */
    private record Edge(String from, String to, String scope) {
    }

    private static List<String> modules() throws Exception {
        List<String> out = new ArrayList<>();
        NodeList list = parse(ROOT.resolve("pom.xml")).getElementsByTagName("module");
        for (int i = 0; i < list.getLength(); i++) {
            out.add(list.item(i).getTextContent().trim());
        }
        return out;
    }

    private static List<Edge> edges(String module) throws Exception {
        List<Edge> out = new ArrayList<>();
        Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
        NodeList deps = pom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            if (!"io.creel".equals(text(d, "groupId"))) {
                continue;
            }
            String artifact = text(d, "artifactId");
            String scope = text(d, "scope");
            out.add(new Edge(module, artifact.replaceFirst("^creel-", ""), scope.isEmpty() ? "compile" : scope));
        }
        return out;
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String text(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? "" : l.item(0).getTextContent().trim();
    }

    @Test
    void everyModuleHasALayer() throws Exception {
        for (String m : modules()) {
            assertTrue(LAYER.containsKey(m), "module " + m + " is in no layer: place it in docs/architecture.md and here");
            assertTrue(Files.isRegularFile(ROOT.resolve(m).resolve("pom.xml")), m);
        }
    }

    @Test
    void dependenciesPointDownTestsMayAlsoUseTheirOwnLayer() throws Exception {
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (String m : modules()) {
            for (Edge e : edges(m)) {
                seen++;
                if (e.to().equals("parent")) {
                    continue;
                }
                Integer from = LAYER.get(e.from());
                Integer to = LAYER.get(e.to());
                if (to == null) {
                    wrong.add(e + ": unknown module");
                } else if (e.scope().equals("test") ? to > from : to >= from) {
                    wrong.add(e.from() + " (layer " + from + ") -> " + e.to() + " (layer " + to + ", " + e.scope() + ")");
                }
            }
        }
        assertTrue(seen > 20, "the poms were read: " + seen + " dependencies between modules");
        assertEquals(List.of(), wrong, "dependencies that point up or sideways");
    }

    @Test
    void commonKnowsNoOtherCreelPackage() {
        noClasses().that().resideInAPackage("io.creel.common..")
                .should().dependOnClassesThat().resideOutsideOfPackages("io.creel.common..", "java..", "javax..",
                        "io.netty..", "org.slf4j..")
                .check(classes);
    }

    @Test
    void theStorageKernelNamesNoTierNamenodeOrClient() {
        noClasses().that().resideInAnyPackage("io.creel.storage.spi..", "io.creel.storage.server..",
                        "io.creel.storage.runtime..", "io.creel.storage.format..", "io.creel.storage.transport..")
                .should().dependOnClassesThat().resideInAnyPackage("io.creel.storage.local..", "io.creel.storage.tcp..",
                        "io.creel.storage.rdma..", "io.creel.storage.nvmf..", "io.creel.namenode..", "io.creel.client..")
                .check(classes);
    }

    @Test
    void theNamenodeAndTheClientNameNoConcreteTier() {
        noClasses().that().resideInAnyPackage("io.creel.namenode..", "io.creel.client..")
                .should().dependOnClassesThat().resideInAnyPackage("io.creel.storage.local..", "io.creel.storage.tcp..",
                        "io.creel.storage.rdma..", "io.creel.storage.nvmf..")
                .check(classes);
    }

    @Test
    void theNvmeTcpInitiatorKnowsNothingOfCreel() {
        noClasses().that().resideInAnyPackage("io.creel.storage.nvmf.nvme..", "io.creel.storage.nvmf.tcp..",
                        "io.creel.storage.nvmf.io..")
                .should().dependOnClassesThat().resideInAnyPackage("io.creel.common..", "io.creel.storage.spi..",
                        "io.creel.storage.server..", "io.creel.storage.runtime..", "io.creel.storage.format..",
                        "io.creel.storage.transport..", "io.creel.storage.nvmf.tier..", "io.creel.storage.nvmf.transport..",
                        "io.creel.storage.nvmf.volume..", "io.creel.storage.nvmf.target..", "io.creel.storage.nvmf.rdma..")
                .check(classes);
    }

    @Test
    void theClientLibraryUsesNoServerRuntimeAndNoCommandLineParser() {
        noClasses().that().resideInAPackage("io.creel.client..")
                .should().dependOnClassesThat().resideInAnyPackage("io.creel.storage.runtime..",
                        "io.creel.storage.server..", "io.creel.namenode..", "picocli..")
                .check(classes);
    }

    @Test
    void onlyCommandsParseCommandLines() {
        noClasses().that().resideOutsideOfPackages("io.creel.cli..", "io.creel.launcher..", "io.creel.bench..")
                .should().dependOnClassesThat().resideInAPackage("picocli..")
                .check(classes);
    }

    @Test
    void onlyOpsKnowsThePrometheusClientAndTheHttpServer() {
        noClasses().that().resideOutsideOfPackage("io.creel.ops..")
                .should().dependOnClassesThat().resideInAnyPackage("io.prometheus..", "com.sun.net.httpserver..")
                .check(classes);
    }
}
