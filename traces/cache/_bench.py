"""Benchmark of the two trace checkers on one Parquet file: each against its floor, in one run; memory.

Each checker is timed between two runs of its floor, the least any check must do, and compared with
their mean (the machine is shared: adjacent runs see the same load):

* the local checker against a bare pyarrow read of the file (every batch of every column, the
  checker's batch size, pyarrow's threads);
* the Spark checker against a bare Spark job that does what any Python-checked Spark job must: scan,
  the checker's repartition by broker, the sort, and the rows handed to Python with ``mapInArrow``
  (to a function that reads each batch and returns nothing). A warm-up (the checker on the file's
  first rows) runs first, so the JVM's code generation and the Python workers' imports are not billed
  to the measured runs.

It also times a bare scan and a scan and sort (``noop`` writes), and reports events/s, where each
checker's time goes, and peak memory.

CPU: ``cpu_seconds`` are the CPU seconds (user + system) the Spark JVM and the Python workers used
during a step, from ``/proc`` (Linux); for the local checker and the bare reads, those of this process
and its worker processes (``getrusage``). On a shared machine they are steadier than wall time, and
they show where the time goes: JVM (scan, shuffle, sort, window, Arrow) versus Python (the replay).
``local_cpu_over_read_cpu`` and ``spark_cpu_over_floor_cpu`` are the ratios in CPU seconds.

Memory, and what each figure measures (Linux; None elsewhere):

* ``local.peak_rss_mib``: this process's resident high-water mark (``getrusage(RUSAGE_SELF)``) after
  the local check, which runs first: the local checker's peak, plus the interpreter and imports.
  ``local.worker_peak_rss_mib``: when ``check_local`` splits a large trace over processes, the
  largest peak of one of them (``RUSAGE_CHILDREN``: the largest reaped child).
* ``spark.jvm_peak_rss_mib``: the peak RSS (``VmHWM``) of the Spark JVM (driver and, locally, the
  executor): heap, shuffle buffers and sort memory.
* ``spark.worker_peak_rss_mib`` / ``spark.workers_peak_total_rss_mib``: the largest peak of one Python
  worker (``VmHWM``), and the largest sum of the workers' RSS seen at one time, sampled every 0.2 s
  while the check runs: the replay's memory (a worker holds one broker's live entries at a time).
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Self

import pyarrow as pa
import pyarrow.parquet as pq
from ledgerspec.traces.cache import _local
from ledgerspec.traces.cache._check import CheckResult
from ledgerspec.traces.cache._io import open_trace
from ledgerspec.traces.cache._local import Replays, check_local, split_by_broker
from ledgerspec.traces.cache._partitions import broker_counts
from ledgerspec.traces.core._files import BATCH_ROWS

TARGETS = {"spark_over_floor": 1.1, "local_over_read": 2.0}
"""Issue 15's targets: the Spark check at most 1.1x its floor, the local check at most 2x a bare read."""
WARM_ROWS = 200_000


