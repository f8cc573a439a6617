"""The shipped sample traces: each gets its expected verdict from the local checker, and the
generator reproduces them byte for byte from their seed. (The Spark checker's agreement on them is
in tests/slow/test_trace_engines.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ledgerspec.traces.cache._local import check_local

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
TRACES = sorted(p for p in SAMPLES.iterdir() if p.suffix in {".jsonl", ".parquet"})


def expected_of(path: Path) -> dict:
    name = (
        path.name.removesuffix(".jsonl") + ".expected.json" if path.suffix == ".jsonl" else path.name + ".expected.json"
    )
    return json.loads((SAMPLES / name).read_text())


def test_every_profile_has_an_ok_and_a_bad_sample():
    names = {p.name for p in TRACES}
    for profile in ("pip430", "pulsar-master", "legacy", "segmented"):
        assert {f"{profile}-ok.jsonl", f"{profile}-bad.jsonl"} <= names


@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_sample_gets_its_expected_verdict(path: Path):
    expected = expected_of(path)
    result = check_local(path)
    assert result.verdict == expected["verdict"]
    found = sorted((v.invariant, v.broker, v.seq) for v in result.violations)
    assert found == sorted((v["invariant"], v["broker"], v["seq"]) for v in expected["violations"])


def test_generator_reproduces_a_sample(tmp_path: Path):
    out = tmp_path / "pip430-bad.jsonl"
    config = '{"max_size": 1000000, "ttl": 5000000, "ttl_max": 25000000, "max_requeue": 3, "segment_size_max": 250000}'
    command = [
        sys.executable,
        "-m",
        "ledgerspec.conformance.cli",
        "traces",
        "generate",
        "--profile",
        "pip430",
        "--workload",
        "mixed",
        "--brokers",
        "2",
        "--topics",
        "4",
        "--events",
        "1500",
        "--seed",
        "1",
        "--config",
        config,
        "--inject",
        "all",
        "--out",
        str(out),
    ]
    subprocess.run(command, check=True, capture_output=True)
    assert out.read_bytes() == (SAMPLES / "pip430-bad.jsonl").read_bytes()
