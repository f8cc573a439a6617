"""conformance/protocol/README.md against the v1 schemas, without a process: every line of its sessions is a
message the schemas accept, and pip430's ``"expected_reads": null`` (a trap for adapters) has cases of its own.

tests/slow/test_protocol_session.py records the sessions again from a real process; this is the fast half.
"""

from __future__ import annotations

import json
import re

import pytest
from ledgerspec.conformance.adapters._transport import SCHEMA_DIR, _validators

PAGE = SCHEMA_DIR.parent / "README.md"
VALIDATORS = _validators(SCHEMA_DIR)


def problems(cmd: str, side: str, message: dict) -> list[str]:
    return [error.message for error in VALIDATORS[cmd, side].iter_errors(message)]


def session_lines() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- session: \w+ -->\n```text\n(.*?)```", text, re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line[:2] in {"> ", "< "}]


def test_every_line_of_the_sessions_keeps_the_schemas():
    lines = session_lines()
    for request_line, reply_line in zip(lines[::2], lines[1::2], strict=True):
        request, reply = json.loads(request_line[2:]), json.loads(reply_line[2:])
        assert problems(request["cmd"], "request", request) == [], request_line
        assert problems(request["cmd"], "reply", reply) == [], reply_line


def test_the_worked_session_shows_an_insert_with_null_expected_reads():
    inserts = [json.loads(line[2:])["ops"][0] for line in session_lines() if '"op":"insert"' in line]
    assert any(op.get("expected_reads", 0) is None and "expected_reads" in op for op in inserts)


INSERT = {"op": "insert", "now": 21, "ledger": 1, "entry": 2, "size": 30}
ENTRY = {"ledger": 1, "entry": 2, "size": 30, "timestamp": 21}
COUNTERS = dict.fromkeys(
    ("inserted", "hits", "misses", "removed_size", "removed_ttl", "removed_invalidate", "removed_clear"), 0
)


def apply_request(**fields: object) -> dict:
    return {"cmd": "apply", "seq": 9, "ops": [{**INSERT, **fields}], "observe": True}


def observe_reply(**fields: object) -> dict:
    observation = {"entries": [{**ENTRY, **fields}], "size": 30, "counters": COUNTERS, "copies": []}
    return {"seq": 9, "result": observation}


@pytest.mark.parametrize(
    ("message", "side", "valid"),
    [
        (apply_request(expected_reads=None), "request", True),  # pip430: an entry without a handler
        (apply_request(), "request", True),  # no key: 0
        (apply_request(expected_reads="null"), "request", False),  # null is JSON's, not a string
        (observe_reply(count=None), "reply", True),  # its entry: a count of null
        (observe_reply(), "reply", False),  # a serializer that drops nulls drops a required key
    ],
)
def test_null_expected_reads_and_the_null_count_it_gives(message, side, valid):
    cmd = "apply" if side == "request" else "observe"
    found = problems(cmd, side, message)
    assert (found == []) == valid, found
