"""Adapters: how a candidate cache is plugged into the conformance engine.

An adapter drives one implementation through the spec's operations and reports its observations.
Three ways to name one on the command line (``--adapter``):

- an installed name, from the ``ledgerspec.adapters`` entry-point group (``reference-pip430``, ...);
- ``module:attr``, a zero-argument callable returning an adapter;
- ``exec:COMMAND``, a process of any language speaking the JSON-lines protocol v1.
"""

from ledgerspec.conformance.cache.adapters._api import (
    CAPABILITIES,
    AdapterFactory,
    AdapterInfo,
    CacheAdapter,
    installed_adapters,
    load_adapter,
    mask,
    result_problem,
)

__all__ = [
    "CAPABILITIES",
    "AdapterFactory",
    "AdapterInfo",
    "CacheAdapter",
    "installed_adapters",
    "load_adapter",
    "mask",
    "result_problem",
]
