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
 * <li>{@code cursor_add} of a new name: {@code ManagedLedgerImpl.openCursor(name, Earliest)}, a subscription from
 *   the earliest entry (asyncOpenCursor activates it there), then {@code seek(position, true)} if the model's
 *   entry is a later one. In legacy mode (the managed ledger opened with {@code cacheEvictionByExpectedReadCount}
 *   off) that seek would move the slowest cursor and invalidate, which the spec's CursorAdd does not: there, at a
 *   later entry, it is {@code newNonDurableCursor(entry - 1, name)}, a reader's cursor, which
 *   NonDurableCursorImpl's constructor puts at {@code entry} before {@code setActive()} activates it there. Its
 *   mark-delete position is {@code entry - 1}, so a later seek below it reads nothing below it
 *   (ManagedCursorImpl filters mark-deleted entries), and a position past the ledger's end makes the constructor
 *   start at the end (Latest), so a seek follows: README.md, "cache-managed-ledger-4.2.4", lists both as limits. Of a
 *   name the ledger already has (deactivated): {@code seek(position, true)} while inactive (no container holds
 *   it, so nothing moves), then {@code setActive()}: {@code activateCursor} at its read position.</li>
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
        LayerLedger ledger = harness.ledger(op.num("ledger"));
        String name = op.str("cursor");
        ManagedCursorImpl cursor = ledger.cursors.get(name);
        boolean active = cursor != null && cursor.isActive();
        switch (op.kind()) {
            case "cursor_add" -> {
                MasterTarget.requireCursor(!active, op, "is already active");
                MasterTarget.requirePosition(op);
                if (cursor == null) {
                    long entry = op.num("entry");
                    try {
                        boolean tracking = ledger.ml.getConfig().isCacheEvictionByExpectedReadCount();
                        cursor = (ManagedCursorImpl) (tracking || entry <= ledger.segments.get(0)[0]
                                ? ledger.ml.openCursor(name, InitialPosition.Earliest)
                                // positioned on the entry before, as NonDurableCursorImpl's constructor wants it
                                : ledger.ml.newNonDurableCursor(ledger.position(entry - 1), name,
                                        InitialPosition.Latest, false));
                    } catch (Exception error) {
                        throw new IllegalStateException("opening cursor " + name, error);
                    }
                    ledger.cursors.put(name, cursor);
                    harness.settle();
                    if (ledger.entry(cursor.getReadPosition()) != entry) { // past the end: the constructor's Latest
                        cursor.seek(ledger.position(entry), true);
                    }
                } else {
                    cursor.seek(ledger.position(op.num("entry")), true);
                    cursor.setActive();
                }
            }
            case "cursor_remove" -> {
                MasterTarget.requireCursor(active, op, "is not active");
                cursor.setInactive();
            }
            case "cursor_seek" -> {
                MasterTarget.requireCursor(active, op, "is not active");
                MasterTarget.requirePosition(op);
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
    static List<Long> read(ManagedLedgerHarness harness, LayerLedger ledger, String name, long last) {
        ManagedCursorImpl cursor = ledger.cursors.get(name);
        if (cursor == null || !cursor.isActive()) {
            throw new NotAllowed("cursor_read: cursor " + name + " of ledger " + ledger.id + " is not active");
        }
        long position = ledger.entry(cursor.getReadPosition());
        long stored = ledger.segments.get(0)[0]; // the ledger's first appended entry (the model's first append)
        if (position < stored || position > last || last >= ledger.appended) {
            throw new NotAllowed("cursor_read needs every position read appended: first appended " + stored
                    + " <= the cursor's position " + position + " <= last " + last + " < appended "
                    + ledger.appended);
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
        // copy ids in the order the copies were made, per BookKeeper ledger (OpReadEntry reads one at a time and
        // moves on from checkReadCompletion): its hits' (EntryImpl.create in doAsyncReadEntriesByPosition, before
        // the rest is read), then those it read from storage and cached (readFromStorage)
        Long[] result = new Long[read.size()];
        for (int from = 0; from < read.size(); ) {
            int to = from;
            while (to < read.size()
                    && read.get(to).getPosition().getLedgerId() == read.get(from).getPosition().getLedgerId()) {
                to++;
            }
            for (int pass = 0; pass < 2; pass++) {
                for (int i = from; i < to; i++) {
                    Entry entry = read.get(i);
                    long at = ledger.entry(entry.getPosition());
                    boolean hit = before.contains(at);
                    if (pass == 0 && hit || pass == 1 && !hit && harness.cached(ledger, at)) {
                        result[i] = harness.copyBook().keep((EntryImpl) entry);
                    } else if (pass == 1 && !hit && result[i] == null) {
                        entry.release();
                    }
                }
            }
            from = to;
        }
        return java.util.Arrays.asList(result);
    }
}
