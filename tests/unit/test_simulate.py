"""The cache policy simulator: its metrics on hand-traced scenarios, the sweep's summary, the command line."""

from __future__ import annotations

import json
import math

import pytest
from ledgerspec.conformance.cli import main
from ledgerspec.reference.cache import CACHES
from ledgerspec.spec.cache import CacheConfig
from ledgerspec.traces.cache.simulate._measure import METRICS, Meter, RunSpec, build, measure_speed, simulate_one
from ledgerspec.traces.cache.simulate._report import render
from ledgerspec.traces.cache.simulate._sweep import (
    Sweep,
    format_table,
    parse_size,
    result_document,
    simulate,
    summarize,
)
from ledgerspec.traces.cache.simulate._workload import Feed, Reader, Workload, replay_ops, replayed

MS = 2_000_000
"""A step of 2 ms: more than the executor's 1 ms, so every step may run a size eviction."""


def scenario(profile: str, max_size: int = 10_000, **config: object) -> tuple[Workload, Meter, Feed]:
    """One ledger (1), no reader yet, no TTL in reach (ttl 1000 s), the profile's reference cache."""
    workload, meter, (feed,) = scenario_of(profile, 1, max_size, **config)
    return workload, meter, feed


def scenario_of(profile: str, ledgers: int, max_size: int, **config: object) -> tuple[Workload, Meter, list[Feed]]:
    """Ledgers 1.. ``ledgers``, no reader yet, no TTL in reach (ttl 1000 s), the profile's reference cache."""
    settings = CacheConfig(max_size=max_size, ttl=10**12, ttl_max=5 * 10**12, **config)  # type: ignore[arg-type]
    meter = Meter()
    cache = CACHES[profile](**settings.to_dict())
    cache.listen(meter)
    feeds = [Feed(ledger=ledger) for ledger in range(1, ledgers + 1)]
    workload = Workload(cache, "tailing", topics=0, seed=0, meter=meter, feeds=feeds)
    return workload, meter, feeds


def step(workload: Workload) -> None:
    workload.tick(MS)


def test_size_eviction_of_an_awaited_entry_and_its_read_from_storage():
    # pulsar-master, max 300: trigger int(300 * 0.98) = 294, watermark int(300 * 0.9) = 270; no requeue.
    w, meter, feed = scenario("pulsar-master", max_size=300, max_requeue=0, extend_ttl=False)
    w.join(feed, reader := Reader(name="r"))  # size after: 0
    for _ in range(3):  # appends of 100 each, count 1: sizes 100, 200, 300
        step(w)
        w.produce(feed, 100)
    w.evict_if_needed()  # 300 > 294: free 300 - 270 = 30: entry 0 goes (r at 0 still awaits it): 200
    step(w)
    w.turn(feed, reader)  # reads 0..2: 0 from storage (cached again, count 1), 1 and 2 hit: 300
    w.evict_if_needed()  # free 30 again: entry 1 (FIFO head; r is at 3, so not awaited): 200
    m = meter.metrics()
    assert (m["reads"], m["bk_reads"], m["bk_bytes"]) == (3, 1, 100)
    assert m["hit_rate"] == pytest.approx(2 / 3)
    assert (m["evicted"], m["evicted_size"], m["awaited_evicted"], m["awaited_size"]) == (2, 2, 1, 1)
    assert m["awaited_evicted_bytes"] == 100
    # sizes after the 7 operations: 0, 100, 200, 300, 200, 300, 200
    assert (m["events"], m["peak_size"], m["mean_size"]) == (7, 300, pytest.approx(1300 / 7))


def test_legacy_caches_appends_without_counts_and_invalidates_below_the_slowest():
    w, meter, feed = scenario("legacy", max_size=300)
    w.join(feed, reader := Reader(name="r"))
    for _ in range(3):  # 100, 200, 300: each insert sees the size before it (< 294: nothing scheduled)
        step(w)
        w.produce(feed, 100)
    w.evict_if_needed()  # 300 > 294, but legacy runs only a scheduled eviction: nothing
    step(w)
    w.turn(feed, reader)  # three hits; r moves to 3, the slowest moved: entries below 3 invalidated
    m = meter.metrics()
    assert (m["reads"], m["bk_reads"], m["hit_rate"]) == (3, 0, 1.0)
    assert (m["evicted_size"], m["evicted_invalidate"], m["awaited_evicted"]) == (0, 3, 0)
    # sizes after: cursor_add 0, appends 100, 200, 300, evict_size 300, cursor_read 0
    assert (m["events"], m["peak_size"], m["mean_size"]) == (6, 300, 150)


