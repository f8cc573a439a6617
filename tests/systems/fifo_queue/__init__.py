"""A fourth system, for tests only: a bounded FIFO queue (tests/README.md, "How to add a system").

It proves that a system is one record in its own folder: nothing under spec/, conformance/ or traces/
names it. It is found through the ``ledgerspec.systems`` entry point of ``fifo_queue-0.1.dist-info``
beside this folder (tests/conftest.py puts tests/systems on ``sys.path``; CLI subprocesses get it
in ``PYTHONPATH``).
"""
