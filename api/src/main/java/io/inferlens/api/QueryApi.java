package io.inferlens.api;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.server.HttpService;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.analysis.promql.engine.Engine;
import io.inferlens.analysis.promql.engine.PointSeries;
import io.inferlens.analysis.promql.engine.QueryException;
import io.inferlens.analysis.promql.engine.QueryResult;
import io.inferlens.analysis.promql.engine.Sample;
import io.inferlens.analysis.promql.parse.Parser;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Resolution;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prometheus's query API (https://prometheus.io/docs/prometheus/latest/querying/api/), GET and
 * form POST, over the PromQL {@link Engine}:
 *
 * <ul>
 *   <li>{@code /api/v1/query?query=&time=} (time defaults to now) answers
 *       {@code {"status":"success","data":{"resultType":"vector|scalar|string|matrix","result":…}}}
 *   <li>{@code /api/v1/query_range?query=&start=&end=&step=} answers a matrix; at most 11,000
 *       steps
 *   <li>{@code /api/v1/format_query?query=} answers the expression pretty-printed as Prometheus
 *       2.42 does
 * </ul>
 *
 * <p>Times are RFC 3339 or Unix seconds, {@code step} and {@code timeout} float seconds or a
 * duration ({@link TimeParams}). In results, timestamps are Unix seconds with millisecond
 * fractions and values are strings as Go's {@code FormatFloat(v, 'f', -1, 64)} ({@code "NaN"},
 * {@code "+Inf"}), as Prometheus writes them. A {@code timeout} parameter shortens
 * {@code --query.timeout} for this query, never lengthens it.
 *
 * <p>Errors, as Prometheus: 400 {@code bad_data} for a parse error or a bad parameter (the message
 * names it), 422 {@code execution} for evaluation errors and {@code --query.max-samples}, 503
 * {@code timeout} for {@code --query.timeout}, 503 {@code unavailable} when the store fails.
 * Queries run on the blocking task executor, so a slow query never stalls ingest.
 */
public final class QueryApi {

  private static final Logger log = LoggerFactory.getLogger(QueryApi.class);
  private static final JsonFactory JSON = new JsonFactory();

  private final Engine engine;
  private final Clock clock;

  /**
   * @param engine the PromQL engine
   * @param clock source of "now" for a missing {@code time}
   */
  public QueryApi(Engine engine, Clock clock) {
    this.engine = engine;
    this.clock = clock;
  }

  /**
   * Binds the routes.
   *
   * @param sb where to bind the routes (the server, or one tenant's route table)
   */
  public void bind(Routes sb) {
    sb.service("/api/v1/query", service(this::query));
    sb.service("/api/v1/query_range", service(this::queryRange));
    sb.service("/api/v1/format_query", service(this::formatQuery));
  }

  @FunctionalInterface
  private interface Handler {
    HttpResponse handle(QueryParams params);
  }

