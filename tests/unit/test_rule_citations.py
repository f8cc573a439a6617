"""Every rule a model divergence cites is in its SPEC.md: the section, the words naming it, the upstream code.

The tables (``CITATIONS``: spec/cache/{pip430,pulsar_master,legacy,segmented}.py, spec/cursor_state/_citations.py,
spec/txlog_writer/_citations.py) must stay truthful as the SPEC.md files change: a renumbered section or a
method no longer named there fails here.
"""

from __future__ import annotations

import re

import pytest
from ledgerspec.spec import cursor_state
from ledgerspec.spec import txlog_writer as txlog
from ledgerspec.spec._rules import SPEC_ROOT, RuleTable, sections
from ledgerspec.spec.cache import Monitor
from ledgerspec.spec.cache._config import CacheConfig
from ledgerspec.spec.cache._ops import EvictSize, Insert
from ledgerspec.spec.cache._profiles import PROFILES
from ledgerspec.spec.cursor_state._citations import CITATIONS as CURSOR_CITATIONS
from ledgerspec.spec.cursor_state._ops import OPERATIONS as CURSOR_OPERATIONS
from ledgerspec.spec.txlog_writer._citations import CITATIONS as TXLOG_CITATIONS
from ledgerspec.spec.txlog_writer._ops import OPERATIONS as TXLOG_OPERATIONS

TABLES: list[tuple[str, RuleTable, set[str]]] = [
    *((f"cache/{name}", p.citations, {op.kind for op in p.operations}) for name, p in PROFILES.items()),
    *((f"cursor-state/{name}", t, set(CURSOR_OPERATIONS)) for name, t in CURSOR_CITATIONS.items()),
    *((f"txlog-writer/{name}", t, set(TXLOG_OPERATIONS)) for name, t in TXLOG_CITATIONS.items()),
]


@pytest.mark.parametrize(("name", "table", "kinds"), TABLES, ids=[t[0] for t in TABLES])
def test_every_cited_section_topic_and_method_is_in_the_spec(name: str, table: RuleTable, kinds: set[str]) -> None:
    """The section heading exists, the topic is in that section, and each part of each method is in the file."""
    found = sections(table.spec)
    text = (SPEC_ROOT.parent / table.spec).read_text(encoding="utf-8")
    for key, rule in table.rules.items():
        assert rule.section in found, f"{name} {key}: {table.spec} has no section {rule.section}"
        assert rule.topic in found[rule.section], f"{name} {key}: §{rule.section} never says {rule.topic!r}"
        for method in rule.methods:
            for part in method.split("."):
                assert re.search(rf"\b{re.escape(part)}\b", text), f"{name} {key}: {table.spec} never names {part}"


@pytest.mark.parametrize(("name", "table", "kinds"), TABLES, ids=[t[0] for t in TABLES])
def test_every_operation_of_a_profile_has_a_rule(name: str, table: RuleTable, kinds: set[str]) -> None:
    """A divergence at any operation can name its rule; no key names an operation the profile lacks."""
    assert not kinds - set(table.rules), f"{name}: no rule for {sorted(kinds - set(table.rules))}"
    keyed = {key.split("/")[0] for key in table.rules} - {"*"}
    assert keyed <= kinds, f"{name}: rules for operations it does not have: {sorted(keyed - kinds)}"


def test_a_cache_divergence_names_the_size_eviction_rule() -> None:
    """An entry the spec's size pass removes and the candidate keeps: the message cites §5.2's size pass."""
    config = CacheConfig(max_size=300, watermark=0.5, ttl=10, ttl_max=40, max_requeue=2, segment_size_max=128)
    monitor = Monitor("pulsar-master", config, invariants=["CACHE-MODEL"])
    first = monitor.profile.step(monitor.profile.init(config), Insert(now=1, ledger=1, entry=0, size=200))
    kept = monitor.profile.observe(next(iter(first)).state)
    assert monitor.check(Insert(now=1, ledger=1, entry=0, size=200), True, kept) == []
    second = next(iter(monitor.profile.step(next(iter(first)).state, Insert(now=2, ledger=1, entry=1, size=200))))
    after = monitor.profile.observe(second.state)
    assert monitor.check(Insert(now=2, ledger=1, entry=1, size=200), True, after) == []
    (violation,) = monitor.check(EvictSize(now=3), None, after)  # the candidate evicts nothing
    rule = violation.message.splitlines()[-1]
    assert rule == (
        'rule: spec/cache/SPEC.md §5.2 "Size pass": RangeEntryCacheManagerImpl.doEvictToWatermarkWhenOverThreshold, '
        "RangeCacheRemovalQueue.evictLeastAccessedEntries (upstream: apache/pulsar PR #24623, managed-ledger 4.2.4)"
    )


def test_a_lockstep_divergence_names_its_rule() -> None:
    """The cursor state's and the txlog writer's model checks cite their SPEC.md too (one mechanism)."""
    model = txlog.init("pulsar-master")
    op = txlog.Add(size=1)
    after, expected = txlog.step(model, op)
    step = txlog.Step(model, after, op, [["bogus"]], expected)
    message = next(inv for inv in txlog.INVARIANTS if inv.id == "TXLOG-MODEL").check(step)
    assert message is not None
    assert message.splitlines()[-1].startswith('rule: spec/txlog_writer/SPEC.md §3 "Add, batching on": ')
    cursor = cursor_state.init("pulsar-master")
    persist = cursor_state.Persist(value=1)
    cursor_after, want = cursor_state.step(cursor, persist)
    check = next(inv for inv in cursor_state.INVARIANTS if inv.id == "CURSOR-MODEL").check
    said = check(cursor_state.Step(cursor, cursor_after, persist, 99, want))
    assert said is not None
    # no cursor ledger is open yet: the persist creates one first (NoLedger), not the State Open write
    assert said.splitlines()[-1].startswith('rule: spec/cursor_state/SPEC.md §3 "NoLedger": createNewMetadataLedger')
