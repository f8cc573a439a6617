"""The names ``traces`` and ``simulate`` offer on the command line, without importing what they name.

A usage error or ``--help`` must cost about a Python start (conformance/cli/_main.py), and the
generator and the simulator import the spec, the reference caches, numpy and pyarrow. The names are
written here once more; tests/unit/test_cli_startup.py keeps them equal to their sources.
"""

from __future__ import annotations

GENERATE_WORKLOADS = ("tailing", "catchup", "key-shared", "fanout", "mixed", "edge")
"""``ledgerspec.traces.cache._generate.WORKLOADS``: ``traces generate --workload`` and ``traces record --workload``."""
SIMULATE_PROFILES = ("pip430", "pulsar-master", "legacy", "segmented")
"""``ledgerspec.traces.cache.simulate._sweep.PROFILES`` (the reference caches' order): ``simulate --profiles``."""
SIMULATE_SIZES = (2 << 20, 8 << 20, 32 << 20, 128 << 20)
"""``ledgerspec.traces.cache.simulate._sweep.DEFAULT_SIZES``: the default of ``simulate --cache-sizes``."""
