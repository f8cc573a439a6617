"""Process protocol v1: the committed common schema is the code's, lines are written as ``json.dumps``
and parsed as ``json.loads`` would, and observation deltas round-trip."""

from __future__ import annotations

import json
import json.encoder
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ledgerspec.conformance.adapters._json_lines import OutOfRangeError, _compact_encoder, json_line, parse_line
from ledgerspec.conformance.cache._schemas import protocol_common_schema
from ledgerspec.conformance.cache.adapters._delta import DeltaDecoder, DeltaEncoder, _built
from ledgerspec.spec.cache import CacheConfig, CachedEntry, Counters, EvictTimestamp, Monitor, Observation

COMMON = Path(__file__).resolve().parents[2] / "conformance" / "protocol" / "v1" / "common.json"


def test_common_schema_file_is_generated_from_the_code():
    assert json.loads(COMMON.read_text()) == protocol_common_schema()


def loads_or_error(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        return ("error", error.msg, error.pos)


def parse_or_error(text: str) -> object:
    try:
        return parse_line(text)
    except json.JSONDecodeError as error:
        return ("error", error.msg, error.pos)


json_values = st.recursive(  # the protocol's integers are longs (an integer past one is refused: below)
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@given(json_values | st.floats())
def test_a_line_is_what_json_dumps_writes(value):
    """The prebuilt encoder writes what ``json.dumps`` with compact separators does, and one newline."""
    assert json_line(value) == (json.dumps(value, separators=(",", ":")) + "\n").encode()


MESSAGE = {"seq": 1, "result": {"results": [None, [1, 2]], "text": "\u00e9\n", "nan": float("nan")}}


def test_without_the_c_encoder_lines_are_the_same(monkeypatch):
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)  # the pure-Python encoder, throughout
    assert _compact_encoder()(MESSAGE) + "\n" == json.dumps(MESSAGE, separators=(",", ":")) + "\n"


def refuse_arguments(*_args: object) -> None:
    raise TypeError("another signature")


def test_a_c_encoder_taking_other_arguments_leaves_the_plain_encoder(monkeypatch):
    monkeypatch.setattr(json.encoder, "c_make_encoder", refuse_arguments)
    fallback = _compact_encoder()
    monkeypatch.undo()  # the plain encoder calls the accelerator too, with the arguments it takes
    assert fallback(MESSAGE) + "\n" == json_line(MESSAGE).decode()


def test_a_value_json_cannot_write_is_refused():
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_line({"seq": 1, "result": object()})


BLANKS_AND_NOT = ["", " ", "\t", "\r", "\n", "\x0c", "\u00a0", " x", "}", " 1"]


@given(json_values, st.sampled_from(BLANKS_AND_NOT), st.sampled_from(BLANKS_AND_NOT))
def test_a_line_parses_as_json_loads_would(value, tail, head):
    """The same value for a good line, the same message and position for a bad one."""
    line = head + json_line(value).decode().rstrip("\n") + tail
    assert parse_or_error(line) == loads_or_error(line)


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"seq": 1, "result": {"size": 9223372036854775808}}', "result.size = 9223372036854775808"),
        ('{"seq": 1, "result": {"results": [1, -9223372036854775809]}}', "result.results[1] = -9223372036854775809"),
        ("123456789012345678901234567890", "the value = 12345678901234567890123456789"),
    ],
)
def test_an_integer_past_a_long_is_refused_naming_where_it_is(line, where):
    with pytest.raises(OutOfRangeError, match=re.escape(where)):
        parse_line(line)
    assert parse_line('{"size": 9223372036854775807, "name": "c12345678901234567890"}')["size"] == 2**63 - 1


@pytest.mark.parametrize("line", ["", "   ", "{", '{"seq": 1', "[1,]", "nul", '{"a": 1} {"b": 2}', "\u00e9"])
def test_a_malformed_line_is_refused_as_json_loads_refuses_it(line):
    assert parse_or_error(line) == loads_or_error(line)
    assert parse_or_error(line)[0] == "error"


positions = st.tuples(st.integers(0, 3), st.integers(0, 6))
rows = st.dictionaries(
    positions,
    st.tuples(
        st.integers(1, 9),
        st.none() | st.integers(-1, 3),
        st.none() | st.integers(0, 50),
        st.none() | st.integers(0, 3),
        st.none() | st.booleans(),
    ),
    max_size=12,
)
copies = st.dictionaries(st.integers(0, 20), st.none() | st.integers(-1, 3), max_size=6)


