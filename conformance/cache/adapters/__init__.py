"""The cache's adapters: its adapter API (``CacheAdapter``, capabilities, discovery), references and process client.

An adapter drives one cache implementation through the spec's operations and reports its observations.
Three ways to name one on the command line (``--adapter``): an installed name from the
``ledgerspec.adapters`` entry points, ``module:attr`` (a zero-argument callable returning an adapter),
or ``exec:COMMAND`` (a process of any language speaking the JSON-lines protocol v1).
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
