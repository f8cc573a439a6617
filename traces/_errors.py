"""The trace package's exceptions."""


class TraceError(Exception):
    """Root of every error raised by ``ledgerspec.traces``."""

    code = "trace-error"
    exit_status = 2
    hinted = True
    """Whether ``traces check`` adds the docstring's first paragraph as a hint (not when the message is all)."""


class TraceInputError(TraceError):
    """The trace file is not a valid ledgerspec trace: the message names the file, row and field.

    Likely cause: a writer that does not follow traces/FORMAT.md, a truncated copy, or the wrong
    file. Fix the named row or field; a trace is never checked past a bad row.
    """

    code = "trace-input-error"


class TraceNotFoundError(TraceInputError):
    """The path names no file or directory: there is no trace to check."""

    code = "trace-not-found"
    hinted = False
