"""A lockstep system's case file is checked against a schema made from its protocol's (and so its types')."""

from __future__ import annotations

import pytest
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.lockstep._case import case_schema, read_case
from ledgerspec.conformance.systems import SYSTEMS

CASES = {
    "cursor-state": {"config": {"chunk_size": 4}, "steps": [{"op": "ack", "ledger": 1, "entry": 2}]},
    "txlog-writer": {"config": {}, "steps": [{"op": "tick", "by": 3}]},
}


@pytest.mark.parametrize("system", sorted(CASES))
def test_each_shipped_lockstep_system_has_a_case_schema_from_its_protocol(system):
    schema = case_schema(SYSTEMS[system])
    assert schema is not None
    assert schema["properties"]["system"] == {"const": system}
    kinds = {item["properties"]["op"]["const"] for item in schema["properties"]["steps"]["items"]["oneOf"]}
    assert {step["op"] for step in CASES[system]["steps"]} < kinds
    assert read_case(system, CASES[system], "case.json").steps


def test_what_the_readers_of_config_and_steps_let_by_the_schema_refuses_naming_its_place():
    case = {"profile": "pip430", "config": {}, "steps": [{"op": "confirm"}]}
    with pytest.raises(InputError, match=r"case.json: profile: 'pip430' is not one of .*cursor-state case schema"):
        read_case("cursor-state", case, "case.json")
    case = {"invariant": 3, "config": {}, "steps": [{"op": "tick", "by": 1}]}
    with pytest.raises(InputError, match=r"case.json: invariant: 3 is not of type 'string', 'null'"):
        read_case("txlog-writer", case, "case.json")
