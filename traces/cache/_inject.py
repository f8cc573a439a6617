"""Known violations, one per invariant: the generator's ``--inject`` option.

Each injection is a small broker of its own (``inject-<invariant>``): a scripted run of the trace's
reference cache, recorded through its listener, with one event then changed so that exactly that
invariant breaks at a known ``seq`` and nothing else does. The scenarios set their own small
configuration with ``config`` events (the trace's header config stays the same for every broker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import EVICTED, CacheConfig
from ledgerspec.traces.cache._check import trace_invariants
from ledgerspec.traces.cache._generate import Recorder

Events = dict[str, list[Any]]


@dataclass(frozen=True)
class Injection:
    """A scenario (operations on a cache) and the one change to its events that breaks the invariant."""

    invariant: str
    script: Callable[[Any], None]
    change: Callable[[Events], int]
    """Edits the events in place; returns the index of the event that now shows the violation."""
    small: bool = True
    """Whether the scenario first shrinks the cache with ``configure`` (not possible for the ring)."""


def _index(events: Events, kind: str, nth: int = 0, **fields: Any) -> int:
    """Index of the ``nth`` event of ``kind`` whose fields match."""
    found = -1
    for i, k in enumerate(events["kind"]):
        if k == kind and all(events[name][i] == value for name, value in fields.items()):
            found += 1
            if found == nth:
                return i
    raise LookupError(f"no {kind} event #{nth} with {fields} in the scenario")


def _insert(events: Events, at: int, like: int, **fields: Any) -> None:
    """A new event at index ``at``: ``fields``, and event ``like``'s broker and time where not given."""
    for name, column in events.items():
        column.insert(at, fields.get(name, column[like] if name in ("broker", "time") else None))


def _drop(events: Events, *indices: int) -> None:
    """Remove the events at ``indices``."""
    for i in sorted(indices, reverse=True):
        for column in events.values():
            del column[i]


def _clock() -> Callable[[], int]:
    now = [0]

    def tick(by: int = 1) -> int:
        now[0] += by
        return now[0]

    return tick


# --- the scenarios -----------------------------------------------------------------------------------
# Small configuration: max 100 -> trigger 98, watermark 50; ttl 10, ttl_max 50, max_requeue 1.


def _three_equal(cache: Any, reads: int = 0) -> None:
    tick = _clock()
    for entry in range(3):
        cache.insert(now=tick(), ledger=1, entry=entry, size=40, expected_reads=reads)
    cache.evict_size(now=tick())  # 120 > 98, free 70: (1,0) and (1,1) go


def _fifo(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)


def _fifo_change(events: Events) -> int:
    i = _index(events, "insert")
    events["timestamp"][i] -= 1
    return i


def _oldest_change(events: Events) -> int:
    """The pass removes (1,1) and (1,2) instead of (1,0) and (1,1): same sizes, wrong entries."""
    first = _index(events, "remove", 0)
    second = _index(events, "remove", 1)
    events["entry"][first], events["entry"][second] = 1, 2
    events["timestamp"][first], events["timestamp"][second] = events["timestamp"][second], 3
    return _index(events, "pass_end", 0, reason="size")


def _protect(cache: Any) -> None:
    tick = _clock()
    cache.insert(now=tick(), ledger=1, entry=0, size=60)
    cache.insert(now=tick(), ledger=1, entry=1, size=50)
    cache.evict_size(now=tick())  # 110 > 98, free 60: (1,0) goes


def _protect_change(events: Events) -> int:
    i = _index(events, "insert", 0)
    events["count"][i] = 1  # the removed entry was protected and young
    removal = _index(events, "remove", 0)
    events["count"][removal] = 1  # and its handler keeps the count, as a normal eviction does
    return removal


def _evicted(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1)
    cache.get(now=2, ledger=1, entry=0)
    cache.invalidate_ledger(now=3, ledger=1)
    cache.replay_increment(now=4, copy=0)


