package io.inferlens.api;

import com.linecorp.armeria.common.HttpStatus;
import io.inferlens.ingest.IngestException;

/** The one place where error kinds become HTTP status codes (STYLE.md item 7). */
public final class ErrorMapping {

  private ErrorMapping() {}

  /**
   * @param kind the ingest error kind
   * @return 400, 413 or 415; never 5xx, since bad input must not be retried
   */
  public static HttpStatus status(IngestException.Kind kind) {
    switch (kind) {
      case BAD_REQUEST:
        return HttpStatus.BAD_REQUEST;
      case PAYLOAD_TOO_LARGE:
        return HttpStatus.REQUEST_ENTITY_TOO_LARGE;
      case UNSUPPORTED_MEDIA_TYPE:
        return HttpStatus.UNSUPPORTED_MEDIA_TYPE;
      default:
        throw new AssertionError("unmapped ingest error kind " + kind);
    }
  }

  /**
   * @param kind the remote-read error kind
   * @return 400 or 413; never 5xx, since bad input must not be retried
   */
  public static HttpStatus status(RemoteReadException.Kind kind) {
    switch (kind) {
      case BAD_REQUEST:
        return HttpStatus.BAD_REQUEST;
      case TOO_LARGE:
        return HttpStatus.REQUEST_ENTITY_TOO_LARGE;
      default:
        throw new AssertionError("unmapped remote-read error kind " + kind);
    }
  }
}
