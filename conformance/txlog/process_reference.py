"""The reference writer behind process protocol v1 (txlog-writer): an adapter loop a third party can copy.

    python -m ledgerspec.conformance.txlog.process_reference --profile pulsar-master

Read a JSON line, dispatch on ``cmd``, write one flushed JSON line; an exception becomes ``errored``.
The loop and the commands every system shares are in ``conformance/adapters/_system_process.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import IO, Any

from ledgerspec.conformance.adapters._system_process import answer, serve_lines
from ledgerspec.conformance.txlog._reference_adapter import TxlogAdapter
from ledgerspec.spec.txlog import CAPABILITIES, PROFILES, WriterConfig, op_from_dict


def handle(adapter: TxlogAdapter, request: dict[str, Any]) -> Any:
    """The result of one request."""
    return answer(
        adapter,
        request,
        system="txlog-writer",
        capabilities=CAPABILITIES,
        read_config=WriterConfig.from_dict,
        read_op=op_from_dict,
    )


def serve(profile: str, lines: Iterable[bytes] | None = None, out: IO[bytes] | None = None) -> None:
    """Answer requests until ``stop`` or the end of input."""
    adapter = TxlogAdapter(profile)
    serve_lines(
        lambda request: handle(adapter, request),
        sys.stdin.buffer if lines is None else lines,
        sys.stdout.buffer if out is None else out,
    )


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve stdin."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="pulsar-master")
    serve(parser.parse_args(argv).profile)


if __name__ == "__main__":
    main()