def _evicted_change(events: Events) -> int:
    i = _index(events, "replay_increment")
    events["result"][i] = 1
    return i


def _accounting(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)


def _accounting_change(events: Events) -> int:
    i = _index(events, "insert")
    events["kind"].insert(i + 1, "size_sample")
    for name in events:
        if name != "kind":
            events[name].insert(i + 1, events[name][i] if name in ("broker", "time") else None)
    events["size"][i + 1] = 11
    return i + 1


def _watermark_change(events: Events) -> int:
    """One more removal than needed, the next oldest entry (so queue order still holds)."""
    end = _index(events, "pass_end", 0, reason="size")
    for name in events:
        events[name].insert(end, events[name][end - 1])
    events["kind"][end] = "remove"
    events["entry"][end], events["timestamp"][end] = 2, 3
    events["size"][end], events["count"][end], events["reason"][end] = 40, events["count"][end - 1], "size"
    events["size"][end + 1] = 0
    return end + 1


def _ttl(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)
    cache.evict_timestamp(now=11)  # threshold 1: 1 < 1 is false, nothing expires


def _ttl_change(events: Events) -> int:
    end = _index(events, "pass_end", 0, reason="ttl")
    for name in events:
        events[name].insert(end, events[name][end])
    events["kind"][end], events["reason"][end] = "remove", "ttl"
    events["ledger"][end], events["entry"][end], events["size"][end], events["timestamp"][end] = 1, 0, 10, 1
    events["count"][end] = _first_count(events, "insert")
    events["size"][end + 1] = 0
    return end


def _first_count(events: Events, kind: str) -> Any:
    return events["count"][_index(events, kind)]


def _stale(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)
    cache.get(now=2, ledger=1, entry=0)


def _stale_change(events: Events) -> int:
    i = _index(events, "hit")
    events["entry"][i] = 7
    return i


def _bounded(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1)
    cache.evict_timestamp(now=20)  # requeued once (max 1)
    cache.evict_timestamp(now=40)  # removed


def _bounded_change(events: Events) -> int:
    i = _index(events, "remove", reason="ttl")
    events["kind"][i], events["reason"][i], events["timestamp"][i] = "requeue", None, events["time"][i]
    events["size"][i] = None
    end = _index(events, "pass_end", 1, reason="ttl")
    events["size"][end] = 10
    return i


def _cursors(cache: Any) -> None:
    cache.cursor_add(now=1, ledger=1, cursor="a", entry=0)
    cache.cursor_add(now=2, ledger=1, cursor="b", entry=0)
    cache.cursor_count(now=3, ledger=1, cursor="a")


def _cursors_change(events: Events) -> int:
    i = _index(events, "cursor_count")
    events["result"][i] -= 1
    return i


def _read_count(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=2)
    copy = cache.get(now=2, ledger=1, entry=0)
    cache.release(now=3, copy=copy)


def _read_count_change(events: Events) -> int:
    i = _index(events, "release")
    events["count"][i] += 1
    return i


def _merge(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10, expected_reads=1)
    cache.insert(now=2, ledger=1, entry=0, size=10, expected_reads=1)


def _merge_change(events: Events) -> int:
    i = _index(events, "merge")
    events["count"][i] -= 1
    return i


def _refused_change(events: Events) -> int:
    i = _index(events, "insert_refused")
    events["kind"][i], events["timestamp"][i] = "insert", events["time"][i]
    return i


def _accepted(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)


def _accepted_change(events: Events) -> int:
    i = _index(events, "insert")
    events["kind"][i], events["timestamp"][i] = "insert_refused", None
    return i


def _ring(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=cache.segment_size + 1)


def _walk(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=5, size=10)
    cache.insert(now=8, ledger=1, entry=3, size=10)  # lower and newer: the walk stops at it
    cache.evict_timestamp(now=15)  # expired: ts <= 5; (1,3) is not, so nothing goes


