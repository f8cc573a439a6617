package org.apache.bookkeeper.mledger.impl.cache;

import java.util.Map;
import ledgerspec.protocol.CacheConfig;

/** The manager's run-time size settings, as the broker's dynamic configuration updates them. */
final class Sizes {
    private Sizes() {}

    /** {@code updateCacheSizeAndThreshold} and {@code updateCacheEvictionWatermark} for what changed. */
    static void update(RangeEntryCacheManagerImpl manager, Map<String, Object> changes, CacheConfig config) {
        if (changes.get("max_size") != null) {
            manager.updateCacheSizeAndThreshold(config.maxSize);
        }
        if (changes.get("watermark") != null) {
            manager.updateCacheEvictionWatermark(config.watermark.doubleValue());
        }
    }
}
