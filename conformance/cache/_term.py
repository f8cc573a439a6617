"""The cache's reports on a terminal: a run's table per invariant, a counterexample's steps, verdict lines."""

from __future__ import annotations

from typing import Any

from ledgerspec.conformance._errors import shown_lines
from ledgerspec.conformance._verdict import Status
from ledgerspec.conformance.cache._case import Case
from ledgerspec.conformance.cache._engine import Report, Row
from ledgerspec.conformance.render._term import escape, styled


def row_reason(report: Report, row: Row) -> str:
    """What a conformance report's row says beside its verdict (the terminal's table and the HTML page)."""
    if row.status == Status.FAIL and row.case is not None:
        return f"counterexample of {len(row.case.steps)} steps (below)"
    if row.status == Status.PASS:
        return "held on every example"
    if row.status == Status.NOT_CLAIMED and not row.detail:
        return f"profile {report.profile} does not claim it"
    return row.detail


def report_table(report: Report) -> Any:
    """A conformance report as a rich table: every invariant, its verdict, why, and its time."""
    from rich.table import Table  # noqa: PLC0415

    title = f"{report.adapter.name} {report.adapter.version} / profile {report.profile}: {styled(report.verdict)}"
    caption = (
        f"preset {report.preset}"
        + (f", config preset {report.named_config}" if report.named_config else "")
        + f", settings {report.settings}, seed {report.seed}: "
        f"{report.examples} examples, {report.steps} steps in {report.seconds:.1f} s"
    )
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    timed = any(row.seconds for row in report.rows)  # an invariant searched in a batch has no time of its own
    table.add_column("invariant", style="bold", no_wrap=True)
    table.add_column("verdict")
    if timed:
        table.add_column("s", justify="right")
    table.add_column("why / what")
    for row in report.rows:
        seconds = [f"{row.seconds:.1f}" if row.seconds else ""] if timed else []
        table.add_row(row.invariant, styled(_held(row.status)), *seconds, escape(row_reason(report, row)))
    if report.fault:
        fault = escape("\n".join(shown_lines(report.fault, "", "", "in the JSON report and the saved case")))
        table.add_row("ADAPTER FAULT", styled("error"), *([""] if timed else []), fault)
    return table


def _held(status: Status) -> str:
    """The word a person reads: held / violated / not checked (and why, from the status)."""
    return {Status.PASS: "pass", Status.FAIL: "fail"}.get(status, str(status))


def counterexample_table(case: Case, *, replay_hint: str | None = None) -> Any:
    """A counterexample as numbered steps with the spec's cache after each; the failing step marked."""
    from rich.table import Table  # noqa: PLC0415

    config = case.config
    title = (
        f"[bold red]{case.invariant or 'ADAPTER FAULT'}[/] (profile {case.profile}, adapter {case.found_with}; "
        f"max {config.max_size} B, trigger {config.trigger_size} B, watermark {config.watermark_size} B)"
    )
    from ledgerspec.conformance.cache._report import NO_STEP_TAKEN, case_config_lines  # noqa: PLC0415 - see the imports
    from ledgerspec.conformance.cache._timeline import steps  # noqa: PLC0415

    caption_lines = [escape(line) for line in case_config_lines(case)]
    caption_lines += [f"no steps: {NO_STEP_TAKEN}"] if case.failing_step == 0 else []
    if case.message:
        caption_lines += [escape(line) for line in shown_lines(case.message, "", "", "in the case file")]
    if case.comment and case.invariant != "CACHE-MODEL":
        caption_lines += [escape(line) for line in case.comment.splitlines()]
    if replay_hint:
        caption_lines.append(escape(f"replay: {replay_hint}"))
    table = Table(title=title, caption="\n".join(caption_lines), title_justify="left", caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("step")
    table.add_column("spec result")
    table.add_column("size", justify="right")
    table.add_column("cache after (ledger:entry=size/expected reads, oldest first)")
    table.add_column("left the cache")
    for step in steps(case):
        style = "on dark_red" if step.breaks else None
        table.add_row(
            str(step.index) + (" ◀" if step.breaks else ""),
            escape(step.op),
            escape(step.result),
            "" if step.size is None else str(step.size),
            escape(step.cache()),
            escape(", ".join(step.evicted)),
            style=style,
        )
    return table


def verdict_lines(report: Report) -> list[str]:
    """``--quiet``: the run's verdict, then one line per invariant that failed."""
    lines = [f"{report.verdict}: {report.adapter.name} / {report.profile}"]
    lines += [f"{row.status.upper()}: {row.invariant}" for row in report.failed()]
    return lines
