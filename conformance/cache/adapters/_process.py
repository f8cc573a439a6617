"""The cache's client of process protocol v1 (conformance/protocol/README.md): ``--adapter exec:COMMAND``.

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
from typing import Any

from ledgerspec.conformance._errors import AdapterFault, InputError, clip
from ledgerspec.conformance.adapters._json_lines import RequestLabel
from ledgerspec.conformance.adapters._transport import ProtocolViolation, _Process
from ledgerspec.conformance.cache.adapters._api import NEEDS_BY_OPERATION, AdapterInfo, result_problem
from ledgerspec.conformance.cache.adapters._delta import DeltaDecoder
from ledgerspec.spec.cache import CacheConfig, Observation, Op


class ProcessAdapter:
    """One adapter handle over a shared child process (see :func:`process_factory`)."""

    def __init__(self, process: _Process) -> None:
        self._process = process
        assert isinstance(process.info, AdapterInfo), "the cache's transport checks its start reply as AdapterInfo"
        self.info: AdapterInfo = process.info
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


class _CacheProcess(_Process):
    """The transport speaking the cache's payloads (an implementation that names no system is the cache's)."""

    info_class = AdapterInfo
    system = "cache"


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
            self._process = _CacheProcess(
                self.command, timeout=self.timeout, validate=self.validate, restart=self.restart
            )
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
