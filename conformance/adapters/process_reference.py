"""Deprecated alias of ``ledgerspec.conformance.cache.adapters.process_reference`` (kept for one release, CHANGELOG)."""

from ledgerspec.conformance.cache.adapters.process_reference import Session, main, reply_to, serve

__all__ = ["Session", "main", "reply_to", "serve"]

if __name__ == "__main__":
    main()
