"""Named configurations: their values, where they apply, and that a run under one keeps them pinned."""

from __future__ import annotations

import re

import pytest
from ledgerspec.conformance._errors import InputError
from ledgerspec.conformance.cache._engine import conform
from ledgerspec.conformance.cache.adapters import load_adapter
from ledgerspec.spec import SpecError
from ledgerspec.spec.cache import NAMED_CONFIGS, Configure, get_named_config


def test_the_two_ttl_extension_presets_differ_only_in_the_recently_accessed_extension():
    shipped, after = NAMED_CONFIGS["shipped-4.2.4"], NAMED_CONFIGS["pr-26627"]
    assert shipped.values == {"max_requeue": 5, "extend_ttl": True}
    assert after.values == {"max_requeue": 5, "extend_ttl": False}
    assert {shipped.profile, after.profile} == {"pulsar-master"}
    assert "26627" in after.source


def test_a_named_configuration_of_another_profile_is_refused_with_the_known_names():
    with pytest.raises(SpecError, match="known: none"):
        get_named_config("pr-26627", "legacy")
    with pytest.raises(SpecError, match=re.escape("shipped-4.2.4, pr-26627")):
        get_named_config("nope", "pulsar-master")
    with pytest.raises(InputError, match="--config-preset"):
        conform(load_adapter("reference-legacy"), named_config="pr-26627", examples=1)


class Recording:
    """A reference adapter that remembers every configuration it ran with."""

    def __init__(self) -> None:
        self.inner = load_adapter("reference-pulsar-master")()
        self.info = self.inner.info
        self.seen: list[tuple[str, object]] = []

    def start(self, config):
        self.seen.append(("start", (config.max_requeue, config.extend_ttl)))
        self.inner.start(config)

    def apply(self, op):
        if isinstance(op, Configure):
            self.seen.append(("configure", op.changes()))
        return self.inner.apply(op)

    def observe(self):
        return self.inner.observe()

    def stop(self):
        self.inner.stop()


def test_a_run_under_a_named_configuration_starts_from_it_and_never_changes_it():
    adapters: list[Recording] = []

    def factory() -> Recording:
        adapters.append(Recording())
        return adapters[-1]

    report = conform(factory, named_config="pr-26627", settings="quick", seed=5)
    assert report.verdict == "PASS"
    assert report.named_config == "pr-26627"
    starts = {value for a in adapters for kind, value in a.seen if kind == "start"}
    assert starts == {(5, False)}
    changes = [value for a in adapters for kind, value in a.seen if kind == "configure"]
    assert changes, "the search still changes the other settings at run time"
    assert all(not {"max_requeue", "extend_ttl"} & set(change) for change in changes)
