package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.Querier;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The endpoints of Prometheus's HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/,
 * web/api/v1/api.go at v2.42.0) that a Prometheus data source asks besides queries: metric
 * metadata, build information and exemplars, in Prometheus's shapes.
 *
 * <ul>
 *   <li>{@code GET /api/v1/metadata?metric=&limit=&limit_per_metric=} →
 *       {@code {"status":"success","data":{"http_requests_total":[{"type":"counter",
 *       "help":"…","unit":""}]}}}: the metadata remote write sent ({@link Querier#metadata}),
 *       types as Prometheus's lowercase names ({@code counter}, {@code gauge}, {@code histogram},
 *       {@code gaugehistogram}, {@code summary}, {@code info}, {@code stateset},
 *       {@code unknown}). {@code metric} selects one family by its exact name; {@code limit}
 *       bounds the families (negative or absent: all; 0: none, as Prometheus), and
 *       {@code limit_per_metric} the entries per family (0, negative or absent: all).
 *       Prometheus answers from its scrape targets in no particular order; InferLens answers
 *       families in name order and each family's entries newest first. A limit that is not an
 *       integer is 400 {@code bad_data} "limit must be a number", as Prometheus.
 *   <li>{@code GET /api/v1/status/buildinfo} → {@code {"status":"success","data":{"version":
 *       "2.42.0","revision":"inferlens-0.1.0","branch":"inferlens","buildUser":"inferlens",
 *       "buildDate":"unknown","goVersion":"java17.0.15"}}}. Grafana reads {@code version} to
 *       decide which Prometheus features a data source has, so it is the Prometheus version
 *       whose API InferLens follows, {@link #PROMETHEUS_API_VERSION}, not InferLens's own;
 *       InferLens's version ({@link VersionProvider#version()}) is in {@code revision}, after
 *       {@code inferlens-}; {@code branch} and {@code buildUser} say {@code inferlens};
 *       {@code buildDate} is {@code unknown} (the build records none); {@code goVersion} names
 *       the Java runtime instead, {@code java} followed by {@code java.version}.
 *   <li>{@code GET|POST /api/v1/query_exemplars?query=&start=&end=} →
 *       {@code {"status":"success","data":[]}}: no exemplars are stored yet (remote write's
 *       exemplars are skipped). {@code query} is required and {@code start}/{@code end} are
 *       checked as everywhere ({@link TimeParams}); either wrong, or a query that does not
 *       parse as PromQL, is 400 {@code bad_data}.
 * </ul>
 *
 * <p>Other methods get 405; a store failure 503. Work runs on the blocking task executor
 * ({@link JsonEndpoints}).
 */
public final class PrometheusMetaApi {

  /**
   * The Prometheus version whose HTTP API and PromQL InferLens follows, reported as
   * {@code version} by {@code /api/v1/status/buildinfo}: {@value}.
   */
  public static final String PROMETHEUS_API_VERSION = "2.42.0";

  private final Querier store;
  private final Clock clock;

  /**
   * @param store the store whose metadata is read
   * @param clock the source of "now" for {@code query_exemplars}' default range
   */
  public PrometheusMetaApi(Querier store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Binds {@code /api/v1/metadata} and {@code /api/v1/query_exemplars}, which read a store.
   *
   * @param sb where to bind the routes (the server, or one tenant's route table)
   */
  public void bind(Routes sb) {
    sb.service("/api/v1/metadata", JsonEndpoints.get("metadata read", this::metadata));
    sb.service("/api/v1/query_exemplars",
        JsonEndpoints.getOrPost("exemplar query", this::queryExemplars));
  }

  /**
   * Binds {@code /api/v1/status/buildinfo}, which is the process's (no tenant needed under
   * --multitenancy, as Grafana asks for it before anything else).
   *
   * @param sb where to bind the route: the server
   */
  static void bindBuildInfo(Routes sb) {
    sb.service("/api/v1/status/buildinfo", JsonEndpoints.get("build info", p -> buildInfo()));
  }

  private Object metadata(QueryParams p) throws StorageException {
    int limit = intParam(p, "limit", -1);
    int limitPerMetric = intParam(p, "limit_per_metric", -1);
    Map<String, List<MetricMetadata>> found = store.metadata(p.get("metric"), limit,
        limitPerMetric);
    Map<String, List<Map<String, String>>> data = new LinkedHashMap<>();
    for (Map.Entry<String, List<MetricMetadata>> e : found.entrySet()) {
      List<Map<String, String>> entries = new ArrayList<>(e.getValue().size());
      for (MetricMetadata m : e.getValue()) {
        Map<String, String> one = new LinkedHashMap<>();
        one.put("type", m.type().promName());
        one.put("help", m.help());
        one.put("unit", m.unit());
        entries.add(one);
      }
      data.put(e.getKey(), entries);
    }
    return data;
  }

  /** An integer parameter, Prometheus's {@code strconv.Atoi}; absent or empty is {@code dflt}. */
  private static int intParam(QueryParams p, String name, int dflt) {
    String s = p.get(name);
    if (s == null || s.isEmpty()) {
      return dflt;
    }
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number");
    }
  }

  /**
   * @return the buildinfo {@code data} object; see the class comment for what each field holds
   */
  static Map<String, String> buildInfo() {
    Map<String, String> data = new LinkedHashMap<>();
    data.put("version", PROMETHEUS_API_VERSION);
    data.put("revision", "inferlens-" + VersionProvider.version());
    data.put("branch", "inferlens");
    data.put("buildUser", "inferlens");
    data.put("buildDate", "unknown");
    data.put("goVersion", "java" + System.getProperty("java.version"));
    return data;
  }

  private Object queryExemplars(QueryParams p) {
    TimeParams.parse(p.get("start"), p.get("end"), clock);
    String query = p.get("query");
    if (query == null || query.isBlank()) {
      throw new IllegalArgumentException(
          "invalid parameter \"query\": no expression found in input");
    }
    try {
      io.inferlens.analysis.promql.parse.Parser.parse(query);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid parameter \"query\": " + e.getMessage(), e);
    }
    return List.of();
  }
}
