"""The one process transport and serve loop of every lockstep system, driven by its ``System`` record.

Each system speaks process protocol v1 (conformance/protocol/README.md) with payloads of its own
(conformance/protocol/<system>.md). What a ``start`` reply may claim, the check that it names the
system, the schemas' framing (requests, the three replies, the ``start`` handshake), the client
(:class:`SystemProcessFactory`, an ``exec:COMMAND`` adapter) and the loop of a reference process
(:func:`serve`) are the same for every system; only the config, the operations and the shape of their
results differ, and those are the record's (``System.process``: schemas, ``result_problem``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, Protocol

from ledgerspec.conformance._errors import AdapterFault, clip
from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.adapters._transport import (
    Info,
    ProtocolViolation,
    _Process,
    serve_lines,
)
from ledgerspec.conformance.systems import ProcessHooks, System


@dataclass(frozen=True)
class SystemAdapterInfo(Info):
    """Who an implementation of one system is: what it claims must be that system's profiles and capabilities."""

    system: ClassVar[str] = ""
    known_profiles: ClassVar[tuple[str, ...]] = ()
    known_capabilities: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        known_profiles, known_capabilities = set(self.known_profiles), set(self.known_capabilities)
        unknown = sorted(set(self.profiles) - known_profiles) + sorted(set(self.capabilities) - known_capabilities)
        if not self.profiles or unknown:
            raise AdapterFault(
                f"adapter {self.name!r} claims {unknown or 'no profile'}, not of the {self.system} system "
                f"(profiles {', '.join(self.known_profiles)}; capabilities {', '.join(self.known_capabilities)})"
            )


class SystemProcess(_Process):
    """The process transport, for one system (``system``; its ``start`` reply must name it)."""

    info_class: type[Info] = SystemAdapterInfo


def _hooks(system: System) -> ProcessHooks:
    if system.process is None:
        raise ValueError(f"the {system.name} system has no process protocol")
    return system.process


def process_class(system: System) -> type[SystemProcess]:
    """The transport of ``system``: its ``start`` reply must name it, claim its profiles and capabilities."""
    info: type[SystemAdapterInfo] = dataclass(frozen=True)(
        type(
            "SystemAdapterInfo",
            (SystemAdapterInfo,),
            {"system": system.name, "known_profiles": system.profiles, "known_capabilities": system.capabilities},
        )
    )
    attributes = {"info_class": info, "schema_dir": _hooks(system).schema_dir, "system": system.name}
    return type(f"SystemProcess[{system.name}]", (SystemProcess,), attributes)


class SystemProcessAdapter:
    """One candidate handle over the shared process: one ``apply`` per step, its result's shape checked."""

    def __init__(self, process: SystemProcess, hooks: ProcessHooks) -> None:
        self._process, self._hooks = process, hooks
        self._claims = frozenset(process.info.capabilities)
        self._step = 0

    def start(self, config: Any) -> None:
        self._process.ensure_running()
        self._process.request("configure", config=config.to_dict())
        self._step = 0

    def apply(self, op: Any) -> Any:
        self._step += 1
        reply = self._process.request("apply", ops=[op.to_dict()], what=op, need=getattr(op, "capability", None))
        where = self._hooks.where(self._step, op, self._process.seq)
        results = reply.get("results")
        if not isinstance(results, list) or len(results) != 1:
            raise ProtocolViolation(f"{where}: {self._hooks.count_error}, got {clip(repr(results), 300)}")
        problem = self._hooks.result_problem(op, results[0], self._claims)
        if problem:
            raise ProtocolViolation(f"{where}: {problem}")
        return results[0]

    def stop(self) -> None:
        """Nothing: the process serves the next example."""


class SystemProcessFactory:
    """``exec:COMMAND`` for a lockstep system: one process, a handle per example."""

    def __init__(self, system: System, command: str, *, timeout: float | None = None, validate: bool = False) -> None:
        self._hooks = _hooks(system)
        self._process = process_class(system)(command, timeout=timeout, validate=validate, restart="crash")
        self.profiles, self.capabilities = self._process.info.profiles, self._process.info.capabilities

    def __call__(self) -> SystemProcessAdapter:
        return SystemProcessAdapter(self._process, self._hooks)

    def close(self) -> None:
        self._process.close()


# --- the schemas' framing ---------------------------------------------------------------------------

SEQ = {"type": ["integer", "string"]}
EMPTY = {"type": "object", "additionalProperties": False}


def reply_schema(result: dict[str, Any]) -> dict[str, Any]:
    """A reply: ``seq`` and exactly one of ``result`` (this schema), ``skipped`` or ``errored``."""
    return {
        "type": "object",
        "required": ["seq"],
        "properties": {
            "seq": SEQ,
            "result": result,
            "skipped": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
            "errored": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
        },
        "oneOf": [{"required": ["result"]}, {"required": ["skipped"]}, {"required": ["errored"]}],
        "additionalProperties": False,
    }


def request_schema(cmd: str, **fields: Any) -> dict[str, Any]:
    """A request: ``cmd``, ``seq`` and the command's own fields, nothing else."""
    return {
        "type": "object",
        "required": ["cmd", "seq", *fields],
        "properties": {"cmd": {"const": cmd}, "seq": SEQ, **fields},
        "additionalProperties": False,
    }


