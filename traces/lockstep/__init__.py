"""traces/lockstep."""
