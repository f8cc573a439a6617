"""conformance/cache/adapters."""
