package io.creel.rdma;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Whether this process can use RDMA, and if not, exactly what is missing. Checked in order, the
 * first gap is reported:
 * <ol>
 *   <li>{@code libdisni.so} on {@code java.library.path}, and loadable (its own libraries present);</li>
 *   <li>{@code /dev/infiniband} with {@code rdma_cm} and a {@code uverbs} device (kernel support);</li>
 *   <li>an RDMA device in {@code /sys/class/infiniband} (a NIC, or soft-RoCE);</li>
 *   <li>the JVM flag DiSNI needs ({@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}).</li>
 * </ol>
 * Detection has no side effect beyond loading the library, and never throws. It lives apart from
 * the RDMA transports (module {@code rdma-native}) so that a module that only asks whether RDMA is
 * there (the NVMe-oF tier, choosing between RDMA and NVMe/TCP) does not carry them; DiSNI is an
 * optional dependency here: without it on the class path the library counts as not loadable.
 */
public final class RdmaAvailability {
    /** The JVM flag DiSNI needs: it reads direct buffers' addresses through sun.nio.ch.DirectBuffer. */
    public static final String JVM_FLAG = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    /** What is missing. */
    public enum Missing {
        /** libdisni.so is not on java.library.path, or does not load. */
        NATIVE_LIBRARY,
        /** /dev/infiniband or its rdma_cm / uverbs entries are absent. */
        DEVICE_FILES,
        /** No RDMA device is configured. */
        DEVICE,
        /** The JVM does not let DiSNI read buffer addresses. */
        JVM_ACCESS
    }

    /**
     * An RDMA device of this machine.
     *
     * @param name     the device name ("rxe0", "mlx5_0")
     * @param netdevs  the network interfaces its ports sit on (empty for InfiniBand without IPoIB)
     */
    public record Device(String name, List<String> netdevs) {
    }

    /** Where detection looks; replaced in tests. */
    public interface Probe {
        /** The directories of java.library.path, in order. */
        List<Path> libraryPath();

        /** The file system root that holds dev/ and sys/ ("/" outside tests). */
        Path root();

        /** Loads the library the way DiSNI does; null on success, else why it failed. */
        String load(Path library);

        /** Whether DiSNI may read direct buffers' addresses (the JVM flag is present). */
        boolean bufferAddressesAccessible();
    }

    private final Missing missing;
    private final String message;
    private final Path library;
    private final List<Device> devices;

    private RdmaAvailability(Missing missing, String message, Path library, List<Device> devices) {
        this.missing = missing;
        this.message = message;
        this.library = library;
        this.devices = List.copyOf(devices);
    }

    /** Checks this process and machine. */
    public static RdmaAvailability detect() {
        return detect(new SystemProbe());
    }

    /** Checks what {@code probe} shows. */
    public static RdmaAvailability detect(Probe probe) {
        String libName = System.mapLibraryName("disni");
        Path library = probe.libraryPath().stream().map(dir -> dir.resolve(libName)).filter(Files::isRegularFile)
                .findFirst().orElse(null);
        if (library == null) {
            return missing(Missing.NATIVE_LIBRARY, null, libName + " not found on java.library.path "
                    + probe.libraryPath() + ": build storage-rdma on a machine with gcc, libibverbs-dev and "
                    + "librdmacm-dev (it lands in storage-rdma/target/native) and start the JVM with "
                    + "-Djava.library.path=<that directory>");
        }
        String loadError = probe.load(library);
        if (loadError != null) {
            return missing(Missing.NATIVE_LIBRARY, library, library + " does not load: " + loadError
                    + " (the RDMA user-space libraries, Debian packages libibverbs1 and librdmacm1, must be installed)");
        }
        Path dev = probe.root().resolve("dev/infiniband");
        if (!Files.isDirectory(dev)) {
            return missing(Missing.DEVICE_FILES, library, "no " + dev + ": this kernel offers no RDMA to user space "
                    + "(load the modules ib_uverbs and rdma_ucm, or use a kernel with RDMA support)");
        }
        if (!Files.exists(dev.resolve("rdma_cm"))) {
            return missing(Missing.DEVICE_FILES, library, dev + " has no rdma_cm: load the kernel module rdma_ucm");
        }
        if (!hasEntryStartingWith(dev, "uverbs")) {
            return missing(Missing.DEVICE_FILES, library, dev + " has no uverbs device: load the kernel module "
                    + "ib_uverbs (and the driver of the RDMA NIC)");
        }
        List<Device> devices = devices(probe.root().resolve("sys/class/infiniband"));
        if (devices.isEmpty()) {
            return missing(Missing.DEVICE, library, "no RDMA device: " + probe.root().resolve("sys/class/infiniband")
                    + " lists none (for soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev <interface>)");
        }
        if (!probe.bufferAddressesAccessible()) {
            return new RdmaAvailability(Missing.JVM_ACCESS, "the JVM does not let DiSNI read buffer addresses: start it "
                    + "with " + JVM_FLAG, library, devices);
        }
        return new RdmaAvailability(null, "RDMA available: " + describe(devices) + " (" + library + ")", library,
                devices);
    }

