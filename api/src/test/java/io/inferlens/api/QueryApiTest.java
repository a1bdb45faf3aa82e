package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus-style read API and the export, against a real server and store. */
class QueryApiTest {

  @TempDir static Path dir;
  static InferLensServer server;
  static URI base;
  static final ObjectMapper JSON = new ObjectMapper();
  static final long NOW = System.currentTimeMillis();
  /** Eight hours ago: outside the default 6 h lookback. */
  static final long OLD = NOW - 8 * 3_600_000L;

  @BeforeAll
  static void start() throws Exception {
    // "odd name{x" is a UTF-8 metric name (Prometheus 3): --allow-utf8-names.
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")).withWriteLimits(
        io.inferlens.ingest.LabelLimits.defaults().withUtf8Names(true),
        io.inferlens.ingest.IngestionRate.OFF), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    assertThat(write(base, request(
        series(new String[] {"__name__", "vllm:num_requests_waiting", "instance", "a:8000",
            "model_name", "qwen"}, new long[] {NOW - 30_000, NOW - 15_000},
            new double[] {3, 0.1 + 0.2}),
        series(new String[] {"__name__", "vllm:num_requests_waiting", "instance", "b:8000",
            "model_name", "qwen"}, NOW - 15_000, 5),
        series(new String[] {"__name__", "old_metric", "region", "eu"}, OLD, 1),
        series(new String[] {"__name__", "odd name{x", "k", "x".repeat(40)}, NOW - 15_000, 1)))
        .statusCode()).isEqualTo(204);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static JsonNode json(String pathAndQuery) throws Exception {
    HttpResponse<String> r = get(base.resolve(pathAndQuery));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("success");
    return n.get("data");
  }

  static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void quotedNamesSelectSeriesWhoseNamesAreNotIdentifiers() throws Exception {
    JsonNode data = json("/api/v1/series?match[]=" + enc("{\"odd name{x\"}"));
    assertThat(data).hasSize(1);
    assertThat(data.get(0).get("__name__").asText()).isEqualTo("odd name{x");
  }

  @Test
  void pathologicalRegexAnswersInsteadOfBacktrackingForever() throws Exception {
    // (x+x+)+y on 40 x's takes java.util.regex ~2^40 steps; RE2 is linear.
    JsonNode data = json("/api/v1/series?match[]=" + enc("{k=~\"(x+x+)+y\"}"));
    assertThat(data).isEmpty();
  }

  /**
   * Deep expressions are evaluated as Prometheus evaluates them (Go's stacks grow), not answered
   * with a stack overflow: 10,000 levels of {@code 1+…}, 2,000 nested {@code abs()} and 5,000
   * nested parentheses, on query and query_range, POSTed as a form (too long for a URL).
   */
  @Test
  void deepExpressionsAreEvaluatedOnQueryAndQueryRange() throws Exception {
    String sum = "1" + "+1".repeat(9_999);
    String calls = "abs(".repeat(2_000) + "vector(-3)" + ")".repeat(2_000);
    String parens = "(".repeat(5_000) + "7" + ")".repeat(5_000);
    String[][] cases = {{sum, "10000"}, {calls, "3"}, {parens, "7"}};
    long t = NOW / 1000;
    for (String[] c : cases) {
      for (String path : List.of("/api/v1/query", "/api/v1/query_range")) {
        String form = "query=" + enc(c[0]) + "&time=" + t + "&start=" + (t - 60) + "&end=" + t
            + "&step=30";
        HttpResponse<String> r = Requests.post(base.resolve(path),
            form.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "application/x-www-form-urlencoded", null);
        assertThat(r.statusCode()).as("%s %s…: %s", path, c[0].substring(0, 10),
            r.body().length() > 300 ? r.body().substring(0, 300) : r.body()).isEqualTo(200);
        JsonNode data = JSON.readTree(r.body()).get("data");
        JsonNode result = data.get("result");
        String value = path.endsWith("range") ? result.get(0).get("values").get(0).get(1).asText()
            : data.get("resultType").asText().equals("vector")
                ? result.get(0).get("value").get(1).asText() : result.get(1).asText();
        assertThat(value).isEqualTo(c[1]);
      }
    }
  }

