"""Packing brokers into partitions (and local processes) by their event counts, and counting them."""

from __future__ import annotations

import collections

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from ledgerspec.traces.cache._generate import generate_trace
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._partitions import broker_counts, pack


def test_pack_puts_every_broker_in_one_bin_heaviest_first():
    counts = {"a": 10, "b": 9, "c": 8, "d": 3, "e": 2}
    bins = pack(counts, 2)
    assert sorted(b for bin_ in bins for b in bin_) == sorted(counts)
    loads = [sum(counts[b] for b in bin_) for bin_ in bins]
    assert loads == [17, 15]  # largest first into the lightest bin: a+d+e and b+c


def test_pack_leaves_no_empty_bin():
    assert pack({"a": 5, "b": 1}, 8) == [["a"], ["b"]]


def test_pack_balances_many_brokers_within_the_largest_one():
    counts = {f"broker-{i}": 1000 + (i * 7919) % 5000 for i in range(200)}
    loads = [sum(counts[b] for b in bin_) for bin_ in pack(counts, 16)]
    assert max(loads) - min(loads) <= max(counts.values())


@pytest.mark.parametrize("brokers", [1, 5])
def test_broker_counts_match_a_full_count(tmp_path, brokers):
    path = generate_trace(str(tmp_path / "t.parquet"), brokers=brokers, topics=10, events=30_000, seed=2).path
    full = collections.Counter(pq.read_table(path, columns=["broker"]).column(0).to_pylist())
    assert broker_counts(open_trace(path)) == dict(full)


def test_broker_counts_read_single_broker_row_groups_from_the_footer(tmp_path, monkeypatch):
    path = generate_trace(str(tmp_path / "t.parquet"), brokers=4, topics=8, events=20_000, seed=2).path
    table = pq.read_table(path)
    by_broker = table.take(pc.sort_indices(table, [("broker", "ascending")]))
    pq.write_table(by_broker, path, row_group_size=777)  # all but a few row groups hold one broker
    full = collections.Counter(table.column("broker").to_pylist())
    read = []
    original = pq.ParquetFile.read_row_group

    def counted(self, group, **options):
        read.append(group)
        return original(self, group, **options)

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", counted)
    assert broker_counts(open_trace(path)) == dict(full)
    assert 0 < len(read) <= 3 < pq.read_metadata(path).num_row_groups


def test_broker_counts_need_parquet(tmp_path):
    path = generate_trace(str(tmp_path / "t.jsonl"), brokers=2, topics=4, events=500, seed=2).path
    assert broker_counts(open_trace(path)) is None
