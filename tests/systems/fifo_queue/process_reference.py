"""The reference queue behind process protocol v1: ``python -m fifo_queue.process_reference``."""

from ledgerspec.conformance.adapters._system_process import reference_module

from fifo_queue.system import system

handle, serve, main = reference_module(system(), __name__)

if __name__ == "__main__":
    main()
