"""The cursor-state invariants: each stated, cited, claimed by its profiles and checked here, once.

A check sees one step: the model before and after it (its facts: what each persist wrote, which
callbacks succeeded, what was ever acknowledged), the operation, the candidate's result and the
model's. It returns a message when the step breaks the invariant.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledgerspec.spec._records import LockstepInvariant
from ledgerspec.spec.cursor_state._citations import CITATIONS
from ledgerspec.spec.cursor_state._model import PROFILES, Model, Result, Write
from ledgerspec.spec.cursor_state._ops import CursorOp, Recover
from ledgerspec.spec.cursor_state._state import AckState, initial

PIP381 = "apache/pulsar PR #22799, `managed-ledger/.../impl/ManagedCursorImpl.java` at 048142ca"
MASTER = "apache/pulsar `managed-ledger/.../impl/ManagedCursorImpl.java` at a365c60cb9 (single entry)"


@dataclass(frozen=True)
class Step:
    """One step as a check sees it."""

    before: Model
    after: Model
    op: CursorOp
    result: Result
    expected: Result
    writes: tuple[Write, ...] | None = None
    """The candidate's writes in this step, when it reports them (capability ``writes``); None: unseen."""


CursorInvariant = LockstepInvariant[Step]
"""Its invariants: one check of a step's facts (``spec/_records.LockstepInvariant``)."""


def state_from_dict(data: object) -> AckState:
    """A recovered state as a candidate reports it (``AckState.to_dict``); a malformed one raises."""
    if not isinstance(data, dict):
        raise TypeError(f"want a state object, got {data!r}")
    return AckState(
        tuple(data["mark_delete"]),
        frozenset(tuple(p) for p in data["acked"]),
        tuple((tuple(p), frozenset(s)) for p, s in data["batch"]),
        tuple(sorted(data["properties"].items())),
    )


def _a_recovery(step: Step) -> bool:
    return isinstance(step.op, Recover)


def _a_recovered_state(step: Step) -> bool:
    return isinstance(_recovered(step), AckState) and not step.before.lost


def _recovered(step: Step) -> AckState | str | None:
    """The candidate's recovered state, ``"failed"``, or None when the step is no recovery."""
    if not isinstance(step.op, Recover):
        return None
    if step.result == "failed":
        return "failed"
    try:
        return state_from_dict(step.result)
    except (KeyError, TypeError, ValueError) as error:
        return f"malformed: {error}"


def _acknowledged(model: Model) -> AckState:
    """The state recovery must not fall behind: the newest acknowledged persist's, unless data was lost since."""
    made, kept = model.floor
    return model.persists[model.acknowledged] if model.acknowledged > made else kept


def _newer(model: Model) -> int:
    """Persists numbered above this were made after the state :func:`_acknowledged` gives."""
    return max(model.acknowledged, model.floor[0])


def _written_newer(model: Model) -> list[AckState]:
    """What writes newer than the acknowledged persist carry: persists not failed, and new ledgers' first writes.

    Each is the cursor's state when written, so it holds everything acknowledged before, within the profile's
    caps (``maxUnackedRangesToPersist``), which a ledger entry applies by ranges or entries and the metadata store
    by ranges: recovering one of them exactly loses only what the profile's cap leaves out.
    """
    newer = _newer(model)
    persists = [form for n, form in model.persists.items() if n > newer and model.completed.get(n) is not False]
    return persists + [form for n, form in model.first_writes.values() if n > newer]


def _model(step: Step) -> str | None:
    if step.result != step.expected:
        return _cited(step, f"{step.op.describe()} gave {step.result!r}; the profile gives {step.expected!r}")
    return None


def _cited(step: Step, message: str, *aspects: str) -> str:
    """The message of a divergence from the model, and on a line of its own the rule that gave the expectation."""
    where = ("no_ledger",) if step.before.open_ledger is None else ()
    rule = CITATIONS[step.before.profile].cite(step.op.kind, (*where, *aspects))
    return message if rule is None else f"{message}\n{rule}"


def _writes(step: Step) -> str | None:
    """The writes are the model's (``_model._write``, ``_meta_update``).

    Which adds, in which order, of which sizes, at which entries: so a footer early, a chunk missing or a
    metadata update skipped shows at the write where it happens.
    """
    if step.writes is None:
        return None
    want = tuple(step.after.written)
    if tuple(step.writes) == want:
        return None
    pairs = enumerate(zip(step.writes, want, strict=False))
    at = next((i for i, (a, b) in pairs if a != b), min(len(want), len(step.writes)))
    got = _shown(step.writes[at]) if at < len(step.writes) else "nothing"
    wanted = _shown(want[at]) if at < len(want) else "nothing"
    return _cited(
        step,
        f"{step.op.describe()} made {len(step.writes)} writes, the profile {len(want)}; "
        f"write {at + 1} is {got}, the profile's {wanted}",
        "writes",
    )


def _shown(write: Write) -> str:
    kind, ledger, entry, size, error = write
    where = f"ledger {ledger}" + (f" entry {entry}" if entry is not None else "")
    what = f", {size} bytes" if size is not None else ""
    return f"{kind} ({where}{what}{', failed' if error is not None else ''})"


def _callback_once(step: Step) -> str | None:
    if not isinstance(step.result, list):
        return None
    seen: set[int] = set()
    for item in step.result:
        number = item[0] if isinstance(item, list) and item else None
        if not isinstance(number, int) or number not in step.before.persists:
            return f"{step.op.describe()} completed persist {number!r}, which was never issued"
        if number in step.before.completed or number in seen:
            return f"{step.op.describe()} completed persist {number} a second time"
        seen.add(number)
    return None


