"""The runner side of process protocol v1 (conformance/protocol/README.md): ``--adapter exec:COMMAND``.

One child process serves many examples: each example sends ``configure`` (a fresh cache) and then one
``apply`` with ``observe`` per step, so a step is one round trip. The observation comes as a delta when
the implementation announces ``observation_deltas`` (conformance/cache/adapters/_delta.py); with
``--validate-protocol`` every delta is also checked against a full ``observe``. A process that died is started
again for the next example (``restart="crash"``), or every example gets a new process
(``restart="example"``). Everything the process does wrong is an :class:`AdapterFault` subclass
naming the command, the line and the captured stderr.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shlex
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Any, NoReturn

from ledgerspec.conformance._errors import AdapterFault, InputError, clip
from ledgerspec.conformance.adapters import _reap
from ledgerspec.conformance.adapters._protocol_schemas import _validators
from ledgerspec.conformance.cache.adapters._api import (
    NEEDS_BY_OPERATION,
    NO_COMMAND,
    AdapterInfo,
    OutOfRangeError,
    RequestLabel,
    json_line,
    parse_line,
    result_problem,
)
from ledgerspec.conformance.cache.adapters._delta import DeltaDecoder
from ledgerspec.spec.cache import CacheConfig, Observation, Op

PROTOCOL_VERSION = 1
SPIN_SECONDS = 80e-6
"""How long the runner polls for a reply before it blocks (conformance/protocol/README.md, "Latency")."""
SCHEMA_DIR = Path(__file__).resolve().parents[1] / "protocol" / "v1"
ERRORED_LIMIT = 20_000
"""Characters kept of each field of an ``errored`` reply: a whole trace, not megabytes of it in every report."""


class AdapterCrashed(AdapterFault):
    """The process exited or closed its stdout before replying.

    Fix: read the captured stderr in the message; run the command by hand with the printed request.
    """

    code = "adapter-crashed"


class AdapterTimeout(AdapterFault):
    """No reply within the step timeout; the process was killed.

    Fix: make sure every request gets exactly one flushed reply line; raise ``--timeout`` if it is
    merely slow.
    """

    code = "adapter-timeout"


class ProtocolViolation(AdapterFault):
    """A reply that is not JSON, echoes the wrong ``seq``, breaks the schema or has the wrong type.

    Fix: compare the offending line with conformance/protocol/v1/; run with --validate-protocol.
    """

    code = "protocol-violation"


class AdapterErrored(AdapterFault):
    """The implementation answered ``errored``: an exception inside it.

    Fix: the message carries its traceback and stderr.
    """

    code = "adapter-errored"


class CapabilityLie(AdapterFault):
    """The implementation skipped an operation of a capability it claims (or a required operation).

    Fix: claim only the capabilities the implementation has in its ``start`` reply.
    """

    code = "capability-lie"


class ProcessAdapter:
    """One adapter handle over a shared child process (see :func:`process_factory`)."""

    def __init__(self, process: _Process) -> None:
        self._process = process
        self.info = process.info
        self._observation: Observation | None = None
        self._decoder = DeltaDecoder()

    def start(self, config: CacheConfig) -> None:
        """A fresh cache: restart the process if needed, then ``configure``."""
        self._process.ensure_running(restart=self._process.restart == "example")
        self._process.request("configure", config=config.to_dict())
        self._observation = None
        self._decoder.reset()

    def apply(self, op: Op) -> Any:
        """One ``apply`` with ``observe``; the observation is kept for :meth:`observe`."""
        need = NEEDS_BY_OPERATION.get(type(op))
        process = self._process
        observe = "delta" if process.deltas else True
        reply = process.request("apply", ops=[op.to_dict()], observe=observe, what=op, need=need)
        where = RequestLabel("apply", op, process.seq)
        results = reply.get("results")
        if not isinstance(results, list) or len(results) != 1:
            raise ProtocolViolation(f"{where}: expected one result, got {clip(repr(results), 300)}")
        problem = result_problem(op, results[0])
        if problem:
            raise ProtocolViolation(f"{where}: {problem}")
        result = tuple(results[0]) if isinstance(results[0], list) else results[0]
        if "observation" in reply:
            self._observation = self._decoder.full(_observation(reply["observation"], where))
        elif "delta" in reply:
            try:
                self._observation = self._decoder.apply(reply["delta"])
            except (ValueError, TypeError) as error:
                raise ProtocolViolation(f"{where}: malformed delta: {error}") from None
            if process.validators is not None:
                self._check_delta(where)
        else:
            self._observation = None
        return result

    def _check_delta(self, where: RequestLabel) -> None:
        """--validate-protocol: the observation rebuilt from deltas must equal a full ``observe``."""
        full = _observation(self._process.request("observe"), "observe")
        if full != self._observation:
            raise ProtocolViolation(
                f"{where}: the observation rebuilt from deltas differs from a full observe: "
                f"rebuilt {self._observation!r}, observed {full!r}"[:900]
            )

    def observe(self) -> Observation:
        """The observation that came with the last ``apply``, or an ``observe`` round trip."""
        if self._observation is not None:
            return self._observation
        self._observation = self._decoder.full(_observation(self._process.request("observe"), "observe"))
        return self._observation

    def stop(self) -> None:
        """Nothing: the process serves the next example. ``process_factory(...).close()`` ends it."""


def _observation(data: Any, where: object) -> Observation:
    try:
        return Observation.from_dict(data)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ProtocolViolation(
            f"{where}: malformed observation ({type(error).__name__}: {error}): {data!r}"[:600]
        ) from None


class _Process:
    """The child process and its line-oriented, time-limited request/reply loop."""

    info_class: type[AdapterInfo] = AdapterInfo
    """Checks what ``start`` claims (another system's transport checks its own profiles)."""
    schema_dir: Path = SCHEMA_DIR
    """The system's message schemas, for ``--validate-protocol``."""
    system: str = "cache"
    """The system whose payloads this transport speaks; a ``start`` reply naming another is refused (a cache
    implementation names none)."""

    def __init__(self, command: str, *, timeout: float | None, validate: bool, restart: str) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise InputError(f"exec:{command}: cannot parse the command: {error}") from None
        if not self.argv:
            raise InputError(NO_COMMAND)
        self.command = command
        self.timeout = timeout or 10.0
        self.restart = restart
        self.validators = _validators(self.schema_dir) if validate else None
        self.popen: subprocess.Popen[bytes] | None = None
        self.selector: selectors.BaseSelector | None = None
        self.stdin_fd = self.stdout_fd = -1
        self.replies_fast = True
        self.buffer = bytearray()  # appended to in place: a long line costs its length, not its square
        self.seq = 0
        self.stderr: IO[bytes] | None = None
        self.deltas = False
        self.info: AdapterInfo = self._spawn()

    # --- life cycle ---------------------------------------------------------------------------------

    def _spawn(self) -> AdapterInfo:
        self.kill()  # the group of a previous process, if it left any
        _reap.become_subreaper()  # what the process orphans comes back to the runner (_reap.py)
        try:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._new_stderr(),
                start_new_session=True,  # a group of its own, which kill() ends whole
            )
        except OSError as error:
            raise InputError(f"exec:{self.command}: cannot start it: {error.strerror}") from None
        _reap.LIVE.add(self.popen.pid)
        self._open_pipes(self.popen)
        try:
            return self._handshake()
        except BaseException:
            self.kill()  # a process that fails its handshake does not outlive it
            raise

    def _handshake(self) -> AdapterInfo:
        """``start``: the protocol version, then what the implementation is and claims."""
        reply = self.request("start", version=PROTOCOL_VERSION)
        if reply.get("version") != PROTOCOL_VERSION:
            raise ProtocolViolation(f"start: the implementation speaks version {reply.get('version')!r}, not 1")
        implementation = reply.get("implementation")
        if not isinstance(implementation, dict):
            raise ProtocolViolation(f"start: no implementation object in {reply!r}")
        named = implementation.get("system", "cache")
        if named != self.system:
            raise ProtocolViolation(
                f"start: the implementation is for system {clip(repr(named), 80)}, not {self.system!r} "
                f"(each system has its own payloads; `ledgerspec conform --system NAME` picks them)"
            )
        deltas = implementation.get("observation_deltas", False)
        if not isinstance(deltas, bool):
            raise ProtocolViolation(f"start: observation_deltas must be a boolean, got {deltas!r}")
        self.deltas = deltas
        try:
            return self.info_class(
                name=str(implementation["name"]),
                version=str(implementation["version"]),
                language=str(implementation["language"]),
                profiles=tuple(implementation["profiles"]),
                capabilities=frozenset(implementation["capabilities"]),
            )
        except (KeyError, TypeError) as error:
            raise ProtocolViolation(f"start: malformed implementation {implementation!r}: {error}") from None

    def _open_pipes(self, popen: subprocess.Popen[bytes]) -> None:
        """Raw pipe descriptors and one selector per process (making one per request cost a few us a step)."""
        assert popen.stdin is not None
        assert popen.stdout is not None
        self.buffer = bytearray()
        self.stdin_fd, self.stdout_fd = popen.stdin.fileno(), popen.stdout.fileno()
        os.set_blocking(self.stdout_fd, False)
        if self.selector is not None:
            self.selector.close()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout_fd, selectors.EVENT_READ)

    def _new_stderr(self) -> IO[bytes]:
        """A file for the child's stderr: it never blocks the child, and needs no reader thread.

        (A thread draining a pipe made every round trip slower: it wakes with the main one.)
        """
        if self.stderr is not None:
            self.stderr.close()
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        return self.stderr

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def ensure_running(self, *, restart: bool = False) -> None:
        if restart and self.alive():
            self.kill()
        if not self.alive():
            self._spawn()

    def kill(self) -> None:
        """Kill the process and whatever it started, and reap what it orphaned (conformance/adapters/_reap.py).

        It leads a process group of its own (``_spawn``): a wrapper script or a JVM launcher would otherwise
        leave the real implementation running; a descendant that left the group is found through /proc.
        """
        if self.popen is not None:
            _reap.end(self.popen)

    def close(self) -> None:
        """Send ``stop``, wait for exit status 0, kill what is left; a ``stop`` that went wrong is a fault.

        A reply that is not ``{}`` (errored, garbage), no exit within the timeout or another exit status
        raises the :class:`AdapterFault` after the process is gone: a run must not end in PASS over it.
        """
        fault: AdapterFault | None = None
        if self.alive():
            assert self.popen is not None
            try:
                self.request("stop")
                status = self.popen.wait(timeout=self.timeout)
                if status != 0:
                    fault = AdapterCrashed(
                        f"stop (seq {self.seq}): the process exited with status {status} after its reply, "
                        f"not 0{self._stderr_note()}"
                    )
            except AdapterFault as error:
                fault = error
            except subprocess.TimeoutExpired:
                fault = AdapterTimeout(
                    f"stop (seq {self.seq}): the process did not exit within {self.timeout:g} s of its reply; "
                    f"killed{self._stderr_note()}"
                )
        self.kill()  # what it left behind, or itself if it did not stop
        if self.selector is not None:
            self.selector.close()
            self.selector = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None
        if fault is not None:
            raise fault

    # --- one round trip ---------------------------------------------------------------------------

    def request(self, cmd: str, *, what: Any = None, need: str | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request and return its ``result``; every failure is an :class:`AdapterFault`."""
        self.seq += 1
        message = {"cmd": cmd, "seq": self.seq, **fields}
        label = RequestLabel(cmd, what, self.seq)
        if self.validators is not None:
            self._validate(cmd, "request", message, json.dumps(message))
        line = self._exchange(json_line(message), label)
        try:
            reply = parse_line(line)
        except json.JSONDecodeError as error:
            raise ProtocolViolation(f"{label}: reply is not JSON ({error.msg}): {line[:300]!r}") from None
        except RecursionError:
            raise ProtocolViolation(f"{label}: reply nests too deeply to parse: {line[:300]!r}") from None
        except OutOfRangeError as error:
            raise ProtocolViolation(f"{label}: reply field {error}: {line[:300]!r}") from None
        if not isinstance(reply, dict) or reply.get("seq") != self.seq:
            got = reply.get("seq") if isinstance(reply, dict) else reply
            raise ProtocolViolation(f"{label}: reply seq {clip(repr(got), 100)}, expected {self.seq}: {line[:300]!r}")
        if self.validators is not None:
            self._validate(cmd, "reply", reply, line)
        result = reply.get("result")
        if not isinstance(result, dict) or "skipped" in reply or "errored" in reply:
            self._refused(reply, label, line, need)
        return result

    def _refused(self, reply: dict[str, Any], label: RequestLabel, line: str, need: str | None) -> NoReturn:
        """Raise the fault for a reply that is not one plain result: skipped, errored, or malformed."""
        kinds = [k for k in ("result", "skipped", "errored") if k in reply]
        if len(kinds) != 1:
            raise ProtocolViolation(f"{label}: a reply has exactly one of result/skipped/errored: {line[:300]!r}")
        if kinds == ["errored"]:
            context = reply["errored"] if isinstance(reply["errored"], dict) else {"message": reply["errored"]}
            detail = "\n".join(
                clip(str(context[k]), ERRORED_LIMIT) for k in ("message", "traceback", "stderr") if context.get(k)
            )
            raise AdapterErrored(f"{label}: the implementation errored: {detail}{self._stderr_note()}")
        if kinds == ["skipped"]:
            why = reply["skipped"].get("message") if isinstance(reply["skipped"], dict) else reply["skipped"]
            claim = f"it claims capability {need!r}" if need else "the operation is required"
            raise CapabilityLie(f"{label}: skipped ({why}), but {claim}")
        raise ProtocolViolation(f"{label}: result must be an object, got {reply['result']!r}")

    def _exchange(self, data: bytes, label: RequestLabel) -> str:
        """Write one request and return the next reply line (without its newline)."""
        popen = self.popen
        if popen is None or popen.poll() is not None:
            raise AdapterCrashed(f"{label}: the process is not running (exit {self._exit()}){self._stderr_note()}")
        try:
            written = os.write(self.stdin_fd, data)
            while written < len(data):
                written += os.write(self.stdin_fd, data[written:])
        except OSError:
            raise AdapterCrashed(f"{label}: stdin closed (exit {self._exit()}){self._stderr_note()}") from None
        sent = time.perf_counter()
        if b"\n" not in self.buffer and self.replies_fast:
            self._spin(sent + SPIN_SECONDS)
        if b"\n" not in self.buffer:
            self._read_line(label)
        self.replies_fast = time.perf_counter() - sent <= SPIN_SECONDS
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return line.decode()
        except UnicodeDecodeError as error:
            raise ProtocolViolation(f"{label}: reply is not UTF-8 (byte {error.start}): {line[:300]!r}") from None

    def _read_some(self) -> bytes | None:
        """Append what stdout holds to the buffer, without blocking: the chunk (b"" at end of file), or None."""
        try:
            chunk = os.read(self.stdout_fd, 1 << 16)
        except BlockingIOError:
            return None
        self.buffer += chunk
        return chunk

    def _spin(self, until: float) -> None:
        """Poll stdout without blocking until ``until`` (perf_counter), yielding the core between polls.

        A reply read here costs no wake-up of the runner, and yielding lets the implementation (or
        anything else) run on this core first. ``_exchange`` polls only while replies come within
        SPIN_SECONDS, so a slow implementation or a busy machine turns polling off by itself.
        """
        while True:
            chunk = self._read_some()
            if chunk == b"" or (chunk and b"\n" in chunk) or time.perf_counter() > until:
                return  # at the end of file, _read_line reports the crash
            if chunk is None:
                os.sched_yield()

    def _read_line(self, label: RequestLabel) -> None:
        """Read stdout into the buffer until it holds a whole line, within the timeout."""
        assert self.selector is not None
        deadline = time.monotonic() + self.timeout
        while True:
            chunk = self._read_some()
            if chunk == b"":
                raise AdapterCrashed(f"{label}: the process closed stdout (exit {self._exit()}){self._stderr_note()}")
            if chunk and b"\n" in chunk:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (chunk is None and not self.selector.select(remaining)):
                self.kill()
                raise AdapterTimeout(f"{label}: no reply within {self.timeout:g} s; killed{self._stderr_note()}")

    def _exit(self) -> Any:
        if self.popen is None:
            return None
        try:
            return self.popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "still running"

    def _stderr_note(self) -> str:
        """The last lines the process wrote to stderr, for a fault message."""
        if self.stderr is None:
            return ""
        fd = self.stderr.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - 16384)  # pread: the child shares the file offset, so leave it alone
        lines = os.pread(fd, size - start, start).decode("utf-8", "replace").splitlines()[-15:]
        tail = "\n    ".join(lines)
        return f"\n  stderr (last lines):\n    {tail}" if tail else ""

    def _validate(self, cmd: str, side: str, message: Any, line: str) -> None:
        assert self.validators is not None
        validator = self.validators.get((cmd, side))
        if validator is None:
            raise ProtocolViolation(f"unknown command {cmd!r}")
        error = next(iter(validator.iter_errors(message)), None)
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            raise ProtocolViolation(f"{cmd} {side} breaks the v1 schema at {where}: {error.message}: {line[:300]!r}")


class ProcessFactory:
    """Makes adapter handles over one shared process; ``close()`` stops it (also done at exit)."""

    def __init__(self, command: str, *, timeout: float | None, validate: bool, restart: str) -> None:
        if restart not in {"crash", "example"}:
            raise InputError(f"restart must be 'crash' or 'example', got {restart!r}")
        self.command, self.timeout, self.validate, self.restart = command, timeout, validate, restart
        self._process: _Process | None = None
        atexit.register(self._close_at_exit)

    def __call__(self) -> ProcessAdapter:
        if self._process is None:
            self._process = _Process(self.command, timeout=self.timeout, validate=self.validate, restart=self.restart)
        else:
            self._process.ensure_running()
        return ProcessAdapter(self._process)

    def close(self) -> None:
        """End the process; raises the :class:`AdapterFault` of a ``stop`` that went wrong."""
        process, self._process = self._process, None
        if process is not None:
            process.close()

    def _close_at_exit(self) -> None:
        """At interpreter exit, a run's own ``close`` already reported any fault: only end the process."""
        with contextlib.suppress(AdapterFault):
            self.close()


def process_factory(
    command: str, *, timeout: float | None = None, validate_protocol: bool = False, restart: str = "crash"
) -> ProcessFactory:
    """The factory behind ``--adapter exec:COMMAND``."""
    return ProcessFactory(command, timeout=timeout, validate=validate_protocol, restart=restart)
