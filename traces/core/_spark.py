"""The Spark checker's input side: a quiet session, the trace as a DataFrame, and failures as input errors.

Quiet: the JVM's own output (start-up notices, log4j lines, executor stack traces, Python worker
stderr) goes to a log file, never to the terminal; a failed job becomes one line naming the file
(:func:`spark_failure`), and for a Parquet page that cannot be read, the very error the local
checker gives (:func:`ledgerspec.traces.cache._io.find_unreadable`).

Cluster use (``master="spark://..."``, ``yarn``, ``k8s://...``): the executors run the replay, so they
need this package (``pip install ledgerspec`` or the repository, same version as the driver) and
pyarrow in the Python that ``PYSPARK_PYTHON`` names (default: the driver's ``sys.executable``, which
suits identical images). The trace must be readable at the same path by the driver (which reads the
header) and the executors (which read the rows): a shared file system, or an ``hdfs://`` mount seen
as a local path on the driver. JSON-lines traces are read by the driver only.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from ledgerspec.conformance._errors import InputError
from ledgerspec.traces.core._files import BATCH_ROWS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""
"""ERROR and above only; the shell's logger too, whose default (WARN) prints "Setting default log level"."""


def _scratch(name: str) -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"ledgerspec-{uid}-{name}"


def jvm_log() -> Path:
    """Where the JVM's stdout and stderr go (a file per user in the temporary directory)."""
    return _scratch("spark.log")


def _log4j_file() -> Path:
    path = _scratch("log4j2.properties")
    if not path.is_file() or path.read_text() != _LOG4J:
        path.write_text(_LOG4J)
    return path


def spark_session(master: str | None = None, **conf: str) -> SparkSession:
    """A quiet Spark session for checking traces: ``local[*]`` unless ``master`` names a cluster.

    Quiet: this process starts the JVM itself, its stdout and stderr going to :func:`jvm_log`, logging
    at ERROR from the start (a log4j2 file, so even start-up warnings are dropped); no UI, no progress
    bars. Arrow on; batches of :data:`BATCH_ROWS` rows for the replay, with no byte limit (Spark
    checks it by measuring the batch on every row: about as much JVM CPU as the scan, shuffle and sort
    together). Local files are read with Hadoop's raw local file system: the checksummed one derives
    a ``.NAME.crc`` path from each file name, which fails for a name holding a ``:``.

    Shuffle partitions: sixteen per core locally, the most the checker uses. A broker's rows stay in
    one partition; with the brokers' counts they are packed, one bin per partition, heaviest first
    (traces/cache/_partitions.py); without, hashing puts several brokers in some partitions and none in
    others, and small partitions keep the last task short.

    The Python workers run this interpreter locally (``spark.pyspark.python``); on a cluster,
    ``PYSPARK_PYTHON`` if set, else the same path. ``conf`` adds or overrides settings. If this
    process already has a Spark context, it is reused as it is (Spark's rule): only SQL settings apply.

    A master Spark cannot start on or reach is an :class:`InputError` naming ``--master`` (exit 2, one
    line; the JVM's own lines stay in its log). :func:`check_master` refuses the plain cases before the
    JVM starts: a ``spark://`` master that takes no connection costs Spark three registration attempts
    of 20 s each (fixed in Spark, no setting) before it gives up.
    """
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415 - pyspark only where Spark runs
    from pyspark.java_gateway import launch_gateway  # noqa: PLC0415
    from pyspark.sql import SparkSession  # noqa: PLC0415

    master = master or "local[*]"
    local = master.startswith("local")
    python = sys.executable if local else os.environ.get("PYSPARK_PYTHON", sys.executable)
    # PySpark takes the workers' interpreter from this variable when the driver is a plain Python
    # process (spark.pyspark.python only reaches processes started by spark-submit).
    os.environ["PYSPARK_PYTHON"] = python
    cores = os.cpu_count() or 2
    if local and master not in ("local", "local[*]"):
        with contextlib.suppress(ValueError):
            cores = int(master[len("local[") : -1].split(",")[0])
    settings = {
        "spark.app.name": "ledgerspec-traces",
        "spark.log.level": "ERROR",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.execution.arrow.maxRecordsPerBatch": str(BATCH_ROWS),
        # Int.MaxValue turns off the per-row byte-size check of the batches sent to Python
        # (ArrowWriter.sizeInBytes on every row): half the JVM's CPU in the replay stage otherwise.
        "spark.sql.execution.arrow.maxBytesPerBatch": str(2**31 - 1),
        "spark.sql.shuffle.partitions": str(16 * cores if local else 200),
        "spark.pyspark.python": python,
        "spark.pyspark.driver.python": sys.executable,
        "spark.python.worker.reuse": "true",
        "spark.hadoop.fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={_log4j_file().as_uri()}",
    }
    if local:
        settings["spark.driver.memory"] = "2g"
    settings.update(conf)
    spark_conf = SparkConf(loadDefaults=False).setMaster(master).setAll(list(settings.items()))
    if SparkContext._active_spark_context is None:  # noqa: SLF001 - a running context is reused, whatever master
        check_master(master)
    logged = jvm_log().stat().st_size if jvm_log().is_file() else 0
    try:
        if SparkContext._gateway is None:  # noqa: SLF001 - the one way to give PySpark a gateway of our own
            with jvm_log().open("ab") as log:
                gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
            SparkContext._ensure_initialized(gateway=gateway)  # noqa: SLF001
        builder = SparkSession.builder.master(master)
        for key, value in settings.items():
            builder = builder.config(key, value)
        session = builder.getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
    except Exception as error:  # noqa: BLE001 - whatever stopped Spark starting (PySpark's, Py4J's or the JVM's)
        raise InputError(f"--master {master}: Spark could not start or reach it: {_why(error, logged)}") from None
    return session


