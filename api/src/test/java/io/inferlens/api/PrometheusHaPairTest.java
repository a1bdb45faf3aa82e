package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.inferlens.ingest.HaConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus HA pair: two Debian {@code /usr/bin/prometheus} processes scrape the same
 * static exposition (served by this test on loopback) every second, with external labels
 * {@code cluster="c1"} and {@code __replica__="a"} / {@code "b"}, and remote-write to one
 * InferLens with {@code --ha.cluster-label cluster --ha.replica-label __replica__
 * --ha.failover-timeout 3s}. One copy is stored: one series without the replica label, whose
 * sample timestamps are all the elected replica's scrape timestamps (read from its own TSDB) and
 * none of the other's. Then the leader is killed, and after the failover timeout the other
 * replica's samples are stored in the same series. Skipped without Debian's prometheus package.
 */
class PrometheusHaPairTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long FAILOVER_MS = 3_000;
  private static final Pattern ELECTED =
      Pattern.compile("inferlens_ha_elected_replica\\{cluster=\"c1\",replica=\"(\\w+)\"} 1\\.0");

  @TempDir Path dir;

  @Test
  void onlyTheElectedReplicaIsStoredAndTheOtherTakesOverWhenItDies() throws Exception {
    ExternalProcesses.requireBinary(PrometheusEndToEndTest.PROMETHEUS, "prometheus");
    HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    target.createContext("/metrics", ex -> {
      byte[] body = "# TYPE ha_probe gauge\nha_probe 1\n".getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    target.start();
    InferLensServer rx = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withEvalInterval(0)
        .withHa(new HaConfig("cluster", "__replica__", FAILOVER_MS, 100)), Clock.systemUTC());
    URI at = URI.create("http://127.0.0.1:" + rx.port());
    ExternalProcesses.Prom a = null;
    ExternalProcesses.Prom b = null;
    try {
      String targetAddress = "127.0.0.1:" + target.getAddress().getPort();
      a = ExternalProcesses.startPrometheus(dir, "replica-a", config("a", targetAddress, rx));
      b = ExternalProcesses.startPrometheus(dir, "replica-b", config("b", targetAddress, rx));
      a.awaitReady();
      b.awaitReady();
      ExternalProcesses.Prom[] pair = {a, b};

      // Both replicas must be sending: the elected one's samples stored, the other's dropped.
      long deadline = System.nanoTime() + 60_000_000_000L;
      String leader = null;
      while (System.nanoTime() < deadline) {
        assertAlive(pair);
        String m = Requests.get(at.resolve("/metrics")).body();
        Matcher e = ELECTED.matcher(m);
        if (e.find() && deduplicated(m) > 0 && storedTimestamps(at).size() >= 5) {
          leader = e.group(1);
          break;
        }
        Thread.sleep(250);
      }
      assertThat(leader).as("an elected replica with samples stored and the other's dropped;"
          + " replica a log:\n%s\nreplica b log:\n%s", ExternalProcesses.tail(a.log()),
          ExternalProcesses.tail(b.log())).isNotNull();
      ExternalProcesses.Prom leaderProm = leader.equals("a") ? a : b;
      ExternalProcesses.Prom followerProm = leader.equals("a") ? b : a;
      String follower = leader.equals("a") ? "b" : "a";

      JsonNode series = storedSeries(at);
      assertThat(series).as("one series, not one per replica").hasSize(1);
      assertThat(series.get(0).has("__replica__")).isFalse();
      assertThat(series.get(0).get("cluster").asText()).isEqualTo("c1");
      Set<Long> stored = storedTimestamps(at);
      Set<Long> leaderScrapes = scrapeTimestamps(leaderProm.base());
      Set<Long> followerOnly = scrapeTimestamps(followerProm.base());
      followerOnly.removeAll(leaderScrapes);
      assertThat(leaderScrapes).as("the leader scraped what was stored").containsAll(stored);
      assertThat(stored).as("no sample of the follower's scrapes").doesNotContainAnyElementsOf(
          followerOnly);

      // Kill the leader; the follower takes over once the leader has been silent for 3 s.
      leaderProm.process().destroyForcibly().waitFor();
      long killedAtMs = System.currentTimeMillis();
      long lastLeaderSample = stored.isEmpty() ? 0 : ((TreeSet<Long>) stored).last();
      deadline = System.nanoTime() + 60_000_000_000L;
      Set<Long> after = Set.of();
      while (System.nanoTime() < deadline) {
        assertThat(followerProm.process().isAlive()).as("follower alive; log:\n%s",
            ExternalProcesses.tail(followerProm.log())).isTrue();
        String m = Requests.get(at.resolve("/metrics")).body();
        Matcher e = ELECTED.matcher(m);
        if (e.find() && e.group(1).equals(follower)) {
          after = new TreeSet<>(storedTimestamps(at));
          after.removeIf(ts -> ts <= killedAtMs);
          if (after.size() >= 3) {
            break;
          }
        }
        Thread.sleep(250);
      }
      assertThat(after).as("the follower's samples stored after the leader died; follower log:\n%s",
          ExternalProcesses.tail(followerProm.log())).hasSizeGreaterThanOrEqualTo(3);
      assertThat(scrapeTimestamps(followerProm.base())).containsAll(after);
      long firstFollowerSample = ((TreeSet<Long>) after).first();
      // The failover left a gap: the follower's writes were dropped for the failover timeout
      // after the leader's last accepted write (less the follower's 1 s batching).
      assertThat(firstFollowerSample - lastLeaderSample).as("gap at the failover")
          .isGreaterThan(1_000);
      JsonNode afterSeries = storedSeries(at);
      assertThat(afterSeries).as("still one series: the replica label is not stored")
          .hasSize(1);
      String m = Requests.get(at.resolve("/metrics")).body();
      assertThat(m).contains("inferlens_ha_elected_replica_changes{cluster=\"c1\"} 1.0");
    } finally {
      if (a != null) {
        ExternalProcesses.stop(a.process());
      }
      if (b != null) {
        ExternalProcesses.stop(b.process());
      }
      rx.close();
      target.stop(0);
    }
  }

  private static String config(String replica, String target, InferLensServer rx) {
    return "global:\n"
        + "  scrape_interval: 1s\n"
        + "  external_labels:\n"
        + "    cluster: c1\n"
        + "    __replica__: " + replica + "\n"
        + "scrape_configs:\n"
        + "  - job_name: probe\n"
        + "    static_configs:\n      - targets: ['" + target + "']\n"
        + "remote_write:\n"
        + "  - url: http://127.0.0.1:" + rx.port() + "/api/v1/write\n"
        + "    queue_config:\n      batch_send_deadline: 1s\n";
  }

  private static void assertAlive(ExternalProcesses.Prom[] pair) {
    for (ExternalProcesses.Prom p : pair) {
      assertThat(p.process().isAlive()).as("prometheus alive; log:\n%s",
          ExternalProcesses.tail(p.log())).isTrue();
    }
  }

  /** @return inferlens_ha_deduplicated_samples_total{cluster="c1"}, 0 before the first drop */
  private static double deduplicated(String metrics) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith("inferlens_ha_deduplicated_samples_total{cluster=\"c1\"}")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  private static JsonNode storedSeries(URI at) throws Exception {
    long now = System.currentTimeMillis() / 1000;
    HttpResponse<String> r = Requests.get(at.resolve("/api/v1/series?match[]="
        + Requests.enc("ha_probe") + "&start=" + (now - 600) + "&end=" + (now + 60)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("data");
  }

  /** @return the timestamps (ms) of ha_probe's samples InferLens stored, in order */
  private static TreeSet<Long> storedTimestamps(URI at) throws Exception {
    return timestamps(at);
  }

  /** @return the timestamps (ms) of ha_probe's samples a Prometheus scraped into its own TSDB */
  private static TreeSet<Long> scrapeTimestamps(URI prom) throws Exception {
    return timestamps(prom);
  }

  /** {@code ha_probe[10m]} at now through the Prometheus query API of {@code base}. */
  private static TreeSet<Long> timestamps(URI base) throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/query?query="
        + Requests.enc("ha_probe[10m]") + "&time=" + System.currentTimeMillis() / 1000.0));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    TreeSet<Long> out = new TreeSet<>();
    List<JsonNode> result = new ArrayList<>();
    JSON.readTree(r.body()).path("data").path("result").forEach(result::add);
    for (JsonNode s : result) {
      for (JsonNode v : s.get("values")) {
        out.add(Math.round(v.get(0).asDouble() * 1000));
      }
    }
    return out;
  }
}
