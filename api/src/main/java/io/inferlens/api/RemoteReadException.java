package io.inferlens.api;

/**
 * A remote-read request InferLens refuses; {@link ErrorMapping#status(Kind)} turns the kind into
 * the HTTP status. Never a 5xx: a client must not retry the same request unchanged.
 */
public final class RemoteReadException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Why the request is refused. */
  public enum Kind {
    /** The body is not a snappy-compressed ReadRequest, or a query is invalid: 400. */
    BAD_REQUEST,
    /** A query selects too many series, or the response would be too large: 413. */
    TOO_LARGE
  }

  private final Kind kind;

  /**
   * @param kind the error kind
   * @param message what is wrong, naming the query, the limit and the numbers
   */
  public RemoteReadException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /** @return the error kind */
  public Kind kind() {
    return kind;
  }
}
