package io.creel.storage.nvmf.nvme;

/** Which way a command's data moves. */
public enum DataDirection {
    /** No data. */
    NONE,
    /** Host to controller (Write, Connect, Property-less admin writes). */
    HOST_TO_CONTROLLER,
    /** Controller to host (Read, Identify). */
    CONTROLLER_TO_HOST
}
