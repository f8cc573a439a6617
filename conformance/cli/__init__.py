"""The ``ledgerspec`` command line: one module per subcommand, registered by entry points.

Subcommands come from the ``ledgerspec.commands`` entry-point group, so packages downstream of
conformance (``ledgerspec.traces``) add theirs without conformance importing them.
"""

from ledgerspec.conformance.cli._main import EXIT_ADAPTER_FAULT, EXIT_FAIL, EXIT_OK, EXIT_USAGE, main

__all__ = ["EXIT_ADAPTER_FAULT", "EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "main"]