def system_schemas(
    system: str,
    profiles: tuple[str, ...],
    capabilities: tuple[str, ...],
    configure: tuple[str, dict[str, Any]],
    apply: tuple[str, dict[str, Any], dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """File name to schema for ``start``, ``configure``, ``apply`` and ``stop`` of one system.

    ``configure`` is (title, config schema); ``apply`` is (title, ops schema, result schema).
    """
    implementation = {
        "type": "object",
        "required": ["name", "version", "language", "system", "profiles", "capabilities"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "version": {"type": "string"},
            "language": {"type": "string"},
            "system": {"const": system},
            "profiles": {"type": "array", "minItems": 1, "items": {"enum": list(profiles)}},
            "capabilities": {"type": "array", "uniqueItems": True, "items": {"enum": list(capabilities)}},
            "homepage": {"type": "string"},
            "issues": {"type": "string"},
        },
    }
    start = {
        "type": "object",
        "required": ["version", "implementation"],
        "additionalProperties": False,
        "properties": {"version": {"const": 1}, "implementation": implementation},
    }
    (configure_title, config), (apply_title, ops, result) = configure, apply
    results = {
        "type": "object",
        "required": ["results"],
        "additionalProperties": False,
        "properties": {"results": {"type": "array", "items": result}},
    }
    commands = {
        "start": (
            "version handshake: who the implementation is, its profiles and capabilities",
            request_schema("start", version={"const": 1}),
            start,
        ),
        "configure": (configure_title, request_schema("configure", config=config), EMPTY),
        "apply": (apply_title, request_schema("apply", ops=ops), results),
        "stop": ("the end of the run: answer {} and exit 0", request_schema("stop"), EMPTY),
    }
    base = f"https://ledgerspec.invalid/conformance/protocol/{system}/v1/"
    return {
        f"{cmd}.json": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{base}{cmd}.json",
            "title": f"{cmd} ({system}): {title}",
            "$defs": {"request": request, "reply": reply_schema(reply)},
        }
        for cmd, (title, request, reply) in commands.items()
    }


# --- a reference process ----------------------------------------------------------------------------


class Reference(Protocol):
    """An in-process reference adapter as a process serves it: a fresh instance per ``start``, one answer per op."""

    profile: str

    def start(self, config: Any) -> None: ...
    def apply(self, op: Any) -> Any: ...


def render(schema: dict[str, Any]) -> str:
    """A schema file's text, as committed under conformance/protocol/<system>/v1/."""
    return json.dumps(schema, indent=2) + "\n"


def write_schemas(schemas: dict[str, dict[str, Any]], directory: Path) -> None:
    """Regenerate a system's schema files (``python -m ledgerspec.conformance.<system>._schemas``)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas.items():
        (directory / name).write_text(render(schema), encoding="utf-8")


def answer(
    adapter: Reference,
    request: dict[str, Any],
    *,
    system: str,
    capabilities: tuple[str, ...],
    read_config: Callable[[dict[str, Any]], Any],
    read_op: Callable[[dict[str, Any]], Any],
) -> Any:
    """The result of one request to a reference process of ``system``."""
    cmd = request["cmd"]
    if cmd == "start":
        implementation = {"name": f"python-reference-{adapter.profile}", "version": VERSION, "language": "python"}
        claims = {"system": system, "profiles": [adapter.profile], "capabilities": list(capabilities)}
        return {"version": 1, "implementation": {**implementation, **claims}}
    if cmd == "configure":
        adapter.start(read_config(request["config"]))
        return {}
    if cmd == "apply":
        return {"results": [adapter.apply(read_op(op)) for op in request["ops"]]}
    if cmd == "stop":
        return {}
    raise ValueError(f"unknown command {cmd!r}")


def handle(system: System, implementation: Reference, request: dict[str, Any]) -> Any:
    """The result of one request to a process serving ``implementation`` of ``system``."""
    return answer(
        implementation,
        request,
        system=system.name,
        capabilities=system.capabilities,
        read_config=system.config.from_dict,
        read_op=system.op_from_dict,
    )


def serve(
    system: System,
    implementation: Reference,
    lines: Iterable[bytes] | None = None,
    out: IO[bytes] | None = None,
    *,
    handler: Callable[[Reference, dict[str, Any]], Any] | None = None,
) -> None:
    """The one serve loop: ``implementation`` (a reference, a mutant) answers each request, stdin until ``stop``.

    ``handler`` (default :func:`handle` for ``system``) answers one request: a test's patched process wraps it.
    """
    respond = handler or (lambda adapter, request: handle(system, adapter, request))
    serve_lines(
        lambda request: respond(implementation, request),
        sys.stdin.buffer if lines is None else lines,
        sys.stdout.buffer if out is None else out,
    )


def reference_module(
    system: System, module: str
) -> tuple[Callable[..., Any], Callable[..., None], Callable[..., None]]:
    """``handle``, ``serve`` and ``main`` of a system's ``process_reference`` module, named ``module``.

    ``serve(profile, lines, out)`` looks the module's ``handle`` up at each request, so a script that
    replaces it (a test's lying or dying process) is served by the same loop.
    """
    if system.reference is None:
        raise ValueError(f"the {system.name} system has no reference")
    make = system.reference

    def module_handle(adapter: Reference, request: dict[str, Any]) -> Any:
        return handle(system, adapter, request)

    def module_serve(profile: str, lines: Iterable[bytes] | None = None, out: IO[bytes] | None = None) -> None:
        patched = sys.modules[module]
        serve(system, make(profile), lines, out, handler=lambda a, r: patched.handle(a, r))  # noqa: PLW0108 - read at each call: a script may replace it

    def main(argv: list[str] | None = None) -> None:
        parser = argparse.ArgumentParser(description=f"The {system.name} reference behind process protocol v1")
        parser.add_argument("--profile", choices=system.profiles, default=_hooks(system).default_profile)
        module_serve(parser.parse_args(argv).profile)

    return module_handle, module_serve, main


