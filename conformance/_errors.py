"""The conformance engine's exceptions: one root, subclasses that say the cause and the fix."""


class ConformanceError(Exception):
    """Root of every error raised by ``ledgerspec.conformance``."""

    code = "conformance-error"
    exit_status = 2


class InputError(ConformanceError):
    """Bad input from the user: an unknown adapter or profile, a malformed case file or option.

    Fix: the message names the file, field or option; ``ledgerspec adapters`` and
    ``ledgerspec spec show`` list what exists. Exit code 2.
    """

    code = "input-error"
    exit_status = 2


class AdapterFault(ConformanceError):  # noqa: N818 - "adapter fault" is the term DESIGN.md uses
    """The adapter, not the cache, misbehaved.

    It crashed, hung, broke the protocol, or answered an operation it does not support.

    This is never a conformance verdict. Fix: run ``ledgerspec smoke --adapter A`` and read the
    captured stderr in the message. Exit code 3.
    """

    code = "adapter-fault"
    exit_status = 3


class Nondeterministic(AdapterFault):
    """The same steps, replayed, got different answers: no verdict can rest on such an adapter.

    Fix: remove every source of nondeterminism from the adapter (real clocks, thread timing, hash
    order, randomness); the engine replays a failing example twice before reporting it.
    """

    code = "nondeterministic"


SHOWN = 500
"""Characters of a message shown on a terminal; reports and case files keep more (see :func:`clip`)."""


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut: an adapter's message can be megabytes."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


SHOWN_LINES = 15
"""Lines after a message's first (an adapter's stderr, a stack trace) a terminal shows; the rest is kept."""


def shown_lines(message: str, label: str, indent: str, kept: str | None = None) -> list[str]:
    """A message as a terminal shows it: its first line after ``label``, then up to :data:`SHOWN_LINES` more.

    Each line is clipped; a last line says how many more there are (``kept``: where the whole message is).
    """
    first, *rest = message.splitlines() or [""]
    lines = [f"{indent}{label}{clip(first, SHOWN)}"]
    lines += [f"{indent}  {clip(line, SHOWN)}" for line in rest[:SHOWN_LINES]]
    if len(rest) > SHOWN_LINES:
        lines.append(f"{indent}  ({len(rest) - SHOWN_LINES} more lines{f': {kept}' if kept else ''})")
    return lines


def close_factory(factory: object) -> AdapterFault | None:
    """End a factory's process (``close``, when it has one); the fault of its final ``stop``, if any."""
    closer = getattr(factory, "close", None)
    if callable(closer):
        try:
            closer()
        except AdapterFault as fault:
            return fault
    return None
