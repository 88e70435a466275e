package io.creel.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.rdma.RdmaAvailability.Missing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Detection against a made-up machine: a library directory and a file system root in a temp dir. */
class RdmaAvailabilityTest {
    @TempDir
    Path tmp;
    private Path libDir;
    private Path root;
    private String loadError;
    private boolean jvmFlag = true;

    private final RdmaAvailability.Probe probe = new RdmaAvailability.Probe() {
        @Override
        public List<Path> libraryPath() {
            return List.of(tmp.resolve("empty"), libDir);
        }

        @Override
        public Path root() {
            return root;
        }

        @Override
        public String load(Path library) {
            return loadError;
        }

        @Override
        public boolean bufferAddressesAccessible() {
            return jvmFlag;
        }
    };

    @BeforeEach
    void aMachineWithEverything() throws IOException {
        libDir = Files.createDirectories(tmp.resolve("lib"));
        Files.writeString(libDir.resolve(System.mapLibraryName("disni")), "");
        root = Files.createDirectories(tmp.resolve("root"));
        Path dev = Files.createDirectories(root.resolve("dev/infiniband"));
        Files.writeString(dev.resolve("rdma_cm"), "");
        Files.writeString(dev.resolve("uverbs0"), "");
        Path ndevs = Files.createDirectories(root.resolve("sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs"));
        Files.writeString(ndevs.resolve("0"), "eth0\n");
        Files.writeString(ndevs.resolve("1"), "eth0\n");
        Files.createDirectories(root.resolve("sys/class/infiniband/mlx5_0/ports/1"));
    }

    @Test
    void aMachineWithEverythingIsAvailableAndListsItsDevices() {
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertTrue(a.available(), a.message());
        assertEquals(Optional.empty(), a.missing());
        assertEquals(List.of(new RdmaAvailability.Device("mlx5_0", List.of()),
                new RdmaAvailability.Device("rxe0", List.of("eth0"))), a.devices());
        assertTrue(a.message().startsWith("RDMA available: mlx5_0, rxe0 on eth0"), a.message());
        assertEquals(Optional.of(libDir.resolve(System.mapLibraryName("disni"))), a.library());
        a.require(IllegalStateException::new);
    }

    @Test
    void noLibraryOnTheLibraryPathIsReportedFirstWithTheDirectoriesSearched() throws IOException {
        Files.delete(libDir.resolve(System.mapLibraryName("disni")));
        Files.delete(root.resolve("dev/infiniband/rdma_cm")); // also missing, but reported later
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.NATIVE_LIBRARY), a.missing());
        assertTrue(a.message().startsWith("libdisni.so not found on java.library.path [" + tmp.resolve("empty")),
                a.message());
        assertTrue(a.message().contains("-Djava.library.path"), a.message());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.require(IllegalStateException::new));
        assertEquals(a.message(), e.getMessage());
    }

    @Test
    void aLibraryThatDoesNotLoadSaysWhy() {
        loadError = "librdmacm.so.1: cannot open shared object file: No such file or directory";
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.NATIVE_LIBRARY), a.missing());
        assertTrue(a.message().contains("does not load: librdmacm.so.1: cannot open shared object file"), a.message());
        assertTrue(a.message().contains("librdmacm1"), "says which packages: " + a.message());
    }

    @Test
    void noDevInfinibandMeansTheKernelOffersNoRdma() throws IOException {
        deleteTree(root.resolve("dev/infiniband"));
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.DEVICE_FILES), a.missing());
        assertEquals("no " + root.resolve("dev/infiniband") + ": this kernel offers no RDMA to user space (load the "
                + "modules ib_uverbs and rdma_ucm, or use a kernel with RDMA support)", a.message());
    }

    @Test
    void aMissingRdmaCmOrUverbsEntryNamesTheModule() throws IOException {
        Files.delete(root.resolve("dev/infiniband/rdma_cm"));
        assertTrue(RdmaAvailability.detect(probe).message().endsWith("has no rdma_cm: load the kernel module rdma_ucm"));
        Files.writeString(root.resolve("dev/infiniband/rdma_cm"), "");
        Files.delete(root.resolve("dev/infiniband/uverbs0"));
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.DEVICE_FILES), a.missing());
        assertTrue(a.message().contains("has no uverbs device: load the kernel module ib_uverbs"), a.message());
    }

    @Test
    void noDeviceSaysHowToAddSoftRoce() throws IOException {
        deleteTree(root.resolve("sys/class/infiniband"));
        Files.createDirectories(root.resolve("sys/class/infiniband"));
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.DEVICE), a.missing());
        assertTrue(a.message().startsWith("no RDMA device: "), a.message());
        assertTrue(a.message().contains("rdma link add rxe0 type rxe netdev"), a.message());
        assertTrue(a.devices().isEmpty());
    }

    @Test
    void theMissingJvmFlagIsNamedExactly() {
        jvmFlag = false;
        RdmaAvailability a = RdmaAvailability.detect(probe);
        assertEquals(Optional.of(Missing.JVM_ACCESS), a.missing());
        assertTrue(a.message().endsWith("--add-exports java.base/sun.nio.ch=ALL-UNNAMED"), a.message());
        assertFalse(a.devices().isEmpty(), "devices are known even when the flag is missing");
    }

    @Test
    void thisTestJvmHasTheFlagTheBuildPasses() {
        // The module's surefire configuration passes the flag DiSNI needs; detection must see it.
        assertTrue(new RdmaAvailability.SystemProbe().bufferAddressesAccessible());
    }

    private static void deleteTree(Path p) throws IOException {
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
