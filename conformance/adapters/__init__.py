"""Adapters: how a candidate is plugged into the conformance engine, and the shared process transport.

An adapter drives one implementation through the spec's operations and reports its observations.
Three ways to name one on the command line (``--adapter``):

- an installed name, from the ``ledgerspec.adapters`` entry-point group (``reference-pip430``, ...);
- ``module:attr``, a zero-argument callable returning an adapter;
- ``exec:COMMAND``, a process of any language speaking the JSON-lines protocol v1.

The names below are the cache's adapter API, whose home is ``ledgerspec.conformance.cache.adapters``:
they stay importable from here for one release (CHANGELOG), loaded when first used so that the
transport (``_transport.py``), which the cache's API itself imports, does not load it.
"""

from ledgerspec.conformance.systems import lazy_exports

_CACHE_API = "ledgerspec.conformance.cache.adapters._api"

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

__getattr__ = lazy_exports(__name__, **dict.fromkeys(__all__, _CACHE_API))