@pytest.mark.parametrize(("profile", "evicted", "younger"), [("legacy", 1, 1), ("pulsar-master", 2, 0)])
def test_a_size_eviction_out_of_age_order(profile, evicted, younger):
    # max 1000: trigger 980, watermark 900. Ledger 1 gets one entry of 100 first, then ledger 2 ten.
    w, meter, (one, two) = scenario_of(profile, 2, 1000, max_requeue=0, extend_ttl=False)
    w.join(one, Reader(name="r1"))
    w.join(two, Reader(name="r2"))
    step(w)
    w.produce(one, 100)
    for _ in range(10):  # legacy: the 10th sees 1000 before it: > 980 schedules (captured 1000), >= 1000 refuses
        step(w)
        w.produce(two, 100)
    w.evict_if_needed()
    # legacy: free 1000 - 900 = 100 from the largest cache (ledger 2, 900 of 1000 >= half): its entry 0,
    # newer than ledger 1's entry 0, which stays. pulsar-master (1100 cached): free 200, FIFO: ledger
    # 1's entry 0 and ledger 2's entry 0, the two oldest.
    m = meter.metrics()
    assert (m["evicted_size"], m["younger_evicted"], m["awaited_size"]) == (evicted, younger, evicted)
    assert w.cache.reported_size() == 900  # legacy 1000 - 100, pulsar-master 1100 - 200


@pytest.mark.parametrize(
    ("profile", "bk_reads", "cached"),
    [
        ("pulsar-master", 4, 400),  # a's reads from storage are cached with count 2 (b is at 0 too): b hits
        ("pip430", 4, 400),
        ("legacy", 8, 0),  # isCacheReadEntry() is false: nothing cached, b reads storage again
        ("segmented", 4, 4 * 128),  # ReadCache keeps what the entry log gave, each aligned to 64 bytes
    ],
)
def test_two_catch_up_cursors_on_a_backlog(profile, bk_reads, cached):
    w, meter, feed = scenario(profile)
    for _ in range(4):  # a backlog of 4 entries of 100, appended while no cursor was active: not cached
        step(w)
        w.produce(feed, 100)
    w.join(feed, a := Reader(name="a"))
    w.join(feed, b := Reader(name="b"))
    step(w)
    w.turn(feed, a)
    assert w.cache.reported_size() == cached
    step(w)
    w.turn(feed, b)
    m = meter.metrics()
    assert (m["reads"], m["bk_reads"], m["bk_bytes"]) == (8, bk_reads, 100 * bk_reads)
    assert m["hit_rate"] == 1 - bk_reads / 8


def _first_replayed(seed: int, ledger: int) -> tuple[int, int]:
    entry = next(e for e in range(1000) if replayed(seed, ledger, e))
    return entry, replayed(seed, ledger, entry)


@pytest.mark.parametrize(("profile", "bk_reads", "invalidated"), [("pulsar-master", 0, 0), ("legacy", 1, 1)])
def test_a_key_shared_replay(profile, bk_reads, invalidated):
    entry, delay = _first_replayed(0, 1)  # the first position of ledger 1 that seed 0 sends to the replay queue
    w, meter, feed = scenario(profile)
    w.join(feed, reader := Reader(name="k", key_shared=True))
    for _ in range(entry + 1):
        step(w)
        w.produce(feed, 100)
    step(w)
    w.turn(feed, reader)  # reads 0..entry; entry goes to the replay queue (legacy: invalidated with the rest)
    m = meter.metrics()
    assert (m["evicted_invalidate"], m["awaited_invalidate"]) == (invalidated * (entry + 1), invalidated)
    for _ in range(delay):
        step(w)
    w.turn(feed, reader)  # the redelivery: a hit in pulsar-master (its count kept it), storage in legacy
    m = meter.metrics()
    assert (m["reads"], m["bk_reads"]) == (entry + 2, bk_reads)
    assert meter.pending == {1: {}}