def snapshot(entries: dict, open_copies: dict, size: int) -> dict:
    counters = dict.fromkeys(Counters.__dataclass_fields__, size)
    return Observation.from_dict(
        {
            "entries": [
                {"ledger": lg, "entry": en, "size": sz, "count": ct, "timestamp": ts}
                | ({} if rq is None else {"requeues": rq})
                | ({} if ac is None else {"accessed": ac})
                for (lg, en), (sz, ct, ts, rq, ac) in sorted((p, (*r, None, None)[:5]) for p, r in entries.items())
            ],
            "size": size,
            "counters": counters,
            "copies": [[c, n] for c, n in sorted(open_copies.items())],
        }
    ).to_dict()


def rows_at(sent: dict, positions: set) -> tuple:
    """A snapshot as ``ReferenceCache.snapshot_at(positions)`` gives it."""
    keys = ("ledger", "entry", "size", "count", "timestamp", "requeues", "accessed")
    rows = {(row["ledger"], row["entry"]): tuple(row.get(key) for key in keys) for row in sent["entries"]}
    at = {position: rows.get(position) for position in positions}
    return at, sent["size"], sent["counters"], [tuple(pair) for pair in sent["copies"]]


@given(st.lists(st.tuples(rows, copies, st.booleans(), st.sets(positions, max_size=4)), min_size=1, max_size=8))
def test_decoded_deltas_rebuild_every_observation(steps):
    """Also: the Python child's path (``delta_at`` the changed positions, and a few more) gives the
    very delta of a full snapshot's."""
    encoder, tracked, decoder = DeltaEncoder(), DeltaEncoder(), DeltaDecoder()
    previous: dict = {}
    for index, (entries, open_copies, full, extra) in enumerate(steps):
        sent = snapshot(entries, open_copies, index)
        if full:
            encoder.sent_full(sent)
            tracked.sent_full(sent)
            rebuilt = decoder.full(Observation.from_dict(sent))
        else:
            delta = encoder.delta(sent)
            changed = {p for p in previous.keys() | entries.keys() if previous.get(p) != entries.get(p)}
            assert tracked.delta_at(*rows_at(sent, changed | extra)) == delta
            rebuilt = decoder.apply(json.loads(json.dumps(delta)))
        assert rebuilt == Observation.from_dict(sent)
        previous = entries


def test_queue_fields_travel_in_full_in_every_delta():
    """queue_length and non_evictable_size (observe_queue_length, observe_non_evictable_size) are sent like
    size: in full in each delta, absent (None) when not shown; a bad value names its field."""
    encoder, decoder = DeltaEncoder(), DeltaDecoder()
    base = snapshot({(1, 0): (5, 1, 0, 0, False)}, {}, 0)
    for queue_length, non_evictable in [(3, 5), (3, 5), (1, 0), (None, None)]:
        sent = base | {k: v for k, v in (("queue_length", queue_length), ("non_evictable_size", non_evictable)) if v}
        delta = encoder.delta(sent)
        assert decoder.apply(json.loads(json.dumps(delta))) == Observation.from_dict(sent)
    bad = encoder.delta(base) | {"queue_length": -1}
    with pytest.raises(ValueError, match="queue_length: an int >= 0"):
        DeltaDecoder().apply(bad)


@pytest.mark.parametrize(
    ("cls", "fields"),
    [
        (CachedEntry, {"timestamp": None, "count": 2, "size": 5, "entry": 2, "ledger": 1}),
        (Counters, dict.fromkeys(Counters.__dataclass_fields__, 3)),
        (Observation, {"entries": (), "size": 0, "counters": Counters(), "copies": ((0, None),)}),
    ],
)
def test_the_decoders_shortcut_builds_what_the_constructor_builds(cls, fields):
    """``_built`` skips ``__init__``: right only while these classes check nothing and keep a __dict__."""
    assert not hasattr(cls, "__post_init__")
    assert not hasattr(cls, "__slots__")
    built, constructed = _built(cls, fields), cls(**fields)
    assert (built, hash(built), repr(built)) == (constructed, hash(constructed), repr(constructed))


def test_a_verdict_reads_the_same_whatever_order_the_counters_came_in():
    """Decoded counters keep their JSON order in ``vars()``; the monitor's messages must not follow it."""
    monitor = Monitor("pip430", CacheConfig(max_size=100), invariants=["CACHE-SIZE-ACCOUNTING"])
    decoder, names = DeltaDecoder(), list(Counters.__dataclass_fields__)
    for now, value in ((1, 5), (2, 0)):  # hits and misses go down together
        counters = {name: value if name in {"hits", "misses"} else 0 for name in reversed(names)}
        delta = {"entries": [], "removed": [], "size": 0, "counters": counters, "copies": [], "closed": []}
        found = [violation.message for violation in monitor.check(EvictTimestamp(now=now), None, decoder.apply(delta))]
    assert found == ["counter hits went down from 5 to 0", "counter misses went down from 5 to 0"]


