package io.inferlens.api;

import com.linecorp.armeria.common.HttpStatus;
import io.inferlens.ingest.IngestException;

/**
 * The one place where error kinds become HTTP statuses, for every route (STYLE.md item 7). Every
 * handler classifies a failure as one {@link Kind}; this class alone says which status and which
 * Prometheus {@code errorType} that kind answers with. Nothing branches on message text.
 */
public final class ErrorMapping {

  /** The closed set of error kinds the server answers with. */
  public enum Kind {
    /** Bad input (parameter, body, time, selector): 400 {@code bad_data}; never retried. */
    BAD_DATA,
    /** No route and no UI file at the path: 404 {@code not_found}. */
    NOT_FOUND,
    /** The route exists but not for this HTTP method: 405 {@code method_not_allowed}. */
    METHOD_NOT_ALLOWED,
    /** A body or result over a configured limit: 413 {@code too_large}. */
    TOO_LARGE,
    /** A body in an encoding or content type the route does not take: 415 {@code bad_data}. */
    UNSUPPORTED_MEDIA_TYPE,
    /** A route turned off by a flag (the admin API): 403 {@code forbidden}; never retried. */
    FORBIDDEN,
    /**
     * No tenant named with {@code --multitenancy} on (no {@code X-Scope-OrgID} header): 401
     * {@code unauthorized}, as Mimir's "no org id"; never retried.
     */
    UNAUTHORIZED,
    /** The store failed; the client should retry: 503 {@code unavailable}. */
    UNAVAILABLE,
    /**
     * Beyond a rate limit ({@code --limits.ingestion-rate}); the client should retry after the
     * {@code Retry-After} seconds: 429 {@code too_many_requests}.
     */
    TOO_MANY_REQUESTS,
    /**
     * A PromQL query that parsed but could not be evaluated (many-to-many matching, duplicate
     * output series, over {@code --query.max-samples}): 422 {@code execution}, as Prometheus.
     */
    EXECUTION,
    /** A PromQL query over {@code --query.timeout}: 503 {@code timeout}, as Prometheus. */
    TIMEOUT,
    /** A PromQL query cancelled before it finished: 503 {@code canceled}, as Prometheus. */
    CANCELED,
    /** A bug in InferLens: 500 {@code internal}. */
    INTERNAL
  }

  private ErrorMapping() {}

  /**
   * @param kind the error kind
   * @return its HTTP status: 400, 401, 403, 404, 405, 413, 415, 422, 429, 503 or 500
   */
  public static HttpStatus status(Kind kind) {
    switch (kind) {
      case BAD_DATA: return HttpStatus.BAD_REQUEST;
      case NOT_FOUND: return HttpStatus.NOT_FOUND;
      case FORBIDDEN: return HttpStatus.FORBIDDEN;
      case UNAUTHORIZED: return HttpStatus.UNAUTHORIZED;
      case METHOD_NOT_ALLOWED: return HttpStatus.METHOD_NOT_ALLOWED;
      case TOO_LARGE: return HttpStatus.REQUEST_ENTITY_TOO_LARGE;
      case UNSUPPORTED_MEDIA_TYPE: return HttpStatus.UNSUPPORTED_MEDIA_TYPE;
      case UNAVAILABLE: return HttpStatus.SERVICE_UNAVAILABLE;
      case TOO_MANY_REQUESTS: return HttpStatus.TOO_MANY_REQUESTS;
      case EXECUTION: return HttpStatus.UNPROCESSABLE_ENTITY;
      case TIMEOUT: return HttpStatus.SERVICE_UNAVAILABLE;
      case CANCELED: return HttpStatus.SERVICE_UNAVAILABLE;
      case INTERNAL: return HttpStatus.INTERNAL_SERVER_ERROR;
      default: throw new AssertionError("unmapped error kind " + kind);
    }
  }

  /**
   * @param kind the error kind
   * @return the {@code errorType} of the JSON envelope: {@code bad_data}, {@code not_found},
   *     {@code method_not_allowed}, {@code too_large}, {@code unavailable},
   *     {@code too_many_requests}, {@code execution},
   *     {@code timeout}, {@code canceled} or {@code internal}
   */
  public static String errorType(Kind kind) {
    switch (kind) {
      case BAD_DATA:
      case UNSUPPORTED_MEDIA_TYPE:
        return "bad_data";
      case NOT_FOUND: return "not_found";
      case FORBIDDEN: return "forbidden";
      case UNAUTHORIZED: return "unauthorized";
      case METHOD_NOT_ALLOWED: return "method_not_allowed";
      case TOO_LARGE: return "too_large";
      case UNAVAILABLE: return "unavailable";
      case TOO_MANY_REQUESTS: return "too_many_requests";
      case EXECUTION: return "execution";
      case TIMEOUT: return "timeout";
      case CANCELED: return "canceled";
      case INTERNAL: return "internal";
      default: throw new AssertionError("unmapped error kind " + kind);
    }
  }

  /**
   * @param kind the ingest error kind
   * @return the server's kind: {@link Kind#BAD_DATA}, {@link Kind#TOO_LARGE},
   *     {@link Kind#UNSUPPORTED_MEDIA_TYPE} or {@link Kind#TOO_MANY_REQUESTS} (rate limited);
   *     never a 5xx kind, since bad input must not be retried
   */
  public static Kind kind(IngestException.Kind kind) {
    switch (kind) {
      case BAD_REQUEST: return Kind.BAD_DATA;
      case PAYLOAD_TOO_LARGE: return Kind.TOO_LARGE;
      case UNSUPPORTED_MEDIA_TYPE: return Kind.UNSUPPORTED_MEDIA_TYPE;
      case RATE_LIMITED: return Kind.TOO_MANY_REQUESTS;
      default: throw new AssertionError("unmapped ingest error kind " + kind);
    }
  }

  /**
   * @param kind the remote-read error kind
   * @return {@link Kind#BAD_DATA} or {@link Kind#TOO_LARGE}
   */
  public static Kind kind(RemoteReadException.Kind kind) {
    switch (kind) {
      case BAD_REQUEST: return Kind.BAD_DATA;
      case TOO_LARGE: return Kind.TOO_LARGE;
      default: throw new AssertionError("unmapped remote-read error kind " + kind);
    }
  }

  /**
   * @param kind the ingest error kind
   * @return {@code status(kind(kind))}: 400, 413, 415 or 429
   */
  public static HttpStatus status(IngestException.Kind kind) {
    return status(kind(kind));
  }

  /**
   * @param kind the remote-read error kind
   * @return {@code status(kind(kind))}: 400 or 413
   */
  public static HttpStatus status(RemoteReadException.Kind kind) {
    return status(kind(kind));
  }
}
