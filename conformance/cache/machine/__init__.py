"""conformance/cache/machine."""
