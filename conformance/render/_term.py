"""What the commands print: rich tables and progress bars on a terminal, plain text elsewhere.

One home for the choice of output, shared by ``run``, ``conform``, ``matrix``, ``mutants`` and
``traces check``. Rich output (the ``rich`` library) only when stdout is a terminal, ``NO_COLOR``
is unset and ``--plain`` is not given: pipes, files, CI logs and the tests get the plain text the
commands always printed, line for line. ``--quiet`` prints only the verdicts. Progress bars go to
stderr, and only when stderr is a terminal, so they never mix with what a pipe reads.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from ledgerspec.conformance._verdict import SKIPPED

Mode = Literal["rich", "plain", "quiet"]

STYLES = {
    "pass": "bold green",
    "ok": "bold green",
    "fail": "bold red",
    "violation": "bold red",
    "error": "bold magenta",
    "unknown": "yellow",
}
"""Rich styles of verdicts and statuses (lower case); anything not checked is dim."""


def escape(text: str) -> str:
    """Text shown as is in a rich table (a ``[`` in a message is not markup)."""
    from rich.markup import escape as rich_escape  # noqa: PLC0415 - only on a terminal

    return rich_escape(text)


def mode_for(args: argparse.Namespace) -> Mode:
    """Quiet if asked; plain with ``--plain``, ``NO_COLOR`` or stdout not a terminal; else rich."""
    if getattr(args, "quiet", False):
        return "quiet"
    if getattr(args, "plain", False) or os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return "plain"
    return "rich"


@dataclass
class Out:
    """Where a command prints: ``text`` for plain lines, ``show`` for rich renderables, ``verdict`` always."""

    mode: Mode
    console: Any = field(default=None, repr=False)
    _active: Any = field(default=None, repr=False)
    """The ``advance`` of the bar on screen: a bar opened inside it only adds notes to it (one live display)."""

    @classmethod
    def for_args(cls, args: argparse.Namespace) -> Out:
        """The output the options and the terminal ask for."""
        mode = mode_for(args)
        console = None
        if mode == "rich":
            from rich.console import Console  # noqa: PLC0415 - only on a terminal

            console = Console()
        return cls(mode, console)

    @property
    def rich(self) -> bool:
        """Rich renderables are wanted."""
        return self.mode == "rich"

    def text(self, line: str = "") -> None:
        """A plain line (plain mode only: rich mode draws its own, quiet prints verdicts only)."""
        if self.mode == "plain":
            print(line, flush=True)

    def show(self, renderable: Any) -> None:
        """A rich renderable (rich mode only)."""
        if self.console is not None:
            self.console.print(renderable)

    def verdict(self, line: str) -> None:
        """A verdict line: printed in every mode (styled on a terminal)."""
        if self.console is not None:
            word, _, rest = line.partition(" ")
            self.console.print(f"[{STYLES.get(word.strip(':').lower(), 'bold')}]{word}[/] {rest}", highlight=False)
        else:
            print(line, flush=True)

    @contextmanager
    def progress(self, description: str, total: int | None = None) -> Iterator[Any]:
        """A progress bar on stderr (a terminal only); yields a callable ``advance(n=1, note="")``."""
        if not sys.stderr.isatty() or self.mode == "quiet":
            yield _no_progress
            return
        if self._active is not None:
            outer = self._active

            def note_only(n: int = 1, note: str = "", completed: int | None = None) -> None:
                shown = f"{n if completed is None else completed}" if note == "" else note
                outer(0, note=f"{description}: {shown}")

            yield note_only
            return
        from rich.console import Console  # noqa: PLC0415 - only on a terminal
        from rich.progress import (  # noqa: PLC0415
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn() if total else TextColumn("{task.completed}"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}", style="dim"),
            console=Console(stderr=True),
            transient=True,
        )
        task = bar.add_task(description, total=total, note="")

        def advance(n: int = 1, note: str = "", completed: int | None = None) -> None:
            if completed is not None:
                bar.update(task, completed=completed, note=note)
            else:
                bar.update(task, advance=n, note=note)

        self._active = advance
        try:
            with bar:
                yield advance
        finally:
            self._active = None


    @contextmanager
    def spark_stages(self, spark: Any, description: str) -> Iterator[None]:
        """While the body runs, a bar of the Spark tasks done in the active stages (polled from the driver).

        Spark's own console progress bar is off (it would write to the JVM's log); this one reads
        ``statusTracker()``, so it shows what the JVM reports without a line of its output.
        """
        if spark is None or not sys.stderr.isatty() or self.mode == "quiet":
            yield
            return
        import threading  # noqa: PLC0415 - only with a Spark bar

        tracker = spark.sparkContext.statusTracker()
        stop = threading.Event()
        with self.progress(description) as advance:

            def poll() -> None:
                while not stop.wait(0.5):
                    stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
                    stages = [stage for stage in stages if stage is not None]
                    done = sum(stage.numCompletedTasks for stage in stages)
                    total = sum(stage.numTasks for stage in stages)
                    names = ", ".join(f"stage {stage.stageId}" for stage in stages) or "between stages"
                    advance(completed=done, note=f"{names}: {done}/{total} tasks")

            thread = threading.Thread(target=poll, daemon=True)
            thread.start()
            try:
                yield
            finally:
                stop.set()
                thread.join()


def _no_progress(n: int = 1, note: str = "", completed: int | None = None) -> None:
    """Progress where none is drawn."""


def styled(status: str) -> str:
    """A verdict or status with its rich style."""
    style = STYLES.get(status.lower(), "dim" if status in SKIPPED else "")
    return f"[{style}]{status}[/]" if style else status


def simple_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> Any:
    """A rich table of plain cells; verdict-like cells styled."""
    from rich.table import Table  # noqa: PLC0415

    table = Table(title=escape(title), title_justify="left")
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*(styled(str(cell)) if str(cell).lower() in STYLES else escape(str(cell)) for cell in row))
    return table


def kill_table(title: str) -> Any:
    """An empty rich kill matrix; :func:`add_kill_row` adds a mutant once its seeds are run."""
    from rich.table import Table  # noqa: PLC0415

    table = Table(title=title, title_justify="left")
    for header in ("mutant", "profile", "killed", "invariant", "steps", "median s", "worst s"):
        table.add_column(header, justify="right" if header in {"killed", "steps", "median s", "worst s"} else "left")
    return table


def add_kill_row(table: Any, rate: Any) -> None:
    """One mutant (a ``Rate``): seeds that killed it, the invariant credited most, times to kill."""
    credited = rate.invariants.most_common()
    invariant = credited[0][0] + (f" +{len(credited) - 1}" if len(credited) > 1 else "") if credited else "survived"
    steps_ = [kill.steps for kill in rate.kills if kill.killed and kill.steps is not None]
    style = "green" if rate.killed == rate.seeds else "bold red"
    table.add_row(
        rate.mutant.name,
        rate.mutant.profile,
        f"[{style}]{rate.killed}/{rate.seeds}[/]",
        invariant,
        str(max(steps_)) if steps_ else "-",
        "-" if rate.median_seconds is None else f"{rate.median_seconds:.1f}",
        "-" if rate.worst_seconds is None else f"{rate.worst_seconds:.1f}",
    )
