"""Deprecated alias of ``ledgerspec.conformance.cache.adapters.process_reference`` (kept for one release, CHANGELOG)."""

from ledgerspec.conformance.cache.adapters.process_reference import main

if __name__ == "__main__":
    main()