def bench_engines(
    path: str | Path, *, master: str = "local[2]", spark: Any = None, local_breakdown: bool = True
) -> dict[str, Any]:
    """Time both checkers and the Spark baselines on one Parquet trace; the figures as plain data."""
    from ledgerspec.traces.cache._spark import replay_frame, run_spark, trace_frame  # noqa: PLC0415
    from ledgerspec.traces.core._spark import spark_session  # noqa: PLC0415

    path = Path(path)
    trace = open_trace(path)
    if trace.format != "parquet":
        raise ValueError(f"{path}: the benchmark needs a Parquet trace")
    report: dict[str, Any] = {"path": str(path), "profile": trace.header.profile, "targets": TARGETS}

    local = _bench_local(path, report, local_breakdown=local_breakdown)

    session = spark if spark is not None else spark_session(master)
    with tempfile.TemporaryDirectory(prefix="ledgerspec-bench-") as scratch:
        warm = Path(scratch) / "warm.parquet"
        _head(path, warm, WARM_ROWS)
        run_spark(warm, spark=session)
        head = open_trace(warm)
        head_events, head_rows = trace_frame(session, head)
        _arrow_floor(replay_frame(head_events, session, head_rows, broker_counts(head))[0])

    events, rows = trace_frame(session, trace)
    staged, _ = replay_frame(events, session, rows, broker_counts(trace))
    floors = [_arrow_floor(staged)]
    sampler = _Sampler()
    with sampler:
        started, cpu = time.perf_counter(), _cpu_seconds()
        run = run_spark(path, spark=session)
        seconds, cpu = time.perf_counter() - started, _cpu_seconds(cpu)
    floors.append(_arrow_floor(staged))
    remote = run.result
    report["spark"] = {
        "master": session.sparkContext.master,
        "partitions": run.partitions,
        "batch_rows": int(session.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch") or 0),
        "seconds": round(seconds, 2),
        "events_per_second": round(remote.events / seconds),
        "verdict": remote.verdict,
        "cpu_seconds": cpu,
        "phases": {name: round(value, 2) for name, value in run.seconds.items()},
        **sampler.figures(),
    }
    report["agree"] = _comparable(remote.to_dict()) == _comparable(local.to_dict())
    report["floor"] = {
        "seconds": [f["seconds"] for f in floors],
        "cpu_seconds": floors[-1]["cpu_seconds"],
        "what": floors[-1]["what"],
    }
    report["spark_over_floor"] = round(seconds / (sum(f["seconds"] for f in floors) / 2), 2)
    report["spark_cpu_over_floor_cpu"] = _cpu_ratio(cpu, [f["cpu_seconds"] for f in floors])
    report["scan"] = _noop(events, "the checker's read: Parquet scan with the row index")
    scan_sort = session.read.parquet(str(path.resolve())).repartition(run.partitions, "broker")
    report["scan_sort"] = _noop(
        scan_sort.sortWithinPartitions("broker", "seq"),
        f"read.parquet, repartition({run.partitions}, broker), sortWithinPartitions(broker, seq), noop write",
    )
    report["staged"] = _noop(staged, "the checker's plan up to the replay: scan with the row index, shuffle, sort")
    report["met"] = {
        "spark_over_floor": report["spark_over_floor"] <= TARGETS["spark_over_floor"],
        "local_over_read": report["local_over_read"] <= TARGETS["local_over_read"],
    }
    return report


def _bench_local(path: Path, report: dict[str, Any], *, local_breakdown: bool) -> CheckResult:
    """The local checker between two bare reads, wall and CPU; adds its figures to ``report``."""
    read_cpu = [_own_cpu()]
    reads = [_read(path)]
    read_cpu[0] = _own_cpu() - read_cpu[0]
    started, cpu = time.perf_counter(), _own_cpu()
    local = check_local(path)
    seconds, cpu = time.perf_counter() - started, _own_cpu() - cpu
    read_cpu.append(_own_cpu())
    reads.append(_read(path))
    read_cpu[1] = _own_cpu() - read_cpu[1]
    report["read"] = {
        "seconds": [round(r, 2) for r in reads],
        "cpu_seconds": [round(r, 2) for r in read_cpu],
        "what": "pyarrow: every batch of the file",
    }
    report["local_over_read"] = round(seconds / (sum(reads) / 2), 2)
    report["local_cpu_over_read_cpu"] = round(cpu / (sum(read_cpu) / 2), 2)
    report.update(events=local.events, brokers=local.brokers)
    parallel = local.events >= getattr(_local, "PARALLEL_FROM", float("inf"))
    report["local"] = {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "events_per_second": round(local.events / seconds),
        "processes": (os.cpu_count() or 1) if parallel else 1,
        "verdict": local.verdict,
        "peak_rss_mib": _peak_mib(resource.RUSAGE_SELF),
        "worker_peak_rss_mib": _peak_mib(resource.RUSAGE_CHILDREN) if parallel else None,
    }
    if local_breakdown:
        report["local"]["single_process"] = _local_phases(path)
    return local


def _read(path: Path) -> float:
    """Seconds to read every batch of a Parquet file with pyarrow: the local checker's floor."""
    started = time.perf_counter()
    for _ in pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS):
        pass
    return time.perf_counter() - started