def _walk_change(events: Events) -> int:
    """The pass also removes (1,5), above the unexpired (1,3)."""
    end = _index(events, "pass_end", 0, reason="ttl")
    _insert(events, end, end, kind="remove", reason="ttl", ledger=1, entry=5, size=10, timestamp=1)
    events["size"][end + 1] = 10
    return end + 1


def _space(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=100)  # 0 < 100: cached
    cache.insert(now=2, ledger=1, entry=1, size=1)  # 100 < 100 is false: refused


def _space_change(events: Events) -> int:
    i = _index(events, "insert_refused")
    events["kind"][i], events["timestamp"][i] = "insert", events["time"][i]
    return i


def _placement_change(events: Events) -> int:
    """A size sample one byte off what the ring holds (still far below its bound)."""
    i = _index(events, "insert", 0)
    _insert(events, i + 1, i, kind="size_sample", size=65)
    return i + 1


def _append(cache: Any) -> None:
    cache.cursor_add(now=1, ledger=1, cursor="a", entry=0)
    cache.append(now=2, ledger=1, entry=0, size=10)  # an active cursor: offered, and cached


def _append_change(events: Events) -> int:
    """The cursor never came: the append is offered to the cache with no active cursor."""
    _drop(events, _index(events, "cursor_add"))
    return _index(events, "insert")


def _backlog(cache: Any) -> None:
    cache.append(now=1, ledger=1, entry=0, size=10)  # no cursor: stored, not cached
    cache.cursor_add(now=2, ledger=1, cursor="b", entry=0)  # stays the slowest: no invalidation follows the read
    cache.cursor_add(now=3, ledger=1, cursor="a", entry=0)
    cache.cursor_read(now=4, ledger=1, cursor="a", last=0)  # from storage: cached iff its count is > 0


def _backlog_change(events: Events) -> int:
    """What the read takes from storage is cached with a wrong count, or cached at all.

    Tracking on: with one read more than the reader counts; tracking off: the reader counts 0.
    """
    after = _index(events, "miss") + 1
    if events["kind"][after] == "insert":
        hit = _index(events, "hit")
        events["count"][after] += 1
        events["count"][hit] += 1
        return after
    miss = after - 1
    position = {"ledger": events["ledger"][miss], "entry": events["entry"][miss], "count": events["count"][miss]}
    _insert(events, after, miss, kind="insert", size=10, timestamp=events["time"][miss], **position)
    return after


def _invalidation(cache: Any) -> None:
    cache.cursor_add(now=1, ledger=1, cursor="a", entry=2)
    cache.invalidate_before(now=2, ledger=1, entry=1)  # a trim: nothing of it cached


def _invalidation_change(events: Events) -> int:
    """The trim is shown as an invalidation the cursor made.

    With tracking on, cursors invalidate nothing; with it off, one is bounded by the slowest cursor (at 2,
    not 1).
    """
    i = _index(events, "pass_start", reason="invalidate")
    events["cursor"][i] = "a"
    return i


def _close(cache: Any) -> None:
    cache.insert(now=1, ledger=1, entry=0, size=10)
    cache.ledger_close(now=2, ledger=1)  # its cache goes: an invalidation of the whole ledger
    cache.insert(now=3, ledger=2, entry=0, size=10)


def _close_change(events: Events) -> int:
    """The close leaves the ledger's cache in place: its invalidation is not there."""
    start = _index(events, "pass_start", reason="invalidate")
    _drop(events, *range(start, _index(events, "pass_end", reason="invalidate") + 1))
    return _index(events, "ledger_close")


def _unscheduled_change(events: Events) -> int:
    """(legacy) A size pass no insert scheduled (none saw the size above the trigger) frees the oldest entry."""
    last, (ledger, entry, size, stamp) = len(events["kind"]) - 1, _first_insert(events)
    total = sum(size for kind, size in zip(events["kind"], events["size"], strict=True) if kind == "insert")
    added = [
        {"kind": "pass_start", "reason": "size", "size": total},
        {"kind": "remove", "reason": "size", "ledger": ledger, "entry": entry, "size": size, "timestamp": stamp},
        {"kind": "pass_end", "reason": "size", "size": total - size},
    ]
    for event in added:
        _insert(events, len(events["kind"]), last, time=events["time"][last] + 1, **event)
    return len(events["kind"]) - 1


