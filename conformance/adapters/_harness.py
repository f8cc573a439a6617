"""Harnesses for the real Pulsar and BookKeeper classes: what each drives, how they are built and run.

The Java sources are one Maven project, ``conformance/adapters/real/`` (pinned versions, no jar
committed). ``build()`` copies it into a cache outside the source tree, keyed by a hash of its
files, and runs ``mvn package`` there: the first use of a harness builds it, later uses find the
build, and an edited source makes a new one. A harness is then a process adapter (protocol v1)
started as ``java -cp <classes>:<dependencies> <main>``. The pom is the one source of the versions.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from xml.etree import ElementTree as ET

from ledgerspec.conformance._errors import ConformanceError, InputError
from ledgerspec.conformance._names import DEFAULT_SYSTEM
from ledgerspec.conformance.systems import system_named

SOURCE = Path(__file__).resolve().parent / "real"
"""The Maven project (installed as package data beside this module)."""
JAVA_OPTIONS = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xss8m",
    "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2",
)
"""One GC thread and no C2 compiler threads competing with the runner on a small machine (BENCHMARKS.md).

A common pool of two threads whatever the cores: with fewer, ``CompletableFuture``'s async steps without an
executor (the mock ledger's ``readAsync``) each get a thread of their own, which no harness can wait for;
in the pool, the harnesses' ``World`` waits for them to be quiescent."""
BUILD_TIMEOUT = 1800.0
_POM = "{http://maven.apache.org/POM/4.0.0}"


class HarnessToolMissingError(InputError):
    """A real-code harness needs a JDK 17 (``java``) and Maven 3.8 or later (``mvn``) on the PATH.

    Fix: install them (Debian: ``apt-get install openjdk-17-jdk-headless maven``), or use a reference
    or ``exec:`` adapter. Exit code 2.
    """

    code = "harness-tool-missing"


class HarnessBuildError(ConformanceError):
    """Maven could not build the real-code harnesses.

    Fix: read the Maven log the message names; a download failure means Maven Central was not
    reachable. ``ledgerspec harness build`` retries. Exit code 2.
    """

    code = "harness-build-failed"


@dataclass(frozen=True)
class Harness:
    """One real-code target: a Java class that puts real classes behind protocol v1."""

    name: str
    module: str
    """The Maven module (folder of ``real/``) it is built in."""
    main: str
    artifact: str
    """groupId:artifactId of the real code it drives."""
    version_property: str
    """The pom property holding that artifact's version."""
    drives: str
    profile: str
    takes_release: bool = False
    """The main class gets the release it drives as its one argument (one cursor harness, two releases)."""
    system: str = DEFAULT_SYSTEM
    """The system whose protocol it speaks."""

    @property
    def version(self) -> str:
        """The version of the real code, from the pom."""
        return pom_properties()[self.version_property]

    @property
    def coordinates(self) -> str:
        """Maven coordinates of the real code: ``group:artifact:version``."""
        return f"{self.artifact}:{self.version}"

    def command(self) -> str:
        """The ``exec:`` command of the built harness (built first if needed)."""
        module = build() / "real" / self.module / "target"
        classpath = os.pathsep.join(
            [str(module / "classes"), (module / "classpath.txt").read_text(encoding="utf-8").strip()]
        )
        release = [self.version] if self.takes_release else []
        return shlex.join(["java", *JAVA_OPTIONS, "-cp", classpath, self.main, *release])

    def factory(self, *, timeout: float | None = None, validate_protocol: bool = False) -> Any:
        """A process-adapter factory over the built harness: its system's ``exec:`` client."""
        client = system_named(self.system).client
        if client is None:
            raise InputError(f"{self.name}: the {self.system} system has no exec: client")
        return client(self.command(), timeout=timeout, validate_protocol=validate_protocol)


_CACHE_PACKAGE = "org.apache.bookkeeper.mledger.impl.cache"

PULSAR_RANGE_CACHE = Harness(
    name="cache-range-cache-4.2.4",
    module="managed-ledger-4.2",
    main=f"{_CACHE_PACKAGE}.RangeCacheHarness",
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives="RangeCacheRemovalQueue + RangeCache",
    profile="pulsar-master",
)
PULSAR_ENTRY_CACHE_MANAGER = Harness(
    name="cache-entry-cache-manager-4.2.4",
    module="managed-ledger-4.2",
    main=f"{_CACHE_PACKAGE}.EntryCacheManagerHarness",
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives="RangeEntryCacheManagerImpl + RangeEntryCacheImpl + ActiveManagedCursorContainerImpl",
    profile="pulsar-master",
)
PULSAR_MANAGED_LEDGER = Harness(
    name="cache-managed-ledger-4.2.4",
    module="managed-ledger-layer-4.2",
    main=f"{_CACHE_PACKAGE}.ManagedLedgerHarness",
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives="ManagedLedgerFactoryImpl + ManagedLedgerImpl + ManagedCursorImpl + RangeEntryCacheManagerImpl "
    "over PulsarMockBookKeeper",
    profile="pulsar-master",
)
PULSAR_LEGACY = Harness(
    name="cache-entry-cache-manager-4.0.8",
    module="managed-ledger-4.0",
    main=f"{_CACHE_PACKAGE}.LegacyHarness",
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.legacy.version",
    drives="RangeEntryCacheManagerImpl + EntryCacheDefaultEvictionPolicy + RangeEntryCacheImpl",
    profile="legacy",
)
BOOKKEEPER_READ_CACHE = Harness(
    name="cache-bookkeeper-read-cache-4.17.3",
    module="bookkeeper-server-4.17",
    main="org.apache.bookkeeper.bookie.storage.ldb.ReadCacheHarness",
    artifact="org.apache.bookkeeper:bookkeeper-server",
    version_property="bookkeeper-server.version",
    drives="ReadCache",
    profile="segmented",
)
HARNESSES: dict[str, Harness] = {
    h.name: h
    for h in (
        PULSAR_RANGE_CACHE,
        PULSAR_ENTRY_CACHE_MANAGER,
        PULSAR_MANAGED_LEDGER,
        PULSAR_LEGACY,
        BOOKKEEPER_READ_CACHE,
    )
}
"""The cache's harnesses (``--adapter NAME`` of the cache system)."""

REAL_TXLOG_WRITER = Harness(
    name="txlog-writer-buffered-writer-4.2.4",
    system="txlog-writer",
    module="txlog-writer-4.2",
    main="org.apache.pulsar.transaction.coordinator.impl.TxlogWriterHarness",
    artifact="org.apache.pulsar:pulsar-transaction-coordinator",
    version_property="transaction-coordinator.version",
    drives="TxnLogBufferedWriter + TxnLogBufferedWriterMetricsStats (Mockito ManagedLedger, manual Netty Timer)",
    profile="pulsar-master",
)
_CURSOR_HARNESS = "org.apache.bookkeeper.mledger.impl.CursorHarness"
_CURSOR_DRIVES = "ManagedCursorImpl + ManagedLedgerImpl + ManagedLedgerFactoryImpl over PulsarMockBookKeeper"
REAL_CURSOR_4_2 = Harness(
    name="cursor-state-managed-cursor-4.2.4",
    system="cursor-state",
    module="managed-cursor-4.2",
    main=_CURSOR_HARNESS,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.master.version",
    drives=_CURSOR_DRIVES,
    profile="pulsar-master",
    takes_release=True,
)
REAL_CURSOR_4_0 = Harness(
    name="cursor-state-managed-cursor-4.0.8",
    system="cursor-state",
    module="managed-cursor-4.0",
    main=_CURSOR_HARNESS,
    artifact="org.apache.pulsar:managed-ledger",
    version_property="managed-ledger.legacy.version",
    drives=_CURSOR_DRIVES,
    profile="pulsar-master",
    takes_release=True,
)
SYSTEM_HARNESSES: dict[str, tuple[str, Harness]] = {
    harness.name: (harness.system, harness) for harness in (REAL_TXLOG_WRITER, REAL_CURSOR_4_2, REAL_CURSOR_4_0)
}
"""Harnesses of the other systems, by adapter name: (system, harness); they speak that system's protocol."""


def pom_properties() -> dict[str, str]:
    """The ``<properties>`` of the parent pom."""
    root = ET.parse(SOURCE / "pom.xml").getroot()  # noqa: S314 - the project's own file
    properties = root.find(f"{_POM}properties")
    assert properties is not None, "real/pom.xml has no <properties>"
    return {child.tag.removeprefix(_POM): (child.text or "").strip() for child in properties}


def cache_root() -> Path:
    """Where builds go: ``$LEDGERSPEC_HARNESS_CACHE``, else ``$XDG_CACHE_HOME/ledgerspec/harnesses``."""
    configured = os.environ.get("LEDGERSPEC_HARNESS_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ledgerspec" / "harnesses"


def _sources() -> list[Path]:
    return sorted(
        path
        for path in SOURCE.rglob("*")
        if path.is_file() and "target" not in path.relative_to(SOURCE).parts and "__pycache__" not in path.parts
    )


def fingerprint() -> str:
    """A hash of every source file of the Maven project (names and contents)."""
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(str(path.relative_to(SOURCE)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def build_dir() -> Path:
    """The build of the current sources (it may not exist yet)."""
    return cache_root() / fingerprint()


def is_built() -> bool:
    """Whether the current sources are built."""
    return (build_dir() / "BUILT").exists()


def check_tools() -> None:
    """Raise :class:`HarnessToolMissingError` unless ``java`` (17 or later) and ``mvn`` are on the PATH."""
    java, mvn = shutil.which("java"), shutil.which("mvn")
    missing = [tool for tool, path in (("java (JDK 17)", java), ("mvn (Maven 3.8+)", mvn)) if path is None]
    if missing:
        raise HarnessToolMissingError(
            f"the real-code harnesses need {' and '.join(missing)} on the PATH; install a JDK 17 and Maven"
        )
    assert java is not None
    banner = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    found = re.search(r'version "(\d+)', banner)
    if found is None or int(found.group(1)) < 17:
        raise HarnessToolMissingError(
            f"the real-code harnesses need Java 17 or later; `java -version` says: {banner[:200]!r}"
        )


def build(*, force: bool = False, log: TextIO | None = None) -> Path:
    """Build the harnesses if the current sources are not built yet; return the build directory.

    Maven runs in the build directory itself (the classpath files it writes name it), under a lock, so
    concurrent first uses build once; ``BUILT`` is written last, so a failed build is built again.
    """
    target = build_dir()
    if is_built() and not force:
        return target
    check_tools()
    cache_root().mkdir(parents=True, exist_ok=True)
    with (cache_root() / f"{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_built() and not force:
            return target
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(SOURCE, target / "real", ignore=shutil.ignore_patterns("target", "__pycache__"))
        print(f"building the real-code harnesses with Maven in {target} ...", file=log or sys.stderr, flush=True)
        _maven(target / "real", ["package"], target / "maven.log")
        (target / "BUILT").write_text(fingerprint() + "\n", encoding="utf-8")
    return target


def _maven(project: Path, goals: list[str], log: Path, *, extra: tuple[str, ...] = ()) -> None:
    command = ["mvn", "-B", "--no-transfer-progress", *extra, *goals]
    with log.open("w", encoding="utf-8") as output:
        try:
            done = subprocess.run(
                command, cwd=project, stdout=output, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired:
            raise HarnessBuildError(f"`{shlex.join(command)}` took over {BUILD_TIMEOUT:g} s; log: {log}") from None
    if done.returncode != 0:
        tail = "\n    ".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-25:])
        raise HarnessBuildError(f"`{shlex.join(command)}` failed (exit {done.returncode}); log: {log}\n    {tail}")


def reproductions() -> list[Path]:
    """The JUnit reproductions of real-code bugs (``src/test/java`` of the modules)."""
    return sorted(path for path in _sources() if "test" in path.relative_to(SOURCE).parts and path.suffix == ".java")


def run_reproductions(*, log: TextIO | None = None) -> Path:
    """Run the JUnit reproductions of the harness project (``mvn test``); return Maven's log."""
    project = build(log=log) / "real"
    report = project.parent / "reproductions.log"
    _maven(project, ["test"], report, extra=("-DskipReproductions=false",))
    return report


def harness_lines(name: str, harness: Harness) -> list[str]:
    """How ``ledgerspec adapters`` shows a real-code harness: what it drives, and whether it is built."""
    state = "built" if is_built() else "builds on first use (or `ledgerspec harness build`)"
    return [
        f"  {name}: java harness of {harness.coordinates} ({harness.drives}), profile {harness.profile}",
        f"      {state}; needs a JDK 17 and Maven",
    ]


def harnesses_of(system: str) -> tuple[str, ...]:
    """The real-code harnesses of a lockstep system (``System.real``)."""
    return tuple(name for name, (of, _) in SYSTEM_HARNESSES.items() if of == system)
