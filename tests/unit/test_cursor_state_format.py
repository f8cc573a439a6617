"""The cursor ledger's byte format: PositionInfo against Google's protobuf, the footer, chunks, compression."""

from __future__ import annotations

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from hypothesis import assume, given
from hypothesis import strategies as st
from ledgerspec.reference.cursor_state._position_info import Caps, CorruptEntryError, Snapshot, read, write
from ledgerspec.spec.cursor_state import AckState, FormatError, Layout, chunks, decode, encode, parse_footer
from ledgerspec.spec.cursor_state._format import compress, decompress, footer

F = descriptor_pb2.FieldDescriptorProto
REQUIRED, REPEATED = F.LABEL_REQUIRED, F.LABEL_REPEATED
INT64, STRING, MESSAGE = F.TYPE_INT64, F.TYPE_STRING, F.TYPE_MESSAGE


def _ml_data_formats(*, packed: bool = False) -> type:
    """``PositionInfo`` and its parts as apache/pulsar's MLDataFormats.proto (proto2) declares them;
    ``packed``: the same with packed repeated int64s, as another writer may send them."""
    package = "mltestpacked" if packed else "mltest"
    proto = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto2")
    shapes = {
        "NestedPositionInfo": [("ledgerId", 1, INT64, REQUIRED, ""), ("entryId", 2, INT64, REQUIRED, "")],
        "MessageRange": [
            ("lowerEndpoint", 1, MESSAGE, REQUIRED, ".PKG.NestedPositionInfo"),
            ("upperEndpoint", 2, MESSAGE, REQUIRED, ".PKG.NestedPositionInfo"),
        ],
        "LongProperty": [("name", 1, STRING, REQUIRED, ""), ("value", 2, INT64, REQUIRED, "")],
        "BatchedEntryDeletionIndexInfo": [
            ("position", 1, MESSAGE, REQUIRED, ".PKG.NestedPositionInfo"),
            ("deleteSet", 2, INT64, REPEATED, ""),
        ],
        "LongListMap": [("key", 1, INT64, REQUIRED, ""), ("values", 2, INT64, REPEATED, "")],
        "PositionInfo": [
            ("ledgerId", 1, INT64, REQUIRED, ""),
            ("entryId", 2, INT64, REQUIRED, ""),
            ("individualDeletedMessages", 3, MESSAGE, REPEATED, ".PKG.MessageRange"),
            ("properties", 4, MESSAGE, REPEATED, ".PKG.LongProperty"),
            ("batchedEntryDeletionIndexInfo", 5, MESSAGE, REPEATED, ".PKG.BatchedEntryDeletionIndexInfo"),
            ("individualDeletedMessageRanges", 6, MESSAGE, REPEATED, ".PKG.LongListMap"),
        ],
    }
    for name, fields in shapes.items():
        message = proto.message_type.add(name=name)
        for field_name, number, kind, label, type_name in fields:
            field = message.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                field.type_name = type_name.replace("PKG", package)
            if packed and kind == INT64 and label == REPEATED:
                field.options.packed = True
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.PositionInfo"))


PositionInfo = _ml_data_formats()
PackedPositionInfo = _ml_data_formats(packed=True)
LAYOUTS = [
    Layout(long_array=False, max_ranges=1000, range_cap_plus_one=False, bits_cap_before=False),
    Layout(long_array=True, max_ranges=1000, range_cap_plus_one=False, bits_cap_before=True),
]


@st.composite
def states(draw: st.DrawFn) -> AckState:
    mark = (draw(st.integers(1, 3)), draw(st.integers(-1, 70)))
    acked = draw(st.frozensets(st.tuples(st.integers(1, 4), st.integers(0, 140)), max_size=12))
    batch = draw(
        st.dictionaries(
            st.tuples(st.integers(1, 4), st.integers(0, 140)), st.frozensets(st.integers(0, 70), min_size=1), max_size=3
        )
    )
    props = draw(st.dictionaries(st.text(max_size=4), st.integers(-(2**63), 2**63 - 1), max_size=2))
    return AckState(
        mark,
        frozenset(p for p in acked if p > mark),
        tuple(sorted((p, s) for p, s in batch.items() if p > mark and p not in acked)),
        tuple(sorted(props.items())),
    )


