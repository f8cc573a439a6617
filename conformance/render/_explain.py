"""The configuration a counterexample ran with, said the same way in every output that shows one.

``conform``'s terminal (plain and rich), ``replay``, and the HTML report show, above a counterexample's
steps, the configuration its run started from: the fields the profile reads (TTLs, ``max_size`` with its
eviction trigger and watermark in bytes, ...), the preset and named configuration it came from, and what
differs from the profile's defaults (SPEC.md §1.2's "Default" column, the lockstep systems' config
classes), so a reader sees at once which setting made the difference. The model divergence's rule comes
with the message itself (``spec/_rules.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any


def _value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def config_lines(
    config: Any,
    fields: Sequence[str],
    *,
    defaults_of: str,
    sizes: dict[str, str] | None = None,
    origin: Sequence[str] = (),
) -> list[str]:
    """Two lines: ``config (ORIGIN): field value, ...`` and what differs from the defaults of ``defaults_of``.

    ``sizes`` adds a note after a field (the trigger and watermark in bytes after ``max_size``); ``origin``
    names the presets the configuration came from.
    """
    values, defaults = dataclasses.asdict(config), dataclasses.asdict(type(config)())
    notes = sizes or {}
    shown = ", ".join(f"{name} {_value(values[name])}{notes.get(name, '')}" for name in fields)
    changed = [
        f"{name} {_value(values[name])} (default {_value(defaults[name])})"
        for name in fields
        if values[name] != defaults[name]
    ]
    where = f" ({', '.join(origin)})" if origin else ""
    diff = ", ".join(changed) if changed else "nothing"
    return [f"config{where}: {shown}", f"differs from the {defaults_of} defaults: {diff}"]


def lockstep_config_lines(system: str, profile: str, config: Any) -> list[str]:
    """A lockstep system's (cursor state, txlog writer): every field of its configuration class."""
    return config_lines(config, tuple(dataclasses.asdict(config)), defaults_of=f"{system} {profile}")


__all__ = ["config_lines", "lockstep_config_lines"]
