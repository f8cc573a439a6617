package org.apache.bookkeeper.mledger.impl.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import ledgerspec.protocol.NotAllowed;
import ledgerspec.protocol.Op;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedCursorImpl;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;

/**
 * The cursor steps of {@link ManagedLedgerHarness}, each the real {@link ManagedCursorImpl} call the broker
 * makes (managed-ledger 4.2.4):
 *
 * <ul>
 * <li>{@code cursor_add} of a new name: {@code ManagedLedgerImpl.openCursor(name, Earliest)} (a subscription
 *   from the earliest entry; asyncOpenCursor calls {@code setActive()}), then {@code seek(position, true)} if
 *   the model's position is not the earliest. Of a name the ledger already has (deactivated, or recovered at a
 *   reopening): {@code seek(position, true)} while inactive (no container holds it, so nothing moves), then
 *   {@code setActive()}: {@code activateCursor} at its read position.</li>
 * <li>{@code cursor_remove}: {@code setInactive()} → {@code ManagedLedgerImpl.deactivateCursor}; a cursor's
 *   {@code asyncClose} makes the same call first.</li>
 * <li>{@code cursor_seek}: {@code seek(position, true)} (the dispatchers' redelivery seek) →
 *   {@code onCursorReadPositionUpdated}.</li>
 * <li>{@code cursor_count}: {@code ManagedCursorImpl.getNumberOfCursorsAtSamePositionOrBefore()}, the
 *   supplier the read path evaluates ({@code ManagedLedgerImpl.asyncReadEntry}); 0 for an inactive cursor.</li>
 * <li>{@code cursor_read}: {@code readEntries(n)} until the cursor has read up to {@code last} (one call
 *   per BookKeeper ledger the range spans).</li>
 * </ul>
 */
final class LayerCursors {
    private LayerCursors() {}

    static Object cursor(ManagedLedgerHarness harness, Op op) {
        ManagedLedgerHarness.Ledger ledger = harness.ledger(op.num("ledger"));
        String name = op.str("cursor");
        ManagedCursorImpl cursor = ledger.cursors.get(name);
        boolean active = cursor != null && cursor.isActive();
        switch (op.kind()) {
            case "cursor_add" -> {
                require(!active, op, "is already active");
                requirePosition(op);
                if (cursor == null) {
                    try {
                        cursor = (ManagedCursorImpl) ledger.ml.openCursor(name, InitialPosition.Earliest);
                    } catch (Exception error) {
                        throw new IllegalStateException("openCursor " + name, error);
                    }
                    ledger.cursors.put(name, cursor);
                    harness.settle();
                    if (ledger.entry(cursor.getReadPosition()) != op.num("entry")) {
                        cursor.seek(ledger.position(op.num("entry")), true);
                    }
                } else {
                    cursor.seek(ledger.position(op.num("entry")), true);
                    cursor.setActive();
                }
            }
            case "cursor_remove" -> {
                require(active, op, "is not active");
                cursor.setInactive();
            }
            case "cursor_seek" -> {
                require(active, op, "is not active");
                requirePosition(op);
                cursor.seek(ledger.position(op.num("entry")), true);
            }
            default -> {
                return cursor == null ? 0L : (long) cursor.getNumberOfCursorsAtSamePositionOrBefore();
            }
        }
        return null;
    }

    /**
     * The cursor reads from its read position to {@code last}: what {@code readEntries} hands back is a copy
     * (kept under a copy id) if it was a hit (cached before the read) or was cached by the read
     * ({@code readFromStorage} inserts iff the count is > 0); otherwise it is released and reported null.
     */
    static List<Long> read(ManagedLedgerHarness harness, ManagedLedgerHarness.Ledger ledger, String name, long last) {
        ManagedCursorImpl cursor = ledger.cursors.get(name);
        if (cursor == null || !cursor.isActive()) {
            throw new NotAllowed("cursor_read: cursor " + name + " of ledger " + ledger.id + " is not active");
        }
        long position = ledger.entry(cursor.getReadPosition());
        if (position < 0 || position > last || last >= ledger.appended) {
            throw new NotAllowed("cursor_read needs the cursor's position " + position + " <= last " + last
                    + " < appended " + ledger.appended);
        }
        Set<Long> before = harness.cachedEntries(ledger);
        List<Entry> read = new ArrayList<>();
        int wanted = (int) (last - position + 1);
        while (read.size() < wanted) {
            List<Entry> got;
            try {
                got = cursor.readEntries(wanted - read.size());
            } catch (Exception error) {
                throw new IllegalStateException("readEntries of cursor " + name, error);
            }
            if (got.isEmpty()) {
                break;
            }
            read.addAll(got);
        }
        harness.settle();
        if (read.size() != wanted) {
            read.forEach(Entry::release);
            throw new IllegalStateException("cursor " + name + " read " + read.size() + " entries, not " + wanted);
        }
        List<Long> result = new ArrayList<>();
        for (Entry entry : read) {
            long at = ledger.entry(entry.getPosition());
            if (before.contains(at) || harness.cached(ledger, at)) {
                result.add(harness.copyBook().keep((EntryImpl) entry));
            } else {
                entry.release();
                result.add(null);
            }
        }
        return result;
    }

    private static void require(boolean holds, Op op, String what) {
        if (!holds) {
            throw new NotAllowed(op.kind() + ": cursor " + op.str("cursor") + " of ledger " + op.num("ledger") + " "
                    + what);
        }
    }

    private static void requirePosition(Op op) {
        if (op.num("entry") < 0) {
            throw new NotAllowed(op.kind() + ": entry must be >= 0, got " + op.num("entry"));
        }
    }
}
