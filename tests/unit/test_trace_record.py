"""``traces record`` then ``traces check`` on a correct reference gives OK (issue 15's opening example).

The recorder sees a size pass's requeues but not their order: a pass may go round the queue and
requeue an entry twice. It used to order them by when they entered the queue before, and the
checker then reported CACHE-OLDEST-FIRST on the correct reference-pulsar-master with a 512 KiB cache.
"""

from __future__ import annotations

import json

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


def test_a_ttl_near_the_int64_range_gives_a_trace_the_checker_reads(tmp_path, capsys):
    """The edge workload jumps to entries' TTLs; with a TTL of 10^18 its jumps used to run the clock past
    int64, and the checker refused the trace the recorder wrote (and ``generate --expected`` said OK)."""
    trace = tmp_path / "t.jsonl"
    config = '{"ttl":1000000000000000000}'
    args = ["--workload", "edge", "--events", "3000", "--seed", "155", "--config", config, "--out", str(trace)]
    assert main(["traces", "record", "--adapter", "reference-pip430", *args]) == 0
    assert main(["traces", "check", "--engine", "local", str(trace)]) == 0
    assert "OK: " in capsys.readouterr().out
    times = [json.loads(line).get("time", 0) for line in trace.read_text().splitlines()[1:]]
    assert max(times) > 10**18  # the jumps were made, as far as the range allows