@pytest.mark.parametrize("layout", LAYOUTS, ids=["ranges", "long-array"])
@given(state=states())
def test_google_protobuf_parses_what_we_write_as_the_same_state(layout: Layout, state: AckState) -> None:
    parsed = PositionInfo.FromString(encode(state, layout))
    assert (parsed.ledgerId, parsed.entryId) == state.mark_delete
    if layout.long_array and state.acked:
        acked = {
            (m.key, i * 64 + b)
            for m in parsed.individualDeletedMessageRanges
            for i, w in enumerate(m.values)
            for b in range(64)
            if (w >> b) & 1
        }
        assert not parsed.individualDeletedMessages
    else:
        acked = {
            (r.upperEndpoint.ledgerId, e)
            for r in parsed.individualDeletedMessages
            for e in range(r.lowerEndpoint.entryId + 1, r.upperEndpoint.entryId + 1)
        }
        assert not parsed.individualDeletedMessageRanges
    assert acked == set(state.acked)
    assert {(p.name, p.value) for p in parsed.properties} == set(state.properties)
    unacked = {
        (b.position.ledgerId, b.position.entryId): {
            i * 64 + k for i, w in enumerate(b.deleteSet) for k in range(64) if (w >> k) & 1
        }
        for b in parsed.batchedEntryDeletionIndexInfo
    }
    assert unacked == {p: set(s) for p, s in state.batch}


@given(state=states(), packed=st.booleans())
def test_we_read_what_google_protobuf_writes(state: AckState, packed: bool) -> None:
    layout = LAYOUTS[1]  # the long array, so that repeated int64s are written in both fields 5 and 6
    kind = PackedPositionInfo if packed else PositionInfo  # a writer may pack them: the reader takes both
    data = kind.FromString(encode(state, layout)).SerializeToString()
    if packed and state.batch:
        assert data != encode(state, layout)
    assert decode(data) == state


@pytest.mark.parametrize("layout", LAYOUTS, ids=["ranges", "long-array"])
@given(state=states())
def test_round_trip_is_exact_within_the_caps(layout: Layout, state: AckState) -> None:
    assert decode(encode(state, layout)) == state


def test_range_cap_048142ca_keeps_one_more_than_the_maximum_and_master_exactly_it() -> None:
    state = AckState((1, -1), frozenset({(1, 1), (1, 3), (1, 5), (1, 7)}))  # four runs
    old = Layout(long_array=False, max_ranges=2, range_cap_plus_one=True, bits_cap_before=True)
    new = Layout(long_array=False, max_ranges=2, range_cap_plus_one=False, bits_cap_before=False)
    assert decode(encode(state, old)).acked == {(1, 1), (1, 3), (1, 5)}
    assert decode(encode(state, new)).acked == {(1, 1), (1, 3)}


def test_to_ranges_counts_entries_and_its_two_inclusion_rules() -> None:
    # ledger 1 has 2 acked entries, ledger 2 has 2: cap 3
    state = AckState((1, -1), frozenset({(1, 1), (1, 2), (2, 0), (2, 5)}))
    before = Layout(long_array=True, max_ranges=3, range_cap_plus_one=True, bits_cap_before=True)
    including = Layout(long_array=True, max_ranges=3, range_cap_plus_one=False, bits_cap_before=False)
    assert decode(encode(state, before)).acked == state.acked  # 2 before ledger 2: within 3
    assert decode(encode(state, including)).acked == {(1, 1), (1, 2)}  # 4 including ledger 2: over


def test_footer_is_jacksons_json_and_only_a_brace_opens_one() -> None:
    assert footer(3, 2097152) == b'{"numParts":3,"length":2097152}'
    assert parse_footer(footer(3, 20)) == (3, 20)
    assert parse_footer(b"") is None
    assert parse_footer(b"\x08\x01") is None  # a PositionInfo starts with field 1's tag
    assert parse_footer(b'{"numParts":0,"length":5}') is None
    assert parse_footer(b"{not json") is None


def test_chunks_of_an_exact_multiple_end_with_an_empty_part() -> None:
    parts = chunks(bytes(range(32)), 16)
    assert [len(p) for p in parts[:-1]] == [16, 16, 0]
    assert parse_footer(parts[-1]) == (3, 32)
    assert chunks(b"x" * 15, 16) == [b"x" * 15]


def test_zlib_entry_has_a_big_endian_size_and_a_torn_one_is_refused() -> None:
    data = encode(AckState((1, 4), frozenset({(1, 9)})), LAYOUTS[0])
    packed = compress(data, "zlib")
    assert int.from_bytes(packed[:4], "big") == len(data)
    assert decompress(packed, "zlib") == data
    with pytest.raises(FormatError):
        decompress(packed[:-3], "zlib")


@pytest.mark.parametrize(
    "data",
    [b"", b"\x08", b"\x08\x01", b"\x10\x01", b"\x08\x01\x10\x01\x1a\x05\x0a", b"\x08\x01\x10\x01\x0f", b"\xff" * 11],
    ids=["empty", "torn-varint", "no-entry-id", "no-ledger-id", "torn-range", "wire-type-7", "overlong-varint"],
)
def test_malformed_entries_are_format_errors(data: bytes) -> None:
    with pytest.raises(FormatError):
        decode(data)


