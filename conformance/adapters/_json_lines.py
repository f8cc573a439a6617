"""Protocol v1's framing: one compact JSON object per line, every integer a Java ``long``.

Both directions of every system's process go through these two functions: the runner's transport
(``_transport.py``) and each reference process's serve loop.
"""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable
from typing import Any

from ledgerspec.conformance._errors import clip


def _compact_encoder() -> Callable[[Any], str]:
    """Compact JSON without the check for reference cycles (messages are trees of plain data).

    ``JSONEncoder.encode`` makes a new C encoder on every call, a sizeable part of a short line's cost
    (BENCHMARKS.md); this one is made once. Where the C encoder is missing or takes other arguments, the plain encoder.
    """
    encoder = json.JSONEncoder(separators=(",", ":"), check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)  # the C accelerator, where built
    if make is None:
        return encoder.encode
    try:
        c_encoder = make(
            None, encoder.default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True
        )
    except TypeError:
        return encoder.encode
    return lambda message: "".join(c_encoder(message, 0))


_compact = _compact_encoder()


def json_line(message: Any) -> bytes:
    """One line of the process protocol, either way: compact JSON and a newline."""
    return _compact(message).encode() + b"\n"


_raw_decode = json.JSONDecoder().raw_decode


_BLANKS = " \t\n\r"
"""JSON's whitespace (str.isspace would take more)."""


def parse_line(line: str) -> Any:
    """One line of the process protocol as JSON: ``json.loads`` without its layers of wrappers.

    Cheaper per line (BENCHMARKS.md); malformed text raises the same
    ``json.JSONDecodeError`` (``Extra data`` for anything but JSON whitespace after the value).
    """
    start = len(line) - len(line.lstrip(_BLANKS)) if line and line[0] in _BLANKS else 0
    value, end = _raw_decode(line, start)
    rest = line[end:]
    if rest and rest.strip(_BLANKS):
        raise json.JSONDecodeError("Extra data", line, end + len(rest) - len(rest.lstrip(_BLANKS)))
    if _LONG_DIGITS.search(line) is not None:  # only a run of 19 digits may be past a long: walk then
        _check_longs(value, "")
    return value


class RequestLabel:
    """Names a request in fault messages; made on every step, so it is formatted only when one is raised."""

    __slots__ = ("cmd", "seq", "what")

    def __init__(self, cmd: str, what: Any = None, seq: int | None = None) -> None:
        self.cmd, self.what, self.seq = cmd, what, seq

    def __str__(self) -> str:
        describe = getattr(self.what, "describe", None)  # an operation of any system
        text = self.cmd + (f" of {describe()}" if callable(describe) else "")
        return text if self.seq is None else f"{text} (seq {self.seq})"


class OutOfRangeError(ValueError):
    """A JSON integer outside a Java ``long``: every integer of the protocol is one (ids, sizes, counts)."""


_LONG_DIGITS = re.compile(r"\d{19}")


_LONG = range(-(2**63), 2**63)


def _check_longs(value: Any, path: str) -> None:
    """Raise :class:`OutOfRangeError` naming the first integer of ``value`` outside a long, by its JSON path."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _LONG:
            raise OutOfRangeError(f"{path or 'the value'} = {clip(str(value), 40)} is outside a 64-bit signed integer")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_longs(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_longs(item, f"{path}[{index}]")
