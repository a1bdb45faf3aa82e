package io.inferlens.analysis.promql.engine;

/**
 * A query that could not be answered, with the class of failure that picks the HTTP status and
 * {@code errorType} of Prometheus's API ({@code web/api/v1/api.go} at v2.42.0: {@code bad_data}
 * 400, {@code execution} 422, {@code timeout} 503, {@code canceled} 503, {@code internal} 500).
 */
public final class QueryException extends RuntimeException {

  /** What went wrong. */
  public enum Kind {
    /** The query or a parameter is malformed: a parse or type error, a bad range. */
    BAD_DATA,
    /**
     * Evaluation failed: many-to-many matching, duplicate output series, too many samples, an
     * invalid argument value such as a bad regex in {@code label_replace}.
     */
    EXECUTION,
    /** The query ran longer than {@code --query.timeout}. */
    TIMEOUT,
    /** The query was cancelled, e.g. the client went away. */
    CANCELED,
    /** The store failed while reading ({@code internal}, 500). */
    INTERNAL
  }

  private final Kind kind;

  /**
   * @param kind the failure class
   * @param message what failed, naming the offending expression, parameter or limit
   */
  public QueryException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /**
   * @param kind the failure class
   * @param message what failed
   * @param cause the underlying error
   */
  public QueryException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /** @return the failure class */
  public Kind kind() {
    return kind;
  }

  static QueryException execution(String format, Object... args) {
    return new QueryException(Kind.EXECUTION, String.format(java.util.Locale.ROOT, format, args));
  }
}
