"""The worked sessions in conformance/protocol/README.md are what the runner and the Python process
adapter really say to each other, line for line, so that the document cannot go stale.

Each session is recorded from the runner's side (every request it writes and every reply it reads)
while it drives ``process_reference --profile pip430``, as ``conform`` does. The one change: an
``errored`` reply's traceback, which holds the machine's paths, is shortened to ``...``.

    python tests/slow/test_protocol_session.py     # print the sessions, to paste into the README
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from pathlib import Path
from typing import Any
from unittest import mock

from ledgerspec.conformance.adapters._json_lines import json_line
from ledgerspec.conformance.adapters._transport import AdapterErrored, _Process
from ledgerspec.conformance.cache._presets import get_preset
from ledgerspec.conformance.cache.adapters._process import process_factory
from ledgerspec.spec.cache import EvictTimestamp, Get, GetRange, Insert, Op, Release

README = Path(__file__).resolve().parents[2] / "conformance" / "protocol" / "README.md"
COMMAND = f"{sys.executable} -m ledgerspec.conformance.cache.adapters.process_reference --profile pip430"
STEPS: list[Op] = [
    Insert(now=1, ledger=1, entry=0, size=10, expected_reads=1),
    Insert(now=2, ledger=1, entry=1, size=20, expected_reads=0),
    Get(now=3, ledger=1, entry=0),
    GetRange(now=4, ledger=1, first=1, last=2),
    Release(now=5, copy=0),
    EvictTimestamp(now=20),
    Insert(now=21, ledger=1, entry=2, size=30, expected_reads=None),  # pip430 only: an entry without a handler
    Release(now=22, copy=7),  # never dispatched: the implementation answers errored
]
VALIDATED_STEPS: list[Op] = STEPS[:1]


def record(steps: list[Op], *, validate: bool = False) -> list[str]:
    """The lines of one session: ``> request`` and ``< reply``, in order."""
    lines: list[str] = []
    exchange = _Process._exchange  # the one place where both directions pass

    def recording(process: _Process, data: bytes, label: Any) -> str:
        reply = exchange(process, data, label)
        lines.extend((f"> {data.decode().rstrip()}", f"< {_shorten(reply)}"))
        return reply

    with mock.patch.object(_Process, "_exchange", recording):
        factory = process_factory(COMMAND, validate_protocol=validate)
        try:
            adapter = factory()
            adapter.start(get_preset("minimal").config)
            with contextlib.suppress(AdapterErrored):  # the run would end here, as an adapter fault
                for op in steps:
                    adapter.apply(op)
        finally:
            factory.close()
    return lines


def _shorten(reply: str) -> str:
    message = json.loads(reply)
    if isinstance(message.get("errored"), dict) and "traceback" in message["errored"]:
        message["errored"]["traceback"] = "..."
        return json_line(message).decode().rstrip()
    return reply


def documented(name: str) -> list[str]:
    """The session lines of the README's code block after ``<!-- session: NAME -->``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- session: {name} -->\n```text\n(.*?)```", text, re.DOTALL)
    assert match, f"no session {name!r} in {README.name}"
    return [line for line in match.group(1).splitlines() if line.startswith(("> ", "< "))]


def test_the_worked_session_is_what_the_runner_and_the_adapter_say():
    recorded = record(STEPS)
    assert documented("worked") == recorded, "\n" + "\n".join(recorded)


def test_the_validated_session_is_what_the_runner_and_the_adapter_say():
    recorded = record(VALIDATED_STEPS, validate=True)
    assert documented("validated") == recorded, "\n" + "\n".join(recorded)


def test_the_worked_session_shows_every_kind_of_reply():
    lines = documented("worked")
    replies = [json.loads(line[2:]) for line in lines if line.startswith("< ")]
    assert any("delta" in reply.get("result", {}) for reply in replies)
    assert any("errored" in reply for reply in replies)
    assert lines[-2].startswith('> {"cmd":"stop"')


if __name__ == "__main__":
    print("<!-- session: worked -->\n```text\n" + "\n".join(record(STEPS)) + "\n```")
    print("<!-- session: validated -->\n```text\n" + "\n".join(record(VALIDATED_STEPS, validate=True)) + "\n```")
