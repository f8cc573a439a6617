package ledgerspec.protocol;

/** A malformed request: the runner sent something this adapter cannot act on. */
public final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadRequest(String message) {
        super(message);
    }

    public BadRequest(String message, Throwable cause) {
        super(message, cause);
    }
}
