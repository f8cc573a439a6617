package org.apache.bookkeeper.mledger.impl.cache;

import io.netty.util.ReferenceCounted;
import java.util.LinkedHashMap;
import java.util.Map;
import ledgerspec.protocol.NotAllowed;

/** The dispatched copies a consumer still holds, by id (ids count up from 0 in dispatch order). */
final class Copies<E extends ReferenceCounted> {
    private final Map<Long, E> open = new LinkedHashMap<>();
    private long next;

    /** Keep a copy; its id. */
    long keep(E copy) {
        open.put(next, copy);
        return next++;
    }

    /** The open copy {@code id}; not allowed if there is none. */
    E get(long id) {
        E copy = open.get(id);
        if (copy == null) {
            throw new NotAllowed("copy " + id + " is not an open copy");
        }
        return copy;
    }

    /** The consumer is done with it: its release (a dispatch copy's decrements the shared count). */
    void release(long id) {
        get(id).release();
        open.remove(id);
    }

    /** Release every copy and start the ids over (a fresh cache). */
    void reset() {
        open.values().forEach(ReferenceCounted::release);
        open.clear();
        next = 0;
    }

    Map<Long, E> open() {
        return open;
    }
}
