package io.inferlens.api;

import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.SeriesLimits;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A label bomb through the real remote-write endpoint (Armeria on loopback, RocksDB in a
 * temporary directory) on a server started with {@code --limits.max-series-per-metric} 5,000:
 * 20,000 {@code user_id} series of one metric beside a vLLM fleet. The always-on evaluator's
 * cardinality watch raises one CARDINALITY_EXPLOSION naming the metric, its job and instance and
 * {@code user_id}, with the per-metric refusals counted; it reaches {@code /api/v1/diagnoses},
 * the incidents journal and {@code /api/v1/alerts} (alertname = the cause code); the fleet's
 * metrics are stored whole and raise nothing.
 */
class CardinalityExplosionEndToEndTest {

  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();

  private static String[] labels(String... kv) {
    return kv;
  }

  /** One sample of each of 3 vLLM targets' 30 bucket series, at {@code t}. */
  private static WriteRequest.Builder fleet(WriteRequest.Builder b, int targets, long t) {
    for (int i = 0; i < targets; i++) {
      for (int le = 0; le < 30; le++) {
        b.addTimeseries(series(labels("__name__", "vllm:e2e_request_latency_seconds_bucket",
            "job", "vllm", "instance", "gpu-" + i + ":8000", "model_name", "llama",
            "le", Integer.toString(le)), t, le));
      }
    }
    return b;
  }

  private static WriteRequest.Builder users(WriteRequest.Builder b, int from, int to, long t) {
    for (int u = from; u < to; u++) {
      b.addTimeseries(series(labels("__name__", "chat_requests_total", "job", "chat-api",
          "instance", "api-1:8080", "route", "/v1/chat", "user_id", String.format("u%05d", u)),
          t, 1));
    }
    return b;
  }

  private static JsonNode getJson(URI uri) throws Exception {
    HttpResponse<String> r = Requests.get(uri);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("data");
  }

  private static JsonNode evidence(JsonNode diagnosis, String signal) {
    for (JsonNode e : diagnosis.at("/chain/0/evidence")) {
      if (e.get("signal").asText().equals(signal)) {
        return e;
      }
    }
    throw new AssertionError("no evidence " + signal + " in " + diagnosis);
  }

