package org.apache.bookkeeper.mledger.impl;

import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pulsar.metadata.api.GetResult;
import org.apache.pulsar.metadata.api.Stat;
import org.apache.pulsar.metadata.api.extended.CreateOption;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.metadata.impl.FaultInjectionMetadataStore;

/** The fault-injecting store, counting the operations in flight so that {@link #settle()} waits for them. */
final class CountingStore extends FaultInjectionMetadataStore {
    final AtomicInteger inFlight = new AtomicInteger();

    CountingStore(MetadataStoreExtended store) {
        super(store);
    }

    private <T> CompletableFuture<T> counted(Supplier<CompletableFuture<T>> operation) {
        inFlight.incrementAndGet();
        return operation.get().whenComplete((result, error) -> inFlight.decrementAndGet());
    }

    @Override
    public CompletableFuture<Stat> put(String path, byte[] value,
                                                                      Optional<Long> version) {
        return counted(() -> super.put(path, value, version));
    }

    @Override
    public CompletableFuture<Stat> put(
            String path, byte[] value, Optional<Long> version,
            EnumSet<CreateOption> options) {
        return counted(() -> super.put(path, value, version, options));
    }

    @Override
    public CompletableFuture<Optional<GetResult>> get(String path) {
        return counted(() -> super.get(path));
    }

    @Override
    public CompletableFuture<Void> delete(String path, Optional<Long> version) {
        return counted(() -> super.delete(path, version));
    }
}
