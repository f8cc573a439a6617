"""``traces record`` then ``traces check`` on a correct reference gives OK (issue 15's opening example).

The recorder sees a size pass's requeues but not their order: a pass may go round the queue and
requeue an entry twice. It used to order them by when they entered the queue before, and the
checker then reported CACHE-OLDEST-FIRST on the correct reference-pulsar-master with a 512 KiB cache.
"""

from __future__ import annotations

from ledgerspec.conformance.cli import main


def test_recording_a_correct_reference_then_checking_it_is_ok(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    config = '{"max_size":524288}'
    assert (
        main(["traces", "record", "--adapter", "reference-pulsar-master", "--config", config, "--out", str(trace)]) == 0
    )
    assert main(["traces", "check", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "OK: " in out
    assert "violation" not in out
    assert '"kind":"requeue"' in trace.read_text().replace(" ", "")  # the passes did requeue entries