    private static RdmaAvailability missing(Missing what, Path library, String message) {
        return new RdmaAvailability(what, message, library, List.of());
    }

    /** True when nothing is missing. */
    public boolean available() {
        return missing == null;
    }

    /** What is missing, empty when available. */
    public Optional<Missing> missing() {
        return Optional.ofNullable(missing);
    }

    /** What is missing and how to provide it, or what is available. */
    public String message() {
        return message;
    }

    /** The library found, when found. */
    public Optional<Path> library() {
        return Optional.ofNullable(library);
    }

    /** The RDMA devices found (empty when detection stopped before looking). */
    public List<Device> devices() {
        return devices;
    }

    /**
     * Throws what {@code failure} makes of {@link #message()} unless available (the caller chooses
     * its own exception: this module knows none of the modules that use RDMA).
     */
    public <E extends Exception> void require(Function<String, E> failure) throws E {
        if (!available()) {
            throw failure.apply(message);
        }
    }

    @Override
    public String toString() {
        return message;
    }

    private static String describe(List<Device> devices) {
        List<String> parts = new ArrayList<>();
        for (Device d : devices) {
            parts.add(d.netdevs().isEmpty() ? d.name() : d.name() + " on " + String.join(",", d.netdevs()));
        }
        return String.join(", ", parts);
    }

    private static boolean hasEntryStartingWith(Path dir, String prefix) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith(prefix));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The RDMA device whose port sits on the network interface that has {@code address}, if any
     * (RoCE and iWARP devices; looked up in /sys/class/infiniband).
     */
    public static Optional<Device> deviceFor(InetAddress address) {
        for (Device d : devices(Path.of("/sys/class/infiniband"))) {
            for (String netdev : d.netdevs()) {
                try {
                    NetworkInterface nif = NetworkInterface.getByName(netdev);
                    if (nif != null && nif.inetAddresses().anyMatch(address::equals)) {
                        return Optional.of(d);
                    }
                } catch (SocketException e) {
                    // An interface that vanished meanwhile cannot be the one.
                }
            }
        }
        return Optional.empty();
    }

    /** Devices under sys/class/infiniband with the network interfaces of their ports (RoCE). */
    static List<Device> devices(Path classDir) {
        List<Device> out = new ArrayList<>();
        if (!Files.isDirectory(classDir)) {
            return out;
        }
        try (Stream<Path> s = Files.list(classDir)) {
            for (Path dev : s.sorted().toList()) {
                out.add(new Device(dev.getFileName().toString(), netdevs(dev.resolve("ports"))));
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private static List<String> netdevs(Path ports) {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(ports)) {
            return names;
        }
        try (Stream<Path> files = Files.find(ports, 4,
                (p, a) -> a.isRegularFile() && p.getParent().getFileName().toString().equals("ndevs"))) {
            for (Path f : files.sorted().toList()) {
                String name = Files.readString(f).trim();
                if (!name.isEmpty() && !names.contains(name)) {
                    names.add(name);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // An unreadable attribute (ports without GIDs) only means no interface name to show.
            return names;
        }
        return names;
    }

    /** The real process: java.library.path, "/", DiSNI's own loading. */
    static final class SystemProbe implements Probe {
        @Override
        public List<Path> libraryPath() {
            String raw = System.getProperty("java.library.path", "");
            List<Path> dirs = new ArrayList<>();
            for (String part : raw.split(File.pathSeparator)) {
                if (!part.isBlank()) {
                    dirs.add(Path.of(part));
                }
            }
            return dirs;
        }

        @Override
        public Path root() {
            return Path.of("/");
        }

        @Override
        public String load(Path library) {
            return NativeLibrary.load();
        }

        @Override
        public boolean bufferAddressesAccessible() {
            return Object.class.getModule().isExported("sun.nio.ch", RdmaAvailability.class.getModule());
        }
    }
}
