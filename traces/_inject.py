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
from ledgerspec.traces._check import trace_invariants
from ledgerspec.traces._generate import Recorder

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


def _rotation(cache: Any) -> None:
    tick = _clock()
    for entry in range(cache.segment_count + 1):  # each fills a segment: the last clears the first
        cache.insert(now=tick(), ledger=1, entry=entry, size=cache.segment_size)


def _rotation_change(events: Events) -> int:
    """The rotation removes the newer (1,1) instead of (1,0)."""
    i = _index(events, "remove", 0)
    events["entry"][i] = 1
    return next(j for j in range(i, len(events["kind"])) if events["kind"][j] == "pass_end")


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
    )
}

SEGMENTED = {"CACHE-OLDEST-FIRST": Injection("CACHE-OLDEST-FIRST", _rotation, _rotation_change, small=False)}
"""Scenarios of the ring, where they differ."""

SMALL: dict[str, Any] = {"max_size": 100, "watermark": 0.5, "ttl": 10, "ttl_max": 50, "max_requeue": 1}


def injectable(profile: str) -> list[str]:
    """The invariants an injection can break in a trace of this profile (all it checks on traces)."""
    return [i for i in trace_invariants(profile) if i in INJECTIONS]


def inject(invariant: str, profile: str, config: CacheConfig) -> tuple[Events, int]:
    """The events of the injected broker ``inject-<invariant>`` and the seq of its violating event."""
    injection = SEGMENTED.get(invariant, INJECTIONS[invariant]) if profile == "segmented" else INJECTIONS[invariant]
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
