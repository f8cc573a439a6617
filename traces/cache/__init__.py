"""The cache's traces: the trace format (FORMAT.md), its readers, both checkers, the generator and the simulator.

The checkers judge each broker's events with the bulk replay (``bulk/``: numpy, an accelerator per
invariant beside the plain normative checks of spec/cache/invariants/, held equal to them by
tests/quality/test_differential.py). This package imports nothing heavy: the command line reads it
for its usage errors.
"""
