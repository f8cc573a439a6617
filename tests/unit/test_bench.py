"""The bench's round-trip summary: medians over rounds, ratios taken within a round."""

from __future__ import annotations

from ledgerspec.conformance.cache._bench import _round_trip_lines


def figures(median: float) -> dict[str, float]:
    return {"median_us": median, "p90_us": median * 2, "p99_us": median * 3, "steps_per_second": 1e6 / median}


def test_ratios_are_taken_within_each_round():
    # the machine is twice as slow in the second round: the process adapter is 1.5x in both
    rounds = [[figures(50), figures(75)], [figures(100), figures(150)], [figures(60), figures(90)]]
    in_process, process = _round_trip_lines(rounds)
    assert in_process.startswith("median    60.0 us (50.0-100.0)")
    assert "(1.00x in-process)" in in_process
    assert process.startswith("median    90.0 us (75.0-150.0)  p90   180.0  p99   270.0")
    assert process.endswith("(1.50x in-process)")


def test_one_round_has_no_range():
    (line,) = _round_trip_lines([[figures(80)]])
    assert line.startswith("median    80.0 us  p90")
