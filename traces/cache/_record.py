"""The recorder: wrap any adapter and write the trace of what it did.

A candidate cache behind an adapter shows only results and observations, so the recorder derives
the events from them with the spec's derivation (``spec/cache/_derive.py``), the one the conformance
monitor checks: what ``traces record`` writes is what ``conform`` judges, step for step. This is the
outside view (no stash, no mark before removal, requeues of one pass unordered), which is all the
trace checkers need; the generator's instrumented reference writes the inside view.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from ledgerspec.conformance._errors import AdapterFault, close_factory
from ledgerspec.conformance.cache.adapters import CacheAdapter
from ledgerspec.spec.cache import OPERATIONS, CacheConfig, Observation, Op, get_profile
from ledgerspec.spec.cache._derive import Derivation
from ledgerspec.traces.core._record import discarded


class RecordingAdapter:
    """An adapter that passes every operation through and reports the events it implies."""

    def __init__(self, inner: CacheAdapter, listener: Any) -> None:
        self.inner = inner
        self.info = inner.info
        self.listener = listener
        self.before: Observation | None = None
        self.derivation = Derivation()

    def start(self, config: CacheConfig) -> None:
        """A fresh cache; nothing is recorded until the first operation."""
        self.inner.start(config)
        self.before = self.inner.observe()
        self.derivation = Derivation()

    def stop(self) -> None:
        """Stop the wrapped adapter."""
        self.inner.stop()

    def observe(self) -> Observation:
        """The wrapped adapter's observation (the last one is kept)."""
        return self.before if self.before is not None else self.inner.observe()

    def apply(self, op: Op) -> Any:
        """Run the operation and record its events."""
        before = self.before if self.before is not None else self.inner.observe()
        result = self.inner.apply(op)
        after = self.inner.observe()
        for event in self.derivation.step(op, result, before, after):
            fields = {name: value for name, value in event.items() if name not in ("kind", "time")}
            self.listener(event["kind"], event["time"], fields)
        self.before = after
        return result


class AdapterCache:
    """The reference cache's method names over an adapter, recording through :class:`RecordingAdapter`.

    It lets the workload generator drive any candidate: each call becomes one operation, but one the
    profile lacks or the adapter does not claim, which is never sent (as in conformance) and is counted
    in :attr:`left_out`; a ``cursor_count`` left out answers the driver's own count of the ledger's cursors.
    """

    def __init__(self, adapter: CacheAdapter, config: CacheConfig, profile: str) -> None:
        self.recording = RecordingAdapter(adapter, None)
        self.recording.start(config)
        self.cursors: dict[int, int] = {}
        self.profile = profile
        self.left_out: Counter[str] = Counter()

    def supports(self, name: str) -> bool:
        """Whether the operation may be sent: the profile has it and the adapter claims what it needs."""
        kind = OPERATIONS[name]
        sendable = get_profile(self.profile).knows(kind) and self.recording.info.supports_kind(kind)
        if name == "cursor_read":  # it reads through a cursor, which only the cursor operations place
            return sendable and self.supports("cursor_add")
        return sendable

    def listen(self, listener: Any) -> None:
        """Where the derived events go."""
        self.recording.listener = listener

    def reported_size(self) -> int:
        """The candidate's reported size."""
        return self.recording.observe().size

    def active_cursors(self, ledger: int) -> int:
        """Active cursors of a ledger, as the driver added and removed them."""
        return self.cursors.get(ledger, 0)

    def __getattr__(self, name: str) -> Any:
        if name not in OPERATIONS:
            raise AttributeError(name)
        kind = OPERATIONS[name]

        def call(**fields: Any) -> Any:
            if name in ("cursor_add", "cursor_remove"):
                delta = 1 if name == "cursor_add" else -1
                self.cursors[fields["ledger"]] = self.cursors.get(fields["ledger"], 0) + delta
            elif name == "ledger_close":  # its cursors go with it
                self.cursors.pop(fields["ledger"], None)
            if not self.supports(name):
                self.left_out[name] += 1
                return self.active_cursors(fields["ledger"]) if name == "cursor_count" else None
            return self.recording.apply(kind(**fields))

        return call


class Recorded(NamedTuple):
    """What :func:`record_trace` wrote: the events, and the operations of the workload it could not send."""

    events: int
    left_out: dict[str, int]


def record_trace(
    factory: Any,
    out: str,
    *,
    workload: str = "mixed",
    events: int = 20_000,
    seed: int = 0,
    topics: int = 4,
    profile: str | None = None,
    config: CacheConfig | None = None,
) -> Recorded:
    """Drive a candidate with the generator's workload and write the trace of what it did."""
    from ledgerspec.traces.cache._format import Header  # noqa: PLC0415 - keep the module light
    from ledgerspec.traces.cache._generate import DEFAULT_CONFIG, Broker, run_broker  # noqa: PLC0415
    from ledgerspec.traces.cache._io import TraceWriter  # noqa: PLC0415

    config = config or DEFAULT_CONFIG
    adapter = factory()
    profile = profile or adapter.info.profiles[0]
    try:
        cache = AdapterCache(adapter, config, profile)
        broker = Broker(adapter.info.name, cache, config, workload, list(range(1, topics + 1)), seed)
        header = Header(profile=profile, config=config.to_dict(), description=f"recorded from {adapter.info.name}")
        with TraceWriter(out, header) as writer:
            written = run_broker(broker, events, writer.write_columns)
    except AdapterFault as fault:
        raise discarded(fault, out) from None
    finally:
        adapter.stop()
        stop_fault = close_factory(factory)  # a process's final ``stop``
    if stop_fault is not None:
        raise discarded(stop_fault, out)
    return Recorded(written, dict(sorted(cache.left_out.items())))


