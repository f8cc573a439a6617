package org.apache.bookkeeper.mledger.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.junit.jupiter.api.Test;

/**
 * Finding R2 of the cache-managed-ledger-4.2.4 and cache-entry-cache-manager-4.2.4 harnesses (conformance/adapters/real/
 * README.md), on ActiveManagedCursorContainerImpl of managed-ledger 4.2.4 alone: the container the managed ledger
 * keeps its active cursors in when cacheEvictionByExpectedReadCount is on, whose
 * getNumberOfCursorsAtSamePositionOrBefore is the expected read count of every entry a cursor reads from storage.
 *
 * <p>The cursors of one position share one counter, updated incrementally (a single pending move among four or
 * more tracked cursors). moveNodeToNewPosition returns early, leaving the counters alone, when the moved cursor is
 * the list's tail and stays in its place in the list. A tail moved back onto the position of the cursor before it
 * should join that position's counter: it keeps its own, so the other cursors there count one cursor too few. A
 * tail moved forward off a position it shared keeps the shared counter, so the others count one too many.
 * managed-ledger 5.0.1's moveNodeToNewPosition returns early only when the tail neither shares its old position
 * nor joins the previous one. Each test asserts what 4.2.4 answers, and says what is right.
 */
class ActiveCursorCountTest {
    private static final Position FIVE = PositionFactory.create(1, 5);
    private static final Position NINE = PositionFactory.create(1, 9);

    private static ManagedCursor cursor(String name) {
        ManagedCursor cursor = mock(ManagedCursor.class);
        when(cursor.getName()).thenReturn(name);
        return cursor;
    }

    @Test
    void aTailMovedBackOntoThePositionBeforeItIsNotCountedThere() {
        ActiveManagedCursorContainerImpl container = new ActiveManagedCursorContainerImpl();
        ManagedCursor c1 = cursor("c1");
        ManagedCursor c4 = cursor("c4");
        container.add(c1, FIVE);
        container.add(cursor("c2"), FIVE);
        container.add(cursor("c3"), FIVE);
        container.add(c4, NINE);
        assertEquals(3, container.getNumberOfCursorsAtSamePositionOrBefore(c1)); // right: the list is rebuilt
        container.updateCursor(c4, FIVE); // the tail moves back onto 5, in place: one update of four tracked
        assertEquals(4, container.getNumberOfCursorsAtSamePositionOrBefore(c4)); // right
        assertEquals(3, container.getNumberOfCursorsAtSamePositionOrBefore(c1)); // wrong: c1 to c4 are all at 5, 4
    }

    @Test
    void theSameCursorsPlacedThereFromTheStartAreCountedRight() {
        ActiveManagedCursorContainerImpl container = new ActiveManagedCursorContainerImpl();
        ManagedCursor c1 = cursor("c1");
        for (ManagedCursor each : new ManagedCursor[] {c1, cursor("c2"), cursor("c3"), cursor("c4")}) {
            container.add(each, FIVE);
        }
        assertEquals(4, container.getNumberOfCursorsAtSamePositionOrBefore(c1));
    }
}
