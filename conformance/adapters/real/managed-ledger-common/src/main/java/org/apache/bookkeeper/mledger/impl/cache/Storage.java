package org.apache.bookkeeper.mledger.impl.cache;

import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.bookkeeper.client.api.LedgerEntry;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.apache.bookkeeper.client.impl.LedgerEntriesImpl;
import org.apache.bookkeeper.client.impl.LedgerEntryImpl;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.impl.EntryImpl;

/**
 * BookKeeper behind the cache's read path: a stub {@link ReadHandle} per ledger whose every read returns
 * the requested entries at once, one byte each, over one marker array, so that an entry the read path
 * hands back tells whether it came from storage (a miss) or from the cache (a hit).
 */
final class Storage {
    private static final byte[] MARK = new byte[1];

    private final Map<Long, ReadHandle> handles = new HashMap<>();

    /** The ledger's handle (made once: a Mockito mock costs far more than a read). */
    ReadHandle handle(long ledger) {
        return handles.computeIfAbsent(ledger, id -> {
            ReadHandle handle = mock(ReadHandle.class);
            when(handle.getId()).thenReturn(id);
            when(handle.readAsync(anyLong(), anyLong())).thenAnswer(call -> {
                long first = call.getArgument(0);
                long last = call.getArgument(1);
                List<LedgerEntry> entries = new ArrayList<>();
                for (long entry = first; entry <= last; entry++) {
                    entries.add(LedgerEntryImpl.create(id, entry, 1, Unpooled.wrappedBuffer(MARK)));
                }
                return CompletableFuture.completedFuture(LedgerEntriesImpl.create(entries));
            });
            return handle;
        });
    }

    /** Whether the read path returned this entry from storage rather than from the cache. */
    static boolean fromStorage(Entry entry) {
        return entry.getDataBuffer().hasArray() && entry.getDataBuffer().array() == MARK;
    }

    /**
     * What a read handed back, as the protocol's result: each hit kept as a dispatch copy (its id), each
     * entry read from storage released and reported as a miss (null).
     */
    static List<Long> hitsAndMisses(List<Entry> entries, Copies<EntryImpl> copies) {
        List<Long> result = new ArrayList<>();
        for (Entry entry : entries) {
            if (fromStorage(entry)) {
                entry.release();
                result.add(null);
            } else {
                result.add(copies.keep((EntryImpl) entry));
            }
        }
        return result;
    }

    /** Run one read of the cache's read path and return what its callback got; a failure is an error. */
    static List<Entry> read(String what, Consumer<ReadEntriesCallback> read) {
        AtomicReference<List<Entry>> got = new AtomicReference<>();
        AtomicReference<ManagedLedgerException> failed = new AtomicReference<>();
        read.accept(new ReadEntriesCallback() {
            @Override
            public void readEntriesComplete(List<Entry> entries, Object ctx) {
                got.set(entries);
            }

            @Override
            public void readEntriesFailed(ManagedLedgerException exception, Object ctx) {
                failed.set(exception);
            }
        });
        if (failed.get() != null || got.get() == null) {
            throw new IllegalStateException("the read of " + what + " failed or did not complete", failed.get());
        }
        return got.get();
    }
}
