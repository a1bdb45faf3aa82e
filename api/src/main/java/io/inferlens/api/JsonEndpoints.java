package io.inferlens.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.server.HttpService;
import io.inferlens.storage.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns a read handler's result or error into the Prometheus JSON envelope:
 * {@code {"status":"success","data":…}} with 200, {@link IllegalArgumentException} →
 * 400 {@code {"status":"error","errorType":"bad_data","error":…}} (bad input, never retried),
 * {@link StorageException} → 503 {@code internal} (the store failed; retry), other methods than
 * GET (or GET and POST, {@link #getOrPost}) → 405. Handlers run on Armeria's blocking task executor, never on the event loop.
 */
final class JsonEndpoints {

  private static final Logger log = LoggerFactory.getLogger(JsonEndpoints.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonEndpoints() {}

  /** A read handler: query parameters in, the {@code data} value out. */
  @FunctionalInterface
  interface Handler {
    /**
     * @param params the request's query parameters
     * @return the {@code data} value, serialised with Jackson
     * @throws IllegalArgumentException for bad parameters (message names the parameter)
     * @throws StorageException when the store fails
     */
    Object handle(QueryParams params) throws StorageException;
  }

  /**
   * @param what a few words naming the endpoint, for the log when the store fails
   * @param handler computes the data
   * @return a GET-only service answering in the envelope
   */
  static HttpService get(String what, Handler handler) {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.GET) {
        return error(ErrorMapping.Kind.METHOD_NOT_ALLOWED, what + " takes GET, not " + req.method());
      }
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        try {
          return success(handler.handle(ctx.queryParams()));
        } catch (IllegalArgumentException e) {
          return error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (StorageException e) {
          log.error("{} failed in the store", what, e);
          return error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  /**
   * The request's parameters as Prometheus's API reads them: the URL's query, plus a form body
   * ({@code application/x-www-form-urlencoded}) of a POST, as Grafana sends queries.
   *
   * @param ctx the request context (for the URL's query)
   * @param req the aggregated request (for the body)
   * @return both sets of parameters, the URL's first
   */
  static QueryParams params(com.linecorp.armeria.server.ServiceRequestContext ctx,
      com.linecorp.armeria.common.AggregatedHttpRequest req) {
    QueryParams q = ctx.queryParams();
    MediaType ct = req.contentType();
    if (req.method() == HttpMethod.POST && ct != null && ct.is(MediaType.FORM_DATA)) {
      return q.toBuilder().add(QueryParams.fromQueryString(req.contentUtf8())).build();
    }
    return q;
  }

  /**
   * As {@link #get}, also taking POST with an {@code application/x-www-form-urlencoded} body,
   * whose parameters join the URL's (Prometheus's {@code r.FormValue}, which Grafana's POST
   * queries use).
   *
   * @param what a few words naming the endpoint, for the log when the store fails
   * @param handler computes the data from the URL's and the form's parameters
   * @return a GET and POST service answering in the envelope; other methods get 405
   */
  static HttpService getOrPost(String what, Handler handler) {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.GET && req.method() != HttpMethod.POST) {
        return error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            what + " takes GET or POST, not " + req.method());
      }
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        QueryParams params = params(ctx, agg);
        try {
          return success(handler.handle(params));
        } catch (IllegalArgumentException e) {
          return error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (StorageException e) {
          log.error("{} failed in the store", what, e);
          return error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  /**
   * @param data the {@code data} value
   * @return 200 with {@code {"status":"success","data":data}}
   */
  static HttpResponse success(Object data) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "success");
    body.put("data", data);
    return json(HttpStatus.OK, body);
  }

  /**
   * @param kind the error kind; {@link ErrorMapping} gives its status and {@code errorType}
   * @param message what was wrong, naming the parameter
   * @return the error envelope {@code {"status":"error","errorType":…,"error":message}}
   */
  static HttpResponse error(ErrorMapping.Kind kind, String message) {
    return HttpResponse.of(ErrorMapping.status(kind), MediaType.JSON_UTF_8,
        errorBody(kind, message));
  }

  /**
   * @param kind the error kind, for {@code errorType}
   * @param message what was wrong
   * @return the UTF-8 JSON bytes of the error envelope, for callers that build the response
   *     themselves (Armeria's status rendering)
   */
  static byte[] errorBody(ErrorMapping.Kind kind, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "error");
    body.put("errorType", ErrorMapping.errorType(kind));
    body.put("error", message);
    return bytes(body);
  }

  private static HttpResponse json(HttpStatus status, Object body) {
    return HttpResponse.of(status, MediaType.JSON_UTF_8, bytes(body));
  }

  private static byte[] bytes(Object body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
