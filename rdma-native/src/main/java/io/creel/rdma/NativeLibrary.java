package io.creel.rdma;

import java.io.IOException;

/**
 * Loads libdisni.so exactly as DiSNI does (its NativeDispatcher runs {@code System.loadLibrary("disni")}
 * and checks the library's version and structure sizes), once per process.
 */
final class NativeLibrary {
    private static String outcome;
    private static boolean tried;

    private NativeLibrary() {
    }

    /** Null when DiSNI's native layer is usable, else why not. */
    static synchronized String load() {
        if (!tried) {
            tried = true;
            outcome = tryLoad();
        }
        return outcome;
    }

    private static String tryLoad() {
        try {
            com.ibm.disni.verbs.RdmaProvider.provider();
            return null;
        } catch (UnsatisfiedLinkError e) {
            return e.getMessage();
        } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
            return "DiSNI's native layer failed to initialise: " + e;
        } catch (IOException e) {
            return e.getMessage();
        }
    }
}
