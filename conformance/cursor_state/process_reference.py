"""The reference cursor behind process protocol v1 (cursor-state): an adapter loop a third party can copy.

    python -m ledgerspec.conformance.cursor_state.process_reference --profile pip381

Read a JSON line, dispatch on ``cmd``, write one flushed JSON line; an exception becomes ``errored``.
The loop and the commands every system shares are in ``conformance/adapters/_system_process.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import IO, Any

from ledgerspec.conformance.adapters._system_process import answer, serve_lines
from ledgerspec.conformance.cursor_state._reference_adapter import CursorStateAdapter
from ledgerspec.spec.cursor_state import CAPABILITIES, PROFILES, CursorConfig, op_from_dict


def handle(adapter: CursorStateAdapter, request: dict[str, Any]) -> Any:
    """The result of one request."""
    return answer(
        adapter,
        request,
        system="cursor-state",
        capabilities=CAPABILITIES,
        read_config=CursorConfig.from_dict,
        read_op=op_from_dict,
    )


def serve(profile: str, lines: Iterable[bytes] | None = None, out: IO[bytes] | None = None) -> None:
    """Answer requests until ``stop`` or the end of input."""
    adapter = CursorStateAdapter(profile)
    serve_lines(
        lambda request: handle(adapter, request),
        sys.stdin.buffer if lines is None else lines,
        sys.stdout.buffer if out is None else out,
    )


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve stdin."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="pip381")
    serve(parser.parse_args(argv).profile)


if __name__ == "__main__":
    main()
