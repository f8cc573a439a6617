"""The reference writer behind process protocol v1 (txlog-writer): an adapter loop a third party can copy.

    python -m ledgerspec.conformance.txlog_writer.process_reference --profile pulsar-master

Each request is answered by ``handle`` (replace it to make a lying or dying process); the loop every
system shares is ``serve_lines`` in ``conformance/adapters/_transport.py``.
"""

from ledgerspec.conformance.adapters._system_process import reference_module
from ledgerspec.conformance.txlog_writer._system import system

handle, serve, main = reference_module(system(), __name__)

if __name__ == "__main__":
    main()
