"""The txlog-writer invariants: each stated, cited, claimed and checked here, once.

A check sees one step: the model before and after it, the operation, the candidate's result (the
events of the step, or the metrics) and the model's; it returns a message when the step breaks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledgerspec.spec._records import LockstepInvariant
from ledgerspec.spec.txlog_writer._citations import CITATIONS
from ledgerspec.spec.txlog_writer._model import PROFILES, TRIGGERS, Model
from ledgerspec.spec.txlog_writer._ops import Add, Close, Complete, Fail, Metrics, Tick, WriterOp

MASTER = "apache/pulsar `pulsar-transaction/coordinator/.../impl/TxnLogBufferedWriter.java` at d2beb06e21"
PIP = "PIP-160 (apache/pulsar issue #15370)"
CAPABILITIES = ("metrics_delay",)
"""What an implementation may claim. ``metrics_delay``: it measures the ``delay`` metric on the virtual clock;
one that cannot (Pulsar's writer reads ``System.currentTimeMillis()``) sends it as null, and only then is a null
left out of the comparison (``Step.delay_measured``; conformance/protocol/txlog-writer.md)."""


@dataclass(frozen=True)
class Step:
    """One step as a check sees it."""

    before: Model
    after: Model
    op: WriterOp
    result: Any
    expected: Any
    delay_measured: bool = True
    """False for a candidate that claims no ``metrics_delay`` (conformance/protocol/txlog-writer.md): only
    then is a null ``delay`` left out of the comparison."""


WriterInvariant = LockstepInvariant[Step]
"""Its invariants: one check of a step's facts (``spec/_records.LockstepInvariant``)."""


def _events(step: Step) -> list[list[Any]]:
    result = step.result
    if isinstance(step.op, Metrics) or not isinstance(result, list):
        return []
    return [e for e in result if isinstance(e, list) and e]


def _unmeasured(step: Step, want: Any) -> Any:
    """``want`` without ``delay`` where a candidate that cannot measure it sent it as null.

    The delay is a wall-clock difference in Pulsar (``System.currentTimeMillis()`` at flush minus at add):
    an implementation driven on the virtual clock cannot measure it, and the process protocol lets it
    say so (null, without the capability ``metrics_delay``). Records, bytes and triggers are still compared;
    a candidate that measures the delay (every in-process one) gets no excuse for a null.
    """
    result = step.result
    if step.delay_measured or not (isinstance(result, dict) and isinstance(want, dict)):
        return want
    return {**want, "delay": None} if result.get("delay", 0) is None else want


def _model(step: Step) -> str | None:
    expected = _unmeasured(step, step.expected)
    if step.result != expected:
        message = f"{step.op.describe()} gave {step.result!r}; the profile gives {expected!r}"
        rule = CITATIONS[step.before.profile].cite(step.op.kind, _aspects(step, expected))
        return message if rule is None else f"{message}\n{rule}"
    return None


def _aspects(step: Step, expected: Any) -> list[str]:
    """The parts of the step that have a rule of their own (``_citations.py``).

    ``unbatched``: batching is off; ``large``: a record of ``max_size`` bytes or more; ``flush``: the entries
    written differ from the profile's.
    """

    def writes(events: Any) -> list[Any]:
        return [e for e in events if isinstance(e, list) and e and e[0] == "write"] if isinstance(events, list) else []

    config = step.before.config
    aspects = [] if config.batching else ["unbatched"]
    if isinstance(step.op, Add) and step.op.size >= config.max_size:
        aspects.append("large")
    if not isinstance(step.op, Metrics) and writes(step.result) != writes(expected):
        aspects.append("flush")
    return aspects


def _callback_once(step: Step) -> str | None:
    seen: set[int] = set()
    for event in _events(step):
        if event[0] not in {"done", "failed"}:
            continue
        record = event[1]
        if not isinstance(record, int) or not 1 <= record < step.after.next_record:
            return f"{step.op.describe()}: a callback for record {record!r}, never added"
        if record in step.before.done or record in seen:
            return f"{step.op.describe()}: record {record}'s callback completed a second time"
        seen.add(record)
    return None


def _in_order(step: Step) -> str | None:
    last = step.before.last_success
    for event in _events(step):
        if event[0] == "done" and isinstance(event[1], int):
            if event[1] < last:
                return f"{step.op.describe()}: record {event[1]} succeeded after record {last}"
            last = event[1]
    return None


def _batch_positions(step: Step) -> str | None:
    if not isinstance(step.op, Complete):
        return None
    done = [e for e in _events(step) if e[0] == "done"]
    written = step.before.outstanding[0] if step.before.outstanding else None
    if written is None or not done:
        return None
    records = list(written.records)
    got = [(e[1], e[2], e[3], e[4]) for e in done if len(e) == 5]
    n = len(records)
    want = [
        (r, written.entry, n if written.batched else None, i if written.batched else None)
        for i, r in enumerate(records)
    ]
    if got != want:
        return f"entry {written.entry} holds {records}: want callbacks (record, entry, size, index) {want}, got {got}"
    return None


def _limits(step: Step) -> str | None:
    config, sizes = step.before.config, step.after.sizes
    for event in _events(step):
        if event[0] != "write" or len(event) != 5 or not isinstance(event[2], list):
            continue
        records, batched = event[2], event[3]
        if len(records) > config.max_records or not records:
            return f"entry {event[1]} holds {len(records)} records (at most {config.max_records})"
        before_last = sum(sizes[r] for r in records[:-1] if isinstance(r, int) and 0 < r < len(sizes))
        if before_last >= config.max_size:
            return f"entry {event[1]} was already {before_last} bytes (max {config.max_size}) before its last record"
        if batched and not config.batching:
            return f"entry {event[1]} is batched with batching off"
        large = [r for r in records if isinstance(r, int) and 0 < r < len(sizes) and sizes[r] >= config.max_size]
        if step.before.profile == "pulsar-master" and large and (batched or len(records) > 1):
            return f"entry {event[1]}: large record {large[0]} is not alone and plain"
    return None


def _delay(step: Step) -> str | None:
    if not isinstance(step.op, Tick | Add):
        return None
    m = step.after
    written = {r for e in _events(step) if e[0] == "write" for r in e[2]}
    late = [r for r, _, added in m.batch if r not in written and m.now - added > m.config.max_delay]
    if late:
        r = late[0]
        return f"record {r}, added at {m.added[r]}, still waits at {m.now} (max delay {m.config.max_delay})"
    return None


def _failure_fanout(step: Step) -> str | None:
    if not isinstance(step.op, Fail) or not step.before.outstanding:
        return None
    written = step.before.outstanding[0]
    failed = sorted(e[1] for e in _events(step) if e[0] == "failed")
    others = [e for e in _events(step) if e[0] == "done"]
    if failed != sorted(written.records) or others:
        return f"entry {written.entry} failed: want exactly records {list(written.records)} failed, got {step.result!r}"
    return None


def _close(step: Step) -> str | None:
    before = step.before
    if isinstance(step.op, Add) and before.closed:
        record = before.next_record
        if ["failed", record] not in _events(step):
            return f"record {record}, added after close, did not fail at once: {step.result!r}"
    if isinstance(step.op, Close) and not before.closed:
        buffered = sorted(r for r, _, _ in before.batch)
        failed = sorted(e[1] for e in _events(step) if e[0] == "failed")
        if failed != buffered:
            return f"close with records {buffered} buffered: want them failed, got {step.result!r}"
    return None


def _metrics(step: Step) -> str | None:
    if not isinstance(step.op, Metrics) or not isinstance(step.result, dict):
        return None
    m = step.after
    want = _unmeasured(step, {name: m.counter(name) for name in (*TRIGGERS, "records", "bytes", "delay")})
    if step.result != want:
        return f"metrics {step.result!r}; the flushes so far give {want}"
    return None


BOTH = PROFILES
INVARIANTS: tuple[WriterInvariant, ...] = (
    WriterInvariant(
        "TXLOG-MODEL",
        "every event and metric is the profile's",
        f"{PIP}; {MASTER}",
        BOTH,
        _model,
        ("flush", "entry_write", "callback", "metrics"),
    ),
    WriterInvariant(
        "TXLOG-CALLBACK-ONCE",
        "every record's callback completes at most once, and only for a record added",
        MASTER,
        BOTH,
        _callback_once,
        ("callback",),
    ),
    WriterInvariant(
        "TXLOG-ORDER",
        "successful callbacks complete in the order the records were added",
        MASTER,
        BOTH,
        _in_order,
        ("callback",),
    ),
    WriterInvariant(
        "TXLOG-BATCH-POSITIONS",
        "the callbacks of an entry carry its position, its record count and consecutive indexes 0..n-1 in order",
        f"{PIP}; {MASTER} (`TxnBatchedPositionImpl`)",
        BOTH,
        _batch_positions,
        ("callback",),
        judges=lambda step: isinstance(step.op, Complete) and bool(step.before.outstanding),
    ),
    WriterInvariant(
        "TXLOG-LIMITS",
        "an entry holds at most max_records records and was under max_size bytes before its last record; "
        "pulsar-master writes a large record alone and unbatched",
        f"{PIP}; {MASTER}",
        BOTH,
        _limits,
        ("flush", "entry_write"),
        judges=lambda step: any(event[0] == "write" for event in _events(step)),
    ),
    WriterInvariant(
        "TXLOG-DELAY",
        "no record waits in the buffer longer than max_delay",
        f"{PIP}; {MASTER}",
        BOTH,
        _delay,
        ("entry_write",),
        judges=lambda step: isinstance(step.op, Tick | Add),
    ),
    WriterInvariant(
        "TXLOG-FAILURE-FANOUT",
        "a failed entry fails every record in it and no other",
        MASTER,
        BOTH,
        _failure_fanout,
        ("callback",),
        judges=lambda step: isinstance(step.op, Fail) and bool(step.before.outstanding),
    ),
    WriterInvariant(
        "TXLOG-CLOSE",
        "after close a new record fails at once, and close fails the records still buffered",
        MASTER,
        BOTH,
        _close,
        ("callback",),
        judges=lambda step: isinstance(step.op, Add | Close) and (step.before.closed or isinstance(step.op, Close)),
    ),
    WriterInvariant(
        "TXLOG-METRICS",
        "the metrics equal the flushes that happened",
        MASTER,
        BOTH,
        _metrics,
        ("metrics",),
        judges=lambda step: isinstance(step.op, Metrics) and isinstance(step.result, dict),
    ),
)


def claimed(profile: str) -> tuple[WriterInvariant, ...]:
    """The invariants a profile claims, in catalogue order."""
    return tuple(inv for inv in INVARIANTS if profile in inv.profiles)
