"""conformance/cache."""