def test_every_profile_of_a_run_sees_the_same_reads():
    reads = {
        p: simulate_one(RunSpec(workload="mixed", profile=p, cache_size=1 << 20, seed=3, steps=1500))["reads"]
        for p in CACHES
    }
    assert len(set(reads.values())) == 1
    assert next(iter(reads.values())) > 0


def test_a_run_is_a_function_of_its_parameters():
    spec = RunSpec(workload="key-shared", profile="pulsar-master", cache_size=512 << 10, seed=1, steps=1500)
    assert simulate_one(spec) == simulate_one(spec)


def test_the_recorded_operations_replay_to_the_same_cache():
    spec = RunSpec(workload="fanout", profile="pip430", cache_size=1 << 20, seed=2, steps=800)
    recorder, _ = build(spec, record=True)
    recorder.run(spec.steps)
    alone = CACHES[spec.profile](**spec.config().to_dict())
    replay_ops(alone, recorder.log or [])
    assert alone.snapshot() == recorder.cache.snapshot()
    speed = measure_speed(spec)
    assert speed.events == len(recorder.log or [])
    assert speed.ratio > 0


def test_summary_means_and_spreads():
    sweep = Sweep(profiles=["legacy"], cache_sizes=[1 << 20], seeds=2, steps=10)
    runs = sweep.runs()
    full = [dict.fromkeys(METRICS, 0.0) | {"hit_rate": 0.5}, dict.fromkeys(METRICS, 0.0) | {"hit_rate": 1.0}]
    (cell,) = summarize(sweep, runs, full)
    assert cell["mean"]["hit_rate"] == 0.75
    assert cell["spread"]["hit_rate"] == pytest.approx(math.sqrt(0.125))  # sample stdev of 0.5 and 1.0
    assert cell["spread"]["reads"] == 0.0
    document = result_document(sweep, "local", runs, full)
    assert [r["seed"] for r in document["runs"]] == [0, 1]
    assert "0.750 ±0.354" in format_table(document)


@pytest.mark.parametrize(
    ("text", "size"), [("512K", 512 << 10), ("8M", 8 << 20), ("8MiB", 8 << 20), ("1g", 1 << 30), ("100", 100)]
)
def test_sizes(text, size):
    assert parse_size("--cache-sizes", text) == size


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--workload", "edge"], "--workload"),
        (["--workload", "tail"], "--workload"),
        (["--profiles", "pip430,lru"], "--profiles"),
        (["--profiles", ""], "--profiles"),
        (["--cache-sizes", "0"], "--cache-sizes"),
        (["--cache-sizes", "8M,-1M"], "--cache-sizes"),
        (["--cache-sizes", "8Q"], "--cache-sizes"),
        (["--cache-sizes", "8M,100G"], "--cache-sizes"),  # too many ReadCache segments
        (["--seeds", "0"], "--seeds"),
        (["--seeds", "-2"], "--seeds"),
        (["--steps", "0"], "--steps"),
    ],
)
def test_bad_options_exit_2_naming_the_option(capsys, args, named):
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert f"error[simulate-option]: {named}:" in err
    assert "Traceback" not in err
    assert "simulating" not in err  # refused before any run ("simulating W: N runs on ...")


def test_the_command_reports_every_profile(tmp_path, capsys):
    out, page = tmp_path / "s.json", tmp_path / "s.html"
    args = ["simulate", "--workload", "catchup", "--cache-sizes", "256K,1M", "--seeds", "2", "--steps", "300"]
    assert main([*args, "--json", str(out), "--html", str(page)]) == 0
    table = capsys.readouterr().out
    document = json.loads(out.read_text())
    assert document["profiles"] == list(CACHES)
    assert len(document["runs"]) == 4 * 2 * 2
    for cell in document["summary"]:
        assert {"hit_rate", "bk_reads", "bk_bytes", "awaited_evicted", "peak_size", "mean_size"} <= set(cell["mean"])
        assert cell["profile"] in table
    text = page.read_text()
    assert text.count("<svg") >= 3
    assert "Hit rate against cache size" in text
    assert "BookKeeper reads against cache size" in text


