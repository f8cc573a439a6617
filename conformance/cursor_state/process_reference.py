"""The reference cursor behind process protocol v1 (cursor-state): an adapter loop a third party can copy.

    python -m ledgerspec.conformance.cursor_state.process_reference --profile pip381

Read a JSON line, dispatch on ``cmd``, write one flushed JSON line; an exception becomes ``errored``.
The loop every system shares is ``serve_lines`` in ``conformance/adapters/_transport.py``.
"""

from ledgerspec.conformance.adapters._system_process import reference_module
from ledgerspec.conformance.cursor_state._system import system

handle, serve, main = reference_module(system(), __name__)

if __name__ == "__main__":
    main()
