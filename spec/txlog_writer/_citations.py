"""Which rule of spec/txlog_writer/SPEC.md gives each operation's expectation, per profile.

A ``TXLOG-MODEL`` divergence names the rule behind the step (``spec/_rules.py``): the same mechanism as
the entry cache's ``CITATIONS``, one table per profile. The profiles differ in the delay (a one-shot timer
swept at fixed times [merged]; a deadline per batch [PIP]); the rest of ``pip160`` is the code's.
"""

from __future__ import annotations

from ledgerspec.spec._rules import Rule, RuleTable

SPEC = "spec/txlog_writer/SPEC.md"


def _table(source: str, delay: Rule, large: Rule) -> RuleTable:
    """The rules of one profile, with its delay rule and its rule for a record of ``max_size`` bytes or more."""
    completion = Rule("3", "Completion", ("TxnBatchedPositionImpl",))
    return RuleTable(
        SPEC,
        source,
        {
            "add": Rule("3", "Add, batching on", ("TxnLogBufferedWriter.internalAsyncAddData",)),
            "add/unbatched": Rule("3", "Batching off"),
            "add/large": large,
            "tick": delay,
            "complete": completion,
            "fail": completion,
            "close": Rule("3", "Close", ("TxnLogBufferedWriter.close",)),
            "metrics": Rule("3", "Flush", ("doFlush", "TxnLogBufferedWriterMetricsStats")),
            "*/flush": Rule("3", "Flush", ("doFlush",)),
        },
    )


CITATIONS: dict[str, RuleTable] = {
    "pulsar-master": _table(
        "apache/pulsar TxnLogBufferedWriter.java at d2beb06e21",
        Rule("1", "a one-shot timer", ("doFlush",)),
        Rule("1", "then is written alone, unbatched", ("TxnLogBufferedWriter.internalAsyncAddData",)),
    ),
    "pip160": _table(
        "PIP-160 (apache/pulsar issue #15370), otherwise TxnLogBufferedWriter.java at d2beb06e21",
        Rule("1", "the first request time for each batch"),
        Rule("1", "joins the batch like any other"),
    ),
}
"""Each profile's table (``_model.PROFILES``)."""

__all__ = ["CITATIONS"]
