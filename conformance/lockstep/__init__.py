"""conformance/lockstep."""
