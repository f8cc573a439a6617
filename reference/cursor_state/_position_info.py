"""The reference's own codec for what a cursor writes to its ledger, written apart from the spec's.

``PositionInfo`` (apache/pulsar ``MLDataFormats.proto``: 1 ledgerId, 2 entryId, 3 ranges, 4 properties,
5 batch sets, 6 per-ledger bitsets), the compressed entry (a big-endian size, then zlib), the chunks and
the JSON footer of ``ManagedCursorImpl`` at 048142ca (PR #22799). The conformance machine compares
what this recovers with the spec's model, so the two codecs check each other.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

Position = tuple[int, int]


class CorruptEntryError(Exception):
    """The bytes are not a PositionInfo (or not this codec's compressed form)."""


@dataclass
class Snapshot:
    """A cursor's state as the reference passes it around."""

    mark_delete: Position
    acked: dict[int, set[int]] = field(default_factory=dict)
    unacked_indexes: dict[Position, set[int]] = field(default_factory=dict)
    properties: dict[str, int] = field(default_factory=dict)

    def runs(self) -> list[tuple[int, int, int]]:
        """(ledger, first, last) of each maximal run of acked entries, ledgers ascending."""
        out = []
        for ledger in sorted(self.acked):
            entries = sorted(self.acked[ledger])
            first = last = entries[0]
            for entry in entries[1:]:
                if entry == last + 1:
                    last = entry
                    continue
                out.append((ledger, first, last))
                first = last = entry
            out.append((ledger, first, last))
        return out


@dataclass(frozen=True)
class Caps:
    """How many acknowledgements a write keeps, and in which form."""

    long_array: bool
    max_ranges: int
    plus_one: bool
    """Append a range, then test the cap (048142ca): max + 1 ranges."""
    count_before: bool
    """``toRanges``: include a ledger while the count before it is within the cap (OpenLongPairRangeSet)."""


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, value: int) -> _Writer:
        value %= 1 << 64
        while value >= 0x80:
            self.out.append(value & 0x7F | 0x80)
            value >>= 7
        self.out.append(value)
        return self

    def number(self, tag: int, value: int) -> _Writer:
        return self.varint(tag << 3).varint(value)

    def nested(self, tag: int, inner: _Writer) -> _Writer:
        self.varint(tag << 3 | 2).varint(len(inner.out))
        self.out += inner.out
        return self


def _pos(position: Position) -> _Writer:
    return _Writer().number(1, position[0]).number(2, position[1])


def _one_bit(bit: int) -> int:
    """``1L << bit``: the word value of ``bit`` (Java takes a long shift mod 64)."""
    return 1 << (bit & 63)


