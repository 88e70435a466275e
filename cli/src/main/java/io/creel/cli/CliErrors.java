package io.creel.cli;

import io.creel.client.CreelIOException;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * How the CLI reports a failed command: one line {@code creel: <message>} on stderr, a stack
 * trace only with {@code --debug}, and an exit code: {@link #OPERATION_FAILED} for a failed
 * operation, {@link #USAGE} for bad usage or configuration. Usage errors found while parsing are
 * left to picocli (message and usage, exit code 2).
 */
public final class CliErrors {
    /** An operation failed (not found, exists, I/O error, ...). */
    public static final int OPERATION_FAILED = 1;
    /** The command line or the configuration is wrong. */
    public static final int USAGE = 2;

    private CliErrors() {
    }

    /** The handler to install on the top-level command line. */
    public static IExecutionExceptionHandler handler() {
        return (ex, cmd, parseResult) -> {
            if (ex instanceof CommandLine.ParameterException pe) {
                cmd.getErr().println("creel: " + pe.getMessage());
                pe.getCommandLine().usage(cmd.getErr());
                return USAGE;
            }
            cmd.getErr().println("creel: " + message(ex));
            if (debugRequested(parseResult)) {
                ex.printStackTrace(cmd.getErr());
            }
            cmd.getErr().flush();
            return exitCode(ex);
        };
    }

    /** Installs {@link #handler()} on {@code cmd}; returns it for chaining. */
    public static CommandLine configure(CommandLine cmd) {
        cmd.setExecutionExceptionHandler(handler());
        cmd.getCommandSpec().exitCodeOnInvalidInput(USAGE);
        return cmd;
    }

    static String message(Throwable ex) {
        if (ex instanceof CreelException ce) {
            return ce.getMessage();
        }
        if (ex instanceof CreelIOException cio) {
            return cio.getMessage();
        }
        if (ex instanceof NoSuchFileException e) {
            return e.getFile() + ": no such file";
        }
        if (ex instanceof FileAlreadyExistsException e) {
            return e.getFile() + ": file exists";
        }
        if (ex instanceof AccessDeniedException e) {
            return e.getFile() + ": permission denied";
        }
        if (ex instanceof IOException e) {
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
        if (ex.getCause() instanceof CreelException ce) {
            return ce.getMessage();
        }
        return "internal error: " + ex + " (run with --debug for details)";
    }

    static int exitCode(Throwable ex) {
        ErrorCode code = ex instanceof CreelException ce ? ce.code()
                : ex instanceof CreelIOException cio ? cio.code() : null;
        return code == ErrorCode.CONFIGURATION ? USAGE : OPERATION_FAILED;
    }

    private static boolean debugRequested(ParseResult pr) {
        for (ParseResult p = pr; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }
}
