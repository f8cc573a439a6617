"""The worked session of conformance/protocol/cursor-state.md keeps the schemas and is what the profile gives.

A third party follows that page alone: each line must be a message the schemas accept, and each reply what the
``pip381`` model answers to the request (C7: a persist from NoLedger is confirmed only after the new ledger's first
write and the flush, so a session written before it would fail here).
"""

from __future__ import annotations

import json

from ledgerspec.conformance.adapters._transport import _validators
from ledgerspec.conformance.cursor_state._process import SCHEMA_DIR
from ledgerspec.spec.cursor_state import CursorConfig, init, op_from_dict, step


def test_the_worked_session_keeps_the_schemas_and_is_what_the_profile_gives():
    page = SCHEMA_DIR.parents[1] / "cursor-state.md"
    lines = [line for line in page.read_text(encoding="utf-8").splitlines() if line[:2] in {"> ", "< "}]
    validators = _validators(SCHEMA_DIR)
    model = None
    applied = 0
    for request_line, reply_line in zip(lines[::2], lines[1::2], strict=True):
        request, reply = json.loads(request_line[2:]), json.loads(reply_line[2:])
        for side, message in (("request", request), ("reply", reply)):
            assert not list(validators[request["cmd"], side].iter_errors(message)), (side, message)
        if request["cmd"] == "configure":
            model = init("pip381", CursorConfig(**request["config"]))
        elif request["cmd"] == "apply":
            assert model is not None
            model, expected = step(model, op_from_dict(request["ops"][0]))
            assert reply["result"]["results"] == [expected], request
            applied += 1
    assert applied >= 10
    assert [json.loads(line[2:])["cmd"] for line in lines[::2]][-1] == "stop"
