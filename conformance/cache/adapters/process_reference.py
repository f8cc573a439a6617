"""The reference implementation behind process protocol v1: a tiny adapter loop, and a model for one.

    python -m ledgerspec.conformance.cache.adapters.process_reference --profile pip430 [--full-observations]

Read a JSON line, dispatch on ``cmd``, write one flushed JSON line; exceptions become ``errored``.
Operations go to the reference cache's method of the same name, with the operation's fields.
Observations go out as deltas when asked (``observe: "delta"``): the cache's events name the
positions each operation may have changed (``ChangedPositions``), and only their rows are read again
and compared (``snapshot_at``), so a step's cost grows with what it changed and with the open
copies, not with what the cache holds.
``--full-observations`` does not announce deltas, so the runner asks for full observations (to
measure the difference, and to keep that path of the runner tested).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ledgerspec.conformance._version import VERSION
from ledgerspec.conformance.adapters._transport import reply, serve_lines
from ledgerspec.conformance.cache.adapters._delta import DeltaEncoder
from ledgerspec.conformance.cache.adapters.reference import profile_capabilities
from ledgerspec.reference.cache import CACHES, ChangedPositions


class Session:
    """The state of one adapter process: its profile and the current cache."""

    def __init__(self, profile: str, *, deltas: bool = True) -> None:
        self.profile = profile
        self.deltas = deltas
        self.cache: Any = None
        self.changes = ChangedPositions()
        self.encoder = DeltaEncoder()

    def handle(self, request: dict[str, Any]) -> Any:
        """The result of one request; raises on anything wrong (the caller replies ``errored``)."""
        cmd = request["cmd"]
        if cmd == "start":
            capabilities = sorted(profile_capabilities(self.profile))
            implementation = {"name": f"python-reference-{self.profile}", "version": VERSION, "language": "python"}
            claims = {"profiles": [self.profile], "capabilities": capabilities, "observation_deltas": self.deltas}
            return {"version": 1, "implementation": {**implementation, **claims}}
        if cmd == "configure":
            self.cache = CACHES[self.profile](**request["config"])
            self.changes = ChangedPositions()
            self.cache.listen(self.changes)
            self.encoder.reset()
            return {}
        if cmd == "apply":
            results = []
            for op in request["ops"]:
                fields = dict(op)
                value = getattr(self.cache, fields.pop("op"))(**fields)
                results.append(list(value) if isinstance(value, tuple) else value)
            observe = request.get("observe", False)
            if observe == "delta":
                delta = self.encoder.delta_at(*self.cache.snapshot_at(self.changes.take()))
                return {"results": results, "delta": delta | self.cache.queue_fields()}
            return {"results": results, **({"observation": self.observation()} if observe else {})}
        if cmd == "observe":
            return self.observation()
        if cmd == "stop":
            return {}
        raise ValueError(f"unknown command {cmd!r}")

    def observation(self) -> dict[str, Any]:
        """A full snapshot, which later deltas are against."""
        snapshot: dict[str, Any] = self.cache.snapshot()
        self.changes.take()
        self.encoder.sent_full(snapshot)
        return snapshot


def reply_to(session: Session, line: str | bytes) -> tuple[dict[str, Any], bool]:
    """The reply to one request line, and whether it was ``stop`` (a test's broken process plays with it)."""
    answer, request = reply(session.handle, line)
    return answer, request.get("cmd") == "stop"


def serve(profile: str, lines: Any = None, out: Any = None, *, deltas: bool = True) -> None:
    """Answer requests until ``stop`` or the end of input: the serve loop of every system (``serve_lines``)."""
    session = Session(profile, deltas=deltas)
    serve_lines(session.handle, sys.stdin.buffer if lines is None else lines, sys.stdout.buffer if out is None else out)


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve stdin."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(CACHES), default="pip430")
    parser.add_argument("--full-observations", action="store_true", help="do not offer observation deltas")
    args = parser.parse_args(argv)
    serve(args.profile, deltas=not args.full_observations)


if __name__ == "__main__":
    main()