def _long_words(bits: set[int], one: Callable[[int], int] = _one_bit) -> list[int]:
    """``BitSet.toLongArray``; ``one``: a bit's value in its word (mutants bend it)."""
    words = [0] * (max(bits) // 64 + 1) if bits else []
    for bit in bits:
        words[bit >> 6] |= one(bit)
    return words


def _kept_bitsets(state: Snapshot, caps: Caps) -> dict[int, set[int]]:
    """``toRanges(max)``: whole ledgers, earliest first, while the count of acked entries allows."""
    kept: dict[int, set[int]] = {}
    total = 0
    for ledger in sorted(state.acked):
        size = len(state.acked[ledger])
        if (total if caps.count_before else total + size) > caps.max_ranges:
            break
        kept[ledger] = state.acked[ledger]
        total += size
    return kept


def _write_ranges(w: _Writer, state: Snapshot, caps: Caps, ranges_bytes: int | None) -> None:
    limit = caps.max_ranges + (1 if caps.plus_one else 0)
    written = 0
    for kept, (ledger, first, last) in enumerate(state.runs()):
        if kept == limit:
            return
        one = _Writer().nested(1, _pos((ledger, first - 1))).nested(2, _pos((ledger, last)))
        w.nested(3, one)
        written += len(one.out) + 2
        if ranges_bytes is not None and written > ranges_bytes:
            return


def write(
    state: Snapshot,
    caps: Caps,
    *,
    ranges_bytes: int | None = None,
    long_words: Callable[[set[int]], list[int]] = _long_words,
) -> bytes:
    """``PositionInfo`` bytes; ``ranges_bytes``: stop adding ranges past that many bytes (metadata store).

    ``long_words``: how a ledger's acknowledged entries become the words of field 6 (mutants bend it).
    """
    bitsets = _kept_bitsets(state, caps) if caps.long_array else {}
    w = _Writer().number(1, state.mark_delete[0]).number(2, state.mark_delete[1])
    if not bitsets:
        _write_ranges(w, state, caps, ranges_bytes)
    for name, value in sorted(state.properties.items()):
        prop = _Writer()
        prop.varint(1 << 3 | 2).varint(len(name.encode()))
        prop.out += name.encode()
        w.nested(4, prop.number(2, value))
    for position in sorted(state.unacked_indexes):
        info = _Writer().nested(1, _pos(position))
        for word in _long_words(state.unacked_indexes[position]):
            info.number(2, word)
        w.nested(5, info)
    for ledger in sorted(bitsets):
        bits = _Writer().number(1, ledger)
        for word in long_words(bitsets[ledger]):
            bits.number(2, word)
        w.nested(6, bits)
    return bytes(w.out)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def varint(self) -> int:
        value = 0
        for shift in range(0, 70, 7):
            if self.at >= len(self.data):
                raise CorruptEntryError("varint runs past the end")
            byte = self.data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                value %= 1 << 64
                return value - (1 << 64) if value >> 63 else value
        raise CorruptEntryError("varint longer than 10 bytes")

    def fields(self) -> list[tuple[int, int, int | bytes]]:
        """(field number, wire type, value); groups skipped, fixed-width values kept as bytes."""
        out: list[tuple[int, int, int | bytes]] = []
        while self.at < len(self.data):
            tag, wire = self.key()
            if wire == 3:
                self.skip_group(tag)
            else:
                out.append((tag, wire, self.value(wire)))
        return out

    def key(self) -> tuple[int, int]:
        key = self.varint() & 0xFFFFFFFF  # protobuf-java's readTag reads a varint32: upper bits dropped
        if key >> 3 <= 0:
            raise CorruptEntryError("field number 0")
        return key >> 3, key & 7

    def value(self, wire: int) -> int | bytes:
        if wire == 0:
            return self.varint()
        if wire == 2:
            size = self.varint()
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
        else:
            raise CorruptEntryError(f"wire type {wire} opens a field")
        if size < 0 or self.at + size > len(self.data):
            raise CorruptEntryError("a field runs past the end")
        self.at += size
        return self.data[self.at - size : self.at]

    def skip_group(self, tag: int) -> None:
        while self.at < len(self.data):
            inner, wire = self.key()
            if wire == 4:
                if inner == tag:
                    return
                raise CorruptEntryError("a group closed by another's end tag")
            if wire == 3:
                self.skip_group(inner)
            else:
                self.value(wire)
        raise CorruptEntryError("a group never closed")


ONE_VARINT, BYTES, VARINTS = "varint", "bytes", "varints"
"""What a field holds: one varint, bytes (a message or a string), or repeated varints (maybe packed)."""
WIRES = {ONE_VARINT: {0}, BYTES: {2}, VARINTS: {0, 2}}
POSITION_INFO = {1: ONE_VARINT, 2: ONE_VARINT, 3: BYTES, 4: BYTES, 5: BYTES, 6: BYTES}
NESTED_POSITION = {1: ONE_VARINT, 2: ONE_VARINT}
MESSAGE_RANGE = {1: BYTES, 2: BYTES}
LONG_PROPERTY = {1: BYTES, 2: ONE_VARINT}
BATCH_INFO = {1: BYTES, 2: VARINTS}
LONG_LIST_MAP = {1: ONE_VARINT, 2: VARINTS}


def _message(data: int | bytes, shape: dict[int, str], required: tuple[int, ...]) -> dict[int, list[int | bytes]]:
    """The fields of a message that come with the wire type their kind has in ``shape``.

    protobuf-java reads a field of any other wire type as an unknown field.
    """
    if not isinstance(data, bytes):
        raise CorruptEntryError("a message field holds a varint")
    got: dict[int, list[int | bytes]] = {}
    for tag, wire, value in _Reader(data).fields():
        if tag in shape and wire in WIRES[shape[tag]]:
            got.setdefault(tag, []).append(value)
    if any(tag not in got for tag in required):
        raise CorruptEntryError("a required field is missing")
    return got


def _int(values: list[int | bytes]) -> int:
    """The last value of a single varint field."""
    value = values[-1]
    assert isinstance(value, int)  # _message keeps only varints for such a field
    return value


def _ints(values: list[int | bytes]) -> list[int]:
    out: list[int] = []
    for value in values:
        if isinstance(value, int):
            out.append(value)
            continue
        packed = _Reader(value)
        while packed.at < len(value):
            out.append(packed.varint())
    return out


def _bits(words: list[int]) -> set[int]:
    return {64 * i + b for i, word in enumerate(words) for b in range(64) if word >> b & 1}


def _position(data: int | bytes) -> Position:
    got = _message(data, NESTED_POSITION, (1, 2))
    return _int(got[1]), _int(got[2])


def read(data: bytes) -> Snapshot:
    """``PositionInfo.parseFrom`` and the recovery of its fields (ranges win over bitsets)."""
    got = _message(data, POSITION_INFO, (1, 2))
    state = Snapshot((_int(got[1]), _int(got[2])))
    for blob in got.get(3, []):
        ends = _message(blob, MESSAGE_RANGE, (1, 2))
        (ledger, low), (upper_ledger, high) = _position(ends[1][-1]), _position(ends[2][-1])
        if ledger != upper_ledger:
            raise CorruptEntryError("a range across ledgers")
        state.acked.setdefault(ledger, set()).update(range(low + 1, high + 1))
    if 3 not in got:
        for blob in got.get(6, []):
            entry = _message(blob, LONG_LIST_MAP, (1,))
            state.acked.setdefault(_int(entry[1]), set()).update(_bits(_ints(entry.get(2, []))))
    for blob in got.get(4, []):
        prop = _message(blob, LONG_PROPERTY, (1, 2))
        name = prop[1][-1]
        assert isinstance(name, bytes)
        state.properties[name.decode(errors="replace")] = _int(prop[2])  # proto2 strings are not validated
    for blob in got.get(5, []):
        info = _message(blob, BATCH_INFO, (1,))
        state.unacked_indexes[_position(info[1][-1])] = _bits(_ints(info.get(2, [])))
    mark = state.mark_delete
    state.acked = {l: {e for e in es if (l, e) > mark} for l, es in state.acked.items()}  # noqa: E741
    state.acked = {l: es for l, es in state.acked.items() if es}  # noqa: E741
    return state  # every batch set, as ``recoverBatchDeletedIndexes`` restores them (those at or before mark too)


def pack(data: bytes, codec: str) -> bytes:
    """The cursor-ledger entry: as is (NONE), or a big-endian size and the zlib stream."""
    return data if codec == "none" else struct.pack(">i", len(data)) + zlib.compress(data)


def unpack(data: bytes, codec: str) -> bytes:
    if codec == "none":
        return data
    try:
        size = struct.unpack(">i", data[:4])[0]
        out = zlib.decompress(data[4:])
    except (struct.error, zlib.error) as error:
        raise CorruptEntryError(str(error)) from error
    if len(out) != size:
        raise CorruptEntryError("size header disagrees")
    return out


def split(data: bytes, chunk: int) -> list[bytes]:
    """The entries one persist appends: the data alone, or its chunks and the footer."""
    parts = len(data) // chunk + 1
    if parts == 1:
        return [data]
    pieces = [data[i * chunk : i * chunk + chunk] for i in range(parts)]
    return [*pieces, json.dumps({"numParts": parts, "length": len(data)}, separators=(",", ":")).encode()]


def footer_of(data: bytes) -> tuple[int, int] | None:
    """(numParts, length) when the entry is a chunk-sequence footer."""
    if not data.startswith(b"{"):
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    parts, length = doc.get("numParts", 0), doc.get("length", 0)
    return (parts, length) if isinstance(parts, int) and isinstance(length, int) and parts > 0 else None
