"""The bounded FIFO queue's trace vocabulary: each operation an input row, its answer one output row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledgerspec.spec._history import END_KIND, INPUT, OUTPUT, EventKind, Vocabulary, row, unrepresentable

from fifo_queue.spec import Offer, Poll, Size

KINDS: dict[str, EventKind] = {
    kind.name: kind
    for kind in (
        EventKind("offer", INPUT, ("value",), (), "offer(`value`)"),
        EventKind("poll", INPUT, (), (), "poll()"),
        EventKind("size", INPUT, (), (), "size()"),
        EventKind("accepted", OUTPUT, (), (), "the offer was taken", once=True),
        EventKind("refused", OUTPUT, (), (), "the offer was refused (the queue was full)", once=True),
        EventKind("polled", OUTPUT, ("value",), (), "poll answered `value`", once=True),
        EventKind("empty", OUTPUT, (), (), "poll answered nothing (the queue was empty)", once=True),
        EventKind("counted", OUTPUT, ("count",), (), "size answered `count`", once=True),
        END_KIND,
    )
}
OUTPUTS_OF = {"offer": ("accepted", "refused"), "poll": ("polled", "empty"), "size": ("counted",)}


def events(op: Any, result: Any, _sizes: Mapping[int, int]) -> list[dict[str, Any]]:
    """The rows of one operation and the queue's answer, input first."""
    if isinstance(op, Offer) and isinstance(result, bool):
        return [row("offer", value=op.value), row("accepted" if result else "refused")]
    if isinstance(op, Poll) and (result is None or (isinstance(result, int) and not isinstance(result, bool))):
        return [row("poll"), row("empty") if result is None else row("polled", value=result)]
    if isinstance(op, Size) and isinstance(result, int) and not isinstance(result, bool):
        return [row("size"), row("counted", count=result)]
    raise unrepresentable(op, result)


def operation(event: dict[str, Any]) -> Any:
    kind = event["kind"]
    return Offer(value=event["value"]) if kind == "offer" else Poll() if kind == "poll" else Size()


def result(_event: dict[str, Any], outputs: list[dict[str, Any]], _recorded: frozenset[str]) -> Any:
    """The answer rebuilt from the output row (None when it is missing: the checks then see no answer)."""
    if not outputs:
        return None
    out = outputs[0]
    return {"accepted": True, "refused": False, "empty": None}.get(out["kind"], out.get("value", out.get("count")))


VOCABULARY = Vocabulary("fifo-queue", 1, KINDS, OUTPUTS_OF, events, operation, result)
