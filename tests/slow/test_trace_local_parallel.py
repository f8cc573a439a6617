"""The local checker with several processes gives the report of one, whatever the row group layout.

Each process reads only the row groups that may hold its brokers (traces/cache/_local.py, ``plan_groups``);
these tests show that no row is lost, checked twice or checked by nobody when groups are skipped.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from ledgerspec.traces._errors import TraceInputError
from ledgerspec.traces.cache import _local
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._inject import injectable
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._local import check_local, plan_groups
from ledgerspec.traces.cache._partitions import group_brokers


def comparable(result) -> dict:
    report = result.to_dict()
    del report["seconds"]
    return report


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("parallel") / "t.parquet"
    return generate_trace(
        str(path),
        workload="mixed",
        brokers=4,
        topics=12,
        events=24_000,
        seed=5,
        profile="pulsar-master",
        inject=injectable("pulsar-master"),
    )


def relayout(source, path, layout: str) -> str:
    """The same rows and header in another row group layout."""
    table = pq.read_table(source)
    if layout == "by-broker":  # every group holds one broker, as `traces generate` writes them
        table = table.take(pc.sort_indices(table, [("broker", "ascending")]))
        groups = [table.filter(pc.equal(table["broker"], b)) for b in sorted(set(table["broker"].to_pylist()))]
        with pq.ParquetWriter(path, table.schema) as writer:
            for group in groups:
                writer.write_table(group, row_group_size=group.num_rows)
        return str(path)
    if layout == "sorted-small":  # most groups hold one broker, a few straddle two
        table = table.take(pc.sort_indices(table, [("broker", "ascending")]))
    pq.write_table(table, path, row_group_size=1_777)  # "interleaved": file order, every group mixed
    return str(path)


@pytest.mark.parametrize("layout", ["by-broker", "sorted-small", "interleaved"])
def test_two_processes_report_what_one_does(generated, tmp_path, layout):
    path = relayout(generated.path, tmp_path / f"{layout}.parquet", layout)
    one = check_local(path, workers=1)
    two = check_local(path, workers=2)
    assert one.verdict == "VIOLATION"
    assert comparable(two) == comparable(one)
    assert two.events == pq.read_metadata(path).num_rows


def test_plans_read_each_single_broker_group_once_and_every_mixed_group(generated, tmp_path):
    path = relayout(generated.path, tmp_path / "sorted-small.parquet", "sorted-small")
    brokers = group_brokers(open_trace(path))
    assert brokers is not None
    assert None in brokers
    assert any(b is not None for b in brokers)
    owners = {b: i % 2 for i, b in enumerate(sorted({b for b in brokers if b is not None}))}
    plans = [plan_groups(brokers, i, 2, owners) for i in range(2)]
    for group, broker in enumerate(brokers):
        readers = [i for i, plan in enumerate(plans) if group in plan]
        assert readers == ([0, 1] if broker is None else [owners[broker]])


def test_a_footer_that_lies_about_a_group_falls_back_to_reading_everything(generated, tmp_path, monkeypatch):
    path = relayout(generated.path, tmp_path / "interleaved.parquet", "interleaved")
    groups = pq.read_metadata(path).num_row_groups
    # Every group claimed by one broker: its owner finds the others in it, and the check is redone.
    monkeypatch.setattr(_local, "group_brokers", lambda trace: ["broker-0"] * groups)
    assert comparable(check_local(path, workers=2)) == comparable(check_local(path, workers=1))


def test_a_stale_plan_is_reported_not_trusted(generated, tmp_path):
    path = relayout(generated.path, tmp_path / "interleaved.parquet", "interleaved")
    groups = pq.read_metadata(path).num_row_groups
    part = _local._check_part(path, 0, 2, None, {"broker-0": 0}, dict.fromkeys(range(groups), "broker-0"))
    assert part.stale


BAD_ROWS = {
    "negative-size": ({"size": -5}, "field 'size' is negative (-5)"),
    # The replay of a process that reads the row unchecked fails on it (a cursor without a name).
    "unnamed-cursor": ({"kind": "cursor_add", "cursor": None, "ledger": 1, "entry": 1}, "'cursor' is required"),
}


@pytest.mark.parametrize("layout", ["by-broker", "interleaved"])
@pytest.mark.parametrize("where", [0.3, 0.5, 0.9])
@pytest.mark.parametrize("bad_row", sorted(BAD_ROWS))
def test_a_bad_row_is_found_by_its_checker_and_named_as_one_process_would(generated, tmp_path, layout, where, bad_row):
    path = relayout(generated.path, tmp_path / f"{layout}.parquet", layout)
    table = pq.read_table(path)
    row = int(table.num_rows * where)
    change, expected = BAD_ROWS[bad_row]
    bad = table
    for name, value in change.items():
        values = bad[name].to_pylist()
        values[row] = value
        bad = bad.set_column(bad.schema.get_field_index(name), name, pa.array(values, bad.schema.field(name).type))
    layout_groups = [
        g.num_rows for g in map(pq.read_metadata(path).row_group, range(pq.read_metadata(path).num_row_groups))
    ]
    with pq.ParquetWriter(path, bad.schema) as writer:
        start = 0
        for rows in layout_groups:
            writer.write_table(bad.slice(start, rows), row_group_size=rows)
            start += rows
    with pytest.raises(TraceInputError) as one:
        check_local(path, workers=1)
    with pytest.raises(TraceInputError) as two:
        check_local(path, workers=2)
    assert str(two.value) == str(one.value)
    assert f"row {row}: " in str(two.value)
    assert expected in str(two.value)


def test_two_processes_report_rows_from_their_shared_counter(generated, tmp_path):
    path = relayout(generated.path, tmp_path / "t.parquet", "interleaved")
    heard: list[tuple[int, int | None]] = []
    result = check_local(path, workers=2, on_rows=lambda done, total: heard.append((done, total)))
    total = open_trace(path).num_rows()
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    assert heard[-1] == (result.events, total)  # every row counted once, by the process that checked it
