"""The one process transport of protocol v1 (conformance/protocol/README.md), for every system.

A child process speaks JSON lines: the runner sends one request and reads one reply, within a time
limit, and every way the process goes wrong (it died, it timed out, it broke the framing or the schema,
it refused what it claimed) is an :class:`~ledgerspec.conformance._errors.AdapterFault` naming the
command, the line and the captured stderr. A system's client (the cache's ``ProcessAdapter``, the
lockstep systems' ``SystemProcessAdapter``) drives it with its own payloads, and its :class:`Info`
subclass checks what the ``start`` reply claims.
"""

from __future__ import annotations

import dataclasses
import json
import json.encoder
import os
import selectors
import shlex
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

from ledgerspec.conformance._errors import AdapterFault, InputError, clip
from ledgerspec.conformance._names import DEFAULT_SYSTEM
from ledgerspec.conformance.adapters import _reap
from ledgerspec.conformance.adapters._json_lines import OutOfRangeError, RequestLabel, json_line, parse_line
from ledgerspec.conformance.adapters._protocol_schemas import _validators

NO_COMMAND = '--adapter exec: needs a command, as in exec:"python my_adapter.py"'


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


@dataclass(frozen=True)
class Info:
    """Who an implementation is and what it claims: its ``start`` reply, printed in reports.

    Each system's subclass checks the claims against its own profiles and capabilities.
    """

    name: str
    version: str
    language: str
    profiles: tuple[str, ...]
    capabilities: frozenset[str]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {**dataclasses.asdict(self), "profiles": list(self.profiles), "capabilities": sorted(self.capabilities)}


class _Process:
    """The child process and its line-oriented, time-limited request/reply loop."""

    info_class: type[Info] = Info
    """Checks what ``start`` claims (another system's transport checks its own profiles)."""
    schema_dir: Path = SCHEMA_DIR
    """The system's message schemas, for ``--validate-protocol``."""
    system: str = DEFAULT_SYSTEM
    """The system whose payloads this transport speaks; a ``start`` reply naming another is refused (one that
    names none is the default system's, as protocol v1 began)."""

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
        self.info: Info = self._spawn()

    # --- life cycle ---------------------------------------------------------------------------------

    def _spawn(self) -> Info:
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

    def _handshake(self) -> Info:
        """``start``: the protocol version, then what the implementation is and claims."""
        reply = self.request("start", version=PROTOCOL_VERSION)
        if reply.get("version") != PROTOCOL_VERSION:
            raise ProtocolViolation(f"start: the implementation speaks version {reply.get('version')!r}, not 1")
        implementation = reply.get("implementation")
        if not isinstance(implementation, dict):
            raise ProtocolViolation(f"start: no implementation object in {reply!r}")
        named = implementation.get("system", DEFAULT_SYSTEM)
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


def reply(
    handle: Callable[[dict[str, Any]], Any], line: str | bytes, *, configured: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reply to one request line, and the request as read: an exception is an ``errored`` reply.

    ``configured`` False: an ``apply`` is refused by name, rather than as whatever the implementation trips over.
    """
    request: dict[str, Any] = {}
    try:
        request = parse_line(line.decode() if isinstance(line, bytes) else line)  # str parses faster
        if request.get("cmd") == "apply" and not configured:
            raise ValueError("apply before configure: send configure first")  # noqa: TRY301 - one errored path
        answer = {"seq": request["seq"], "result": handle(request)}
    except Exception as error:  # noqa: BLE001 - every failure is reported as errored
        message = f"{type(error).__name__}: {error}"
        answer = {"seq": request.get("seq"), "errored": {"message": message, "traceback": traceback.format_exc()}}
    return answer, request


def serve_lines(handle: Callable[[dict[str, Any]], Any], lines: Iterable[bytes], out: IO[bytes]) -> None:
    """The serve loop of every system's process: a JSON line in, :func:`reply`, one flushed line out, to ``stop``.

    Reads and writes byte buffers: no text layer, whose per-line overhead is more than decoding a line once
    for the parser, and one write per reply.
    """
    configured = False
    for line in lines:
        answer, request = reply(handle, line, configured=configured)
        configured = configured or (request.get("cmd") == "configure" and "errored" not in answer)
        out.write(json_line(answer))
        out.flush()
        if request.get("cmd") == "stop":
            return