def _drain(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Read every batch Spark hands to Python, and return nothing."""
    for _ in batches:
        pass
    return iter(())


def _arrow_floor(staged: Any) -> dict[str, Any]:
    """The Spark floor: the checker's plan up to the replay, its rows handed to Python (``mapInArrow``)."""
    from ledgerspec.traces.cache._spark_replay import OUTPUT_DDL  # noqa: PLC0415 - pyspark only where Spark runs

    started, cpu = time.perf_counter(), _cpu_seconds()
    staged.mapInArrow(_drain, OUTPUT_DDL).collect()
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "cpu_seconds": _cpu_seconds(cpu),
        "what": "scan with the row index, repartition by broker, sort, mapInArrow to Python (nothing done)",
    }


def _noop(frame: Any, what: str) -> dict[str, Any]:
    """Wall time and CPU of computing a DataFrame and writing it nowhere (the ``noop`` format)."""
    started, cpu = time.perf_counter(), _cpu_seconds()
    frame.write.format("noop").mode("overwrite").save()
    return {"seconds": round(time.perf_counter() - started, 2), "cpu_seconds": _cpu_seconds(cpu), "what": what}


def render(report: dict[str, Any]) -> str:
    """The report as a few readable lines (BENCHMARKS.md style)."""
    local, spark = report["local"], report["spark"]
    lines = [
        f"{report['path']}: {report['events']:,} events, {report['brokers']} brokers, profile {report['profile']}",
        (
            f"  local:  {local['seconds']:8.1f} s  {local['events_per_second']:>12,} events/s  "
            f"{local['processes']} process(es), peak RSS {local['peak_rss_mib']} MiB "
            f"(largest worker process {local['worker_peak_rss_mib']} MiB)  {local['verdict']}"
        ),
        (
            f"  spark:  {spark['seconds']:8.1f} s  {spark['events_per_second']:>12,} events/s  on {spark['master']}, "
            f"{spark['partitions']} partitions  {spark['verdict']}"
        ),
        (
            f"          JVM peak RSS {spark['jvm_peak_rss_mib']} MiB, Python worker peak "
            f"{spark['worker_peak_rss_mib']} MiB (all workers at once: {spark['workers_peak_total_rss_mib']} MiB)"
        ),
        f"          CPU: {spark['cpu_seconds']}",
        (
            f"  scan: {report['scan']['seconds']:.1f} s {report['scan']['cpu_seconds']}   "
            f"scan and sort: {report['scan_sort']['seconds']:.1f} s {report['scan_sort']['cpu_seconds']}"
        ),
        (f"  checker plan without the replay: {report['staged']['seconds']:.1f} s {report['staged']['cpu_seconds']}"),
        (
            f"  local / bare pyarrow read: {report['local_over_read']:.2f}x (reads {report['read']['seconds']} s; "
            f"CPU {report['local_cpu_over_read_cpu']:.2f}x: {report['local']['cpu_seconds']} s against "
            f"{report['read']['cpu_seconds']} s)   "
            f"spark / its floor: {report['spark_over_floor']:.2f}x (floors {report['floor']['seconds']} s, "
            f"CPU {report['floor']['cpu_seconds']}; CPU {report['spark_cpu_over_floor_cpu']}x)   "
            f"engines agree: {report['agree']}"
        ),
        f"  spark phases: {spark['phases']}",
    ]
    if "single_process" in local:
        lines.append(f"  local, one process: {local['single_process']}")
    lines.append("  targets met: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in report["met"].items()))
    return "\n".join(lines)


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in ("engine", "seconds")}


def _local_phases(path: Path) -> dict[str, float]:
    """Where one local process's time goes: read and validate; split by broker into columns; replay.

    One instrumented single-process pass, the loop of ``check_local`` with a clock around each step
    (the context pass is left out: it only reads the brokers with violations).
    """
    trace = open_trace(path)
    replays = Replays(trace)
    read = split = replay = 0.0
    events = 0
    started = clock = time.perf_counter()
    for first_row, batch in trace.batches(dictionaries=True):  # as check_local reads
        read_at = time.perf_counter()
        parts = list(split_by_broker(batch, first_row))
        split_at = time.perf_counter()
        replays.feed(parts)
        events += batch.num_rows
        read, split = read + read_at - clock, split + split_at - read_at
        clock = time.perf_counter()
        replay += clock - split_at
    total = time.perf_counter() - started
    return {
        "read_and_validate": round(read, 2),
        "split_and_convert": round(split, 2),
        "seq_and_replay": round(replay, 2),
        "seconds": round(total, 2),
        "events_per_second": round(events / total),
    }


