"""The replay makes no reference cycles, so pausing the cycle collector while it runs loses no memory.

Both checkers pause Python's cycle collector around the replay (``cycle_collection_paused`` in
traces/_replay.py): it found nothing there, yet its scans cost a good share of a local check
(BENCHMARKS.md). That is sound only while reference counting frees everything the replay drops;
these tests count what the collector would have found.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ledgerspec.spec.cache import PROFILES
from ledgerspec.traces import _local, _replay
from ledgerspec.traces._check import trace_invariants
from ledgerspec.traces._generate import generate_trace
from ledgerspec.traces._inject import injectable
from ledgerspec.traces._io import open_trace
from ledgerspec.traces._spark import replay_function


@pytest.fixture(scope="module", params=sorted(PROFILES))
def trace(request, tmp_path_factory):
    """A trace of each profile with a violation of every invariant it checks."""
    path = tmp_path_factory.mktemp("cycles") / f"{request.param}.parquet"
    generate_trace(
        str(path),
        workload="mixed",
        brokers=2,
        topics=6,
        events=20_000,
        seed=3,
        profile=request.param,
        inject=injectable(request.param),
    )
    return str(path)


def local_check(path: str) -> bool:
    """One local check of ``path`` (one process); whether the injected violations were found."""
    part = _local._check_part(path, 0, 1, None)
    return part.error is None and bool(part.counts)


def spark_task(path: str) -> bool:
    """The function Spark's ``mapInArrow`` runs, fed as Spark feeds it (rows sorted by broker and row)."""
    table = pq.read_table(path)
    table = table.append_column("row", pa.array(range(table.num_rows), pa.int64()))
    table = table.sort_by([("broker", "ascending"), ("row", "ascending")])
    trace = open_trace(path)
    profile = trace.header.profile
    run = replay_function(profile, trace.config, set(trace_invariants(profile)), 100)
    out = pa.Table.from_batches(list(run(iter(table.to_batches(max_chunksize=4_000)))))
    return "finding" in out.column("what").to_pylist()


CHECKERS = [local_check, spark_task]


def cyclic_garbage(check: Callable[[str], bool], path: str) -> tuple[int, bool]:
    """What the cycle collector finds unreachable after ``check(path)``, and the check's result."""
    gc.collect()
    gc.disable()
    try:
        found_violations = check(path)
        return gc.collect(), found_violations
    finally:
        gc.enable()


@pytest.mark.parametrize("check", CHECKERS)
def test_the_replay_leaves_no_cyclic_garbage(check, trace):
    garbage, found_violations = cyclic_garbage(check, trace)
    assert found_violations, "the injected violations were replayed"
    assert garbage == 0


class _CyclicEntry(_replay._Entry):
    """A mutant entry that refers to itself: what the test must catch."""

    __slots__ = ("me",)

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.me = self


@pytest.mark.parametrize("check", CHECKERS)
def test_a_replay_that_makes_cycles_is_caught(check, trace, monkeypatch):
    monkeypatch.setattr(_replay, "_Entry", _CyclicEntry)
    garbage, _ = cyclic_garbage(check, trace)
    assert garbage > 0


def test_the_pause_restores_the_collector():
    assert gc.isenabled()
    with _replay.cycle_collection_paused():
        assert not gc.isenabled()
        with _replay.cycle_collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "an inner pause must not turn the collector back on"
    assert gc.isenabled()
    with pytest.raises(_replay.TraceStructureError), _replay.cycle_collection_paused():
        raise _replay.TraceStructureError("b", 1, 2, "a bad trace ends the replay")
    assert gc.isenabled(), "an error in the replay must not leave the collector off"
