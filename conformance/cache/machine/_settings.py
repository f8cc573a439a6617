"""The configuration rules of the lockstep machine.

Dynamic settings changed at run time, and the TTL-extension switch drawn once at the start of an
example.

``extend_ttl`` (pulsar-master's "a pass requeues an entry read since it was queued") is true in
every preset; drawn off at the start of half the examples, a pass must remove a read entry whose
budget is spent, which a run-time change late in an example rarely gives the search time to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule
from ledgerspec.spec.cache import Configure

if TYPE_CHECKING:
    from ledgerspec.conformance.cache.machine._core import Run


def settings_rules(run: Run) -> type:
    """A mixin with the configuration rules, for adapters that claim ``configure``."""
    preset = run.preset
    can_configure = "configure" in run.info.capabilities and "configure" not in run.exclude

    class SettingsRules:
        """``configure`` at run time, and ``extend_ttl`` drawn at the start."""

        @initialize(extend_ttl=st.sampled_from([True, False]))
        def starting_settings(self: Any, extend_ttl: bool) -> None:
            """Half the pulsar-master examples run with the TTL extension off from the start.

            Off is drawn second, so the simplest examples are not the off ones (see ``starting_tracking``).
            """
            pinned = "configure:extend_ttl" in run.exclude
            if run.profile == "pulsar-master" and can_configure and not pinned and not extend_ttl:
                self.step(Configure(now=self.tick(), extend_ttl=False))

        @precondition(lambda _self: can_configure)
        @rule(
            field=st.sampled_from(["max_size", "watermark", "ttl", "ttl_max", "max_requeue", "extend_ttl"]),
            data=st.data(),
        )
        def configure(self: Any, field: str, data: st.DataObject) -> None:
            """A dynamic broker setting changes at run time (not one a named configuration pins)."""
            if (field == "max_size" and run.profile == "segmented") or f"configure:{field}" in run.exclude:
                return
            choices: dict[str, Any] = {
                "max_size": preset.max_sizes,
                "watermark": preset.watermarks,
                "ttl": preset.ttls,
                "ttl_max": preset.ttl_maxes,
                "max_requeue": preset.max_requeues,
                "extend_ttl": (False, True),
            }
            value = data.draw(st.sampled_from(choices[field]), label=field)
            self.step(Configure(now=self.tick(), **{field: value}))

    return SettingsRules
