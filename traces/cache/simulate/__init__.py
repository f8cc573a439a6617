"""traces/cache/simulate."""