def check_master(master: str | None) -> None:
    """Refuse, before any work, a ``--master`` Spark would not start on or could not reach (an :class:`InputError`).

    Spark's own first test (spark-submit's: ``yarn``, or ``local``, ``spark`` or ``k8s`` at the start),
    then, for ``spark://host:port[,host:port...]``, a TCP connection to each address until one takes
    it. Anything else is left to Spark when the session starts. Then PySpark itself: without the
    ``spark`` extra there is no Spark engine.
    """
    if master is not None and master != "yarn":
        if not master.startswith(("local", "spark", "k8s")):
            raise InputError(
                f"--master {master}: Spark cannot start on it: not a master URL (local[N], spark://HOST:PORT, yarn, "
                "k8s://...)"
            )
        if master.startswith("spark://"):
            _reach(master)
    if importlib.util.find_spec("pyspark") is None:
        raise InputError("the Spark engine needs PySpark, which is not installed: pip install 'ledgerspec[spark]'")


def _reach(master: str) -> None:
    """A TCP connection to one of a ``spark://`` master's addresses, or an :class:`InputError` naming each failure."""
    problems = []
    for address in master[len("spark://") :].split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            host, port = address, "7077"
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
        except OSError as error:
            problems.append(f"{host}:{port}: {error.strerror or error}")
        else:
            return
    raise InputError(f"--master {master}: Spark could not reach it: {'; '.join(problems)}")


def _why(error: Exception, logged: int) -> str:
    """Why Spark did not start: the JVM's reason from what it logged since ``logged`` bytes, else the error's.

    The JVM's reason is the message of an ``Exception in thread "main"`` line (a master URL it
    refuses) or of a ``Reason:`` (masters that never answered); the error's is its Java exception's
    line (``: java...Exception: ...``) or its first line.
    """
    with contextlib.suppress(OSError), jvm_log().open("rb") as log:
        log.seek(logged)
        for line in log.read(1 << 20).decode("utf-8", "replace").splitlines():
            if line.startswith("Exception in thread") and ": " in line:
                return f"{line.split(': ', 1)[1].strip()} (the JVM's log: {jvm_log()})"
            if "Reason: " in line:
                return f"{line.split('Reason: ', 1)[1].strip()} (the JVM's log: {jvm_log()})"
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    java = next((line[2:] for line in lines if line.startswith(": ")), None)
    return f"{java or (lines[0] if lines else type(error).__name__)} (the JVM's log: {jvm_log()})"


def parquet_frame(spark: SparkSession, files: Sequence[Path], counts: Sequence[int], schema: pa.Schema) -> DataFrame:
    """The rows of Parquet ``files`` (read by the executors) with their row number across the files (``row``).

    Read with ``schema``, all columns nullable (no inference job, no null check optimized away); the row
    number is ``_metadata.row_index`` plus the rows (``counts``) of the files before the row's file.
    """
    from pyspark.sql import functions as F  # noqa: N812, PLC0415 - pyspark only where Spark runs
    from pyspark.sql.pandas.types import from_arrow_type  # noqa: PLC0415
    from pyspark.sql.types import StructField, StructType  # noqa: PLC0415

    spark_schema = StructType([StructField(f.name, from_arrow_type(f.type), nullable=True) for f in schema])
    frame = spark.read.schema(spark_schema).parquet(*(_hadoop_path(path) for path in files))
    row: Any = F.col("_metadata.row_index")
    if len(files) > 1:
        offsets, rows = [], 0
        for path, count in zip(files, counts, strict=True):
            offsets += [F.lit(path.name), F.lit(rows)]
            rows += count
        row = row + F.create_map(*offsets)[F.col("_metadata.file_name")]
    return frame.select(*schema.names, row.alias("row"))


def _hadoop_path(path: Path) -> str:
    """An absolute path with Hadoop's glob characters escaped: the file itself, never a pattern."""
    text = str(path.resolve())
    for char in "\\[]{}*?":
        text = text.replace(char, "\\" + char)
    return text
