"""The txlog-writer system's ``traces record`` walk: a hook of its ``System`` record (``_system.py``)."""

from __future__ import annotations

import random
from typing import Any

from ledgerspec.spec import txlog_writer as tx


def walk(
    rng: random.Random,
    profile: str,  # noqa: ARG001 - one signature per system
    config: tx.WriterConfig,
    count: int,
    capabilities: frozenset[str],  # noqa: ARG001 - one signature per system
) -> list[Any]:
    """Adds around the size thresholds, bursts that fill a batch by count, ticks, completions, metrics, a close.

    Every adapter takes every txlog-writer operation: its capabilities change what it may leave out of
    an answer, never what it is sent (``conform_txlog``).
    """
    limit = config.max_size
    ops: list[tx.WriterOp] = []
    while len(ops) < count:
        moves = ["add", "add", "burst", "tick", "finish", "metrics"] + (["close"] if rng.random() < 0.05 else [])
        move = rng.choice(moves)
        if move == "add":
            ops.append(tx.Add(size=max(1, rng.choice([1, 3, limit // 2, limit - 1, limit, limit + 5]))))
        elif move == "burst":  # a batch's worth of records: the count fills it, and the size too if the last fills it
            last = rng.choice([1, limit - config.max_records + 1])
            ops += [tx.Add(size=1) for _ in range(config.max_records - 1)] + [tx.Add(size=max(1, last))]
        elif move == "tick":
            ops.append(tx.Tick(by=rng.choice([1, 1, 2, 3, 5, 11])))
        elif move == "finish":
            ops.append(tx.Fail() if rng.random() < 0.25 else tx.Complete())
        elif move == "metrics":
            ops.append(tx.Metrics())
        else:  # half the time with a record just added, buffered where batching is on
            ops += [tx.Add(size=1), tx.Close()] if rng.random() < 0.5 else [tx.Close()]
    return ops