CAPS = st.builds(
    Layout,
    long_array=st.booleans(),
    max_ranges=st.integers(0, 6),
    range_cap_plus_one=st.booleans(),
    bits_cap_before=st.booleans(),
)


@given(state=states(), layout=CAPS)
def test_the_references_own_codec_writes_the_same_bytes_and_reads_them_back_alike(
    state: AckState, layout: Layout
) -> None:
    """Two codecs written apart (spec/cursor_state/_format.py, reference/cursor_state/_position_info.py)."""
    snapshot = Snapshot(state.mark_delete, {}, {p: set(s) for p, s in state.batch}, dict(state.properties))
    for ledger, entry in state.acked:
        snapshot.acked.setdefault(ledger, set()).add(entry)
    caps = Caps(
        layout.long_array, layout.max_ranges, plus_one=layout.range_cap_plus_one, count_before=layout.bits_cap_before
    )
    data = encode(state, layout)
    assert write(snapshot, caps) == data
    back, ours = read(data), decode(data)
    assert back.mark_delete == ours.mark_delete
    assert {(l, e) for l, es in back.acked.items() for e in es} == set(ours.acked)  # noqa: E741
    assert back.unacked_indexes == {p: set(s) for p, s in ours.batch}
    assert back.properties == dict(ours.properties)


@given(data=st.binary(max_size=40))
def test_both_codecs_refuse_the_same_garbage(data: bytes) -> None:
    try:
        decode(data)
        spec_ok = True
    except FormatError:
        spec_ok = False
    try:
        read(data)
        reference_ok = True
    except CorruptEntryError:
        reference_ok = False
    assert spec_ok == reference_ok


def _google(data: bytes) -> object | None:
    """Google's parse of a PositionInfo, or None where it refuses the bytes (malformed, required missing)."""
    try:
        message = PositionInfo.FromString(data)
    except Exception:  # noqa: BLE001 - DecodeError, or the upb parser's own errors
        return None
    return message if message.IsInitialized() else None  # protobuf-java's parseFrom checks required fields


def _overlong_first_tag(piece: bytes) -> bool:
    """A piece cut inside a long varint starts with a tag of more than 5 bytes (past 32 bits)."""
    return len(piece) > 5 and all(byte & 0x80 for byte in piece[:5])


def test_a_tag_past_32_bits_is_read_as_protobuf_java_reads_it() -> None:
    """protobuf-java's readTag reads a varint32 and drops the upper bits (CodedInputStream.readRawVarint32);
    Python's upb refuses such a tag, so the torn-piece test leaves it out and this one pins Java's reading."""
    # a tag of 8 bytes (fixed32 of a huge field number: skipped), then ledgerId 1, entryId 1
    piece = bytes.fromhex("cdd9aac2f4af8e012a080a0408011001")
    assert decode(piece).mark_delete == read(piece).mark_delete == (1, 1)
    field_zero = bytes.fromhex("8080808010") + bytes.fromhex("08011001")  # 1 << 32: field 0 once truncated
    with pytest.raises(FormatError, match="field number 0"):
        decode(field_zero)
    with pytest.raises(CorruptEntryError, match="field number 0"):
        read(field_zero)


def _cuts(data: bytes, first: int, width: int) -> bytes:
    return data[first : first + width]


@given(state=states(), layout=st.sampled_from(LAYOUTS), first=st.integers(0, 60), width=st.integers(1, 80))
def test_a_torn_piece_parses_exactly_when_googles_parser_takes_it(
    state: AckState, layout: Layout, first: int, width: int
) -> None:
    """What recovery makes of a chunk is what protobuf makes of it: a piece cut anywhere out of an entry
    parses, or not, in all three parsers alike, and to the same mark-delete position."""
    piece = _cuts(encode(state, layout), first, width)
    assume(not _overlong_first_tag(piece))  # upb refuses it, protobuf-java reads it: the test below
    theirs = _google(piece)
    try:
        ours = decode(piece)
    except FormatError:
        ours = None
    try:
        reference = read(piece)
    except CorruptEntryError:
        reference = None
    assert (theirs is None) == (ours is None) == (reference is None), piece.hex()
    if theirs is not None and ours is not None and reference is not None:
        assert (theirs.ledgerId, theirs.entryId) == ours.mark_delete == reference.mark_delete


@given(data=st.binary(max_size=40))
def test_garbage_parses_exactly_when_googles_parser_takes_it(data: bytes) -> None:
    theirs = _google(data)
    try:
        ours = decode(data)
    except FormatError:
        ours = None
    assert (theirs is None) == (ours is None), data.hex()
