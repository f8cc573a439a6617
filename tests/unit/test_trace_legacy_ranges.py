"""Legacy range reads on traces: a partly cached range read whole from storage is no stale read.

managed-ledger 4.0.8 reads a range from BookKeeper whole unless all of it is cached, so its misses of
cached entries carry ``reason`` ``range``; a miss of a cached entry in a fully cached range is still a
stale read. Recorded from the legacy reference and from a candidate that always reads from storage.
"""

from __future__ import annotations

from pathlib import Path

from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.spec.cache import CacheConfig, GetRange, Insert
from ledgerspec.traces.cache._format import Header
from ledgerspec.traces.cache._generate import Recorder
from ledgerspec.traces.cache._io import TraceWriter
from ledgerspec.traces.cache._local import check_local
from ledgerspec.traces.cache._record import RecordingAdapter

CONFIG = CacheConfig(max_size=300, watermark=0.5, ttl=10)


class FromStorage:
    """The legacy reference, except that every range is read from storage, cached or not."""

    def __init__(self) -> None:
        self.inner = load_adapter("reference-legacy")()
        self.info = self.inner.info

    def start(self, config):
        self.inner.start(config)

    def apply(self, op):
        if isinstance(op, GetRange):
            self.inner.cache._counters["misses"] += op.last - op.first + 1
            return (None,) * (op.last - op.first + 1)
        return self.inner.apply(op)

    def observe(self):
        return self.inner.observe()

    def stop(self):
        self.inner.stop()


def record(adapter, ops, path: Path) -> Path:
    events = Recorder("b1")
    recording = RecordingAdapter(adapter, events)
    recording.start(CONFIG)
    for op in ops:
        recording.apply(op)
    with TraceWriter(path, Header(profile="legacy", config=CONFIG.to_dict(), description="ranges")) as writer:
        writer.write_columns(events.take())
    return path


def test_a_partly_cached_range_read_whole_from_storage_is_ok(tmp_path):
    ops = [Insert(now=1, ledger=1, entry=1, size=10), GetRange(now=2, ledger=1, first=1, last=2)]
    trace = record(load_adapter("reference-legacy")(), ops, tmp_path / "ok.jsonl")
    assert '"reason":"range"' in trace.read_text()
    assert check_local(str(trace)).verdict == "OK"


def test_a_fully_cached_range_read_from_storage_is_a_stale_read(tmp_path):
    ops = [
        Insert(now=1, ledger=1, entry=1, size=10),
        Insert(now=2, ledger=1, entry=2, size=10),
        GetRange(now=3, ledger=1, first=1, last=2),
    ]
    trace = record(FromStorage(), ops, tmp_path / "bad.jsonl")
    result = check_local(str(trace))
    assert result.verdict == "VIOLATION"
    assert {v.invariant for v in result.violations} == {"CACHE-NO-STALE-READ"}
