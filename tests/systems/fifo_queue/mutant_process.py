"""A mutant queue behind process protocol v1: ``python -m fifo_queue.mutant_process NAME``, a failing ``exec:``."""

import sys

from ledgerspec.conformance.adapters._system_process import serve

from fifo_queue.reference import MUTANTS
from fifo_queue.system import system

if __name__ == "__main__":
    serve(system(), next(m for m in MUTANTS if m.name == sys.argv[1]).adapter())
