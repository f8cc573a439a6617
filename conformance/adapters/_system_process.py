"""What every lockstep system's process protocol shares (cursor-state, txlog-writer), in one home.

Each system speaks process protocol v1 (conformance/protocol/README.md) with payloads of its own
(conformance/protocol/<system>.md). What a ``start`` reply may claim, the check that it names the
system, the schemas' framing (requests, the three replies, the ``start`` handshake) and the loop of a
reference process are the same for every system; only the config, the operations and their results
differ, and those stay in each system's ``_process``, ``_schemas`` and ``process_reference`` modules.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, Protocol

from ledgerspec.conformance._errors import AdapterFault
from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.adapters._api import AdapterInfo, json_line, parse_line
from ledgerspec.conformance.adapters._process import _Process


@dataclass(frozen=True)
class SystemAdapterInfo(AdapterInfo):
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
    """The cache's process transport, for one system (``system``; its ``start`` reply must name it)."""

    info_class: type[AdapterInfo] = SystemAdapterInfo


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


def serve_lines(handle: Callable[[dict[str, Any]], Any], lines: Iterable[bytes], out: IO[bytes]) -> None:
    """Read a JSON line, answer it with ``handle``, write one flushed JSON line, until ``stop`` or the end.

    An exception becomes an ``errored`` reply with its traceback, and the loop goes on; an ``apply`` before
    any ``configure`` is refused here, by name, rather than as whatever the reference trips over.
    """
    configured = False
    for line in lines:
        request: dict[str, Any] = {}
        try:
            request = parse_line(line.decode())
            if request.get("cmd") == "apply" and not configured:
                raise ValueError("apply before configure: send configure first")  # noqa: TRY301 - one errored path
            reply = {"seq": request["seq"], "result": handle(request)}
            configured = configured or request.get("cmd") == "configure"
        except Exception as error:  # noqa: BLE001 - every failure is reported as errored
            message = f"{type(error).__name__}: {error}"
            reply = {"seq": request.get("seq"), "errored": {"message": message, "traceback": traceback.format_exc()}}
        out.write(json_line(reply))
        out.flush()
        if request.get("cmd") == "stop":
            return
