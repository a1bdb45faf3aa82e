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
import java.util.List;
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

  /** Writers at full speed, like the bench sender's shards; series per writer. */
  private static final int WRITERS = 4;
  private static final int WRITER_SERIES = 250;
  private static final int SAMPLES_PER_SERIES = 8;

  /**
   * Four writers at full speed (2,000 samples per request, as Prometheus and the bench sender
   * batch them) against a server whose head flushes every 40,000 samples, so the kill lands
   * while head flushes and window finalization run; after a restart on the same directory (a
   * plain open, no repair) every acknowledged sample is there.
   */
  @Test
  void sustainedIngestWithHeadFlushesSurvivesSigkill() throws Exception {
    int port = ExternalProcesses.freePort();
    Path data = dir.resolve("data2");
    Path log = dir.resolve("inferlens2.log");
    URI base = URI.create("http://127.0.0.1:" + port);
    Process p = ExternalProcesses.startInferLens(port, data, log, "--head-max-samples", "40000",
        "--eval-interval=0s");
    Map<Long, Boolean> acked = new ConcurrentHashMap<>(); // writer << 32 | request
    long t0 = System.currentTimeMillis() - 3 * 3_600_000L;
    try {
      ExternalProcesses.awaitOk(base.resolve("/-/ready"), p, Duration.ofSeconds(60), log);
      List<Thread> writers = new java.util.ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        Thread t = new Thread(() -> {
          for (int i = 0; i < MAX_REQUESTS; i++) {
            io.inferlens.proto.prometheus.Types.TimeSeries[] ts =
                new io.inferlens.proto.prometheus.Types.TimeSeries[WRITER_SERIES];
            for (int s = 0; s < WRITER_SERIES; s++) {
              io.inferlens.proto.prometheus.Types.TimeSeries.Builder b =
                  io.inferlens.proto.prometheus.Types.TimeSeries.newBuilder()
                      .addLabels(label("__name__", "crash_load"))
                      .addLabels(label("s", Integer.toString(s)))
                      .addLabels(label("w", Integer.toString(writer)));
              for (int k = 0; k < SAMPLES_PER_SERIES; k++) {
                b.addSamples(io.inferlens.proto.prometheus.Types.Sample.newBuilder()
                    .setTimestamp(sampleTs(t0, i, k)).setValue(value(writer, i, k, s)));
              }
              ts[s] = b.build();
            }
            try {
              HttpResponse<String> r = Requests.write(base, request(ts));
              if (r.statusCode() == 204) {
                acked.put(((long) writer << 32) | i, Boolean.TRUE);
              }
            } catch (RuntimeException e) {
              return;
            }
          }
        }, "load-writer-" + w);
        t.start();
        writers.add(t);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (acked.size() < 400 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      p.destroyForcibly(); // SIGKILL on Linux
      p.waitFor();
      for (Thread t : writers) {
        t.join(60_000);
      }
      assertThat(acked.size()).as("acknowledged before the kill").isGreaterThanOrEqualTo(400);

      p = ExternalProcesses.startInferLens(port, data, log, "--eval-interval=0s");
      ExternalProcesses.awaitOk(base.resolve("/-/ready"), p, Duration.ofSeconds(120), log);
      long checked = 0;
      ObjectMapper json = new ObjectMapper();
      for (int w = 0; w < WRITERS; w++) {
        HttpResponse<String> r = Requests.get(base.resolve("/api/v1/export?match[]="
            + Requests.enc("crash_load{w=\"" + w + "\"}") + "&start=" + (t0 / 1000 - 10)
            + "&end=" + (t0 / 1000 + 3 * 3600)));
        assertThat(r.statusCode()).isEqualTo(200);
        Map<Integer, Map<Long, Double>> stored = new HashMap<>();
        for (String line : r.body().split("\n")) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode n = json.readTree(line);
          Map<Long, Double> samples = new HashMap<>();
          for (int k = 0; k < n.get("timestamps").size(); k++) {
            samples.put(n.get("timestamps").get(k).asLong(), n.get("values").get(k).asDouble());
          }
          stored.put(Integer.parseInt(n.get("metric").get("s").asText()), samples);
        }
        for (long key : acked.keySet()) {
          if ((int) (key >>> 32) != w) {
            continue;
          }
          int i = (int) key;
          for (int s = 0; s < WRITER_SERIES; s++) {
            for (int k = 0; k < SAMPLES_PER_SERIES; k++) {
              Double got = stored.getOrDefault(s, Map.of()).get(sampleTs(t0, i, k));
              if (got == null || got != value(w, i, k, s)) {
                assertThat(got).as("writer %d request %d series %d sample %d (acknowledged)",
                    w, i, s, k).isEqualTo(value(w, i, k, s));
              }
              checked++;
            }
          }
        }
      }
      assertThat(checked).isEqualTo((long) acked.size() * WRITER_SERIES * SAMPLES_PER_SERIES);
    } finally {
      ExternalProcesses.stop(p);
    }
  }

  private static long sampleTs(long t0, int request, int k) {
    return t0 + (request * (long) SAMPLES_PER_SERIES + k) * 1000L;
  }

  private static double value(int writer, int request, int k, int series) {
    return writer * 1e9 + request * 1e4 + k * 100 + series;
  }

  private static io.inferlens.proto.prometheus.Types.Label label(String n, String v) {
    return io.inferlens.proto.prometheus.Types.Label.newBuilder().setName(n).setValue(v).build();
  }
}
