package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.api.WriteLimitsEndpointTest.MutableClock;
import io.inferlens.ingest.HaConfig;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HA pair deduplication through the real endpoint (Armeria on a loopback port, RocksDB in a
 * temporary directory, a clock moved by hand): two replicas of one cluster post remote writes;
 * the elected one's are stored without the replica label and answered 204, the other's answered
 * 202 and dropped, counted in {@code /metrics}; failover exactly at {@code --ha.failover-timeout}.
 */
class HaEndpointTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NOW = System.currentTimeMillis();
  private static final long TIMEOUT = 3_000;

  private static String[] labels(String metric, String cluster, String replica) {
    return new String[] {"__name__", metric, "cluster", cluster, "__replica__", replica,
        "job", "node"};
  }

  /** @return every (timestamp ms, value) of {@code selector} over the last hour */
  private static List<double[]> samples(URI at, String selector) throws Exception {
    HttpResponse<String> r = Requests.get(at.resolve("/api/v1/query?query="
        + enc(selector + "[1h]") + "&time=" + (NOW + 60_000) / 1000.0));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = JSON.readTree(r.body()).get("data").get("result");
    List<double[]> out = new ArrayList<>();
    for (JsonNode s : result) {
      for (JsonNode v : s.get("values")) {
        out.add(new double[] {v.get(0).asDouble() * 1000, Double.parseDouble(v.get(1).asText())});
      }
    }
    return out;
  }

  private static JsonNode stored(URI at, String selector) throws Exception {
    HttpResponse<String> r = Requests.get(at.resolve("/api/v1/series?match[]=" + enc(selector)
        + "&start=" + (NOW / 1000 - 3600) + "&end=" + (NOW / 1000 + 60)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("data");
  }

  @Test
  void twoReplicasPostingOneIsStoredTheOtherAnswered202UntilFailover(@TempDir Path dir)
      throws Exception {
    MutableClock clock = new MutableClock(NOW);
    ServerConfig config = ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0)
        .withHa(new HaConfig("cluster", "__replica__", TIMEOUT, 100));
    try (InferLensServer s = InferLensServer.start(config, clock)) {
      URI at = URI.create("http://127.0.0.1:" + s.port());

      HttpResponse<String> a1 =
          write(at, request(series(labels("ha_up", "c1", "a"), NOW - 3000, 1)));
      assertThat(a1.statusCode()).as(a1.body()).isEqualTo(204);
      HttpResponse<String> b1 = write(at, request(series(labels("ha_up", "c1", "b"),
          new long[] {NOW - 2999, NOW - 2998}, new double[] {10, 11})));
      assertThat(b1.statusCode()).as(b1.body()).isEqualTo(202);
      assertThat(b1.body()).isEqualTo("deduplicated: replica \"b\" of HA cluster \"c1\" is not"
          + " the elected replica \"a\"; its 2 samples were dropped\n");

      clock.ms += TIMEOUT - 1;
      assertThat(write(at, request(series(labels("ha_up", "c1", "b"), NOW - 2000, 12)))
          .statusCode()).isEqualTo(202);
      // Another cluster is elected on its own.
      assertThat(write(at, request(series(labels("ha_up", "c2", "b"), NOW - 2000, 100)))
          .statusCode()).isEqualTo(204);

      JsonNode stored = stored(at, "ha_up");
      assertThat(stored).hasSize(2);
      for (JsonNode one : stored) {
        assertThat(one.has("__replica__")).as(one.toString()).isFalse();
        assertThat(one.get("job").asText()).isEqualTo("node");
      }
      assertThat(samples(at, "ha_up{cluster=\"c1\"}")).extracting(v -> v[1]).containsExactly(1.0);

      // Exactly the failover timeout after a's last accepted write: b takes over.
      clock.ms += 1;
      HttpResponse<String> b3 =
          write(at, request(series(labels("ha_up", "c1", "b"), NOW - 1000, 13)));
      assertThat(b3.statusCode()).as(b3.body()).isEqualTo(204);
      assertThat(write(at, request(series(labels("ha_up", "c1", "a"), NOW - 999, 2)))
          .statusCode()).isEqualTo(202);
      assertThat(samples(at, "ha_up{cluster=\"c1\"}")).extracting(v -> v[1])
          .containsExactly(1.0, 13.0);
      assertThat(stored(at, "ha_up{cluster=\"c1\"}")).hasSize(1);

      // Without the HA labels a write is stored as it came.
      assertThat(write(at, request(series(new String[] {"__name__", "ha_plain",
          "__replica__", "a"}, NOW - 500, 5))).statusCode()).isEqualTo(204);
      assertThat(stored(at, "ha_plain").get(0).get("__replica__").asText()).isEqualTo("a");

      String m = Requests.get(at.resolve("/metrics")).body();
      assertThat(m).contains(
          "inferlens_ha_deduplicated_samples_total{cluster=\"c1\"} 4.0",
          "inferlens_write_requests_total{code=\"202\"} 3.0",
          "inferlens_ha_elected_replica{cluster=\"c1\",replica=\"b\"} 1.0",
          "inferlens_ha_elected_replica{cluster=\"c2\",replica=\"b\"} 1.0",
          "inferlens_ha_elected_replica_changes{cluster=\"c1\"} 1.0",
          "inferlens_ha_elected_replica_changes{cluster=\"c2\"} 0.0",
          "inferlens_ha_elected_replica_timestamp_seconds{cluster=\"c1\"} "
              + (NOW + TIMEOUT) / 1000.0);
      assertThat(m).doesNotContain("replica=\"a\"");
    }
  }

  @Test
  void offByDefaultBothReplicasAreStored(@TempDir Path dir) throws Exception {
    try (InferLensServer s = InferLensServer.start(
        ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0),
        java.time.Clock.systemUTC())) {
      URI at = URI.create("http://127.0.0.1:" + s.port());
      assertThat(write(at, request(series(labels("ha_off", "c1", "a"), NOW - 1000, 1)))
          .statusCode()).isEqualTo(204);
      assertThat(write(at, request(series(labels("ha_off", "c1", "b"), NOW - 1000, 2)))
          .statusCode()).isEqualTo(204);
      assertThat(stored(at, "ha_off")).hasSize(2);
      assertThat(Requests.get(at.resolve("/metrics")).body()).doesNotContain("inferlens_ha_");
    }
  }
}
