package io.creel.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.PayloadCheck;
import io.creel.common.rpc.RequestDispatch;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.rpc.RpcListener;
import io.creel.common.rpc.RpcPeer;
import io.creel.common.rpc.RpcProbe;
import io.creel.common.rpc.RpcTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
        // rdma-native knows no Creel module; it sits with the kernel so both RDMA users can share it.
        layer(1, "storage", "rdma-native");
        layer(2, "storage-tcp", "storage-local", "storage-rdma");
        // Its tests run a namenode and clients; its code needs only storage and rdma-native.
        layer(3, "storage-nvmf", "namenode", "client");
        // spark-common: what the Spark integrations share (their spark.creel.* keys), below both.
        layer(4, "cli", "minicluster", "ops", "spark-common");
        layer(5, "hdfs-adapter", "spark-shuffle", "spark-broadcast", "ycsb-binding", "bench");
        // spark-bundle: the one Spark job jar, both Spark plugins shaded together (and the tests of both at once).
        layer(6, "launcher", "spark-bundle");
        layer(7, "multihost-tests", "dist");
    }

    private static void layer(int level, String... modules) {
        for (String m : modules) {
            LAYER.put(m, level);
        }
    }

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern TEST_JAR = Pattern.compile(".*-tests\\.jar!/.*");
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        // Test classes come as target/test-classes (a reactor build to the test phase) or as -tests.jar
        // test-jars (a build that packages): neither is production code.
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.matches(TEST_JAR))
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

    /**
     * Fakes, stubs and test kits live in test sources (shared through test-jars, as storage's test kit
     * and storage-rdma's in-memory RDMA network are), never in a production jar.
     */
    @Test
    void noProductionClassIsAFake() {
        noClasses().should().resideInAnyPackage("..fake..", "..testkit..", "..testing..")
                .orShould().haveSimpleNameStartingWith("Fake")
                .orShould().haveSimpleNameStartingWith("Stub")
                .orShould().haveSimpleNameStartingWith("Mock")
                .orShould().haveNameMatching(".*[.$]Memory[^.$]*Provider")
                .check(classes);
    }

    @Test
    void commonKnowsNoOtherCreelPackage() {
        noClasses().that().resideInAPackage("io.creel.common..")
                .should().dependOnClassesThat().resideOutsideOfPackages("io.creel.common..", "java..", "javax..",
                        "io.netty..", "org.slf4j..")
                .check(classes);
    }

    /** The modules that put the client into a framework (layer 5, less the benchmarks). */
    private static final List<String> INTEGRATIONS = List.of("hdfs-adapter", "spark-common", "spark-shuffle",
            "spark-broadcast", "ycsb-binding");

    /**
     * The shaded jar of an integration is the parent's execution, configured once: a module names the
     * plugin and sets the jar's names, and relocates nothing itself.
     */
    @Test
    void shadedJarsAreConfiguredOnceInTheParent() throws Exception {
        assertEquals(1, parse(ROOT.resolve("pom.xml")).getElementsByTagName("relocations").getLength(),
                "the parent's shade execution relocates Netty");
        List<String> wrong = new ArrayList<>();
        int shading = 0;
        for (String m : modules()) {
            Document pom = parse(ROOT.resolve(m).resolve("pom.xml"));
            if (pom.getElementsByTagName("relocations").getLength() > 0) {
                wrong.add(m + " configures its own relocations: use the parent's creel-shaded execution");
            }
            NodeList plugins = pom.getElementsByTagName("plugin");
            for (int i = 0; i < plugins.getLength(); i++) {
                if (text((Element) plugins.item(i), "artifactId").equals("maven-shade-plugin")) {
                    shading++;
                    if (text(pom.getDocumentElement(), "creel.shaded.jar").isEmpty()
                            || text(pom.getDocumentElement(), "creel.shaded.module").isEmpty()) {
                        wrong.add(m + " shades without setting creel.shaded.jar and creel.shaded.module");
                    }
                }
            }
        }
        assertTrue(shading >= 2, "the Hadoop and Spark jars are shaded: " + shading + " modules");
        assertEquals(List.of(), wrong);
    }

    /**
     * An integration holds the process's client of its settings ({@code SharedClients}) instead of
     * connecting one of its own: a Spark executor then runs one client for shuffle and broadcasts.
     * Read from the sources, since the launcher's class path has not every integration. The stale
     * data cleaner is a command with a process of its own, so its client is the process's.
     */
    @Test
    void integrationsTakeTheirClientFromSharedClients() throws IOException {
        List<String> wrong = new ArrayList<>();
        int read = 0;
        for (String m : INTEGRATIONS) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(m).resolve("src/main/java"))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    read++;
                    if (Files.readString(f, StandardCharsets.UTF_8).contains("CreelClient.connect(")
                            && !f.endsWith("StaleShuffleCleaner.java")) {
                        wrong.add(ROOT.relativize(f).toString());
                    }
                }
            }
        }
        assertTrue(read > 30, "the integrations' sources were read: " + read);
        assertEquals(List.of(), wrong, "integrations that connect a client of their own instead of SharedClients.acquire");
    }

    /**
     * Handlers and transports meet through these types only; a Netty channel in them would make every
     * other transport (DaRPC) fake one, so they name none. Netty buffers are the frame protocol's
     * bytes and stay.
     */
    @Test
    void theTransportNeutralRpcSpiNamesNoNettyChannelType() {
        noClasses().that().belongToAnyOf(RequestHandler.class, RpcCall.class, RpcPeer.class, PayloadCheck.class,
                        RequestDispatch.class, RpcTransport.class, RpcListener.class, RpcConnection.class, RpcProbe.class)
                .should().dependOnClassesThat().resideInAPackage("io.netty.channel..")
                .check(classes);
    }

    /**
     * {@code common}'s {@link Opcode} enum holds the core requests only: each is named by production code
     * outside the concrete tiers (the namenode, the client, the storage kernel, the TCP path every
     * server has). A request only one tier uses is that tier's own {@code TierOpcode}, declared in its
     * module through a {@code TierOpcodeSource} (as the nvmf tier's BLOCK_CLAIM).
     */
    @Test
    void noTierSpecificOpcodeIsACoreOpcode() {
        Set<String> usedOutsideTiers = new TreeSet<>();
        for (JavaClass c : classes) {
            boolean inATier = TIER_PACKAGES.stream().anyMatch(p -> c.getPackageName().startsWith(p));
            if (inATier || c.isEquivalentTo(Opcode.class)) {
                continue;
            }
            for (JavaFieldAccess a : c.getFieldAccessesFromSelf()) {
                if (a.getTargetOwner().isEquivalentTo(Opcode.class)) {
                    usedOutsideTiers.add(a.getTarget().getName());
                }
            }
        }
        assertTrue(usedOutsideTiers.contains("LOOKUP"), "the namenode's and the client's uses were seen: "
                + usedOutsideTiers);
        List<String> tierOnly = Stream.of(Opcode.values()).map(Opcode::name).filter(n -> !usedOutsideTiers.contains(n))
                .toList();
        assertEquals(List.of(), tierOnly, "core opcodes that only a tier uses: make each its tier's TierOpcode");
    }

    /** The modules' packages of the concrete tiers (a medium, and the paths only it has). */
    private static final List<String> TIER_PACKAGES = List.of("io.creel.storage.local", "io.creel.storage.rdma",
            "io.creel.storage.nvmf");

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

    /**
     * The in-flight tables ({@code InFlightTable}, {@code InFlightSlots}) use the JDK alone: no Netty,
     * no logging, no Creel concept. That is what lets the NVMe/TCP initiator, which knows nothing of
     * Creel, keep its commands in flight in them (the rule below).
     */
    @Test
    void theInFlightTablesUseOnlyTheJdk() {
        noClasses().that().resideInAPackage("io.creel.common.inflight..")
                .should().dependOnClassesThat().resideOutsideOfPackages("io.creel.common.inflight..", "java..")
                .check(classes);
    }

    /**
     * The NVMe/TCP initiator (packages {@code nvme}, {@code tcp}, {@code io}) is a plain NVMe-oF host:
     * of Creel it uses its own packages, its module's {@code NvmfException}, and nothing else but
     * {@code io.creel.common.inflight}, the in-flight tables every connection keeps its operations in.
     * That one exception holds the commands in flight by CID, so the initiator has no copy of the
     * table of its own (issue 22); it stays honest because those tables are JDK-only
     * ({@link #theInFlightTablesUseOnlyTheJdk}), so through them the initiator reaches nothing of Creel.
     */
    @Test
    void theNvmeTcpInitiatorKnowsNothingOfCreelButTheInFlightTables() {
        String[] initiator = {"io.creel.storage.nvmf.nvme..", "io.creel.storage.nvmf.tcp..", "io.creel.storage.nvmf.io.."};
        noClasses().that().resideInAnyPackage(initiator)
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.creel..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage(initiator)))
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.creel.common.inflight..")))
                        .and(DescribedPredicate.not(HasName.Predicates.nameMatching(
                                "io\\.creel\\.storage\\.nvmf\\.NvmfException(\\$.*)?")))
                        .as("reside in io.creel.. outside the initiator, NvmfException and io.creel.common.inflight"))
                .check(classes);
    }

    @Test
    void rdmaDetectionKnowsNoCreelModule() {
        noClasses().that().resideInAPackage("io.creel.rdma..")
                .should().dependOnClassesThat().resideOutsideOfPackages("io.creel.rdma..", "java..", "com.ibm.disni..")
                .check(classes);
    }

    /** DiSNI, DaRPC and jNVMf stay with RDMA: the NVMe/TCP path and everything else run without them. */
    @Test
    void onlyTheRdmaPathsKnowDisniDarpcAndJnvmf() {
        noClasses().that().resideOutsideOfPackages("io.creel.rdma..", "io.creel.storage.rdma..",
                        "io.creel.storage.nvmf.rdma..")
                .should().dependOnClassesThat().resideInAnyPackage("com.ibm.disni..", "com.ibm.darpc..",
                        "com.ibm.jnvmf..")
                .check(classes);
    }

    @Test
    void theNvmfTierUsesNoRdmaTransport() {
        noClasses().that().resideInAPackage("io.creel.storage.nvmf..")
                .should().dependOnClassesThat().resideInAPackage("io.creel.storage.rdma..")
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
