"""The cache's ``ledgerspec mutants``: run the suite against every mutant of the reference, print the kill matrix.

Imported when the command runs (``cli/_mutants`` parses its options without the engine and Hypothesis).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from ledgerspec.conformance.cache._mutants import (
    Kill,
    Mutant,
    Rate,
    header,
    kill_rates,
    line,
    load_mutants,
    summary,
    to_json,
)
from ledgerspec.conformance.cli._main import EXIT_FAIL, EXIT_OK
from ledgerspec.conformance.cli._options import check_outputs, pick_named
from ledgerspec.conformance.render._term import Out, add_kill_row, kill_table


def _chosen(args: argparse.Namespace, source: str) -> list[Mutant]:
    """The mutants of ``--path``, only those ``--mutant`` names if given."""
    return pick_named(load_mutants(args.path), args.mutant, f"{source} defines")


def run_mutants(args: argparse.Namespace) -> int:
    """Print one row per mutant once its seeds are run, then the summary; exit 1 if any survived a seed."""
    check_outputs(args, files=("json", "html"))
    out = Out.for_args(args)
    source = args.path or "ledgerspec.conformance.cache.mutants"
    mutants = _chosen(args, source)
    seed = random.randrange(2**32) if args.seed is None else args.seed
    seeds = range(seed, seed + args.seeds)
    width = max(len("mutant"), *(len(m.name) for m in mutants))
    which = f"seed {seed}" if args.seeds == 1 else f"seeds {seed}-{seeds[-1]}"
    title = f"{len(mutants)} mutants from {source} (settings {args.settings}, {which})"
    out.text(title)
    out.text(header(width))
    table = kill_table(title) if out.rich else None

    with out.progress("mutants x seeds", total=len(mutants) * len(seeds)) as advance:

        def step(kill: Kill) -> None:
            advance(note=f"{kill.mutant.name}: {'killed' if kill.killed else 'survived'}")

        def show(rate: Rate) -> None:
            out.text(line(rate, width))
            if table is not None:
                add_kill_row(table, rate)
            if out.mode == "quiet":
                out.verdict(
                    f"{'KILLED' if rate.killed == rate.seeds else 'SURVIVED'}: {rate.mutant.name} "
                    f"{rate.killed}/{rate.seeds}"
                )

        rates = kill_rates(mutants, settings=args.settings, seeds=seeds, on_kill=step, on_rate=show, jobs=args.jobs)
    out.show(table)
    out.text()
    out.text(summary(rates))
    if out.rich:
        out.show(summary(rates))
    if args.html:
        from ledgerspec.conformance.cache._html_views import mutants_section  # noqa: PLC0415
        from ledgerspec.conformance.render._html import HtmlReport  # noqa: PLC0415 - matplotlib only when asked

        page = HtmlReport(f"ledgerspec mutants: {source}")
        mutants_section(page, rates, settings=args.settings, seeds=which)
        for said in filter(None, map(str.strip, summary(rates).splitlines())):  # HTML would run lines together
            page.paragraph(said)
        page.write(args.html)
    if args.json:
        document = to_json(rates, settings=args.settings, seed=seed)
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return EXIT_OK if all(rate.killed == rate.seeds for rate in rates) else EXIT_FAIL
