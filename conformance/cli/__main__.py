"""``python -m ledgerspec.conformance.cli``: the same as the ``ledgerspec`` command."""

import sys

from ledgerspec.conformance.cli import main

sys.exit(main())
