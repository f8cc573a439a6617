"""conformance/render."""