  @Test
  void aUserIdBombIsNamedWithItsLabelAndRefusalsWhileTheFleetIsUntouched() throws Exception {
    WriteLimitsEndpointTest.MutableClock clock =
        new WriteLimitsEndpointTest.MutableClock(System.currentTimeMillis());
    InferLensServer server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withEvalInterval(3_600_000L)
        .withSeriesLimits(new SeriesLimits(SeriesLimits.DEFAULT_MAX_SERIES, 5_000)), clock);
    try {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      // The scheduled evaluator (diagnoses answer from its journal) runs once at start, then
      // hourly; the test evaluates by hand on its clock. The start's sample, of an empty store,
      // is out of the 10-minute window once the clock has moved 11 minutes.
      for (int i = 0; i < 200 && Requests.get(base.resolve("/api/v1/rules")).body()
          .contains("0001-01-01T00:00:00Z"); i++) {
        Thread.sleep(50);
      }
      assertThat(Requests.get(base.resolve("/api/v1/rules")).body())
          .doesNotContain("0001-01-01T00:00:00Z");
      clock.ms += 11 * 60_000;
      // Before: 10 users and a fleet of 3 replicas; the watch's sample.
      long start = clock.ms;
      assertThat(write(base, users(fleet(WriteRequest.newBuilder(), 3, clock.ms - 1_000), 0, 10,
          clock.ms - 1_000).build()).statusCode()).isEqualTo(204);
      server.evaluateNow();

      // A minute later: 20,000 user_id series in 10 requests, and 5 more replicas.
      clock.ms += 60_000;
      long t = clock.ms - 1_000;
      int refusedTotal = 0;
      for (int r = 0; r < 10; r++) {
        WriteRequest.Builder b = users(WriteRequest.newBuilder(), 10 + r * 2_000,
            10 + (r + 1) * 2_000, t);
        if (r == 0) {
          fleet(b, 8, t);
        }
        HttpResponse<String> resp = write(base, b.build());
        if (resp.statusCode() == 400) {
          assertThat(resp.body()).contains("--limits.max-series-per-metric=5000",
              "metric \"chat_requests_total\"");
          refusedTotal += Integer.parseInt(resp.body().replaceAll(
              "(?s).*?(\\d+) new series \\(\\d+ samples?\\) refused.*", "$1"));
        } else {
          assertThat(resp.statusCode()).as(resp.body()).isEqualTo(204);
        }
      }
      assertThat(refusedTotal).isEqualTo(20_010 - 5_000);
      server.evaluateNow();

      String range = "?start=" + (start / 1000 - 60) + "&end=" + (clock.ms / 1000 + 60);
      JsonNode diagnoses = getJson(base.resolve("/api/v1/diagnoses" + range)).get("diagnoses");
      List<JsonNode> found = new java.util.ArrayList<>();
      diagnoses.forEach(d -> {
        if (d.get("cause").asText().equals("CARDINALITY_EXPLOSION")) {
          found.add(d);
        }
      });
      assertThat(found).hasSize(1);
      JsonNode d = found.get(0);
      assertThat(d.get("target").toString())
          .isEqualTo("{\"job\":\"chat-api\",\"instance\":\"api-1:8080\","
              + "\"metric\":\"chat_requests_total\"}");
      assertThat(d.get("severity").asText()).isEqualTo("critical");
      assertThat(d.get("end").isNull()).isTrue();
      assertThat(evidence(d, "series").get("value").asLong()).isEqualTo(5_000);
      assertThat(evidence(d, "series").get("baseline").asLong()).isEqualTo(10);
      assertThat(evidence(d, "targets").get("value").asLong()).isEqualTo(1);
      assertThat(evidence(d, "label_values:user_id").get("value").asLong()).isEqualTo(5_000);
      assertThat(evidence(d, "label_values:user_id").get("baseline").asLong()).isEqualTo(10);
      assertThat(evidence(d, "refused_series").get("value").asLong()).isEqualTo(15_010);
      assertThat(d.get("summary").asText()).contains("chat_requests_total", "user_id",
          "15,010 new series refused by --limits.max-series-per-metric=5000");
      assertThat(d.get("recommendations").get(0).asText()).contains("labeldrop",
          "regex: user_id");
      // Only the bomb: the fleet grew with its series.
      assertThat(diagnoses.toString()).doesNotContain("vllm:e2e_request_latency_seconds_bucket");

      // The journal holds it, open; the alert is named by the cause code, the metric a label.
      JsonNode incidents = getJson(base.resolve("/api/v1/incidents?state=open"
          + "&cause=CARDINALITY_EXPLOSION&start=" + (start / 1000 - 60) + "&end="
          + (clock.ms / 1000 + 60))).get("incidents");
      assertThat(incidents).hasSize(1);
      assertThat(incidents.get(0).get("id").asText()).isEqualTo(d.get("id").asText());
      String markdown = Requests.get(base.resolve("/api/v1/incidents/"
          + Requests.enc(d.get("id").asText()) + "/markdown")).body();
      assertThat(markdown).contains("## Evidence (cardinality)", "label_values:user_id",
          "labeldrop");
      // The relabel snippet is a fenced YAML block inside its item, its indentation kept.
      assertThat(markdown).contains(":\n\n  ```yaml\n  metric_relabel_configs:\n"
          + "    - action: labeldrop\n      regex: user_id\n  ```\n");
      JsonNode alerts = getJson(base.resolve("/api/v1/alerts")).get("alerts");
      JsonNode alert = null;
      for (JsonNode a : alerts) {
        if (a.at("/labels/alertname").asText().equals("CARDINALITY_EXPLOSION")) {
          alert = a;
        }
      }
      assertThat(alert).as(alerts.toString()).isNotNull();
      assertThat(alert.at("/labels/metric").asText()).isEqualTo("chat_requests_total");
      assertThat(alert.at("/labels/job").asText()).isEqualTo("chat-api");
      assertThat(alert.at("/labels/severity").asText()).isEqualTo("critical");
      assertThat(alert.at("/annotations/summary").asText()).contains("user_id");

      // The other metric is stored whole: 8 replicas of 30 buckets.
      assertThat(server.store().select(List.of(Matcher.eq("__name__",
          "vllm:e2e_request_latency_seconds_bucket")), 0, Long.MAX_VALUE)).hasSize(8 * 30);
      assertThat(server.store().select(List.of(Matcher.eq("__name__", "chat_requests_total")),
          0, Long.MAX_VALUE)).hasSize(5_000);

      // After a restart the watch has no samples; the journal's finding is held by its
      // recorded "before" values, with its id, and stays open.
      server.close();
      clock.ms += 60_000;
      server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
          .withEvalInterval(3_600_000L)
          .withSeriesLimits(new SeriesLimits(SeriesLimits.DEFAULT_MAX_SERIES, 5_000)), clock);
      server.evaluateNow();
      assertThat(server.journal().openIncidents()).extracting(i -> i.id())
          .contains(d.get("id").asText());
    } finally {
      server.close();
    }
  }
}
