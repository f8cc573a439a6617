package org.apache.bookkeeper.mledger.impl.cache;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;

/** The cache operations {@code get} and {@code get_range} of {@link ManagedLedgerHarness}, on the real read path. */
final class LayerReads {
    private static final Method LEDGER_HANDLE = ledgerHandle();

    private final ManagedLedgerHarness harness;
    /** Misses of a get past the last appended entry, which the real read path cannot read (see {@link #read}). */
    private long unreadableMisses;

    LayerReads(ManagedLedgerHarness harness) {
        this.harness = harness;
    }

    void reset() {
        unreadableMisses = 0;
    }

    long unreadableMisses() {
        return unreadableMisses;
    }

    private static Method ledgerHandle() {
        try {
            Method method = ManagedLedgerImpl.class.getDeclaredMethod("getLedgerHandle", long.class);
            method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException error) {
            throw new ExceptionInInitializerError(error);
        }
    }

    /**
     * The cache's public read path, {@code asyncReadEntry(handle, first, last, () -> 0, ...)} with the managed
     * ledger's own read handle ({@code getLedgerHandle}), per BookKeeper ledger of the range. What was cached
     * before the read is a hit and becomes a dispatch copy; the rest came from the mock bookie, uncached (a count
     * of 0 caches nothing), and is released and null. A position past the last appended entry cannot be read by
     * the real path ({@code ReadEntryUtils.readAsync} fails a read past the last confirmed entry): a cached one is
     * read alone (a hit), an uncached one is a miss the harness counts ({@link #unreadableMisses()}).
     */
    List<Long> read(LayerLedger ledger, long first, long last) {
        Set<Long> before = harness.cachedEntries(ledger);
        List<Long> result = new ArrayList<>();
        for (long from = first; from <= last; ) {
            Position start = ledger.position(from);
            long to = from;
            boolean readable = readable(ledger, from);
            while (to < last && ledger.position(to + 1).getLedgerId() == start.getLedgerId()
                    && readable(ledger, to + 1) == readable) {
                to++;
            }
            if (readable) {
                result.addAll(readReal(ledger, before, from, to));
            } else {
                for (long entry = from; entry <= to; entry++) {
                    if (before.contains(entry)) {
                        result.addAll(readReal(ledger, before, entry, entry));
                    } else {
                        unreadableMisses++;
                        result.add(null);
                    }
                }
            }
            from = to + 1;
        }
        return result;
    }

    private static boolean readable(LayerLedger ledger, long entry) {
        return entry >= ledger.segments.get(0)[0] && entry < ledger.appended;
    }

    private List<Long> readReal(LayerLedger ledger, Set<Long> before, long from, long to) {
        Position start = ledger.position(from);
        org.apache.bookkeeper.client.api.ReadHandle handle;
        try {
            handle = harness.await((CompletableFuture<org.apache.bookkeeper.client.api.ReadHandle>) LEDGER_HANDLE.invoke(
                    ledger.ml, start.getLedgerId()), "getLedgerHandle");
        } catch (Exception error) {
            throw new IllegalStateException("getLedgerHandle(" + start.getLedgerId() + ")", error);
        }
        long firstReal = start.getEntryId();
        CompletableFuture<List<Entry>> done = new CompletableFuture<>();
        harness.cacheOf(ledger.id).asyncReadEntry(handle, firstReal, firstReal + (to - from), () -> 0,
                new org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback() {
                    @Override
                    public void readEntriesComplete(List<Entry> entries, Object ctx) {
                        done.complete(entries);
                    }

                    @Override
                    public void readEntriesFailed(org.apache.bookkeeper.mledger.ManagedLedgerException failed,
                                                  Object ctx) {
                        done.completeExceptionally(failed);
                    }
                }, null);
        List<Entry> got;
        try {
            got = harness.await(done, "the read"); // the mock bookie answers on the world's thread
        } catch (Exception error) {
            throw new IllegalStateException("the read of " + ledger.id + ":" + from + ".." + to + " failed", error);
        }
        List<Long> result = new ArrayList<>();
        for (Entry entry : got) {
            if (before.contains(ledger.entry(entry.getPosition()))) {
                result.add(harness.copyBook().keep((EntryImpl) entry));
            } else {
                entry.release();
                result.add(null);
            }
        }
        return result;
    }
}
