"""A lockstep system's candidates by name, and the walks they are driven through, for every command.

``conform``, ``smoke``, ``matrix``, ``replay`` and ``traces record`` resolve ``--adapter`` here: a reference,
a mutant (``mutant:NAME``), a real-code harness or ``exec:COMMAND``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.systems import SYSTEMS


def walk(
    system: str, profile: str, config: Any, seed: int, count: int, capabilities: frozenset[str] | None = None
) -> list[Any]:
    """A seeded random sequence of about ``count`` operations the model accepts and the adapter claims.

    ``capabilities``: the adapter's claims (None: every capability of the system, as an in-process candidate).
    The moves are the system's (``System.walk``).
    """
    record = SYSTEMS[system]
    if record.walk is None:
        raise InputError(f"--system {system}: the system has no random walk to record; record a --case")
    claims = frozenset(record.capabilities) if capabilities is None else capabilities
    return record.walk(random.Random(seed), profile, config, count, claims)


def unclaimed(system: str, config: Any, ops: Sequence[Any], capabilities: frozenset[str]) -> str | None:
    """What of a run the adapter does not claim, by the conformance machine's rule (None: nothing).

    A case's steps or a ``--config`` may ask for what a process adapter never said it takes; it would
    refuse it mid-run, so the recorder says so first.
    """
    return SYSTEMS[system].unclaimed(config, ops, capabilities)


def resolve_adapter(
    system: str, name: str, *, timeout: float | None = 60.0, validate: bool = False
) -> tuple[str, Callable[[], Any], Any, frozenset[str]]:
    """(default profile, factory, process to close or None, capabilities) of a reference, mutant, real code, ``exec:``.

    A process claims its capabilities in its start reply; an in-process candidate takes everything.
    """
    from ledgerspec.conformance.adapters._system_process import SystemProcessFactory  # noqa: PLC0415

    record = SYSTEMS[system]
    references, real = record.references(), record.real()
    command = name[5:] if name.startswith("exec:") else None
    if name in real:
        from ledgerspec.conformance.adapters._harness import SYSTEM_HARNESSES  # noqa: PLC0415 - Maven only when asked

        command = SYSTEM_HARNESSES[name][1].command()  # builds the harnesses if needed
    if command is not None and record.process is not None:
        process = SystemProcessFactory(record, command, timeout=timeout, validate=validate)
        return process.profiles[0], process, process, frozenset(process.capabilities)
    everything = frozenset(record.capabilities)
    if name in references:
        profile, factory = references[name]
        return profile, factory, None, everything
    mutants = {m.name: m for m in record.mutants()}
    mutant = mutants.get(name.removeprefix("mutant:"))
    if mutant is not None:
        return mutant.profile, mutant.adapter, None, everything
    known = ", ".join([*references, *real, *(f"mutant:{m}" for m in mutants)])
    raise InputError(
        f"--adapter {name}: {system} adapters are {known}" + (", or exec:COMMAND" if record.process else "")
    )
