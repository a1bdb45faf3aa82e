package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.SeriesLimits;
import io.inferlens.storage.StorageException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --limits.max-series} and {@code --limits.max-series-per-metric} through the real write
 * endpoint (Armeria on loopback, RocksDB in a temporary directory): the limit at its boundary and
 * one past it, the 400 naming the limit, the first refused series' metric and the count, the rest
 * of the request stored and readable, refusals counted in {@code /metrics}; and a small label
 * bomb (20,000 {@code user_id} series of one metric under a per-metric limit of 1,000) beside
 * another target whose series are all stored.
 */
class SeriesLimitEndpointTest {

  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final long now = System.currentTimeMillis();

  private static InferLensServer start(Path dir, SeriesLimits limits) throws StorageException {
    return InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withEvalInterval(0).withSeriesLimits(limits), Clock.systemUTC());
  }

  private static URI base(InferLensServer server) {
    return URI.create("http://127.0.0.1:" + server.port());
  }

  private static List<Series> stored(InferLensServer server, String metric)
      throws StorageException {
    return server.store().select(List.of(Matcher.eq("__name__", metric)), 0, Long.MAX_VALUE);
  }

  private static String[] labels(String... kv) {
    return kv;
  }

  /** @return the value of {@code inferlens_samples_rejected_total{reason=...}}, 0 if absent */
  private static double rejected(URI base, String reason) {
    String body = Requests.get(base.resolve("/metrics")).body();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "(?m)^inferlens_samples_rejected_total\\{reason=\"" + reason + "\",?\\} (\\S+)$")
        .matcher(body);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private static ServerConfig parse(String... args) {
    Main.Serve serve = new Main.Serve();
    new picocli.CommandLine(serve).parseArgs(args);
    return serve.config();
  }

  @Test
  void flagsReachTheStoreAndANegativeValueNamesItsFlag() {
    assertThat(parse().storeOptions().seriesLimits()).isEqualTo(SeriesLimits.DEFAULTS);
    assertThat(parse("--limits.max-series", "5000", "--limits.max-series-per-metric", "0")
        .storeOptions().seriesLimits()).isEqualTo(new SeriesLimits(5_000, 0));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--limits.max-series", "-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--limits.max-series must be >= 0");
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> parse("--limits.max-series-per-metric", "-2"))
        .hasMessageContaining("--limits.max-series-per-metric");
  }

  @Test
  void globalLimitAtItsBoundaryAndOnePast() throws Exception {
    InferLensServer server = start(dir, new SeriesLimits(10, 0));
    try {
      URI base = base(server);
      List<TimeSeries> ten = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        ten.add(series(labels("__name__", "up", "instance", "host-" + i), now - 60_000, 1));
      }
      HttpResponse<String> atLimit = write(base,
          request(ten.toArray(new TimeSeries[0])));
      assertThat(atLimit.statusCode()).as(atLimit.body()).isEqualTo(204);

      HttpResponse<String> past = write(base, request(
          series(labels("__name__", "up", "instance", "host-0"), now - 30_000, 0),
          series(labels("__name__", "up", "instance", "host-10"), now - 30_000, 1),
          series(labels("__name__", "node_load1", "instance", "host-0"), now - 30_000, 0.5),
          series(labels("__name__", "up", "instance", "host-3"), now - 30_000, 1)));
      assertThat(past.statusCode()).isEqualTo(400);
      assertThat(past.body()).contains("--limits.max-series=10", "metric \"up\"",
          "the store has 10 active series", "2 new series (2 samples) refused",
          "instance=\"host-10\"");

      // The active series kept their samples; the refused ones are not stored.
      List<Series> up = stored(server, "up");
      assertThat(up).hasSize(10);
      for (Series s : up) {
        String instance = s.labels().get("instance");
        int expected = instance.equals("host-0") || instance.equals("host-3") ? 2 : 1;
        assertThat(s.size()).as(instance).isEqualTo(expected);
      }
      assertThat(stored(server, "node_load1")).isEmpty();
      assertThat(rejected(base, "series_limit")).isEqualTo(2.0);

      // A decoding error comes first; the limit's refusal is listed after it.
      HttpResponse<String> both = write(base, request(
          series(labels("__name__", "bad", "zone", "a", "zone", "b"), now - 20_000, 1),
          series(labels("__name__", "up", "instance", "host-11"), now - 20_000, 1),
          series(labels("__name__", "up", "instance", "host-1"), now - 20_000, 1)));
      assertThat(both.statusCode()).isEqualTo(400);
      assertThat(both.body()).contains("zone").contains("also refused: 1 new series (1 sample)"
          + " over --limits.max-series=10, the first of metric \"up\"");
      assertThat(stored(server, "up").stream()
          .filter(s -> s.labels().get("instance").equals("host-1")).findFirst().orElseThrow()
          .size()).isEqualTo(2);
      assertThat(Requests.get(base.resolve("/metrics")).body())
          .contains("inferlens_store_active_series 10.0");
    } finally {
      server.close();
    }
  }

  @Test
  void labelBombIsCutAtThePerMetricLimitWhileAnotherTargetIsStoredWhole() throws Exception {
    InferLensServer server = start(dir, new SeriesLimits(SeriesLimits.DEFAULT_MAX_SERIES, 1_000));
    try {
      URI base = base(server);
      long t = now - 60_000;
      int otherSeries = 0;
      // 20,000 user_id series in 10 requests of 2,000, each beside 3 new series of a vLLM target.
      for (int r = 0; r < 10; r++) {
        WriteRequest.Builder b = WriteRequest.newBuilder();
        for (int u = r * 2_000; u < (r + 1) * 2_000; u++) {
          b.addTimeseries(series(labels("__name__", "chat_requests_total", "job", "chat-api",
              "instance", "api-1:8080", "user_id", String.format("u%05d", u)), t, 1));
        }
        for (int k = 0; k < 3; k++) {
          b.addTimeseries(series(labels("__name__", "vllm:num_requests_running", "job", "vllm",
              "instance", "gpu-" + r + ":8000", "model_name", "llama-" + k), t, k));
          otherSeries++;
        }
        HttpResponse<String> resp = write(base, b.build());
        assertThat(resp.statusCode()).isEqualTo(400);
        int refused = r == 0 ? 1_000 : 2_000;
        assertThat(resp.body()).contains("--limits.max-series-per-metric=1000",
            "metric \"chat_requests_total\"", "it has 1000 active series",
            refused + " new series (" + refused + " samples) refused",
            String.format("user_id=\"u%05d\"", r == 0 ? 1_000 : r * 2_000));
      }
      // A later request of the other target, new series included, is stored whole: 204.
      WriteRequest.Builder later = WriteRequest.newBuilder();
      for (int k = 0; k < 5; k++) {
        later.addTimeseries(series(labels("__name__", "vllm:num_requests_waiting", "job", "vllm",
            "instance", "gpu-0:8000", "model_name", "llama-" + k), now - 30_000, k));
      }
      assertThat(write(base, later.build()).statusCode()).isEqualTo(204);
      // The bomb's 1,000 admitted series are active: their next samples are accepted.
      WriteRequest.Builder next = WriteRequest.newBuilder();
      for (int u = 0; u < 1_000; u++) {
        next.addTimeseries(series(labels("__name__", "chat_requests_total", "job", "chat-api",
            "instance", "api-1:8080", "user_id", String.format("u%05d", u)), now - 30_000, 2));
      }
      HttpResponse<String> nextResp = write(base, next.build());
      assertThat(nextResp.statusCode()).as(nextResp.body()).isEqualTo(204);

      List<Series> bomb = stored(server, "chat_requests_total");
      assertThat(bomb).hasSize(1_000);
      assertThat(bomb).allSatisfy(s -> {
        assertThat(s.size()).isEqualTo(2);
        assertThat(Integer.parseInt(s.labels().get("user_id").substring(1))).isLessThan(1_000);
      });
      assertThat(stored(server, "vllm:num_requests_running")).hasSize(otherSeries);
      assertThat(stored(server, "vllm:num_requests_waiting")).hasSize(5);
      assertThat(rejected(base, "series_per_metric_limit")).isEqualTo(19_000.0);

      JsonNode status = JSON.readTree(
          Requests.get(base.resolve("/api/v1/status/tsdb?limit=3")).body()).get("data");
      assertThat(status.at("/headStats/numSeries").asLong()).isEqualTo(1_000 + 30 + 5);
      assertThat(status.at("/seriesCountByMetricName/0/name").asText())
          .isEqualTo("chat_requests_total");
      assertThat(status.at("/seriesCountByMetricName/0/value").asLong()).isEqualTo(1_000);
      assertThat(status.at("/labelValueCountByLabelName/0/name").asText()).isEqualTo("user_id");
      assertThat(status.at("/labelValueCountByLabelName/0/value").asLong()).isEqualTo(1_000);
    } finally {
      server.close();
    }
  }
}
