package io.inferlens.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.RollupSeries;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read endpoints in the shapes of the Prometheus HTTP API
 * (https://prometheus.io/docs/prometheus/latest/querying/api/) and VictoriaMetrics's export:
 *
 * <ul>
 *   <li>{@code GET|POST /api/v1/labels?match[]=&start=&end=} → {@code {"status":"success","data":[names]}}
 *   <li>{@code GET /api/v1/label/{name}/values?match[]=&start=&end=} → sorted values
 *   <li>{@code GET|POST /api/v1/series?match[]=…&start=&end=} → list of label maps; {@code match[]}
 *       required
 *   <li>{@code GET|POST /api/v1/export?match[]=…&start=&end=} → JSON lines
 *       {@code {"metric":{…},"values":[…],"timestamps":[…]}}, timestamps in milliseconds, one series
 *       a line; non-finite values are written as the strings {@code "NaN"}, {@code "+Inf"},
 *       {@code "-Inf"} since JSON has no such numbers. Streamed in bounded memory
 *       ({@link ExportStream}); past {@code maxExportSamples} samples it answers 422
 *       {@code execution} if that happens within the first MiB, else the body is cut off (an
 *       incomplete transfer) and a warning logged
 *   <li>{@code GET|POST /api/v1/rollups?match[]=…&start=&end=&step=|resolution=} → the stored
 *       rollups, {@code {"resolution":"5m","series":[{"metric":{…},"intervals":[{"t":ms,
 *       "count":n,"min":…,"max":…,"sum":…,"first":…,"last":…,"increase":…}]}]}}: the coarsest
 *       resolution whose interval fits {@code step} (a duration or seconds; 1 h for steps of an
 *       hour or more, 5 m from 5 minutes), or the one named by {@code resolution} ({@code 5m},
 *       {@code 1h}); a step under 5 minutes is 400 (read raw samples with {@code export}).
 *       {@code increase} is the counter increase inside the interval; add the reset-aware step
 *       from the previous interval's {@code last} to this {@code first} for a rate across
 *       intervals. Non-finite values as in {@code export}.
 * </ul>
 *
 * <p>{@code limit} caps the entries of labels, label values and series (0 or absent: all), as in
 * Prometheus's API; a truncated answer carries {@code "warnings":["results truncated due to
 * limit"]}. {@code start}/{@code end} default to the last 6 hours ({@link TimeParams}). Bad parameters
 * answer 400 with {@code {"status":"error","errorType":"bad_data","error":"…"}}. Work runs on the
 * blocking task executor.
 */
public final class PrometheusApi {

  private static final Logger log = LoggerFactory.getLogger(PrometheusApi.class);

  private final Querier store;
  private final Clock clock;
  private final long maxExportSamples;

  /**
   * @param store the store to read
   * @param clock source of "now" for default time ranges
   * @param maxExportSamples the most samples one export may write ({@code --max-export-samples}),
   *     &ge; 1
   */
  public PrometheusApi(Querier store, Clock clock, long maxExportSamples) {
    this.store = store;
    this.clock = clock;
    this.maxExportSamples = maxExportSamples;
  }

  /**
   * Binds the endpoints.
   *
   * @param sb where to bind the routes (the server, or one tenant's route table)
   */
  public void bind(Routes sb) {
    sb.service("/api/v1/labels", blocking(this::labels));
    sb.service("/api/v1/label/{name}/values", blocking(this::labelValues));
    sb.service("/api/v1/series", blocking(this::series));
    sb.service("/api/v1/export", blocking(this::export));
    sb.service("/api/v1/rollups", blocking(this::rollups));
  }

  private interface Handler {
    HttpResponse handle(ServiceRequestContext ctx, QueryParams params) throws StorageException;
  }

  private HttpService blocking(Handler h) {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.GET && req.method() != HttpMethod.POST) {
        return JsonEndpoints.error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            "this endpoint takes GET or POST, not " + req.method());
      }
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        try {
          return h.handle(ctx, JsonEndpoints.params(ctx, agg));
        } catch (IllegalArgumentException e) {
          return JsonEndpoints.error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (StorageException e) {
          log.error("read failed in the store", e);
          return JsonEndpoints.error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  private static List<List<Matcher>> matchers(QueryParams params, boolean required) {
    List<String> selectors = params.getAll("match[]");
    if (selectors.isEmpty() && required) {
      throw new IllegalArgumentException("no match[] parameter provided");
    }
    List<List<Matcher>> out = new ArrayList<>(selectors.size());
    for (String s : selectors) {
      out.add(SelectorParser.parse(s));
    }
    return out;
  }

  private TimeParams times(QueryParams p) {
    return TimeParams.parse(p.get("start"), p.get("end"), clock);
  }

  private HttpResponse labels(ServiceRequestContext ctx, QueryParams p)
      throws StorageException {
    TimeParams t = times(p);
    List<List<Matcher>> sets = matchers(p, false);
    java.util.TreeSet<String> names = new java.util.TreeSet<>(LabelSet.UTF8_ORDER);
    if (sets.isEmpty()) {
      names.addAll(store.labelNames(List.of(), t.startMs(), t.endMs()));
    }
    for (List<Matcher> m : sets) {
      names.addAll(store.labelNames(m, t.startMs(), t.endMs()));
    }
    return limited(new ArrayList<>(names), limit(p));
  }

  private HttpResponse labelValues(ServiceRequestContext ctx, QueryParams p)
      throws StorageException {
    String name = ctx.pathParam("name");
    TimeParams t = times(p);
    List<List<Matcher>> sets = matchers(p, false);
    java.util.TreeSet<String> values = new java.util.TreeSet<>(LabelSet.UTF8_ORDER);
    if (sets.isEmpty()) {
      values.addAll(store.labelValues(name, List.of(), t.startMs(), t.endMs()));
    }
    for (List<Matcher> m : sets) {
      values.addAll(store.labelValues(name, m, t.startMs(), t.endMs()));
    }
    return limited(new ArrayList<>(values), limit(p));
  }

  private HttpResponse series(ServiceRequestContext ctx, QueryParams p)
      throws StorageException {
    TimeParams t = times(p);
    Map<LabelSet, Boolean> seen = new LinkedHashMap<>();
    for (List<Matcher> m : matchers(p, true)) {
      for (LabelSet ls : store.series(m, t.startMs(), t.endMs())) {
        seen.put(ls, Boolean.TRUE);
      }
    }
    List<Map<String, String>> data = new ArrayList<>();
    for (LabelSet ls : seen.keySet()) {
      data.add(ls.toMap());
    }
    return limited(data, limit(p));
  }

  /**
   * The {@code limit} parameter of series, labels and label values, as Prometheus's API: the
   * most entries returned, 0 or absent for all.
   *
   * @throws IllegalArgumentException naming the parameter if it is not a non-negative integer
   */
  static int limit(QueryParams p) {
    String v = p.get("limit");
    if (v == null || v.isEmpty()) {
      return 0;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid parameter \"limit\": \"" + v
          + "\" is not a non-negative integer (0 means no limit)");
    }
  }

  /**
   * @return the success envelope of the first {@code limit} entries (all for 0), with
   *     Prometheus's warning {@code "results truncated due to limit"} when some were left out
   */
  private static HttpResponse limited(List<?> data, int limit) {
    if (limit == 0 || data.size() <= limit) {
      return success(data);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "success");
    body.put("data", data.subList(0, limit));
    body.put("warnings", List.of("results truncated due to limit"));
    try {
      return HttpResponse.of(HttpStatus.OK, MediaType.JSON_UTF_8, new ObjectMapper()
          .writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts the export's stream on another blocking task and returns its response at once: the
   * stream waits for the client to take chunks, which it can only once this response is returned.
   */
  private HttpResponse export(ServiceRequestContext ctx, QueryParams p) {
    TimeParams t = times(p);
    List<List<Matcher>> sets = matchers(p, true);
    // A large export legitimately takes minutes; ExportStream frees a client that stalls.
    ctx.clearRequestTimeout();
    HttpResponseWriter writer = HttpResponse.streaming();
    ExportStream stream = new ExportStream(writer, p.getAll("match[]"), sets, maxExportSamples);
    ctx.blockingTaskExecutor().execute(() -> stream.run(store, t.startMs(), t.endMs()));
    return writer;
  }

  private HttpResponse rollups(ServiceRequestContext ctx, QueryParams p) throws StorageException {
    TimeParams t = times(p);
    Resolution res = resolution(p);
    List<Map<String, Object>> series = new ArrayList<>();
    Map<LabelSet, Boolean> seen = new LinkedHashMap<>();
    for (List<Matcher> m : matchers(p, true)) {
      for (RollupSeries r : store.selectRollups(m, t.startMs(), t.endMs(), res)) {
        if (seen.put(r.labels(), Boolean.TRUE) != null) {
          continue;
        }
        List<Map<String, Object>> intervals = new ArrayList<>(r.size());
        for (int i = 0; i < r.size(); i++) {
          Map<String, Object> iv = new LinkedHashMap<>();
          iv.put("t", r.startsMs()[i]);
          iv.put("count", r.counts()[i]);
          iv.put("min", number(r.min()[i]));
          iv.put("max", number(r.max()[i]));
          iv.put("sum", number(r.sum()[i]));
          iv.put("first", number(r.first()[i]));
          iv.put("last", number(r.last()[i]));
          iv.put("increase", number(r.increase()[i]));
          intervals.add(iv);
        }
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("metric", r.labels().toMap());
        one.put("intervals", intervals);
        series.add(one);
      }
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("resolution", res == Resolution.ONE_HOUR ? "1h" : "5m");
    data.put("series", series);
    return success(data);
  }

  /** {@code resolution=5m|1h}, else the coarsest fitting {@code step}, else 5 m. */
  private static Resolution resolution(QueryParams p) {
    String named = p.get("resolution");
    String step = p.get("step");
    if (named != null && !named.isEmpty()) {
      switch (named) {
        case "5m":
          return Resolution.FIVE_MINUTES;
        case "1h":
          return Resolution.ONE_HOUR;
        default:
          throw new IllegalArgumentException(
              "parameter resolution must be 5m or 1h, got \"" + named + "\"");
      }
    }
    if (step == null || step.isEmpty()) {
      return Resolution.FIVE_MINUTES;
    }
    long stepMs = TimeParams.parseDurationMs("step", step);
    Resolution r = Resolution.coarsestFitting(stepMs);
    if (r == null) {
      throw new IllegalArgumentException("parameter step (" + step + ") is shorter than the"
          + " finest rollup (5m); read raw samples with /api/v1/export");
    }
    return r;
  }

  private static Object number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    return v;
  }

  private static HttpResponse success(Object data) {
    return JsonEndpoints.success(data);
  }

}
