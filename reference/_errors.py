"""The reference's exceptions."""


class ReferenceCacheError(Exception):
    """Root of every error raised by ``ledgerspec.reference``: an operation the cache cannot accept.

    Likely cause: a caller that breaks an operation's precondition (an unknown copy id, a cursor
    added twice, a size <= 0). Fix: check the operation table in spec/cache/SPEC.md.
    """

    code = "reference-error"
    exit_status = 2