def _head(source: Path, target: Path, rows: int) -> None:
    """The first ``rows`` rows of a Parquet trace, with its metadata (a valid, smaller trace)."""
    parquet = pq.ParquetFile(source)
    with pq.ParquetWriter(target, parquet.schema_arrow) as writer:
        written = 0
        for batch in parquet.iter_batches(batch_size=1 << 16):
            writer.write_batch(batch.slice(0, rows - written))
            written += min(batch.num_rows, rows - written)
            if written >= rows:
                break


def _cpu_ratio(used: Mapping[str, float | None], floors: list[Mapping[str, float | None]]) -> float | None:
    """CPU of the check (JVM and Python workers) over the mean CPU of its floors; None if one is unknown."""
    totals = [sum(v for v in figures.values() if v is not None) for figures in [used, *floors]]
    if any(None in figures.values() or not figures for figures in [used, *floors]) or not all(totals[1:]):
        return None
    return round(totals[0] / (sum(totals[1:]) / len(floors)), 2)


def _own_cpu() -> float:
    """CPU seconds (user + system) of this process and its reaped children (the local checker's workers).

    The local figures' counterpart of :func:`_cpu_seconds`: on a shared machine, steadier than wall time.
    """
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _peak_mib(who: int) -> int:
    peak = resource.getrusage(who).ru_maxrss
    return round(peak / 1024 if sys.platform != "darwin" else peak / (1 << 20))


class _Sampler:
    """Samples the peak memory of the Spark JVM and of the Python workers (descendants of this process)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.jvm = 0
        self.worker = 0
        self.workers_total = 0
        self.thread = threading.Thread(target=self._loop, name="ledgerspec-bench-memory", daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()
        self._sample()

    def _loop(self) -> None:
        while not self.done.wait(0.2):
            self._sample()

    def _sample(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            total = 0
            for pid in _descendants(os.getpid()):
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                status = _status(pid)
                if b"java" in command.split(b"\0")[0]:
                    self.jvm = max(self.jvm, status.get("VmHWM", 0))
                elif b"python" in command.split(b"\0")[0]:
                    self.worker = max(self.worker, status.get("VmHWM", 0))
                    total += status.get("VmRSS", 0)
            self.workers_total = max(self.workers_total, total)

    def figures(self) -> dict[str, int | None]:
        """Peaks in MiB (None where /proc is not available)."""
        if not Path("/proc/self/status").exists():
            return {"jvm_peak_rss_mib": None, "worker_peak_rss_mib": None, "workers_peak_total_rss_mib": None}
        return {
            "jvm_peak_rss_mib": round(self.jvm / 1024),
            "worker_peak_rss_mib": round(self.worker / 1024),
            "workers_peak_total_rss_mib": round(self.workers_total / 1024),
        }


def _cpu_seconds(since: Mapping[str, float | None] | None = None) -> dict[str, float | None]:
    """CPU seconds (user + system) of the Spark JVM and of the Python workers, or their use ``since``.

    Sums ``/proc/PID/stat`` over the descendants of this process, with the CPU of their reaped
    children (exited workers are reaped by the Python daemon). Robust to other load on the machine,
    unlike wall time; empty where /proc is not available.
    """
    if not Path("/proc/self/stat").exists():
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    used = {"jvm": 0.0, "python_workers": 0.0}
    for pid in _descendants(os.getpid()):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            seconds = sum(int(value) for value in fields[11:15]) / tick
            used["jvm" if b"java" in program else "python_workers"] += seconds
    if since is None:
        return dict(used)
    spent = {name: round(used[name] - (since.get(name) or 0.0), 1) for name in used}
    # A worker that exits and is not yet reaped takes its CPU with it: the difference is then not a
    # measurement, and is reported as unknown rather than as a (negative) number.
    return {name: (value if value >= 0 else None) for name, value in spent.items()}


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values
