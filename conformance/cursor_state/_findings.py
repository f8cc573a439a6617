"""The PIP-381 findings (spec/cursor_state/SPEC.md §6, P1-P4), shown by replaying their committed cases.

Each case under ``conformance/cursor_state/findings/`` is a counterexample in the form ``conform
--system cursor-state --json`` keeps one: a configuration and steps. ``ledgerspec spec findings``
replays it on the pip381 reference in lockstep with the pip381 model, judged by what pip381 claims
(which must hold: the reference is the design as written) and by the safety invariant of
``pulsar-master`` the finding breaks; then on the pulsar-master reference, judged by that invariant,
which must hold. A finding is shown only if both replays say so: the suite demonstrates it, it does
not merely assert it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cursor_state import CURSOR_STATE, CursorStateAdapter
from ledgerspec.conformance.lockstep._case import LockstepCase, read_case
from ledgerspec.conformance.lockstep._engine import LockstepRun, Report, Violation, claiming, replay
from ledgerspec.conformance.lockstep._story import story

FINDINGS_DIR = Path(__file__).parent / "findings"
"""The committed cases of P1-P4 (installed with the package)."""
DESIGN, FIXED = "pip381", "pulsar-master"


@dataclass(frozen=True)
class Finding:
    """One committed finding: its key (P1), what it is, what it costs, and its case."""

    key: str
    title: str
    consequence: str
    case: LockstepCase
    path: Path


@dataclass(frozen=True)
class Shown:
    """What the replays said of one finding."""

    finding: Finding
    broken: tuple[str, str] | None
    """(invariant, message) the pip381 reference broke; None: nothing broke."""
    fixed: tuple[str, str] | None
    """What the pulsar-master reference broke on the same steps (None: it keeps the invariant)."""

    @property
    def demonstrated(self) -> bool:
        """The design breaks exactly the finding's invariant and the fixed profile keeps it."""
        return self.broken is not None and self.broken[0] == self.finding.case.invariant and self.fixed is None


def load_findings(folder: Path | None = None) -> list[Finding]:
    """Every case of ``folder`` (the committed ones), by file name (p1, p2, ...); a malformed one is an input error."""
    findings = []
    for path in sorted((folder or FINDINGS_DIR).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}: not JSON: {error}") from None
        for name in ("finding", "title", "consequence", "invariant"):
            if not isinstance(data.get(name), str):
                raise InputError(f"{path}: field {name!r}: want a string, got {data.get(name)!r}")
        case = read_case("cursor-state", data, str(path))
        if case.profile != DESIGN:
            raise InputError(f"{path}: field 'profile': {case.profile!r}; a PIP-381 finding's steps are {DESIGN}'s")
        findings.append(Finding(data["finding"], data["title"], data["consequence"], case, path))
    return findings


def show(finding: Finding) -> Shown:
    """Replay the finding on the pip381 reference, then on pulsar-master's.

    On the first, pip381's claims and the finding's invariant judge each step; on the second, that invariant alone.
    """
    case = finding.case
    assert case.invariant is not None  # load_findings checked it
    design = LockstepRun(
        claiming(CURSOR_STATE, case.invariant), lambda: CursorStateAdapter(DESIGN), DESIGN, capabilities=frozenset()
    )
    fixed = LockstepRun(CURSOR_STATE, lambda: CursorStateAdapter(FIXED), FIXED, (case.invariant,))
    return Shown(finding, replay(design, case.config, case.steps), replay(fixed, case.config, case.steps))


def render(shown: Shown) -> str:
    """A finding as text: what it is, its steps with the cursor's state after each, what broke and what it costs."""
    finding, case = shown.finding, shown.finding.case
    config = json.dumps(case.config.to_dict())
    lines = [f"{finding.key}: {finding.title}", f"  case {finding.path.name}: {len(case.steps)} steps, config {config}"]
    report = Report("cursor-state", DESIGN, 0, "case", [], violation=Violation("", "", case.config, case.steps))
    for step in story(report):
        mark = "   <- breaks here" if step.breaks and shown.broken is not None else ""
        state = step.state
        after = (
            f"mark-delete {state.get('mark-delete', '-')}, acked {state.get('acked ranges', '-')}, "
            f"persisted {state.get('persisted (acknowledged)', '-')}"
        )
        lines.append(f"  {step.index:>2}. {step.op:<39} {step.result:<36} {after}{mark}")
    if shown.broken is None:
        lines.append(f"  NOT SHOWN: reference-{DESIGN} broke nothing on these steps (the case said {case.invariant})")
    else:
        verdict = "FAIL" if shown.broken[0] == case.invariant else "NOT SHOWN (another invariant broke)"
        lines.append(f"  reference-{DESIGN}: {verdict}: {shown.broken[0]}: {shown.broken[1]}")
    held = "holds" if shown.fixed is None else f"FAIL too: {shown.fixed[0]}: {shown.fixed[1]}"
    lines.append(f"  reference-{FIXED} on the same steps: {case.invariant} {held}")
    lines.append(f"  consequence: {finding.consequence}")
    return "\n".join(lines)


def to_json(shown: Shown) -> dict[str, Any]:
    """A finding's replays as data (``spec findings --json``)."""
    case = shown.finding.case
    return {
        "finding": shown.finding.key,
        "title": shown.finding.title,
        "consequence": shown.finding.consequence,
        "case": str(shown.finding.path.name),
        "invariant": case.invariant,
        "demonstrated": shown.demonstrated,
        "design": {"adapter": f"reference-{DESIGN}", "broken": list(shown.broken) if shown.broken else None},
        "fixed": {"adapter": f"reference-{FIXED}", "broken": list(shown.fixed) if shown.fixed else None},
        "config": case.config.to_dict(),
        "steps": [op.to_dict() for op in case.steps],
    }
