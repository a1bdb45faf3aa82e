package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL in the middle of a stream of writes: every sample that got a 204 before the kill is
 * readable after a restart on the same data directory.
 */
class CrashRecoveryTest {

  @TempDir Path dir;

  /** Series per request; each request carries one new sample for each. */
  private static final int SERIES = 20;
  /** Upper bound on requests so the loop always ends. */
  private static final int MAX_REQUESTS = 5_000;

  @Test
  void everyAcknowledgedSampleSurvivesSigkill() throws Exception {
    int port = ExternalProcesses.freePort();
    Path data = dir.resolve("data");
    Path log = dir.resolve("inferlens.log");
    URI base = URI.create("http://127.0.0.1:" + port);
    Process p = ExternalProcesses.startInferLens(port, data, log);
    // sample index -> acknowledged; value of series s at request i is i * 1000 + s
    Map<Integer, Boolean> acked = new ConcurrentHashMap<>();
    AtomicInteger sent = new AtomicInteger();
    long t0 = System.currentTimeMillis() - 3_600_000L;
    try {
      ExternalProcesses.awaitOk(base.resolve("/-/ready"), p, Duration.ofSeconds(60), log);
      Thread writer = new Thread(() -> {
        for (int i = 0; i < MAX_REQUESTS; i++) {
          io.inferlens.proto.prometheus.Types.TimeSeries[] ts =
              new io.inferlens.proto.prometheus.Types.TimeSeries[SERIES];
          for (int s = 0; s < SERIES; s++) {
            ts[s] = series(new String[] {"__name__", "crash_test", "s", Integer.toString(s)},
                t0 + i * 100L, i * 1000.0 + s);
          }
          sent.incrementAndGet();
          try {
            HttpResponse<String> r = Requests.write(base, request(ts));
            if (r.statusCode() == 204) {
              acked.put(i, Boolean.TRUE);
            }
          } catch (RuntimeException e) {
            return; // connection refused or reset: the server is gone
          }
        }
      }, "crash-writer");
      writer.start();
      // Kill while writes are in flight, after enough have been acknowledged.
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (acked.size() < 200 && System.nanoTime() < deadline && writer.isAlive()) {
        Thread.sleep(5);
      }
      p.destroyForcibly(); // SIGKILL on Linux
      p.waitFor();
      writer.join(60_000);
      assertThat(acked.size()).as("acknowledged before the kill").isGreaterThanOrEqualTo(200);
      assertThat(sent.get()).as("the kill came before the writer ran out").isLessThan(MAX_REQUESTS);

      p = ExternalProcesses.startInferLens(port, data, log);
      ExternalProcesses.awaitOk(base.resolve("/-/ready"), p, Duration.ofSeconds(60), log);
      HttpResponse<String> r = Requests.get(base.resolve("/api/v1/export?match[]=crash_test&start="
          + (t0 / 1000 - 10) + "&end=" + (t0 / 1000 + MAX_REQUESTS)));
      assertThat(r.statusCode()).isEqualTo(200);
      ObjectMapper json = new ObjectMapper();
      Map<Integer, Map<Long, Double>> stored = new HashMap<>();
      for (String line : r.body().split("\n")) {
        JsonNode n = json.readTree(line);
        int s = Integer.parseInt(n.get("metric").get("s").asText());
        Map<Long, Double> samples = new HashMap<>();
        for (int k = 0; k < n.get("timestamps").size(); k++) {
          samples.put(n.get("timestamps").get(k).asLong(), n.get("values").get(k).asDouble());
        }
        stored.put(s, samples);
      }
      int checked = 0;
      for (int i : acked.keySet()) {
        for (int s = 0; s < SERIES; s++) {
          assertThat(stored.getOrDefault(s, Map.of()).get(t0 + i * 100L))
              .as("series %d, request %d (acknowledged)", s, i).isEqualTo(i * 1000.0 + s);
          checked++;
        }
      }
      assertThat(checked).isEqualTo(acked.size() * SERIES);
    } finally {
      ExternalProcesses.stop(p);
    }
  }
}
