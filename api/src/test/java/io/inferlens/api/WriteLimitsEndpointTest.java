package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.ingest.IngestionRate;
import io.inferlens.ingest.LabelLimits;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The remote-write limits of issue #20 through the real HTTP endpoint, real Armeria servers on
 * loopback ports and real RocksDB stores in temporary directories: each per-series limit at its
 * boundary (204) and one past it (400 naming the series, the flag and its value, the request's
 * other series stored and readable through {@code /api/v1/series}), the name rules with and
 * without {@code --allow-utf8-names}, the label bombs of the issue, and the ingestion rate limit
 * (429 with {@code Retry-After}, nothing stored, accepted after the refill) on a clock moved by
 * hand.
 */
class WriteLimitsEndpointTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  /** Default limits. */
  static InferLensServer server;
  static URI base;
  /** Default limits with {@code --allow-utf8-names}. */
  static InferLensServer utf8;
  static URI utf8Base;
  static final long NOW = System.currentTimeMillis();
  private static int unique;

  @BeforeAll
  static void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withEvalInterval(0), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    utf8 = InferLensServer.start(ServerConfig.forTests(dir.resolve("utf8")).withEvalInterval(0)
        .withWriteLimits(LabelLimits.defaults().withUtf8Names(true), IngestionRate.OFF),
        Clock.systemUTC());
    utf8Base = URI.create("http://127.0.0.1:" + utf8.port());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    if (utf8 != null) {
      utf8.close();
    }
  }

  /** A clock a test moves by hand, in milliseconds. */
  static final class MutableClock extends Clock {
    volatile long ms;

    MutableClock(long ms) {
      this.ms = ms;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(ms);
    }

    @Override
    public long millis() {
      return ms;
    }
  }

  /** @return the series of {@code /api/v1/series?match[]=selector}, as label maps */
  static JsonNode seriesOf(URI at, String selector) throws Exception {
    HttpResponse<String> r = Requests.get(at.resolve("/api/v1/series?match[]=" + enc(selector)
        + "&start=" + (NOW / 1000 - 3600) + "&end=" + (NOW / 1000 + 60)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("data");
  }

  /** @return a metric name no other test uses */
  static synchronized String fresh(String prefix) {
    return prefix + "_" + (++unique);
  }

  /** @return {@code __name__=metric} followed by {@code pairs} */
  static String[] named(String metric, String... pairs) {
    String[] out = new String[pairs.length + 2];
    out[0] = "__name__";
    out[1] = metric;
    System.arraycopy(pairs, 0, out, 2, pairs.length);
    return out;
  }

  /** @return {@code __name__=metric} and labels l00001… until the series has {@code total} */
  static String[] withLabels(String metric, int total) {
    List<String> kv = new ArrayList<>(List.of("__name__", metric));
    for (int i = 1; i < total; i++) {
      kv.add(String.format("l%05d", i));
      kv.add("v");
    }
    return kv.toArray(new String[0]);
  }

  /**
   * One limit: the labels of a series at its boundary and of one past it, each built from a
   * fresh metric name, and the flag with its value and the reason key the refusal names.
   */
  record Limit(String name, java.util.function.Function<String, String[]> atBoundary,
      java.util.function.Function<String, String[]> pastIt, String flagAndValue, String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Limit> limits() {
    return Stream.of(
        new Limit("30 labels", m -> withLabels(m, 30), m -> withLabels(m, 31),
            "--limits.max-label-names-per-series 30", "max_label_names_per_series"),
        new Limit("1024-byte label name", m -> named(m, "n".repeat(1024), "v"),
            m -> named(m, "n".repeat(1025), "v"), "--limits.max-label-name-length 1024",
            "label_name_too_long"),
        new Limit("2048-byte label value", m -> named(m, "v", "x".repeat(2048)),
            m -> named(m, "v", "x".repeat(2049)), "--limits.max-label-value-length 2048",
            "label_value_too_long"),
        new Limit("2048-byte label value in 2-byte characters", m -> named(m, "v",
            "é".repeat(1024)), m -> named(m, "v", "é".repeat(1025)),
            "--limits.max-label-value-length 2048", "label_value_too_long"),
        new Limit("2048-byte metric name", m -> named(m + "_" + "m".repeat(2047 - m.length())),
            m -> named(m + "_" + "m".repeat(2048 - m.length())),
            "--limits.max-metric-name-length 2048", "metric_name_too_long"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limits")
  void eachLimitAcceptsItsBoundaryAndRefusesOnePast(Limit limit) throws Exception {
    String ok = fresh("at_limit");
    HttpResponse<String> accepted = write(base, request(
        series(named(fresh("beside")), NOW - 1000, 1),
        series(limit.atBoundary().apply(ok), NOW - 1000, 2)));
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(204);

    String good = fresh("kept");
    String over = fresh("over_limit");
    TimeSeries bad = series(limit.pastIt().apply(over), new long[] {NOW - 2000, NOW - 1000},
        new double[] {3, 4});
    HttpResponse<String> refused = write(base, request(series(named(good, "job", "a"),
        NOW - 1000, 5), bad));
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("series {__name__=\"" + over.substring(0,
        Math.min(over.length(), 200))).contains(limit.flagAndValue())
        .contains("(2 samples refused)");
    assertThat(refused.body().length()).isLessThan(2000);
    // The good series of the refused request is stored and readable; the bad one is not.
    assertThat(seriesOf(base, good)).hasSize(1);
    assertThat(seriesOf(base, "{__name__=~\"over_limit_.*\"}")).isEmpty();
    assertThat(Requests.get(base.resolve("/metrics")).body())
        .contains("inferlens_samples_rejected_total{reason=\"" + limit.reason() + "\"}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0bad", "r[bad]", "a.b-c"})
  void invalidNamesAreRefusedUnlessUtf8NamesAreAllowed(String name) throws Exception {
    String good = fresh("names_kept");
    HttpResponse<String> metric = write(base, request(series(named(good), NOW - 1000, 1),
        series(named(name), NOW - 1000, 2)));
    assertThat(metric.statusCode()).isEqualTo(400);
    assertThat(metric.body()).contains("metric name \"" + name + "\" is not a valid Prometheus"
        + " metric name", "--allow-utf8-names");
    String labelled = fresh("names_label");
    HttpResponse<String> label = write(base, request(series(named(labelled, name, "v"),
        NOW - 1000, 3)));
    assertThat(label.statusCode()).isEqualTo(400);
    assertThat(label.body()).contains("label name \"" + name + "\" is not a valid Prometheus"
        + " label name");
    assertThat(seriesOf(base, good)).hasSize(1);
    assertThat(seriesOf(base, labelled)).isEmpty();
    String m = Requests.get(base.resolve("/metrics")).body();
    assertThat(m).contains("inferlens_samples_rejected_total{reason=\"invalid_metric_name\"}",
        "inferlens_samples_rejected_total{reason=\"invalid_label_name\"}");

    // With --allow-utf8-names both are stored and read back by their quoted names.
    String quoted = "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    assertThat(write(utf8Base, request(series(named(name), NOW - 1000, 2))).statusCode())
        .isEqualTo(204);
    assertThat(seriesOf(utf8Base, "{" + quoted + "}")).hasSize(1);
    assertThat(write(utf8Base, request(series(named(labelled, name, "v"), NOW - 1000, 3)))
        .statusCode()).isEqualTo(204);
    JsonNode s = seriesOf(utf8Base, labelled);
    assertThat(s).hasSize(1);
    assertThat(s.get(0).get(name).asText()).isEqualTo("v");
  }

  @Test
  void theLabelBombsOfTheIssueAreRefusedAndTheirNeighboursKept() throws Exception {
    String kept = fresh("bomb_kept");
    HttpResponse<String> r = write(base, request(
        series(named(kept), NOW - 1000, 1),
        series(named(fresh("bomb_value"), "payload", "x".repeat(1 << 20)), NOW - 1000, 2),
        series(named(fresh("bomb_name"), "n".repeat(1 << 20), "v"), NOW - 1000, 3),
        series(withLabels(fresh("bomb_labels"), 30_000), NOW - 1000, 4),
        series(named("a".repeat(100_000)), NOW - 1000, 5)));
    assertThat(r.statusCode()).isEqualTo(400);
    // The first refused series, its limit, and the count of the others.
    assertThat(r.body()).startsWith("series {__name__=\"bomb_value_")
        .contains("is 1048576 bytes, longer than --limits.max-label-value-length 2048 bytes")
        .contains("also refused: 3 more series");
    assertThat(r.body().length()).isLessThan(1000);
    assertThat(seriesOf(base, kept)).hasSize(1);
    assertThat(seriesOf(base, "{__name__=~\"bomb_.*|a+\"}")).hasSize(1);
    String m = Requests.get(base.resolve("/metrics")).body();
    assertThat(m).contains("reason=\"label_value_too_long\"", "reason=\"label_name_too_long\"",
        "reason=\"max_label_names_per_series\"", "reason=\"metric_name_too_long\"");

    HttpResponse<String> longName = write(base, request(series(named("a".repeat(100_000)),
        NOW - 1000, 5)));
    assertThat(longName.statusCode()).isEqualTo(400);
    assertThat(longName.body()).startsWith("series {__name__=\"" + "a".repeat(200) + "...\"}")
        .contains("metric name is 100000 bytes, longer than --limits.max-metric-name-length"
            + " 2048 bytes");
    assertThat(longName.body().length()).isLessThan(500);
  }

  @Test
  void aRequestBeyondTheIngestionRateIs429WithRetryAfterAndAcceptedAfterTheRefill(
      @TempDir Path other) throws Exception {
    MutableClock clock = new MutableClock(NOW);
    ServerConfig limited = ServerConfig.forTests(other.resolve("data")).withEvalInterval(0)
        .withWriteLimits(LabelLimits.defaults(), new IngestionRate(10, 20));
    try (InferLensServer s = InferLensServer.start(limited, clock)) {
      URI at = URI.create("http://127.0.0.1:" + s.port());
      TimeSeries[] first = new TimeSeries[15];
      for (int i = 0; i < first.length; i++) {
        first[i] = series(named("rate_first", "i", Integer.toString(i)), NOW - 1000, i);
      }
      assertThat(write(at, request(first)).statusCode()).isEqualTo(204);
      // 5 tokens left; 10 samples need 5 more at 10/s: half a second, 1 s of Retry-After.
      TimeSeries[] second = new TimeSeries[10];
      for (int i = 0; i < second.length; i++) {
        second[i] = series(named("rate_second", "i", Integer.toString(i)), NOW - 1000, i);
      }
      HttpResponse<String> r = write(at, request(second));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
      assertThat(r.headers().firstValue("retry-after")).hasValue("1");
      assertThat(r.body()).contains("ingestion rate limit exceeded", "10 samples refused",
          "--limits.ingestion-rate 10 samples/s", "--limits.ingestion-burst 20");
      assertThat(seriesOf(at, "rate_second")).as("nothing of the refused request").isEmpty();
      String m = Requests.get(at.resolve("/metrics")).body();
      assertThat(m).contains("inferlens_write_requests_total{code=\"429\"} 1.0",
          "inferlens_samples_rejected_total{reason=\"rate_limited\"} 10.0");

      clock.ms += 1000; // the Retry-After
      HttpResponse<String> retried = write(at, request(second));
      assertThat(retried.statusCode()).as(retried.body()).isEqualTo(204);
      assertThat(seriesOf(at, "rate_second")).hasSize(10);
    }
  }

  @Test
  void withoutARateLimitNothingIs429() throws Exception {
    TimeSeries[] many = new TimeSeries[2000];
    for (int i = 0; i < many.length; i++) {
      many[i] = series(named("unlimited", "i", Integer.toString(i)), NOW - 1000, i);
    }
    for (int k = 0; k < 3; k++) {
      assertThat(write(base, request(many)).statusCode()).isEqualTo(204);
    }
  }
}