def test_quiet_writes_the_files_and_prints_nothing(tmp_path, capsys):
    out = tmp_path / "s.json"
    args = ["simulate", "--workload", "tailing", "--profiles", "pip430", "--cache-sizes", "1M", "--seeds", "1"]
    assert main([*args, "--steps", "200", "--quiet", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ""
    assert json.loads(out.read_text())["profiles"] == ["pip430"]


def test_bench_prints_the_ratio(capsys):
    assert main(["simulate", "--bench", "--profiles", "legacy", "--cache-sizes", "1M", "--steps", "300"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "ratio"
    assert lines[1].split()[0] == "legacy"


class Recording:
    """A report that records what it was given (the ``HtmlReport`` methods ``render`` uses)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def heading(self, text: str, level: int = 2) -> None:
        self.calls.append(("heading", (text, level)))

    def paragraph(self, text: str) -> None:
        self.calls.append(("paragraph", text))

    def table(self, headers: list[str], rows: list[list[str]], *, wrap_headers: bool = False) -> None:
        self.calls.append(("table", (headers, rows)))

    def figure(self, fig: object, caption: str) -> None:
        self.calls.append(("figure", (fig, caption)))

    def write(self, path: object) -> None:
        self.calls.append(("write", path))


def test_render_gives_a_report_the_table_and_three_plots():
    document = simulate(Sweep(workload="tailing", cache_sizes=[256 << 10, 1 << 20], seeds=1, steps=200))
    report = Recording()
    render(report, document)
    kinds = [kind for kind, _ in report.calls]
    # under the table: what its columns mean, and (legacy among the profiles) why legacy's figures do not move
    assert kinds == ["heading", "paragraph", "table", "paragraph", "paragraph", "figure", "figure", "figure"]
    headers, rows = report.calls[2][1]  # type: ignore[misc]
    assert headers[:4] == ["profile", "cache size", "hit rate", "BK reads"]
    assert [row[0] for row in rows] == [p for p in CACHES for _ in range(2)]
    figure, caption = report.calls[5][1]  # type: ignore[misc]
    axes = figure.axes[0]
    assert [text.get_text() for text in axes.get_legend().get_texts()] == list(CACHES)
    assert caption.startswith("Hit rate against cache size")


def _document(legacy_peaks):
    cells = [
        {"profile": "legacy", "cache_size": size, "mean": {"peak_size": peak, "hit_rate": 0.8}, "spread": {}}
        for size, peak in legacy_peaks
    ]
    return {"summary": cells, "cache_sizes": [size for size, _ in legacy_peaks]}


def test_the_page_defines_younger_evicted_and_says_why_legacy_does_not_move():
    from ledgerspec.traces.cache.simulate._report import notes

    columns, legacy = notes(_document([(2 << 20, 800 << 10), (8 << 20, 800 << 10)]))
    assert "younger evicted counts the entries a size pass removed while an entry inserted before them" in columns
    assert legacy.startswith("Legacy's figures are the same at every cache size: legacy mode invalidates each ledger")
    assert "never fills" in legacy
    assert "Its peak, 800 KiB, stays below the smallest limit, 2 MiB" in legacy
    _, grows = notes(_document([(2 << 20, 2 << 20), (32 << 20, 15 << 20)]))
    assert "never fills" not in grows
    assert "Its peak here is 15 MiB" in grows


def test_the_page_carries_the_notes_under_its_table(tmp_path):
    page = tmp_path / "s.html"
    args = ["simulate", "--workload", "catchup", "--profiles", "legacy", "--cache-sizes", "256K,1M", "--seeds", "1"]
    assert main([*args, "--steps", "200", "--quiet", "--html", str(page)]) == 0
    text = page.read_text()
    table_end = text.index("</table>")
    assert text.index("younger evicted counts", table_end) < text.index("<svg")
    assert "legacy mode invalidates each ledger behind its slowest cursor" in text
    # Twelve columns fit the page: a header of two words breaks onto two lines (it was kept on one, nowrap,
    # and the table ran past the page's edge).
    assert "<th>awaited evicted</th>" in text
    assert "<th>younger evicted</th>" in text
