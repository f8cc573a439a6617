"""Deprecated alias of ``ledgerspec.conformance.txlog_writer.process_reference`` (kept for one release, CHANGELOG)."""

from ledgerspec.conformance.txlog_writer.process_reference import main

if __name__ == "__main__":
    main()
