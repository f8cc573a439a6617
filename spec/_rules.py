"""Which rule of a specification produced a step's expectation: its SPEC.md section and the upstream method.

When a candidate's answer differs from the model's (``CACHE-MODEL``, ``CURSOR-MODEL``, ``CURSOR-WRITES``,
``TXLOG-MODEL``), the message names the rule behind the expectation, so a reader goes from the
counterexample straight to the prose and to the Java it follows. One mechanism for every system: each
keeps one :class:`RuleTable` per profile next to its model (spec/cache/{pip430,pulsar_master,legacy,
segmented}.py, spec/cursor_state/_model.py, spec/txlog_writer/_model.py), keyed by operation kind and, where one
operation runs several rules, by the part of the observation that differs (an ``aspect``).
tests/unit/test_rule_citations.py checks that every cited section, topic and method is in the SPEC.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SPEC_ROOT = Path(__file__).parent
"""The folder of ``spec/``: a table's ``spec`` path is relative to the repository, this folder's parent."""


@dataclass(frozen=True)
class Rule:
    """One rule: a numbered section of the SPEC.md, the paragraph in it, and the upstream code it follows."""

    section: str
    """The section's number as its heading gives it: ``5.2``."""
    topic: str
    """Words of that section naming the rule (a bold paragraph's label, a table row's operation)."""
    methods: tuple[str, ...] = ()
    """The upstream methods, spelled as the SPEC.md names them (``Class.method`` where it names the class);
    none where the rule is the source's text, not its code (the PIP text)."""


@dataclass(frozen=True)
class RuleTable:
    """A profile's rules: by operation kind, and by ``kind/aspect`` or ``*/aspect`` for a part of a step."""

    spec: str
    """The SPEC.md, relative to the repository: ``spec/cache/SPEC.md``."""
    source: str
    """Where the profile's upstream is: ``apache/pulsar PR #24623``."""
    rules: Mapping[str, Rule]

    def lookup(self, kind: str, aspects: Iterable[str] = ()) -> list[Rule]:
        """The rules behind a step of ``kind`` whose ``aspects`` differ.

        A ``kind/aspect`` rule is narrower than the operation's own and replaces it (a persist made with no
        ledger open is the NoLedger rule, not State Open); a ``*/aspect`` rule adds to it (whatever the
        operation, ``non_evictable_size`` is ``getNonEvictableSize``).
        """
        aspects = list(aspects)
        narrower = [self.rules[key] for key in (f"{kind}/{aspect}" for aspect in aspects) if key in self.rules]
        found = narrower or ([self.rules[kind]] if kind in self.rules else [])
        for aspect in aspects:
            rule = self.rules.get(f"*/{aspect}")
            if rule is not None and rule not in found:
                found.append(rule)
        return list(dict.fromkeys(found))

    def cite(self, kind: str, aspects: Iterable[str] = ()) -> str | None:
        """One line naming the rules and their upstream, or None when the table has none for ``kind``.

        ``rule: spec/cache/SPEC.md §5.2 "Size pass": RangeCacheRemovalQueue.evictLeastAccessedEntries
        (upstream: apache/pulsar PR #24623, managed-ledger 4.2.4)``
        """
        rules = self.lookup(kind, aspects)
        if not rules:
            return None
        return f"rule: {self.spec} " + "; ".join(map(_one, rules)) + f" (upstream: {self.source})"


def _one(rule: Rule) -> str:
    return f'§{rule.section} "{rule.topic}"' + (f": {', '.join(rule.methods)}" if rule.methods else "")


def sections(spec: str) -> dict[str, str]:
    """A SPEC.md's numbered sections: number -> its text, heading included (for the citation test)."""
    text = (SPEC_ROOT.parent / spec).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    heads = list(re.finditer(r"^#{2,4} (\d+(?:\.\d+)*)\.? .*$", text, flags=re.MULTILINE))
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        found[head.group(1)] = text[head.start() : end]
    return found


__all__ = ["Rule", "RuleTable", "sections"]
