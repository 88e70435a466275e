package io.creel.storage.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.ServerNotServing;
import io.creel.storage.transport.TransportSelector.Choice;
import io.creel.storage.transport.TransportSelector.Direction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the bytes of one block piece, and is the one place that decides what happens when that
 * fails:
 * <ul>
 *   <li>a STALE_BLOCK from a remembered location is retried once at a fresh location from the
 *       {@link BlockLocator} (the location outlived its allocation); so is a read whose server is
 *       gone, if the fresh location is elsewhere (the block moved off a decommissioned server);</li>
 *   <li>a failure a transport could cause (not one about the data itself: stale, missing, out of
 *       range; nor the server not serving at all, {@link ServerNotServing}) moves to the next
 *       costlier transport for that server ({@link TransportSelector});</li>
 *   <li>a write that no transport could get to the server (it is unreachable: down, or not
 *       answering) asks the {@link BlockLocator} to move the block to another server, and goes
 *       there — at most {@link #MAX_MOVES} times per piece; the locator refuses when part of the
 *       block was written at the old place already;</li>
 *   <li>anything else fails, wrapped once with what the data is, the block, the server and the
 *       transport.</li>
 * </ul>
 *
 * <p>A replicated block (a location with several copies) is read from its cheapest copy (by the
 * transport each copy's server would be reached with: same host first), and from the next one
 * when that fails for any reason but a bad request — also when it fails in the middle, as every
 * attempt fills the caller's buffer afresh and each copy's server checks that copy's tag. Once
 * every copy failed, a fresh location is asked for once. It is written to every copy at once, each
 * copy a transfer of its own with the rules above; the write completes when every copy holds it. A
 * copy whose server cannot be reached is dropped from the block ({@link BlockLocator#dropCopy}) and
 * the write goes on with the others; the last copy is never dropped.
 *
 * <p>Buffer ownership: the caller's buffer is lent until the future completes, and its position and
 * limit are never changed here; each attempt hands the transport a fresh slice of it, so a failed
 * attempt leaves nothing to undo. Callers account for the bytes moved themselves.
 */
public final class BlockTransfers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BlockTransfers.class);

    /** Times one write piece follows its block to another server before it gives up. */
    public static final int MAX_MOVES = 3;

    private final TransportSelector selector;

    public BlockTransfers(TransportSelector selector) {
        this.selector = selector;
    }

    /** The selector choosing transports. */
    public TransportSelector selector() {
        return selector;
    }

    /**
     * Reads {@code dst.remaining()} bytes at {@code offset} of the located block into {@code dst}
     * (from its position; its position is not moved).
     *
     * @param what       names the data in errors: a node's path, or "directory records of /x"
     * @param blockIndex the block's index within that data, for errors
     */
    public CompletableFuture<Void> read(String what, long blockIndex, BlockLocator locator, int offset,
                                        ByteBuffer dst) {
        return new Attempt(Direction.READ, what, blockIndex, locator, offset, dst).start();
    }

    /**
     * Writes {@code src.remaining()} bytes of {@code src} (from its position; not moved) at
     * {@code offset} of the located block. A STALE_BLOCK on a write is not retried: the writer's
     * allocation was superseded, so no other location is the writer's.
     */
    public CompletableFuture<Void> write(String what, long blockIndex, BlockLocator locator, int offset,
                                         ByteBuffer src) {
        return new Attempt(Direction.WRITE, what, blockIndex, locator, offset, src).start();
    }

    /** Closes the transports. */
    @Override
    public void close() {
        selector.close();
    }

    /** Errors about the data itself: every transport would fail the same way. */
    static boolean aboutTheData(CreelException e) {
        return switch (e.code()) {
            case STALE_BLOCK, NOT_FOUND, INVALID_ARGUMENT -> true;
            default -> false;
        };
    }

    /** Errors that say the server could not be reached (down, gone, not answering), not that it refused. */
    static boolean unreachable(CreelException e) {
        return switch (e.code()) {
            case UNAVAILABLE, TIMEOUT, SERVER_UNKNOWN -> true;
            default -> false;
        };
    }

    /**
     * The locator of one copy of a replicated block being written: that copy is where the piece
     * goes; what the writer tracks (attempts in flight, dropping a copy) is the block's locator's.
     */
    private record CopyLocator(BlockLocator block, BlockLocation copy) implements BlockLocator {
        @Override
        public CompletableFuture<BlockLocation> locate() {
            return CompletableFuture.completedFuture(copy);
        }

        @Override
        public void attemptStarted(BlockLocation at) {
            block.attemptStarted(at);
        }

        @Override
        public boolean attemptEnded(BlockLocation at, boolean ok) {
            return block.attemptEnded(at, ok);
        }

        @Override
        public CompletableFuture<BlockLocation> dropCopy(BlockLocation whole, StorageServerInfo unreachable) {
            return block.dropCopy(whole, unreachable);
        }
    }

    /** One piece's attempts; each instance runs one transfer to its end. */
    private final class Attempt {
        private final Direction direction;
        private final String what;
        private final long blockIndex;
        private final BlockLocator locator;
        private final int offset;
        private final ByteBuffer buffer;
        private final CompletableFuture<Void> outcome = new CompletableFuture<>();
        private boolean relocated;
        private boolean reportedStarted;
        private int moves;
        /** For a write into one copy of a replicated block: the whole block, else {@code null}. */
        private final BlockLocation copyOf;
        /** For a read of a replicated block: its copies, cheapest first, and the next one to try. */
        private List<BlockLocation> copies;
        private int nextCopy;

        Attempt(Direction direction, String what, long blockIndex, BlockLocator locator, int offset,
                ByteBuffer buffer) {
            this(direction, what, blockIndex, locator, offset, buffer, null);
        }

        Attempt(Direction direction, String what, long blockIndex, BlockLocator locator, int offset,
                ByteBuffer buffer, BlockLocation copyOf) {
            this.copyOf = copyOf;
            this.direction = direction;
            this.what = what;
            this.blockIndex = blockIndex;
            this.locator = locator;
            this.offset = offset;
            this.buffer = buffer;
        }

        CompletableFuture<Void> start() {
            locate(ask(locator::locate));
            return outcome;
        }

        /**
         * Asks the locator, turning a throw into a failed future: the steps run in completion callbacks,
         * where an escaping exception would be lost and leave the caller waiting forever.
         */
        private CompletableFuture<BlockLocation> ask(Supplier<CompletableFuture<BlockLocation>> question) {
            try {
                return question.get();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        private void locate(CompletableFuture<BlockLocation> location) {
            location.whenComplete((loc, t) -> {
                if (t != null) {
                    outcome.completeExceptionally(wrap(CreelException.unwrap(t), null, null));
                    return;
                }
                if (loc == null) {
                    outcome.completeExceptionally(wrap(new CreelException(ErrorCode.INTERNAL,
                            "the block's locator answered with no location"), null, null));
                    return;
                }
                if (loc.copyCount() > 1 && direction == Direction.WRITE) {
                    writeEveryCopy(loc);
                    return;
                }
                if (loc.copyCount() > 1) {
                    copies = cheapestFirst(loc.copies());
                    nextCopy = 1;
                    start(copies.get(0));
                } else {
                    start(loc);
                }
            });
        }

        /** Reads from, or writes to, the one copy at {@code loc}. */
        private void start(BlockLocation loc) {
            Choice choice;
            try {
                choice = selector.choose(loc.server(), direction);
            } catch (RuntimeException e) {
                if (copies != null) {
                    failedCopy(loc, null, CreelException.unwrap(e));
                } else {
                    outcome.completeExceptionally(wrap(CreelException.unwrap(e), loc, null));
                }
                return;
            }
            transfer(loc, choice);
        }

        /** Copies ordered by the rank of the transport their server is reached with; ties keep the block's order. */
        private List<BlockLocation> cheapestFirst(List<BlockLocation> all) {
            List<BlockLocation> sorted = new ArrayList<>(all);
            sorted.sort(Comparator.comparingInt(c -> {
                try {
                    return selector.choose(c.server(), direction).rank();
                } catch (RuntimeException e) {
                    return Integer.MAX_VALUE; // no transport reaches it: tried last, failing with that reason
                }
            }));
            return sorted;
        }

        /** Writes the piece to every copy of {@code block}, each as a transfer of its own. */
        private void writeEveryCopy(BlockLocation block) {
            List<CompletableFuture<Void>> each = new ArrayList<>(block.copyCount());
            for (BlockLocation copy : block.copies()) {
                each.add(new Attempt(direction, what, blockIndex, new CopyLocator(locator, copy), offset, buffer,
                        block).start());
            }
            CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> {
                if (t != null) {
                    outcome.completeExceptionally(CreelException.unwrap(t)); // wrapped by the copy's attempt
                } else {
                    outcome.complete(null);
                }
            });
        }

        private void transfer(BlockLocation loc, Choice choice) {
            CompletableFuture<Void> moved;
            try {
                BlockTransport t = choice.transport();
                ByteBuffer piece = buffer.slice(); // the transport's to consume; the caller's stays put
                moved = direction == Direction.READ ? t.read(loc, offset, piece) : t.write(loc, offset, piece);
            } catch (RuntimeException e) {
                moved = CompletableFuture.failedFuture(e);
            }
            locator.attemptStarted(loc);
            // Once per piece, and only for an attempt that got going: a fallback or relocation is the
            // same transfer, and the user's next lookup is already under way.
            if (!reportedStarted && !moved.isCompletedExceptionally()) {
                reportedStarted = true;
                try {
                    locator.transferStarted(loc);
                } catch (RuntimeException e) {
                    // Only a hint for the user's next lookup; the transport holds the buffer now, so the
                    // transfer must run to its end whatever the hint did.
                    LOG.warn("{}: block {}: the locator failed when told its transfer started: {}", what, blockIndex,
                            e.toString());
                }
            }
            moved.whenComplete((v, t) -> {
                boolean counts = locator.attemptEnded(loc, t == null);
                if (t != null) {
                    failed(loc, choice, CreelException.unwrap(t));
                } else if (counts || direction == Direction.READ) {
                    TransferCounters.moved(choice.transport().name(), direction, buffer.remaining());
                    outcome.complete(null);
                } else {
                    // Written where the block no longer is: write it again where it went.
                    follow(loc, choice, new CreelException(ErrorCode.UNAVAILABLE, "the block moved to another "
                            + "storage server while this piece was being written"));
                }
            });
        }

        private void failed(BlockLocation loc, Choice choice, CreelException e) {
            if (copies != null) {
                failedCopy(loc, choice, e);
                return;
            }
            if (e.code() == ErrorCode.STALE_BLOCK && direction == Direction.READ && !relocated) {
                relocated = true;
                CompletableFuture<BlockLocation> fresh = ask(() -> locator.relocate(loc));
                if (fresh != null) {
                    locate(fresh);
                    return;
                }
            }
            if (choice != null && !aboutTheData(e) && !(e instanceof ServerNotServing)) {
                Choice next = selector.fallBack(loc.server(), direction, choice, e);
                if (next != null && next.rank() > choice.rank()) {
                    transfer(loc, next);
                    return;
                }
            }
            if (direction == Direction.WRITE && unreachable(e)) {
                follow(loc, choice, e);
                return;
            }
            if (direction == Direction.READ && !relocated && (unreachable(e) || e instanceof ServerNotServing)) {
                relocated = true;
                CompletableFuture<BlockLocation> fresh = ask(() -> locator.relocate(loc));
                if (fresh != null) {
                    readWhereItWent(fresh, loc, choice, e);
                    return;
                }
            }
            outcome.completeExceptionally(wrap(e, loc, choice));
        }

        /**
         * A read from {@code loc} found its server gone ({@code e}): the block may have moved since the
         * location was learned (the namenode moves blocks off a decommissioned server), so the read goes
         * to where it is now — unless that is where it was, or nobody can say: then {@code e} stands.
         */
        private void readWhereItWent(CompletableFuture<BlockLocation> fresh, BlockLocation loc, Choice choice,
                                     CreelException e) {
            fresh.whenComplete((now, t) -> {
                if (t != null || now == null || now.equals(loc)) {
                    CreelException failure = wrap(e, loc, choice);
                    if (t != null) {
                        failure.addSuppressed(CreelException.unwrap(t));
                    }
                    outcome.completeExceptionally(failure);
                } else {
                    locate(CompletableFuture.completedFuture(now));
                }
            });
        }

        /**
         * A read of one copy of a replicated block failed: another transport to that copy, else the
         * next copy, else (once) a fresh location, else the failure.
         */
        private void failedCopy(BlockLocation loc, Choice choice, CreelException e) {
            if (choice != null && !aboutTheData(e) && !(e instanceof ServerNotServing)) {
                Choice next = selector.fallBack(loc.server(), direction, choice, e);
                if (next != null && next.rank() > choice.rank()) {
                    transfer(loc, next);
                    return;
                }
            }
            if (e.code() != ErrorCode.INVALID_ARGUMENT && nextCopy < copies.size()) {
                BlockLocation other = copies.get(nextCopy++);
                LOG.debug("{}: block {}: copy on {} failed ({}); reading the copy on {}", what, blockIndex,
                        loc.server().address(), e.toString(), other.server().address());
                start(other);
                return;
            }
            if (e.code() != ErrorCode.INVALID_ARGUMENT && !relocated) {
                relocated = true;
                CompletableFuture<BlockLocation> fresh = ask(() -> locator.relocate(loc));
                if (fresh != null) {
                    copies = null;
                    locate(fresh);
                    return;
                }
            }
            outcome.completeExceptionally(wrap(e, loc, choice));
        }

        /** Writes the piece where its block went after {@code loc}'s server could not take it ({@code e}). */
        private void follow(BlockLocation loc, Choice choice, CreelException e) {
            if (copyOf != null) {
                leaveBlock(loc, choice, e);
                return;
            }
            CompletableFuture<BlockLocation> moved = moves < MAX_MOVES ? locator.moveFrom(loc) : null;
            if (moved == null) {
                outcome.completeExceptionally(wrap(e, loc, choice));
                return;
            }
            moves++;
            moved.whenComplete((to, t) -> {
                if (t != null) {
                    CreelException failure = wrap(e, loc, choice);
                    failure.addSuppressed(CreelException.unwrap(t)); // why no other server took it
                    outcome.completeExceptionally(failure);
                } else if (to == null) {
                    outcome.completeExceptionally(wrap(e, loc, choice)); // part of the block is there already
                } else {
                    locate(CompletableFuture.completedFuture(to));
                }
            });
        }

        /**
         * The copy at {@code loc} of the replicated block {@link #copyOf} cannot be reached: it leaves
         * the block and this copy's part of the write is done. If the block kept it (it was the last
         * copy) or moved as a whole, the write fails: what landed on the other copies is not here.
         */
        private void leaveBlock(BlockLocation loc, Choice choice, CreelException e) {
            CompletableFuture<BlockLocation> now = moves < MAX_MOVES ? ask(() -> locator.dropCopy(copyOf, loc.server()))
                    : null;
            if (now == null) {
                outcome.completeExceptionally(wrap(e, loc, choice));
                return;
            }
            moves++;
            now.whenComplete((to, t) -> {
                if (t != null) {
                    CreelException failure = wrap(e, loc, choice);
                    failure.addSuppressed(CreelException.unwrap(t));
                    outcome.completeExceptionally(failure);
                } else if (to != null && remainsOf(to, copyOf) && to.copies().stream()
                        .noneMatch(c -> c.server().address().equals(loc.server().address()))) {
                    LOG.warn("{}: block {}: storage server {} cannot be reached ({}); the write goes on with the "
                            + "block's {} other cop{}", what, blockIndex, loc.server().address(), e.getMessage(),
                            to.copyCount(), to.copyCount() == 1 ? "y" : "ies");
                    outcome.complete(null);
                } else {
                    outcome.completeExceptionally(wrap(e, loc, choice));
                }
            });
        }

        /**
         * Whether {@code now} is what is left of {@code block} after copies were dropped: each of its
         * copies one of {@code block}'s, same server, block and tag. (Its name, the first copy's tag,
         * changes when the first copy is the one dropped.) Anything else means the block moved. Servers
         * are compared by address: their ids change when the namenode restarts.
         */
        private static boolean remainsOf(BlockLocation now, BlockLocation block) {
            for (BlockLocation c : now.copies()) {
                boolean found = false;
                for (BlockLocation was : block.copies()) {
                    found |= was.server().address().equals(c.server().address()) && was.blockNumber() == c.blockNumber()
                            && was.tag() == c.tag();
                }
                if (!found) {
                    return false;
                }
            }
            return true;
        }

        /** The one wrapping of a failure: the data, the block, and where it was when it failed. */
        private CreelException wrap(CreelException cause, BlockLocation loc, Choice choice) {
            String msg = cause.getMessage() == null ? cause.code().name() : cause.getMessage();
            StringBuilder b = new StringBuilder(what).append(": ")
                    .append(direction == Direction.READ ? "reading" : "writing").append(" block ").append(blockIndex);
            if (loc != null) {
                b.append(" (block ").append(loc.blockNumber()).append(" of storage server ")
                        .append(loc.server().address());
                if (choice != null) {
                    b.append(" via ").append(choice.transport().name());
                }
                b.append(')');
            }
            b.append(" failed: ").append(msg.startsWith(what) ? msg.substring(what.length()).replaceFirst("^[:\\s]+", "")
                    : msg);
            return new CreelException(cause.code(), b.toString(), cause);
        }
    }
}
