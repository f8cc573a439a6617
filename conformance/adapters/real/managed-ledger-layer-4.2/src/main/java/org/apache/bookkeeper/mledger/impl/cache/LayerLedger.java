package org.apache.bookkeeper.mledger.impl.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.ManagedCursorImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;

/** A model ledger: one managed ledger, its BookKeeper ledgers (one more per reopening), its cursors. */
final class LayerLedger {
    final long id;
    ManagedLedgerImpl ml;
    /** (first model entry, BookKeeper ledger id) per BookKeeper ledger, in order. */
    final List<long[]> segments = new ArrayList<>();
    final Map<String, ManagedCursorImpl> cursors = new TreeMap<>();
    long appended;

    LayerLedger(long id) {
        this.id = id;
    }

    Position position(long entry) {
        long[] at = segments.get(0);
        for (long[] segment : segments) {
            if (segment[0] <= entry) {
                at = segment;
            }
        }
        return PositionFactory.create(at[1], entry - at[0]);
    }

    /** The model entry of a real position of this ledger, or -1 if it is in none of its BookKeeper ledgers. */
    long entry(Position position) {
        for (long[] segment : segments) {
            if (segment[1] == position.getLedgerId()) {
                return segment[0] + position.getEntryId();
            }
        }
        return -1;
    }
}