  @Test
  void millisecondsWhereSecondsBelongAreNamed() {
    HttpResponse<String> r = get(base.resolve("/api/v1/series?match[]=up&start=" + NOW));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("seconds");
  }

  @Test
  void labelNamesDefaultToTheLastSixHours() throws Exception {
    assertThat(texts(json("/api/v1/labels")))
        .containsExactly("__name__", "instance", "k", "model_name");
    assertThat(texts(json("/api/v1/labels?start=" + (OLD / 1000 - 60))))
        .containsExactly("__name__", "instance", "k", "model_name", "region");
  }

  @Test
  void labelValuesHonourMatchers() throws Exception {
    assertThat(texts(json("/api/v1/label/instance/values"))).containsExactly("a:8000", "b:8000");
    assertThat(texts(json("/api/v1/label/__name__/values?start=" + (OLD / 1000 - 60))))
        .containsExactly("odd name{x", "old_metric", "vllm:num_requests_waiting");
    assertThat(texts(json("/api/v1/label/instance/values?match[]="
        + enc("{instance=~\"a.*\"}")))).containsExactly("a:8000");
  }

  @Test
  void seriesReturnsLabelMaps() throws Exception {
    JsonNode data = json("/api/v1/series?match[]=" + enc("vllm:num_requests_waiting{instance!=\"b:8000\"}"));
    assertThat(data).hasSize(1);
    assertThat(data.get(0).get("instance").asText()).isEqualTo("a:8000");
    assertThat(data.get(0).get("__name__").asText()).isEqualTo("vllm:num_requests_waiting");
  }

  @Test
  void seriesRequiresMatchAndRejectsBadSelectorsWithBadData() throws Exception {
    HttpResponse<String> r = get(base.resolve("/api/v1/series"));
    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("error");
    assertThat(n.get("errorType").asText()).isEqualTo("bad_data");
    assertThat(n.get("error").asText()).contains("match[]");
    r = get(base.resolve("/api/v1/series?match[]=" + enc("{job=~\".*\"}")));
    assertThat(r.statusCode()).isEqualTo(400);
    r = get(base.resolve("/api/v1/series?match[]=up&start=yesterday"));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("start");
  }

  @Test
  void exportWritesOneJsonLinePerSeriesWithExactValues() throws Exception {
    HttpResponse<String> r = get(base.resolve("/api/v1/export?match[]="
        + enc("{__name__=\"vllm:num_requests_waiting\",instance=\"a:8000\"}")));
    assertThat(r.statusCode()).isEqualTo(200);
    String[] lines = r.body().split("\n");
    assertThat(lines).hasSize(1);
    JsonNode line = JSON.readTree(lines[0]);
    assertThat(line.get("metric").get("model_name").asText()).isEqualTo("qwen");
    assertThat(line.get("timestamps").get(0).asLong()).isEqualTo(NOW - 30_000);
    assertThat(line.get("timestamps").get(1).asLong()).isEqualTo(NOW - 15_000);
    assertThat(line.get("values").get(1).asDouble()).isEqualTo(0.1 + 0.2);
  }

  @Test
  void exportRangeIsHonoured() throws Exception {
    HttpResponse<String> r = get(base.resolve("/api/v1/export?match[]=old_metric"));
    assertThat(r.body()).isEmpty();
    r = get(base.resolve("/api/v1/export?match[]=old_metric&start=" + (OLD - 1000) / 1000.0
        + "&end=" + java.time.Instant.ofEpochMilli(OLD + 1000)));
    assertThat(r.body().split("\n")).hasSize(1);
  }

