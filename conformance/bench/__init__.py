"""conformance/bench."""
