"""``ledgerspec spec findings``: P1-P4 of spec/cursor_state/SPEC.md §6 replayed from their committed cases.

Each must break its invariant on the pip381 reference and hold on pulsar-master's, shown as steps
with the cursor's state, the broken invariant's message and the consequence; a case that no longer
shows its finding makes the command fail, and a malformed one is a one-line input error.
"""

from __future__ import annotations

import json

import pytest
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cli import main
from ledgerspec.conformance.cursor_state import _findings as findings

EXPECTED = {
    "P1": ("CURSOR-NO-ACK-LOSS", "entries [(1, 3), (1, 5)]", "redelivery"),
    "P2": ("CURSOR-NO-ACK-LOSS", "batch indexes [((1, 2), [0])]", "redelivery"),
    "P3": ("CURSOR-NO-PHANTOM-ACK", "mark-delete (1, 2) (highest ever (1, -1))", "message loss"),
    "P4": ("CURSOR-MARK-DELETE-MONOTONE", "went back from (1, 3)", "redelivery"),
}


def test_every_finding_is_demonstrated_with_its_counterexample_and_consequence(tmp_path, capsys):
    out = tmp_path / "f.json"
    assert main(["spec", "findings", "--system", "cursor-state", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4/4 findings demonstrated" in text
    document = json.loads(out.read_text())
    assert [f["finding"] for f in document["findings"]] == list(EXPECTED)
    for shown in document["findings"]:
        invariant, message, consequence = EXPECTED[shown["finding"]]
        assert shown["demonstrated"] is True
        assert shown["design"]["broken"][0] == invariant
        assert message in shown["design"]["broken"][1]
        assert shown["fixed"]["broken"] is None
        assert shown["consequence"].startswith(consequence)
        assert f"reference-pip381: FAIL: {invariant}: " in text
        assert f"reference-pulsar-master on the same steps: {invariant} holds" in text
    assert text.count("<- breaks here") == len(EXPECTED)


def test_a_case_that_no_longer_breaks_its_invariant_fails_the_command(tmp_path, monkeypatch, capsys):
    source = findings.FINDINGS_DIR / "p1-torn-first-chunk.json"
    data = json.loads(source.read_text())
    data["steps"] = data["steps"][:-1]  # no recovery: nothing breaks
    (tmp_path / "p1.json").write_text(json.dumps(data))
    monkeypatch.setattr(findings, "FINDINGS_DIR", tmp_path)
    assert main(["spec", "findings"]) == 1
    text = capsys.readouterr().out
    assert "NOT SHOWN: reference-pip381 broke nothing on these steps (the case said CURSOR-NO-ACK-LOSS)" in text
    assert "0/1 findings demonstrated" in text


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("{", "not JSON"),
        ('{"finding": "P9", "title": "t", "consequence": "c"}', "field 'invariant': want a string"),
    ],
)
def test_a_malformed_case_is_an_input_error_naming_the_file(tmp_path, body, error):
    (tmp_path / "bad.json").write_text(body)
    with pytest.raises(InputError, match=rf"bad\.json: .*{error}"):
        findings.load_findings(tmp_path)


def test_replay_judges_a_findings_invariant_its_profile_does_not_claim(capsys):
    """``replay`` of a case whose invariant its profile does not claim checked nothing and said PASS."""
    case = str(findings.FINDINGS_DIR / "p3-later-chunk-skips-unacknowledged.json")
    assert main(["replay", case, "--adapter", "reference-pip381"]) == 1
    text = capsys.readouterr().out
    assert "judged by CURSOR-NO-PHANTOM-ACK (which pip381 does not claim)" in text
    assert "FAIL: CURSOR-NO-PHANTOM-ACK: recovered acknowledgements never made: mark-delete (1, 2)" in text
    assert main(["replay", case, "--adapter", "reference-pulsar-master"]) == 0


def test_replay_of_an_invariant_the_system_lacks_is_an_input_error(tmp_path, capsys):
    data = json.loads((findings.FINDINGS_DIR / "p3-later-chunk-skips-unacknowledged.json").read_text())
    case = tmp_path / "c.json"
    case.write_text(json.dumps({**data, "invariant": "CURSOR-NOPE"}))
    assert main(["replay", str(case), "--adapter", "reference-pip381"]) == 2
    assert f"{case}: field 'invariant': 'CURSOR-NOPE'; the cursor-state system has" in capsys.readouterr().err