  @Test
  void rollupsPickTheCoarsestResolutionThatFitsTheStep() throws Exception {
    // A counter over 20 minutes at 15 s (+2 per scrape), aligned to a 5-minute boundary an hour
    // back, with a reset at minute 12 (a restart): values 0, 2, ... then 0, 2, ...
    long t0 = (NOW - 3_600_000L) / 300_000 * 300_000;
    long[] ts = new long[80];
    double[] vs = new double[80];
    for (int i = 0; i < 80; i++) {
      ts[i] = t0 + i * 15_000L;
      vs[i] = 2.0 * (i < 48 ? i : i - 48);
    }
    assertThat(write(base, request(series(new String[] {"__name__", "rollup_test_total"}, ts, vs)))
        .statusCode()).isEqualTo(204);
    String range = "&start=" + t0 / 1000 + "&end=" + (t0 / 1000 + 20 * 60 - 1);
    JsonNode fine = json("/api/v1/rollups?match[]=rollup_test_total&step=300" + range);
    assertThat(fine.get("resolution").asText()).isEqualTo("5m");
    JsonNode iv = fine.get("series").get(0).get("intervals");
    assertThat(iv).hasSize(4);
    assertThat(iv.get(0).get("t").asLong()).isEqualTo(t0);
    assertThat(iv.get(0).get("count").asLong()).isEqualTo(20);
    assertThat(iv.get(0).get("increase").asDouble()).isEqualTo(38.0);
    assertThat(iv.get(2).get("first").asDouble()).isEqualTo(80.0);
    // Interval 2 (scrapes 40-59) holds the reset at scrape 48: 80..94 (+14), the drop to 0
    // counts 0, then 0..22 (+22).
    assertThat(iv.get(2).get("increase").asDouble()).isEqualTo(36.0);
    assertThat(iv.get(3).get("max").asDouble()).isEqualTo(62.0);

    JsonNode hourly = json("/api/v1/rollups?match[]=rollup_test_total&step=2h" + range);
    assertThat(hourly.get("resolution").asText()).isEqualTo("1h");
    assertThat(json("/api/v1/rollups?match[]=rollup_test_total&resolution=1h" + range)
        .get("resolution").asText()).isEqualTo("1h");

    // "1d" is a duration (a day), not Java's double literal 1.0.
    assertThat(json("/api/v1/rollups?match[]=rollup_test_total&step=1d" + range)
        .get("resolution").asText()).isEqualTo("1h");
    assertThat(get(base.resolve("/api/v1/rollups?match[]=rollup_test_total&step=abc")).body())
        .contains("parameter step");
    assertThat(get(base.resolve("/api/v1/rollups?match[]=rollup_test_total&step=0")).body())
        .contains("must be positive");
    HttpResponse<String> tooFine = get(base.resolve(
        "/api/v1/rollups?match[]=rollup_test_total&step=30" + range));
    assertThat(tooFine.statusCode()).isEqualTo(400);
    assertThat(tooFine.body()).contains("step").contains("/api/v1/export");
    assertThat(get(base.resolve("/api/v1/rollups?match[]=rollup_test_total&resolution=7m"))
        .body()).contains("resolution must be 5m or 1h");
  }

  @Test
  void limitTruncatesLabelsValuesAndSeriesWithAWarning() throws Exception {
    HttpResponse<String> r = get(base.resolve("/api/v1/label/__name__/values?limit=1"));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("data")).hasSize(1);
    assertThat(n.get("warnings").get(0).asText()).isEqualTo("results truncated due to limit");
    assertThat(json("/api/v1/series?limit=1&match[]=" + enc("vllm:num_requests_waiting")))
        .hasSize(1);
    assertThat(json("/api/v1/series?limit=0&match[]=" + enc("vllm:num_requests_waiting")))
        .hasSize(2);
    assertThat(json("/api/v1/labels?limit=2")).hasSize(2);
    HttpResponse<String> bad = get(base.resolve("/api/v1/labels?limit=-1"));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("limit");
  }
}
