"""The pure model of ``TxnLogBufferedWriter``: ``init(profile, config)`` and ``step(model, op)``.

Profiles: ``pulsar-master`` (apache/pulsar ``TxnLogBufferedWriter.java`` at d2beb06e21: a periodic
timer re-armed after each firing, the large-record rule, the ``large_data`` trigger) and ``pip160``
(the PIP-160 text, apache/pulsar issue #15370: a per-batch deadline from the batch's first record;
the size threshold only triggers a flush, so a large record ends its batch instead of going alone).

A result is the list of events the step caused, in order:
``["write", entry, [records], batched, trigger]`` (an entry handed to the managed ledger; entries are
numbered 0, 1, ... in write order; trigger is ``max_records``, ``max_size``, ``max_delay``,
``large_data``, or null for an entry written unbatched), ``["done", record, entry, batch_size,
batch_index]`` (a success callback; size and index null for a plain position) and
``["failed", record]``. ``Metrics`` answers the counters instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ledgerspec.spec._errors import OperationError, UnknownProfileError
from ledgerspec.spec.txlog_writer._ops import Add, Close, Complete, Fail, Metrics, Tick, WriterConfig, WriterOp

PROFILES = ("pip160", "pulsar-master")
TRIGGERS = ("max_records", "max_size", "max_delay", "large_data")
Event = list[Any]


@dataclass(frozen=True)
class Written:
    """An entry handed to the managed ledger and not yet completed."""

    entry: int
    records: tuple[int, ...]
    batched: bool


@dataclass(frozen=True)
class Model:
    profile: str
    config: WriterConfig
    now: int = 0
    closed: bool = False
    batch: tuple[tuple[int, int, int], ...] = ()
    """The records buffered: (record, size, time added)."""
    timer: int | None = None
    """When the timer fires next (None: not armed)."""
    outstanding: tuple[Written, ...] = ()
    next_record: int = 1
    next_entry: int = 0
    metrics: tuple[tuple[str, int], ...] = ()
    """Counters: a trigger's count, and ``records``, ``bytes``, ``delay`` summed over flushed batches."""
    # facts the invariants read
    sizes: tuple[int, ...] = (0,)
    """Each record's size, by number (index 0 unused)."""
    added: tuple[int, ...] = (0,)
    """When each record was added, by number."""
    done: frozenset[int] = frozenset()
    """Records whose callback has completed (either way)."""
    last_success: int = 0

    @property
    def pip160(self) -> bool:
        return self.profile == "pip160"

    def counter(self, name: str) -> int:
        return dict(self.metrics).get(name, 0)


def init(profile: str, config: WriterConfig | None = None) -> Model:
    """A new writer: open, nothing buffered; the sweep timer armed (pulsar-master, batching on)."""
    if profile not in PROFILES:
        raise UnknownProfileError(f"unknown txlog-writer profile {profile!r} (known: {', '.join(PROFILES)})")
    config = config or WriterConfig()
    sweep = config.batching and profile == "pulsar-master"
    return Model(profile, config, timer=config.max_delay if sweep else None)


@dataclass
class _Step:
    """A step under way: the model being rebuilt and the events so far."""

    m: Model
    events: list[Event] = field(default_factory=list)

    def write(self, records: tuple[int, ...], *, batched: bool, trigger: str | None) -> None:
        m = self.m
        entry = m.next_entry
        self.m = replace(m, next_entry=entry + 1, outstanding=(*m.outstanding, Written(entry, records, batched)))
        self.events.append(["write", entry, list(records), batched, trigger])

    def complete(self, record: int, event: Event) -> None:
        m = self.m
        success = event[0] == "done"
        self.m = replace(m, done=m.done | {record}, last_success=record if success else m.last_success)
        self.events.append(event)

    def flush(self, trigger: str) -> None:
        """``doFlush``: the metrics of the trigger, then the batch as one entry."""
        m = self.m
        records = tuple(r for r, _, _ in m.batch)
        counts = dict(m.metrics)
        for name, value in (
            (trigger, 1),
            ("records", len(records)),
            ("bytes", sum(s for _, s, _ in m.batch)),
            ("delay", m.now - m.batch[0][2]),
        ):
            counts[name] = counts.get(name, 0) + value
        self.m = replace(m, batch=(), metrics=tuple(sorted(counts.items())))
        self.write(records, batched=True, trigger=trigger)


def step(model: Model, op: WriterOp) -> tuple[Model, list[Event] | dict[str, int]]:
    """The next model and the operation's result; the argument is left as it was (all frozen)."""
    if isinstance(op, Metrics):
        return model, {name: model.counter(name) for name in (*TRIGGERS, "records", "bytes", "delay")}
    run = _Step(model)
    if isinstance(op, Add):
        _add(run, op.size)
    elif isinstance(op, Tick):
        _tick(run, op.by)
    elif isinstance(op, Complete | Fail):
        _finish(run, ok=isinstance(op, Complete))
    elif isinstance(op, Close):
        _close(run)
    else:
        raise OperationError(f"unknown txlog-writer operation {op!r}")
    return run.m, run.events


def _add(run: _Step, size: int) -> None:
    m = run.m
    if size <= 0:
        raise OperationError(f"add: a record of {size} bytes (want > 0)")
    record = m.next_record
    run.m = m = replace(m, next_record=record + 1, sizes=(*m.sizes, size), added=(*m.added, m.now))
    if m.closed:
        run.complete(record, ["failed", record])
        return
    if not m.config.batching:
        run.write((record,), batched=False, trigger=None)
        return
    if size >= m.config.max_size and not m.pip160:  # the large-record rule
        if m.batch:
            run.flush("large_data")
        run.write((record,), batched=False, trigger=None)
        return
    if not m.batch and m.pip160:
        run.m = m = replace(m, timer=m.now + m.config.max_delay)  # the batch's deadline
    run.m = m = replace(m, batch=(*m.batch, (record, size, m.now)))
    if len(m.batch) >= m.config.max_records:
        run.flush("max_records")
    elif sum(s for _, s, _ in m.batch) >= m.config.max_size:
        run.flush("max_size")
    if m.pip160 and not run.m.batch:
        run.m = replace(run.m, timer=None)


def _tick(run: _Step, by: int) -> None:
    if by <= 0:
        raise OperationError(f"tick: by {by} (want > 0)")
    end = run.m.now + by
    while run.m.timer is not None and run.m.timer <= end:
        run.m = replace(run.m, now=run.m.timer)
        if run.m.batch:
            run.flush("max_delay")
        if run.m.pip160:
            run.m = replace(run.m, timer=None)  # the next batch arms its own deadline
        else:  # the sweep sets itself again after every firing (apache/pulsar #16679)
            run.m = replace(run.m, timer=None if run.m.closed else run.m.now + run.m.config.max_delay)
    run.m = replace(run.m, now=end)


def _finish(run: _Step, *, ok: bool) -> None:
    m = run.m
    if not m.outstanding:
        return
    written, rest = m.outstanding[0], m.outstanding[1:]
    run.m = replace(m, outstanding=rest)
    n = len(written.records)
    for index, record in enumerate(written.records):
        if not ok:
            run.complete(record, ["failed", record])
        elif written.batched:
            run.complete(record, ["done", record, written.entry, n, index])
        else:
            run.complete(record, ["done", record, written.entry, None, None])


def _close(run: _Step) -> None:
    """Buffered records fail (``ManagedLedgerFencedException``); written ones complete as the ledger says."""
    m = run.m
    if m.closed:
        return
    run.m = replace(m, closed=True, batch=(), timer=None)
    for record, _, _ in m.batch:
        run.complete(record, ["failed", record])
