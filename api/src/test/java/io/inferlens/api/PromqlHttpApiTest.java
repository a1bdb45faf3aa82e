package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.post;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.promql.engine.EngineOptions;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prometheus's query API over HTTP ({@link QueryApi}) against a real server and store: shapes,
 * GET and form POST, status codes and {@code errorType} values, the {@code --query.*} limits,
 * {@code max_source_resolution} and {@code format_query}. Semantics are checked against a real
 * Prometheus by {@code PromqlOracleTest}.
 */
class PromqlHttpApiTest {

  @TempDir static Path dir;
  static InferLensServer server;
  static InferLensServer limited;
  static URI base;
  static URI limitedBase;
  static final ObjectMapper JSON = new ObjectMapper();
  /** Two whole hours of data ending at the last full hour before now. */
  static final long END = System.currentTimeMillis() / 3_600_000L * 3_600_000L;
  static final long START = END - 2 * 3_600_000L;
  static final int N = 481; // 15 s apart, START to END inclusive

  @BeforeAll
  static void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("a")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    limited = InferLensServer.start(ServerConfig.forTests(dir.resolve("b"))
        .withQuery(new EngineOptions(300_000, 500, 120_000, 2, 60_000)), Clock.systemUTC());
    limitedBase = URI.create("http://127.0.0.1:" + limited.port());
    long[] ts = new long[N];
    double[] counter = new double[N];
    double[] gauge = new double[N];
    for (int i = 0; i < N; i++) {
      ts[i] = START + i * 15_000L;
      counter[i] = 10.0 * i;
      gauge[i] = i % 4;
    }
    for (URI b : new URI[] {base, limitedBase}) {
      assertThat(write(b, request(
          series(new String[] {"__name__", "http_requests_total", "instance", "a", "job", "api"},
              ts, counter),
          series(new String[] {"__name__", "queue_depth", "instance", "a", "job", "api"}, ts,
              gauge),
          series(new String[] {"__name__", "queue_depth", "instance", "b", "job", "api"}, ts,
              gauge))).statusCode()).isEqualTo(204);
    }
  }

  @AfterAll
  static void stop() {
    server.close();
    limited.close();
  }

  static HttpResponse<String> query(URI b, String path, String params) {
    return get(b.resolve(path + "?" + params));
  }

  static JsonNode ok(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("success");
    return n.get("data");
  }

  static JsonNode error(HttpResponse<String> r, int status, String errorType) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("error");
    assertThat(n.get("errorType").asText()).isEqualTo(errorType);
    return n;
  }

  @Test
  void grafanaHealthCheckIsAFormPostOfOnePlusOne() throws Exception {
    HttpResponse<String> r = post(base.resolve("/api/v1/query"),
        ("query=1%2B1&time=" + END / 1000).getBytes(StandardCharsets.UTF_8),
        "application/x-www-form-urlencoded", null);
    JsonNode data = ok(r);
    assertThat(data.get("resultType").asText()).isEqualTo("scalar");
    assertThat(data.get("result").get(0).asLong()).isEqualTo(END / 1000);
    assertThat(data.get("result").get(1).asText()).isEqualTo("2");
  }

  @Test
  void instantVectorShape() throws Exception {
    JsonNode data = ok(query(base, "/api/v1/query", "query=" + enc("sum by (job) (queue_depth)")
        + "&time=" + (START + 30_000) / 1000.0));
    assertThat(data.get("resultType").asText()).isEqualTo("vector");
    JsonNode s = data.get("result").get(0);
    assertThat(s.get("metric").toString()).isEqualTo("{\"job\":\"api\"}");
    assertThat(s.get("value").get(0).asDouble()).isEqualTo((START + 30_000) / 1000.0);
    assertThat(s.get("value").get(1).asText()).isEqualTo("4");
  }

  @Test
  void rangeQueryAnswersAMatrixWithStringValues() throws Exception {
    JsonNode data = ok(query(base, "/api/v1/query_range", "query="
        + enc("rate(http_requests_total[1m])") + "&start=" + (START + 600_000) / 1000
        + "&end=" + (START + 900_000) / 1000 + "&step=60"));
    assertThat(data.get("resultType").asText()).isEqualTo("matrix");
    JsonNode s = data.get("result").get(0);
    assertThat(s.get("metric").has("__name__")).isFalse();
    assertThat(s.get("values")).hasSize(6);
    for (JsonNode p : s.get("values")) {
      assertThat(p.get(1).isTextual()).isTrue();
      assertThat(Double.parseDouble(p.get(1).asText()))
          .isCloseTo(10.0 / 15, org.assertj.core.data.Offset.offset(1e-12));
    }
  }

  @Test
  void nonFiniteValuesAreStrings() throws Exception {
    JsonNode data = ok(query(base, "/api/v1/query", "query=" + enc("vector(1) / 0")
        + "&time=" + END / 1000));
    assertThat(data.get("result").get(0).get("value").get(1).asText()).isEqualTo("+Inf");
    JsonNode nan = ok(query(base, "/api/v1/query", "query=NaN&time=" + END / 1000));
    assertThat(nan.get("result").get(1).asText()).isEqualTo("NaN");
  }

  @Test
  void badInputIsBadDataAndEvaluationErrorsAreExecution() throws Exception {
    JsonNode e = error(query(base, "/api/v1/query", "query=" + enc("sum(")), 400, "bad_data");
    assertThat(e.get("error").asText()).startsWith("invalid parameter \"query\"");
    error(query(base, "/api/v1/query", "time=1"), 400, "bad_data");
    error(query(base, "/api/v1/query_range", "query=up&start=10&end=5&step=1"), 400,
        "bad_data");
    error(query(base, "/api/v1/query_range", "query=up&start=1&end=2&step=0"), 400, "bad_data");
    error(query(base, "/api/v1/query_range", "query=up&start=0&end=100000&step=1"), 400,
        "bad_data");
    error(query(base, "/api/v1/query_range", "query=" + enc("up[5m]")
        + "&start=1&end=2&step=1"), 400, "bad_data");
    JsonNode m = error(query(base, "/api/v1/query", "query="
        + enc("queue_depth + ignoring(instance) queue_depth") + "&time=" + END / 1000), 422,
        "execution");
    assertThat(m.get("error").asText()).contains("many-to-many");
  }

  @Test
  void aQueryOverTheSampleLimitFailsAloneAndIngestGoesOn() throws Exception {
    JsonNode e = error(query(limitedBase, "/api/v1/query", "query="
        + enc("queue_depth[2h]") + "&time=" + END / 1000), 422, "execution");
    assertThat(e.get("error").asText()).contains("--query.max-samples=500");
    assertThat(ok(query(limitedBase, "/api/v1/query", "query=" + enc("queue_depth")
        + "&time=" + END / 1000)).get("result")).hasSize(2);
    assertThat(write(limitedBase, request(series(new String[] {"__name__", "after", "job", "x"},
        END, 1))).statusCode()).isEqualTo(204);
  }

  @Test
  void maxSourceResolutionServesRollupsAndRefusesWhatTheyCannot() throws Exception {
    String range = "&start=" + (START + 3_600_000) / 1000 + "&end=" + END / 1000 + "&step=3600";
    JsonNode raw = ok(query(base, "/api/v1/query_range", "query="
        + enc("increase(http_requests_total[1h])") + range));
    JsonNode rolled = ok(query(base, "/api/v1/query_range", "query="
        + enc("increase(http_requests_total[1h])") + range + "&max_source_resolution=1h"));
    assertThat(rolled.get("result").get(0).get("values")).hasSize(2);
    // Rollups: the samples of [t - 1h, t) plus the step in, no extrapolation: 240 steps of 10.
    assertThat(rolled.get("result").get(0).get("values").get(1).get(1).asText())
        .isEqualTo("2400");
    assertThat(raw.get("result").get(0).get("values").get(1).get(1).asDouble())
        .isCloseTo(2400, org.assertj.core.data.Offset.offset(1e-6));
    JsonNode avg = ok(query(base, "/api/v1/query_range", "query="
        + enc("avg(avg_over_time(queue_depth[1h]))") + range + "&max_source_resolution=1h"));
    assertThat(avg.get("result").get(0).get("values").get(0).get(1).asText()).isEqualTo("1.5");
    JsonNode e = error(query(base, "/api/v1/query_range", "query="
        + enc("rate(http_requests_total[7m])") + range + "&max_source_resolution=1h"), 400,
        "bad_data");
    assertThat(e.get("error").asText()).contains("max_source_resolution=1h").contains("7m");
    error(query(base, "/api/v1/query_range", "query=" + enc("queue_depth") + range
        + "&max_source_resolution=1h"), 400, "bad_data");
    error(query(base, "/api/v1/query_range", "query=" + enc("queue_depth") + range
        + "&max_source_resolution=2h"), 400, "bad_data");
  }

  @Test
  void formatQueryPrettyPrints() throws Exception {
    JsonNode data = ok(query(base, "/api/v1/format_query", "query="
        + enc("sum by(job)(rate(x{a=\"b\"}[5m]))")));
    assertThat(data.asText()).isEqualTo("sum by (job) (rate(x{a=\"b\"}[5m]))");
  }

  @Test
  void aFormPostWithoutAQueryIsBadData() throws Exception {
    HttpResponse<String> r = Requests.post(base.resolve("/api/v1/query"), new byte[0],
        "application/x-www-form-urlencoded", null);
    error(r, 400, "bad_data"); // POST without a query
  }
}
