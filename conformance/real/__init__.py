"""conformance/real."""