  private static HttpService service(Handler h) {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.GET && req.method() != HttpMethod.POST) {
        return JsonEndpoints.error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            "this endpoint takes GET or POST, not " + req.method());
      }
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        try {
          return h.handle(JsonEndpoints.params(ctx, agg));
        } catch (QueryException e) {
          return JsonEndpoints.error(kind(e.kind()), e.getMessage());
        } catch (IllegalArgumentException e) {
          return JsonEndpoints.error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (RuntimeException e) {
          log.error("query failed unexpectedly", e);
          return JsonEndpoints.error(ErrorMapping.Kind.INTERNAL,
              "query failed unexpectedly: " + e);
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  private static ErrorMapping.Kind kind(QueryException.Kind k) {
    switch (k) {
      case BAD_DATA: return ErrorMapping.Kind.BAD_DATA;
      case EXECUTION: return ErrorMapping.Kind.EXECUTION;
      case TIMEOUT: return ErrorMapping.Kind.TIMEOUT;
      case CANCELED: return ErrorMapping.Kind.CANCELED;
      case INTERNAL:
        log.error("a query failed in the store");
        return ErrorMapping.Kind.UNAVAILABLE;
      default: throw new AssertionError("unmapped query error kind " + k);
    }
  }

  private static Expr parse(QueryParams p) {
    String q = p.get("query");
    if (q == null) {
      throw new IllegalArgumentException("invalid parameter \"query\": no query given");
    }
    try {
      return Parser.parse(q);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid parameter \"query\": " + e.getMessage(), e);
    }
  }

  /** @return the {@code timeout} parameter capped by {@code --query.timeout}, milliseconds */
  private long timeoutMs(QueryParams p) {
    long cap = engine.options().timeoutMs();
    String t = p.get("timeout");
    if (t == null || t.isEmpty()) {
      return cap;
    }
    return Math.min(cap, TimeParams.parseDurationMs("timeout", t));
  }

  private HttpResponse query(QueryParams p) {
    Expr expr = parse(p);
    String time = p.get("time");
    long t = time == null || time.isEmpty() ? clock.millis() : TimeParams.parseTimeMs("time", time);
    return json(engine.instant(expr, t, timeoutMs(p), resolution(p)));
  }

  private HttpResponse queryRange(QueryParams p) {
    Expr expr = parse(p);
    long start = required(p, "start");
    long end = required(p, "end");
    String step = p.get("step");
    if (step == null || step.isEmpty()) {
      throw new IllegalArgumentException("invalid parameter \"step\": no step given");
    }
    long stepMs = TimeParams.parseDurationMs("step", step);
    return json(engine.range(expr, start, end, stepMs, timeoutMs(p), resolution(p)));
  }

  /**
   * {@code max_source_resolution}, the name Thanos uses: {@code 5m} or {@code 1h} read rollups
   * for the functions they serve; absent, {@code raw} or {@code 0s} read raw samples.
   */
  static Resolution resolution(QueryParams p) {
    String v = p.get("max_source_resolution");
    if (v == null || v.isEmpty() || v.equals("raw") || v.equals("0s") || v.equals("0")) {
      return null;
    }
    switch (v) {
      case "5m": return Resolution.FIVE_MINUTES;
      case "1h": return Resolution.ONE_HOUR;
      default:
        throw new IllegalArgumentException("invalid parameter \"max_source_resolution\": \"" + v
            + "\" is not one of raw, 5m, 1h");
    }
  }

  private static long required(QueryParams p, String name) {
    String v = p.get(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("invalid parameter \"" + name + "\": cannot parse \"\""
          + " to a valid timestamp");
    }
    return TimeParams.parseTimeMs(name, v);
  }

  private HttpResponse formatQuery(QueryParams p) {
    Expr expr = parse(p);
    return JsonEndpoints.success(Printer.pretty(expr));
  }

  /** Writes the result envelope with a streaming generator: results can hold millions of points. */
  static HttpResponse json(QueryResult r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("status", "success");
      g.writeObjectFieldStart("data");
      g.writeStringField("resultType", r.type().apiName());
      g.writeFieldName("result");
      switch (r.type()) {
        case SCALAR -> point(g, r.timestampMs(), Printer.number(r.scalar()));
        case STRING -> point(g, r.timestampMs(), r.string());
        case VECTOR -> {
          g.writeStartArray();
          for (Sample s : r.vector()) {
            g.writeStartObject();
            metric(g, s.labels());
            g.writeFieldName("value");
            point(g, s.timestampMs(), Printer.number(s.value()));
            g.writeEndObject();
          }
          g.writeEndArray();
        }
        default -> {
          g.writeStartArray();
          for (PointSeries s : r.matrix()) {
            g.writeStartObject();
            metric(g, s.labels());
            g.writeArrayFieldStart("values");
            for (int i = 0; i < s.size(); i++) {
              point(g, s.timestampMs(i), Printer.number(s.value(i)));
            }
            g.writeEndArray();
            g.writeEndObject();
          }
          g.writeEndArray();
        }
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return HttpResponse.of(HttpStatus.OK, MediaType.JSON_UTF_8, out.toByteArray());
  }

  private static void metric(JsonGenerator g, LabelSet labels) throws IOException {
    g.writeObjectFieldStart("metric");
    for (int i = 0; i < labels.size(); i++) {
      g.writeStringField(labels.name(i), labels.value(i));
    }
    g.writeEndObject();
  }

  /**
   * Prometheus's {@code jsonutil.MarshalTimestamp}: whole seconds, then {@code .} and three
   * digits when the milliseconds are not zero ({@code 1435781451.500}).
   */
  static String seconds(long ms) {
    StringBuilder sb = new StringBuilder(16);
    long t = ms;
    if (t < 0) {
      sb.append('-');
      t = -t;
    }
    sb.append(t / 1000);
    long fraction = t % 1000;
    if (fraction != 0) {
      sb.append('.');
      if (fraction < 100) {
        sb.append('0');
      }
      if (fraction < 10) {
        sb.append('0');
      }
      sb.append(fraction);
    }
    return sb.toString();
  }

  /** {@code [seconds, "value"]}, seconds with the milliseconds as a decimal fraction. */
  private static void point(JsonGenerator g, long ms, String value) throws IOException {
    g.writeStartArray();
    g.writeNumber(seconds(ms));
    g.writeString(value);
    g.writeEndArray();
  }
}
