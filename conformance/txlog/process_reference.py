"""The reference writer behind process protocol v1 (txlog-writer): an adapter loop a third party can copy.

    python -m ledgerspec.conformance.txlog.process_reference --profile pulsar-master

Read a JSON line, dispatch on ``cmd``, write one flushed JSON line; an exception becomes ``errored``.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import Any

from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.adapters._api import json_line, parse_line
from ledgerspec.conformance.txlog._reference_adapter import TxlogAdapter
from ledgerspec.conformance.txlog._schemas import CAPABILITIES
from ledgerspec.spec.txlog import PROFILES, WriterConfig, op_from_dict


def handle(adapter: TxlogAdapter, request: dict[str, Any]) -> Any:
    """The result of one request."""
    cmd = request["cmd"]
    if cmd == "start":
        implementation = {"name": f"python-reference-{adapter.profile}", "version": VERSION, "language": "python"}
        claims = {"system": "txlog-writer", "profiles": [adapter.profile], "capabilities": list(CAPABILITIES)}
        return {"version": 1, "implementation": {**implementation, **claims}}
    if cmd == "configure":
        adapter.start(WriterConfig.from_dict(request["config"]))
        return {}
    if cmd == "apply":
        return {"results": [adapter.apply(op_from_dict(op)) for op in request["ops"]]}
    if cmd == "stop":
        return {}
    raise ValueError(f"unknown command {cmd!r}")


def serve(profile: str, lines: Any = None, out: Any = None) -> None:
    """Answer requests until ``stop`` or the end of input."""
    adapter = TxlogAdapter(profile)
    out = sys.stdout.buffer if out is None else out
    for line in sys.stdin.buffer if lines is None else lines:
        request: dict[str, Any] = {}
        try:
            request = parse_line(line.decode())
            reply = {"seq": request["seq"], "result": handle(adapter, request)}
        except Exception as error:  # noqa: BLE001 - every failure is reported as errored
            message = f"{type(error).__name__}: {error}"
            reply = {"seq": request.get("seq"), "errored": {"message": message, "traceback": traceback.format_exc()}}
        out.write(json_line(reply))
        out.flush()
        if request.get("cmd") == "stop":
            return


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve stdin."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="pulsar-master")
    serve(parser.parse_args(argv).profile)


if __name__ == "__main__":
    main()