def test_a_delta_that_changes_nothing_gives_back_the_same_observation():
    encoder, decoder = DeltaEncoder(), DeltaDecoder()
    sent = snapshot({(1, 2): (5, 1, 7)}, {0: 1}, 5)
    first = decoder.apply(json.loads(json.dumps(encoder.delta(sent))))
    assert decoder.apply(json.loads(json.dumps(encoder.delta(sent)))) is first
    resized = dict(sent, size=6)
    second = decoder.apply(json.loads(json.dumps(encoder.delta(resized))))
    assert second is not first
    assert (second.size, second.entries, second.copies) == (6, first.entries, first.copies)


def test_a_delta_after_a_full_observation_is_read_against_it():
    """The decoder reuses what a delta leaves unchanged, but never across a full observation or a reset."""
    decoder = DeltaDecoder()
    first = snapshot({(1, 1): (5, 1, 3)}, {0: 1}, 4)
    other = snapshot({(2, 2): (6, None, 7)}, {}, 9)
    encoder = DeltaEncoder()
    decoder.apply(json.loads(json.dumps(encoder.delta(first))))
    encoder.sent_full(other)
    assert decoder.full(Observation.from_dict(other)) == Observation.from_dict(other)
    back = decoder.apply(json.loads(json.dumps(encoder.delta(first))))  # counters as two steps ago
    assert back == Observation.from_dict(first)
    decoder.reset()
    encoder.reset()
    assert decoder.apply(json.loads(json.dumps(encoder.delta(first)))) == Observation.from_dict(first)


def test_an_unchanged_cache_sends_an_empty_delta():
    encoder = DeltaEncoder()
    sent = snapshot({(1, 2): (5, 1, 7)}, {0: 1}, 5)
    assert encoder.delta(sent)["entries"]
    delta = encoder.delta(sent)
    assert (delta["entries"], delta["removed"], delta["copies"], delta["closed"]) == ([], [], [], [])


def good_delta() -> dict:
    entry = {"ledger": 1, "entry": 2, "size": 5, "count": 1, "timestamp": 7}
    counters = dict.fromkeys(Counters.__dataclass_fields__, 0)
    return {"entries": [entry], "removed": [], "size": 5, "counters": counters, "copies": [[0, 1]], "closed": []}


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (("entries", 0, "size"), "5", "entries[0].size: an int"),
        (("entries", 0, "count"), 1.5, "entries[0].count: an int or null"),
        (("removed",), [[1]], "removed[0]: a [ledger, entry] pair"),
        (("removed",), [[9, 9]], "removed[0]: (9, 9) is not in the previous observation"),
        (("copies",), [[0, "1"]], "copies[0]: a [copy id, count or null] pair"),
        (("closed",), [4], "closed[0]: copy 4 is not open"),
        (("size",), True, "size: an int"),
        (("counters", "hits"), None, "counters.hits: an int"),
    ],
)
def test_a_malformed_delta_names_its_field(path, value, named):
    delta = good_delta()
    target = delta
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match=named.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        DeltaDecoder().apply(delta)


def test_a_delta_with_missing_keys_is_refused():
    delta = good_delta()
    del delta["closed"]
    with pytest.raises(ValueError, match="an object with the keys"):
        DeltaDecoder().apply(delta)


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("removed", [[1, 2], [1, 2]], r"removed\[1\]: \(1, 2\) is not in the previous observation"),
        ("closed", [0, 0], r"closed\[1\]: copy 0 is not open in the previous observation"),
    ],
)
def test_a_delta_removing_twice_names_the_second(field, value, named):
    decoder = DeltaDecoder()
    decoder.apply(good_delta())  # caches (1, 2) and opens copy 0
    delta = good_delta() | {"entries": [], "copies": [], field: value}
    with pytest.raises(ValueError, match=named):
        decoder.apply(delta)


def test_the_statistics_counters_are_optional_in_a_delta_and_null_when_left_out():
    """evictions and hit_bytes (observe_evictions, observe_hit_bytes) may be absent, null or an int; nothing else."""
    core = {name: 0 for name, f in Counters.__dataclass_fields__.items() if f.default is not None}
    for counters, evictions in ((core, None), (core | {"evictions": None}, None), (core | {"evictions": 3}, 3)):
        delta = {"entries": [], "removed": [], "size": 0, "counters": counters, "copies": [], "closed": []}
        observation = DeltaDecoder().apply(delta)
        assert observation.counters == Counters(evictions=evictions)
    bad = {"entries": [], "removed": [], "size": 0, "counters": core | {"hit_bytes": "x"}, "copies": [], "closed": []}
    with pytest.raises(ValueError, match=r"counters\.hit_bytes"):
        DeltaDecoder().apply(bad)
