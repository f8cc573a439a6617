"""The replay makes no reference cycles, so pausing the cycle collector while it runs loses no memory.

Both checkers pause Python's cycle collector around the replay (``cycle_collection_paused`` in
traces/_replay.py): it found nothing there, yet its scans cost a quarter of a local check. That is
sound only while reference counting frees everything the replay drops; these tests count what the
collector would have found.
"""

from __future__ import annotations

import gc

import pytest
from ledgerspec.spec.cache import PROFILES
from ledgerspec.traces import _local, _replay
from ledgerspec.traces._generate import generate_trace
from ledgerspec.traces._inject import injectable


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


def cyclic_garbage(path: str) -> tuple[int, _local._Part]:
    """The objects the cycle collector finds unreachable after one check of ``path``, and the check's result."""
    gc.collect()
    gc.disable()
    try:
        part = _local._check_part(path, 0, 1, None)
        return gc.collect(), part
    finally:
        gc.enable()


def test_the_replay_leaves_no_cyclic_garbage(trace):
    found, part = cyclic_garbage(trace)
    assert part.error is None
    assert part.counts, "the injected violations were replayed"
    assert found == 0


class _CyclicEntry(_replay._Entry):
    """A mutant entry that refers to itself: what the test must catch."""

    __slots__ = ("me",)

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.me = self


def test_a_replay_that_makes_cycles_is_caught(trace, monkeypatch):
    monkeypatch.setattr(_replay, "_Entry", _CyclicEntry)
    found, _ = cyclic_garbage(trace)
    assert found > 0


def test_the_pause_restores_the_collector():
    assert gc.isenabled()
    with _replay.cycle_collection_paused():
        assert not gc.isenabled()
        with _replay.cycle_collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "an inner pause must not turn the collector back on"
    assert gc.isenabled()
