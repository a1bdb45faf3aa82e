package io.inferlens.api;

import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.server.ServerErrorHandler;
import com.linecorp.armeria.server.ServiceConfig;
import com.linecorp.armeria.server.ServiceRequestContext;

/**
 * Names the limit when Armeria itself refuses a body as too large (413): its HTTP/1 decoder does
 * so from the {@code Content-Length} header, or while reading a chunked body, before any service
 * sees the request, and its default text says only "Request Entity Too Large". The remote-write
 * and remote-read paths answer in plain text, as Prometheus' own receiver does; every other path
 * in the JSON error envelope ({@code errorType} {@code too_large}), as its services do. Every
 * other status and exception is left to Armeria's default handler (this handler returns null for
 * them, which {@link ServerErrorHandler#orElse} chains past).
 *
 * <p>Thread safety: stateless.
 */
final class BodyLimitErrorHandler implements ServerErrorHandler {

  /** Not handled here: Armeria's default maps exceptions to statuses. */
  @Override
  public HttpResponse onServiceException(ServiceRequestContext ctx, Throwable cause) {
    return null;
  }

  /**
   * @return for 413, a body naming {@code --max-request-bytes} and its value in bytes (the
   *     service's limit, the server's when no service was chosen): plain text for the remote-write
   *     and remote-read services ({@link WriteService}, {@link RemoteReadService}), the JSON error
   *     envelope for every other route; null for any other status
   */
  @Override
  public AggregatedHttpResponse renderStatus(ServiceRequestContext ctx, ServiceConfig config,
      RequestHeaders headers, HttpStatus status, String description, Throwable cause) {
    if (status != HttpStatus.REQUEST_ENTITY_TOO_LARGE) {
      return null;
    }
    long cap = ctx != null ? ctx.maxRequestLength() : config.maxRequestLength();
    String declared = headers == null ? null : headers.get("content-length");
    String message = "request body" + (declared == null ? "" : " of " + declared + " bytes")
        + " exceeds --max-request-bytes " + cap + " bytes";
    // Decided by the service Armeria chose for the path, so a route's path lives in one place.
    if (config.service().as(WriteService.class) != null
        || config.service().as(RemoteReadService.class) != null) {
      return AggregatedHttpResponse.of(status, MediaType.PLAIN_TEXT_UTF_8, message + "\n");
    }
    return AggregatedHttpResponse.of(status, MediaType.JSON_UTF_8,
        JsonEndpoints.errorBody(ErrorMapping.Kind.TOO_LARGE, message));
  }
}
