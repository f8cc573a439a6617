"""A case file of any system: its JSON, read with errors naming the file, and the system it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.systems import SYSTEMS, default


def read_case_json(path: str | Path) -> Any:
    """The JSON of a case file (any system's); a missing or binary file or bad JSON is an :class:`InputError`."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the case: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start}): a case file is JSON") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a case (a case nests a few levels)") from None
    except ValueError as error:  # an integer of more digits than Python converts
        raise InputError(f"{path}: not a case: {error}") from None
    return data


def case_system(data: Any) -> str:
    """The system a case (or a report holding one) names; one naming none, or none known, is the default's."""
    if isinstance(data, dict) and isinstance(data.get("counterexample"), dict):
        data = data["counterexample"]
    system = data.get("system") if isinstance(data, dict) else None
    return system if isinstance(system, str) and system in SYSTEMS else default()
