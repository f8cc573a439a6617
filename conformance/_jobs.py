"""Runs of independent searches in worker processes, their results in the order they were asked for.

The kill matrix is one search per mutant and seed, each independent of the others: ``--jobs N`` runs
them in N processes. The results come back in task order whatever finishes first, so the printed
table and the JSON are those of a run in one process. Workers are forked where the platform can
(Linux), so a mutant module loaded from a path is already imported in each of them.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")


def ordered_map(function: Callable[[Task], Result], tasks: Iterable[Task], jobs: int = 1) -> Iterator[Result]:
    """``function`` over ``tasks`` in ``jobs`` processes (1: in this one), results in task order.

    ``function`` must be a module-level function and the tasks and results picklable.
    """
    work = list(tasks)
    jobs = min(jobs, len(work), os.cpu_count() or 1)  # more processes than tasks or cores only cost
    if jobs <= 1:
        yield from map(function, work)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        yield from pool.map(function, work)


__all__ = ["ordered_map"]
