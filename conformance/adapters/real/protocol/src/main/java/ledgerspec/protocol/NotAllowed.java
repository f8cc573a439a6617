package ledgerspec.protocol;

/**
 * An operation whose precondition does not hold: the spec's "not allowed" (spec/cache/SPEC.md §1.1).
 *
 * <p>The runner never sends one on purpose; a target throws this before it changes anything, and the
 * loop answers {@code errored} with the message alone.
 */
public class NotAllowed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotAllowed(String message) {
        super(message);
    }
}