def _recover_acknowledged(step: Step) -> str | None:
    got = _recovered(step)
    if got is None:
        return None
    model = step.before
    allowed = [_acknowledged(model), *_written_newer(model)]
    if model.lost:
        allowed.append(initial(model.meta[1].mark_delete))
    if got not in allowed:
        shown = got if isinstance(got, str) else got.to_dict()
        known = _acknowledged(model).to_dict()
        return (
            f"recovered {shown}; persist {model.acknowledged} was acknowledged with {known}, "
            "and no newer persist wrote this"
        )
    return None


def _no_ack_loss(step: Step) -> str | None:
    got = _recovered(step)
    if not isinstance(got, AckState) or step.before.lost or got in _written_newer(step.before):
        return None
    known = _acknowledged(step.before)
    lost = sorted(p for p in known.acked | {known.mark_delete} if p[1] >= 0 and not got.is_acked(p))
    every = frozenset(range(step.before.config.batch_size))
    unacked = dict(got.batch)
    lost_indexes = [
        (p, sorted(unacked.get(p, every) - s))
        for p, s in known.batch
        if not got.is_acked(p) and unacked.get(p, every) - s
    ]
    if lost or lost_indexes:
        return (
            f"acknowledged in persist {step.before.acknowledged} but unacknowledged after recovery: "
            f"entries {lost}, batch indexes {lost_indexes}"
        )
    return None


def _mark_delete_monotone(step: Step) -> str | None:
    got = _recovered(step)
    if not isinstance(got, AckState) or step.before.lost:
        return None
    known = _acknowledged(step.before)
    if got.mark_delete < known.mark_delete:
        number = step.before.acknowledged
        return f"mark-delete position went back from {known.mark_delete} (persist {number}) to {got.mark_delete}"
    return None


def _passed_unacknowledged(model: Model, mark: tuple[int, int]) -> bool:
    """A recovered mark-delete position past the highest one ever held covers an entry never acknowledged.

    Past it over entries each acknowledged on their own is the same acknowledged set in another form (a release's
    ``setAcknowledgedPosition`` may have moved on over a run the model no longer holds, DEVIATIONS.md C4 and C6);
    into another ledger, whose entries the spec cannot count, it is a phantom.
    """
    ledger, entry = model.ever_mark
    if mark <= model.ever_mark:
        return False
    if mark[0] != ledger:
        return True
    return any((ledger, e) not in model.ever_acked for e in range(entry + 1, mark[1] + 1))


def _no_phantom_ack(step: Step) -> str | None:
    got = _recovered(step)
    if not isinstance(got, AckState):
        return None
    model = step.before
    phantom = sorted(p for p in got.acked if p > model.ever_mark and p not in model.ever_acked)
    if _passed_unacknowledged(model, got.mark_delete) or phantom:
        return (
            f"recovered acknowledgements never made: mark-delete {got.mark_delete} "
            f"(highest ever {model.ever_mark}), entries {phantom}"
        )
    return None


BOTH = PROFILES
INVARIANTS: tuple[CursorInvariant, ...] = (
    CursorInvariant(
        "CURSOR-MODEL",
        "every result (persist numbers, callbacks, recovered state) is the profile's",
        f"{PIP381}; {MASTER}",
        BOTH,
        _model,
        ("callback", "recovered"),
    ),
    CursorInvariant(
        "CURSOR-WRITES",
        (
            "each step writes what the profile writes: one entry, or chunks of `chunk_size` bytes then the "
            "footer, last, at consecutive entries; and each metadata-store update"
        ),
        f"{PIP381} (`persistPositionToLedger`, `writeToBookKeeperLastChunk`); {MASTER}",
        BOTH,
        _writes,
        ("chunk_write", "footer", "meta_update"),
        judges=lambda step: step.writes is not None,
    ),
    CursorInvariant(
        "CURSOR-CALLBACK-ONCE",
        "a persist's callback completes once, and only for a persist that was made",
        f"{PIP381} (`writeToBookKeeperLastChunk`)",
        BOTH,
        _callback_once,
        ("callback",),
    ),
    CursorInvariant(
        "CURSOR-RECOVER-ACKNOWLEDGED",
        (
            "recovery gives exactly what the last acknowledged persist wrote, or what a newer persist wrote "
            "whole; never a torn or mixed state"
        ),
        MASTER,
        ("pulsar-master",),
        _recover_acknowledged,
        ("recovered",),
        judges=_a_recovery,
    ),
    CursorInvariant(
        "CURSOR-NO-ACK-LOSS",
        "nothing the last acknowledged persist held acknowledged comes back unacknowledged, but what the "
        "cap (maxUnackedRangesToPersist) leaves out of a newer write recovered whole",
        MASTER,
        ("pulsar-master",),
        _no_ack_loss,
        ("recovered",),
        judges=_a_recovered_state,
    ),
    CursorInvariant(
        "CURSOR-MARK-DELETE-MONOTONE",
        "the mark-delete position never moves back across recovery",
        MASTER,
        ("pulsar-master",),
        _mark_delete_monotone,
        ("recovered",),
        judges=_a_recovered_state,
    ),
    CursorInvariant(
        "CURSOR-NO-PHANTOM-ACK",
        "recovery never acknowledges what the cursor never acknowledged (no unacknowledged message is lost)",
        MASTER,
        ("pulsar-master",),
        _no_phantom_ack,
        ("recovered",),
        judges=lambda step: isinstance(_recovered(step), AckState),
    ),
)


def claimed(profile: str) -> tuple[CursorInvariant, ...]:
    """The invariants a profile claims, in catalogue order."""
    return tuple(inv for inv in INVARIANTS if profile in inv.profiles)
