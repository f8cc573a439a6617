"""A reference process of any system that goes wrong at the final ``stop`` (tests/slow/test_stop_faults.py).

    python stop_fault.py PACKAGE PROFILE MODE

PACKAGE is ``cache.adapters`` (the cache), ``cursor_state`` or ``txlog_writer``; MODE is ``errored`` (an ``errored``
reply), ``garbage`` (a reply that is not JSON), ``hang`` (no reply) or ``exit-3`` (the right reply, then
exit status 3). Every other request is answered by the reference, so the search itself passes.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from typing import Any

PACKAGE, PROFILE, MODE = sys.argv[1:]
reference = importlib.import_module(f"ledgerspec.conformance.{PACKAGE}.process_reference")


def at_stop(request: dict[str, Any]) -> None:
    """Misbehave on ``stop`` as MODE says; return to let the reference answer it."""
    if request["cmd"] != "stop":
        return
    if MODE == "errored":
        raise RuntimeError("close failed: a write never completed")
    if MODE == "garbage":
        sys.stdout.buffer.write(b"bye\n")
        sys.stdout.buffer.flush()
        os._exit(0)
    if MODE == "hang":
        time.sleep(3600)


if PACKAGE == "cache.adapters":
    handle = reference.Session.handle

    def session_handle(self: Any, request: dict[str, Any]) -> Any:
        at_stop(request)
        return handle(self, request)

    reference.Session.handle = session_handle
else:
    system_handle = reference.handle

    def patched(adapter: Any, request: dict[str, Any]) -> Any:
        at_stop(request)
        return system_handle(adapter, request)

    reference.handle = patched
reference.serve(PROFILE)
sys.exit(3 if MODE == "exit-3" else 0)
