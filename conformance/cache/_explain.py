"""The cache's configuration above a counterexample: the fields its profile reads, with the trigger and watermark.

Said the same way in ``conform``'s terminal, ``replay`` and the HTML report (``render/_explain.py``).
"""

from __future__ import annotations

import dataclasses

from ledgerspec.conformance.render._explain import config_lines
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.spec.cache._config import USED_BY


def cache_config_lines(config: CacheConfig, profile: str, preset: str | None, config_preset: str | None) -> list[str]:
    """The entry cache's: the fields ``profile`` reads, the trigger and watermark in bytes, the presets."""
    origin = [f"preset {preset}"] if preset else []
    origin += [f"config preset {config_preset}"] if config_preset else []
    sizes = {"max_size": f" B (eviction trigger {config.trigger_size} B, watermark {config.watermark_size} B)"}
    return config_lines(
        config, USED_BY.get(profile, tuple(dataclasses.asdict(config))), defaults_of=profile, sizes=sizes, origin=origin
    )


__all__ = ["cache_config_lines"]
