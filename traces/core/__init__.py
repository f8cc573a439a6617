"""traces/core."""
