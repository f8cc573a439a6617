"""Deprecated alias of ``ledgerspec.conformance.txlog_writer.process_reference`` (kept for one release, CHANGELOG)."""

from ledgerspec.conformance.txlog_writer.process_reference import handle, main, serve

__all__ = ["handle", "main", "serve"]

if __name__ == "__main__":
    main()
