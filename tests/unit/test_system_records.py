"""Every hook a system's record (and its commands) loads lazily names a function that exists.

A record names its hooks as ``module:attr`` strings so that reading it stays cheap; a typo there would
only show when a user runs that one command. This loads each of them now, for every installed system.
"""

from __future__ import annotations

import dataclasses

import pytest
from ledgerspec.conformance.systems import SYSTEMS, Commands, System, commands_of, load

SHIPPED = ("cache", "cursor-state", "txlog-writer")


def _targets(record: object) -> dict[str, str]:
    """Field name -> the ``module:attr`` of each lazy hook of a record."""
    found = {}
    for item in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, item.name)
        target = getattr(value, "target", None)
        if isinstance(target, str):
            found[item.name] = target
    return found


@pytest.mark.parametrize("name", SHIPPED)
def test_every_lazy_hook_of_a_shipped_record_and_its_commands_loads(name):
    system = SYSTEMS[name]
    assert isinstance(system, System)
    commands = commands_of(name)
    assert isinstance(commands, Commands)
    targets = {**_targets(system), **{f"commands.{k}": v for k, v in _targets(commands).items()}}
    assert targets, "a record with no lazy hook: nothing was checked"
    for field, target in targets.items():
        assert callable(load(target)), f"{name}: {field} = {target!r} is not a function"


def test_a_lazy_hook_naming_nothing_fails_to_load():
    from ledgerspec.conformance.systems import lazy

    with pytest.raises(AttributeError):
        load(lazy("ledgerspec.conformance.systems:no_such_function").target)  # type: ignore[attr-defined]