def _first_insert(events: Events) -> tuple[int, int, int, int]:
    i = _index(events, "insert")
    return events["ledger"][i], events["entry"][i], events["size"][i], events["timestamp"][i]


INJECTIONS: dict[str, Injection] = {
    i.invariant: i
    for i in (
        Injection("CACHE-FIFO", _fifo, _fifo_change),
        Injection("CACHE-OLDEST-FIRST", _three_equal, _oldest_change),
        Injection("CACHE-PROTECT-UNTIL-EXPIRED", _protect, _protect_change),
        Injection("CACHE-EVICTED-FINAL", _evicted, _evicted_change),
        Injection("CACHE-SIZE-ACCOUNTING", _accounting, _accounting_change),
        Injection("CACHE-WATERMARK", _three_equal, _watermark_change),
        Injection("CACHE-TTL", _ttl, _ttl_change),
        Injection("CACHE-NO-STALE-READ", _stale, _stale_change),
        Injection("CACHE-BOUNDED-PROTECTION", _bounded, _bounded_change),
        Injection("CACHE-CURSOR-COUNT", _cursors, _cursors_change),
        Injection("CACHE-READ-COUNT", _read_count, _read_count_change),
        Injection("CACHE-DUPLICATE-MERGE", _merge, _merge_change),
        Injection("CACHE-DUPLICATE-REFUSED", _merge, _refused_change),
        Injection("CACHE-INSERT-ACCEPTED", _accepted, _accepted_change),
        Injection("CACHE-SEGMENT-RING", _ring, _refused_change, small=False),
        Injection("CACHE-TTL-WALK", _walk, _walk_change),
        Injection("CACHE-SPACE-CHECK", _space, _space_change),
        Injection("CACHE-SEGMENT-PLACEMENT", _accepted, _placement_change, small=False),
        Injection("CACHE-APPEND-CACHING", _append, _append_change),
        Injection("CACHE-BACKLOG-CACHING", _backlog, _backlog_change),
        Injection("CACHE-BELOW-SLOWEST", _invalidation, _invalidation_change),
        Injection("CACHE-LEDGER-CLOSE", _close, _close_change),
        Injection("CACHE-LEGACY-SIZE-POLICY", _three_equal, _unscheduled_change),
    )
}

NOT_ALONE = {
    ("segmented", "CACHE-OLDEST-FIRST"): "a rotation that evicts anything but the reused segment also breaks "
    "CACHE-SEGMENT-PLACEMENT"
}
"""Invariants a profile's trace cannot break alone, so not injected there."""

SMALL: dict[str, Any] = {"max_size": 100, "watermark": 0.5, "ttl": 10, "ttl_max": 50, "max_requeue": 1}


def injectable(profile: str) -> list[str]:
    """The invariants an injection can break in a trace of this profile (all it checks on traces)."""
    return [i for i in trace_invariants(profile) if i in INJECTIONS and (profile, i) not in NOT_ALONE]


def inject(invariant: str, profile: str, config: CacheConfig) -> tuple[Events, int]:
    """The events of the injected broker ``inject-<invariant>`` and the seq of its violating event."""
    injection = INJECTIONS[invariant]
    recorder = Recorder(f"inject-{invariant.lower()}")
    cache = CACHES[profile](**config.to_dict())
    cache.listen(recorder)
    if injection.small and profile != "segmented":
        cache.configure(now=0, **{k: v for k, v in SMALL.items() if k != "max_size" or config.max_size > 0})
    injection.script(cache)
    events = recorder.take()
    index = injection.change(events)
    events["seq"] = list(range(1, len(events["kind"]) + 1))
    return events, events["seq"][index]


assert EVICTED < 0
