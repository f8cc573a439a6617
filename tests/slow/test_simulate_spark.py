"""The simulator's Spark engine gives the local engine's numbers, run by run (one task per run)."""

from __future__ import annotations

import json

from ledgerspec.conformance.cli import main
from ledgerspec.traces.cache.simulate._sweep import Sweep, run_local, run_spark


def test_spark_runs_agree_with_local_runs():
    sweep = Sweep(workload="mixed", cache_sizes=[256 << 10, 1 << 20], seeds=2, steps=400)
    runs = sweep.runs()
    assert len(runs) == 4 * 2 * 2
    assert run_spark(runs, "local[2]") == run_local(runs)


def test_the_command_on_spark_writes_the_local_document(tmp_path, capsys):
    args = ["simulate", "--workload", "key-shared", "--cache-sizes", "512K", "--seeds", "2", "--steps", "300"]
    local, spark = tmp_path / "local.json", tmp_path / "spark.json"
    assert main([*args, "--json", str(local)]) == 0
    assert main([*args, "--engine", "spark", "--master", "local[2]", "--json", str(spark)]) == 0
    capsys.readouterr()
    on_local, on_spark = json.loads(local.read_text()), json.loads(spark.read_text())
    assert (on_local.pop("engine"), on_spark.pop("engine")) == ("local", "spark")
    assert on_spark == on_local
