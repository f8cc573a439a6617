"""The cursor ledger's byte formats: ``PositionInfo`` as protobuf, the chunk footer, compression.

Normative, so both the model (which must know where a chunk cuts the bytes) and the reference use
this one codec; tests check it against Google's protobuf parser. Sources (apache/pulsar):
``managed-ledger/src/main/proto/MLDataFormats.proto`` at ``8df09321b4`` (``PositionInfo`` fields 1-6),
``impl/PositionInfoUtils.java`` and ``impl/ManagedCursorImpl.java`` at ``048142ca`` (PR #22799: field
order, ``ChunkSequenceFooter``, the compressed entry), PR #25548 (the exact range cap on master).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from ledgerspec.spec._errors import SpecError
from ledgerspec.spec.cursor_state._state import AckState, Position

METASTORE_RANGES_BYTES = 1024 * 1024 - 10 * 1024
"""``buildIndividualDeletedMessageRanges(forMetastore=true)`` stops past this many bytes of ranges."""


class FormatError(SpecError, ValueError):
    """Bytes that are not what the format says (recovery steps back, or fails, on these)."""

    code = "bad-cursor-entry"


# --- protobuf wire format ---------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # int64: a negative number is its 64-bit two's complement, 10 bytes
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _message(field: int, body: bytes) -> bytes:
    return _key(field, 2) + _varint(len(body)) + body


def _position(field: int, position: Position) -> bytes:
    return _message(field, _int(1, position[0]) + _int(2, position[1]))


def _words(indexes: frozenset[int] | set[int]) -> dict[int, int]:
    """``BitSet.toLongArray``, sparse: word i // 64 holds bit i mod 64; only the words not zero."""
    words: dict[int, int] = {}
    for i in indexes:
        words[i // 64] = words.get(i // 64, 0) | 1 << (i % 64)
    return words


def _long_array(field: int, indexes: frozenset[int] | set[int]) -> bytes:
    """The words as repeated varint ``field``s, up to the last one set, each zero word 2 bytes.

    Built without a Python step per zero word: an entry id up to 2^31 - 2 (``ops.MAX_ENTRY``) is 2^25 words.
    """
    words, out, at = _words(indexes), [], 0
    zero = _int(field, 0)
    for index in sorted(words):
        word = words[index]
        out += [zero * (index - at), _int(field, word - (1 << 64) if word >= 1 << 63 else word)]
        at = index + 1
    return b"".join(out)


def _bits(words: dict[int, int]) -> set[int]:
    return {i * 64 + b for i, w in words.items() if w for b in range(64) if (w >> b) & 1}


@dataclass(frozen=True)
class Layout:
    """How a profile writes ``PositionInfo``: which ack form, its cap, and the field order."""

    long_array: bool
    """Field 6 (one bitset per ledger) instead of field 3 (ranges), when there is anything to write."""
    max_ranges: int
    """``maxUnackedRangesToPersist``: runs for field 3, acked entries (set bits) for field 6."""
    range_cap_plus_one: bool
    """``048142ca`` adds a range before testing the cap: max + 1 ranges (PR #25548 fixed it)."""
    bits_cap_before: bool
    """``toRanges``: OpenLongPairRangeSet takes a ledger while the count *before* it is within the cap;
    PositionRangeSet (master) while the count *including* it is."""


def capped_runs(state: AckState, layout: Layout, *, metastore: bool = False) -> list[tuple[Position, Position]]:
    """The ranges field 3 (or the metadata-store record) holds: the first runs, capped."""
    limit = layout.max_ranges + (1 if layout.range_cap_plus_one else 0)
    runs = state.runs()[:limit]
    if not metastore:
        return runs
    kept, total = [], 0
    for run in runs:
        kept.append(run)
        total += len(_range(run))
        if total > METASTORE_RANGES_BYTES:
            break
    return kept


def capped_ledgers(state: AckState, layout: Layout) -> dict[int, set[int]]:
    """``toRanges(max)``: acked entries per ledger, earliest ledgers first, cut at the cap."""
    per: dict[int, set[int]] = {}
    for ledger, entry in sorted(state.acked):
        per.setdefault(ledger, set()).add(entry)
    kept, seen = {}, 0
    for ledger, entries in per.items():
        if (seen if layout.bits_cap_before else seen + len(entries)) > layout.max_ranges:
            break
        kept[ledger] = entries
        seen += len(entries)
    return kept


def _range(run: tuple[Position, Position]) -> bytes:
    return _message(3, _position(1, run[0]) + _position(2, run[1]))


def encode(state: AckState, layout: Layout) -> bytes:
    """``serializePositionInfo``: fields 1, 2, then ranges or bitsets, properties, batch sets."""
    ledgers = capped_ledgers(state, layout) if layout.long_array else {}
    head = _int(1, state.mark_delete[0]) + _int(2, state.mark_delete[1])
    ranges = b"" if ledgers else b"".join(_range(run) for run in capped_runs(state, layout))
    props = b"".join(_message(4, _message(1, k.encode()) + _int(2, v)) for k, v in state.properties)
    batch = b"".join(_message(5, _position(1, p) + _long_array(2, s)) for p, s in state.batch)
    bitsets = b"".join(_message(6, _int(1, ledger) + _long_array(2, entries)) for ledger, entries in ledgers.items())
    return head + ranges + props + batch + bitsets  # by field number, as protobuf and PositionInfoUtils do


def persisted_form(state: AckState, layout: Layout) -> AckState:
    """What a ledger entry of ``state`` decodes to: the state as the caps leave it."""
    return decode(encode(state, layout))


# --- decoding -----------------------------------------------------------------------------------------


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise FormatError("truncated or overlong varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            value &= (1 << 64) - 1
            return (value - (1 << 64) if value >= 1 << 63 else value), at


def _read_tag(data: bytes, at: int) -> tuple[int, int]:
    """A tag as protobuf-java's ``CodedInputStream.readTag`` reads it: a varint32, its upper bits dropped."""
    key, at = _read_varint(data, at)
    return key & 0xFFFFFFFF, at


@dataclass(frozen=True)
class Zeros:
    """``count`` (two or more) fields 2 in a row, each the varint 0: the zero words of a long array, read at once."""

    count: int


_ZERO = _int(2, 0)


def _zeros_at(data: bytes, at: int) -> int:
    """How many zero words (``_ZERO``) start at ``at``: galloping ``startswith``, a memcmp, not a step per word."""
    count, step = 0, 1
    while data.startswith(_ZERO * step, at):
        count, at, step = count + step, at + 2 * step, step * 2
    while step > 1:
        step //= 2
        if data.startswith(_ZERO * step, at):
            count, at = count + step, at + 2 * step
    return count


def _fields(data: bytes) -> Iterator[tuple[int, int, int | bytes | Zeros]]:
    """(field, wire type, value) of a message, as protobuf-java reads it.

    Fixed-width fields come as bytes, groups are skipped; a stray end-group tag or wire type 6 or 7
    is malformed. A run of field-2 zeros comes as one :class:`Zeros` (a long array's zero words).
    """
    at = 0
    while at < len(data):
        zeros = _zeros_at(data, at) if data.startswith(_ZERO * 2, at) else 0
        if zeros:
            yield 2, VARINT, Zeros(zeros)
            at += 2 * zeros
            continue
        key, at = _read_tag(data, at)
        field, wire = key >> 3, key & 7
        if field <= 0:
            raise FormatError("field number 0")
        if wire == 3:
            at = _skip_group(data, at, field)
            continue
        value, at = _value(data, at, wire)
        yield field, wire, value


def _value(data: bytes, at: int, wire: int) -> tuple[int | bytes, int]:
    if wire == 0:
        return _read_varint(data, at)
    if wire == 2:
        size, at = _read_varint(data, at)
        if size < 0 or at + size > len(data):
            raise FormatError("length-delimited field past the end")
        return data[at : at + size], at + size
    if wire in (1, 5):
        width = 8 if wire == 1 else 4
        if at + width > len(data):
            raise FormatError("fixed-width field past the end")
        return data[at : at + width], at + width
    raise FormatError(f"wire type {wire} where a field starts")


def _skip_group(data: bytes, at: int, field: int) -> int:
    """Past the end-group tag of ``field``; nested groups are skipped whole."""
    while at < len(data):
        key, at = _read_tag(data, at)
        inner, wire = key >> 3, key & 7
        if inner <= 0:
            raise FormatError("field number 0 in a group")
        if wire == 4:
            if inner != field:
                raise FormatError("end-group tag of another group")
            return at
        at = _skip_group(data, at, inner) if wire == 3 else _value(data, at, wire)[1]
    raise FormatError("group without its end-group tag")


VARINT, MESSAGE = 0, 2


def _scalars(
    data: bytes, wanted: dict[int, tuple[str, int]], repeated: frozenset[int] = frozenset()
) -> dict[str, list[int | bytes | Zeros]]:
    """The known fields of a message, every occurrence; the fields not ``repeated`` are required.

    ``wanted`` maps a field number to its name and wire type. A field that comes with another wire
    type is an unknown field, skipped, as protobuf-java does; a repeated varint field may also come
    packed (length-delimited).
    """
    got: dict[str, list[int | bytes | Zeros]] = {name: [] for name, _ in wanted.values()}
    for field, wire, value in _fields(data):
        if field not in wanted:
            continue
        name, expected = wanted[field]
        if isinstance(value, Zeros):
            got[name].extend([value] if field in repeated else [0])  # not repeated: the last (a 0) wins
        elif wire == expected:
            got[name].append(value)
        elif expected == VARINT and field in repeated and wire == MESSAGE and isinstance(value, bytes):
            at = 0
            while at < len(value):
                item, at = _read_varint(value, at)
                got[name].append(item)
    for field, (name, _) in wanted.items():
        if field not in repeated and not got[name]:
            raise FormatError(f"missing required field {name}")
    return got


def _one_int(got: dict[str, list[int | bytes | Zeros]], name: str) -> int:
    value = got[name][-1]
    if not isinstance(value, int):
        raise FormatError(f"{name} is not a varint")
    return value


def _nested_position(data: int | bytes | Zeros) -> Position:
    if not isinstance(data, bytes):
        raise FormatError("position is not a message")
    got = _scalars(data, {1: ("ledgerId", VARINT), 2: ("entryId", VARINT)})
    return _one_int(got, "ledgerId"), _one_int(got, "entryId")


def _word_map(values: list[int | bytes | Zeros]) -> dict[int, int]:
    """The long array a repeated varint field holds: word index to word, the zero runs counted, not stored."""
    words: dict[int, int] = {}
    at = 0
    for value in values:
        if isinstance(value, Zeros):
            at += value.count
        elif isinstance(value, int):
            if value:
                words[at] = value & (1 << 64) - 1
            at += 1
    return words


def decode(data: bytes) -> AckState:  # noqa: C901 - one loop per PositionInfo field
    """``PositionInfo.parseFrom`` and the recovery of its fields: ranges (field 3) win over bitsets."""
    fields = {
        1: ("ledgerId", VARINT),
        2: ("entryId", VARINT),
        3: ("ranges", MESSAGE),
        4: ("props", MESSAGE),
        5: ("batch", MESSAGE),
        6: ("bitsets", MESSAGE),
    }
    got = _scalars(data, fields, frozenset({3, 4, 5, 6}))
    mark = (_one_int(got, "ledgerId"), _one_int(got, "entryId"))
    acked: set[Position] = set()
    for blob in got["ranges"]:
        if not isinstance(blob, bytes):
            raise FormatError("range is not a message")
        ends = _scalars(blob, {1: ("lower", MESSAGE), 2: ("upper", MESSAGE)})
        (ll, le), (ul, ue) = _nested_position(ends["lower"][-1]), _nested_position(ends["upper"][-1])
        if ll != ul:
            raise FormatError(f"range ({ll}:{le}, {ul}:{ue}] crosses ledgers (this writer never does)")
        acked.update((ll, e) for e in range(le + 1, ue + 1))
    if not got["ranges"]:
        for blob in got["bitsets"]:
            if not isinstance(blob, bytes):
                raise FormatError("bitset is not a message")
            entry = _scalars(blob, {1: ("key", VARINT), 2: ("values", VARINT)}, frozenset({2}))
            acked.update((_one_int(entry, "key"), e) for e in _bits(_word_map(entry["values"])))
    properties = []
    for blob in got["props"]:
        if not isinstance(blob, bytes):
            raise FormatError("property is not a message")
        prop = _scalars(blob, {1: ("name", MESSAGE), 2: ("value", VARINT)})
        name = prop["name"][-1]
        if not isinstance(name, bytes):
            raise FormatError("property name is not a string")
        properties.append((name.decode(errors="replace"), _one_int(prop, "value")))  # proto2: not validated
    batch: dict[Position, frozenset[int]] = {}  # a position written twice: the last wins, as for properties
    for blob in got["batch"]:
        if not isinstance(blob, bytes):
            raise FormatError("batch info is not a message")
        info = _scalars(blob, {1: ("position", MESSAGE), 2: ("deleteSet", VARINT)}, frozenset({2}))
        batch[_nested_position(info["position"][-1])] = frozenset(_bits(_word_map(info["deleteSet"])))
    return AckState(
        mark,
        frozenset(p for p in acked if p > mark),
        tuple(sorted(batch.items())),  # every batch set, those at or before mark too (``recoverBatchDeletedIndexes``)
        tuple(sorted(dict(properties).items())),
    )


# --- compression, chunks, footer ---------------------------------------------------------------------

CODECS = ("none", "zlib")
"""NONE and ZLIB (``java.util.zip`` deflate, zlib framing); LZ4, ZSTD and SNAPPY are not modelled."""


def compress(data: bytes, codec: str) -> bytes:
    """The cursor-ledger entry: NONE as is; otherwise a big-endian int of the size, then the codec's output."""
    if codec == "none":
        return data
    return struct.pack(">i", len(data)) + zlib.compress(data)


def decompress(data: bytes, codec: str) -> bytes:
    """The inverse; malformed input is a :class:`FormatError` (recovery steps back one entry)."""
    if codec == "none":
        return data
    if len(data) < 4:
        raise FormatError("compressed entry shorter than its size header")
    (size,) = struct.unpack(">i", data[:4])
    try:
        out = zlib.decompress(data[4:])
    except zlib.error as error:
        raise FormatError(f"zlib: {error}") from error
    if len(out) != size:
        raise FormatError(f"decompressed {len(out)} bytes, header says {size}")
    return out


def footer(parts: int, length: int) -> bytes:
    """``ChunkSequenceFooter`` through Jackson: ``{"numParts":N,"length":L}``."""
    return json.dumps({"numParts": parts, "length": length}, separators=(",", ":")).encode()


def parse_footer(data: bytes) -> tuple[int, int] | None:
    """``parseChunkSequenceFooter``: (numParts, length) of a footer; None for anything else."""
    if not data or data[:1] != b"{":
        return None
    try:
        doc = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError):
        return None
    parts, length = (doc.get("numParts", 0), doc.get("length", 0)) if isinstance(doc, dict) else (0, 0)
    if not isinstance(parts, int) or not isinstance(length, int) or parts <= 0:
        return None
    return parts, length


def chunks(data: bytes, chunk_size: int) -> list[bytes]:
    """``persistPositionToLedger``: ``1 + len // C`` parts.

    One part is the entry itself; more are slices of C bytes (the last ``len mod C``, possibly empty) followed
    by the footer.
    """
    parts = 1 + len(data) // chunk_size
    if parts == 1:
        return [data]
    slices = [data[i * chunk_size : (i + 1) * chunk_size] for i in range(parts)]
    return [*slices, footer(parts, len(data))]
