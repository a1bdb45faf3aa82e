package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v1/status/tsdb} over HTTP: the numbers for three metrics of known series and
 * label values, the {@code limit} parameter and its errors, and the same data remote-written to
 * Debian's Prometheus answering the same numbers from its own head.
 */
class TsdbStatusApiTest {

  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final long t = System.currentTimeMillis() - 60_000;

  /** a: 3 series (job x, instance i1..i3), b: 2 (job x, i1, i2), c: 1 (job y, i1). */
  private WriteRequest threeMetrics() {
    return request(
        series(new String[] {"__name__", "a", "job", "x", "instance", "i1"},
            new long[] {t, t + 15_000}, new double[] {1, 2}),
        series(new String[] {"__name__", "a", "job", "x", "instance", "i2"}, t, 1),
        series(new String[] {"__name__", "a", "job", "x", "instance", "i3"}, t, 1),
        series(new String[] {"__name__", "b", "job", "x", "instance", "i1"}, t, 1),
        series(new String[] {"__name__", "b", "job", "x", "instance", "i2"}, t - 5_000, 1),
        series(new String[] {"__name__", "c", "job", "y", "instance", "i1"}, t, 1));
  }

  private static String list(String... nameValues) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < nameValues.length; i += 2) {
      sb.append(i == 0 ? "" : ",").append("{\"name\":\"").append(nameValues[i])
          .append("\",\"value\":").append(nameValues[i + 1]).append('}');
    }
    return sb.append(']').toString();
  }

  @Test
  void answersTheCountsOfWhatWasWrittenInPrometheusShape() throws Exception {
    InferLensServer server = InferLensServer.start(
        ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0), Clock.systemUTC());
    try {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      assertThat(write(base, threeMetrics()).statusCode()).isEqualTo(204);

      HttpResponse<String> r = Requests.get(base.resolve("/api/v1/status/tsdb"));
      assertThat(r.statusCode()).isEqualTo(200);
      String expected = "{\"status\":\"success\",\"data\":{\"headStats\":{\"numSeries\":6,"
          + "\"numLabelPairs\":8,\"chunkCount\":6,\"minTime\":" + (t - 5_000) + ",\"maxTime\":"
          + (t + 15_000) + "},"
          + "\"seriesCountByMetricName\":" + list("a", "3", "b", "2", "c", "1") + ","
          + "\"labelValueCountByLabelName\":" + list("__name__", "3", "instance", "3", "job", "2")
          + ",\"memoryInBytesByLabelName\":" + list("instance", "6", "__name__", "3", "job", "2")
          + ",\"seriesCountByLabelValuePair\":" + list("job=x", "5", "__name__=a", "3",
              "instance=i1", "3", "__name__=b", "2", "instance=i2", "2", "__name__=c", "1",
              "instance=i3", "1", "job=y", "1")
          + "}}";
      assertThat(JSON.readTree(r.body())).isEqualTo(JSON.readTree(expected));

      JsonNode two = JSON.readTree(
          Requests.get(base.resolve("/api/v1/status/tsdb?limit=2")).body()).get("data");
      assertThat(two.get("seriesCountByMetricName").toString()).isEqualTo(list("a", "3", "b", "2"));
      assertThat(two.get("seriesCountByLabelValuePair").toString())
          .isEqualTo(list("job=x", "5", "__name__=a", "3"));
      assertThat(two.at("/headStats/numSeries").asLong()).isEqualTo(6);

      for (String bad : new String[] {"0", "-3", "ten", "1.5"}) {
        HttpResponse<String> e = Requests.get(base.resolve("/api/v1/status/tsdb?limit=" + bad));
        assertThat(e.statusCode()).as(bad).isEqualTo(400);
        assertThat(JSON.readTree(e.body()).get("errorType").asText()).isEqualTo("bad_data");
        assertThat(JSON.readTree(e.body()).get("error").asText())
            .isEqualTo("limit must be a positive number");
      }
      HttpResponse<String> tooMany =
          Requests.get(base.resolve("/api/v1/status/tsdb?limit=10001"));
      assertThat(tooMany.statusCode()).isEqualTo(400);
      assertThat(tooMany.body()).contains("10000");
      HttpResponse<String> post = Requests.post(base.resolve("/api/v1/status/tsdb"),
          new byte[0], "application/x-www-form-urlencoded", null);
      assertThat(post.statusCode()).isEqualTo(405);
    } finally {
      server.close();
    }
  }

  @Test
  void matchesDebianPrometheusOnTheSameRemoteWrittenData() throws Exception {
    ExternalProcesses.requireBinary(PrometheusEndToEndTest.PROMETHEUS, "prometheus");
    InferLensServer server = InferLensServer.start(
        ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0), Clock.systemUTC());
    ExternalProcesses.Prom prom = null;
    try {
      prom = ExternalProcesses.startPrometheus(dir, "prom",
          "global:\n  scrape_interval: 1m\nscrape_configs: []\n",
          "--web.enable-remote-write-receiver");
      prom.awaitReady();
      URI ours = URI.create("http://127.0.0.1:" + server.port());
      assertThat(write(ours, threeMetrics()).statusCode()).isEqualTo(204);
      HttpResponse<String> theirsWrite = write(prom.base(), threeMetrics());
      assertThat(theirsWrite.statusCode()).as(theirsWrite.body()).isBetween(200, 204);

      JsonNode mine = JSON.readTree(
          Requests.get(ours.resolve("/api/v1/status/tsdb")).body()).get("data");
      JsonNode theirs = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (System.nanoTime() < deadline) {
        theirs = JSON.readTree(
            Requests.get(prom.base().resolve("/api/v1/status/tsdb")).body()).get("data");
        if (theirs.at("/headStats/numSeries").asLong() >= 6) {
          break;
        }
        Thread.sleep(200);
      }
      assertThat(fieldNames(mine)).isEqualTo(fieldNames(theirs));
      assertThat(fieldNames(mine.get("headStats"))).isEqualTo(fieldNames(theirs.get("headStats")));
      for (String f : new String[] {"numSeries", "numLabelPairs", "chunkCount", "minTime",
          "maxTime"}) {
        assertThat(mine.get("headStats").get(f)).as(f).isEqualTo(theirs.get("headStats").get(f));
      }
      // Prometheus leaves ties in map order: compare each list as a set of entries.
      for (String list : new String[] {"seriesCountByMetricName", "labelValueCountByLabelName",
          "memoryInBytesByLabelName", "seriesCountByLabelValuePair"}) {
        assertThat(entries(mine.get(list))).as(list).isEqualTo(entries(theirs.get(list)));
      }
    } finally {
      if (prom != null) {
        ExternalProcesses.stop(prom.process());
      }
      server.close();
    }
  }

  private static Set<String> fieldNames(JsonNode n) {
    Set<String> out = new TreeSet<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static Set<String> entries(JsonNode list) {
    Set<String> out = new TreeSet<>();
    list.forEach(e -> out.add(e.get("name").asText() + " " + e.get("value").asLong()));
    return out;
  }
}
