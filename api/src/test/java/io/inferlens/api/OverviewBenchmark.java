package io.inferlens.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.simulator.Scenario;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the web UI's overview page ({@code web/…/overview.js}) asks for, for 100 targets over its
 * default 6 hours ending now: {@code /api/v1/targets}, {@code /api/v1/diagnoses} and one
 * {@code /api/v1/sparklines} for every target's five sparklines (120 points each) at once; until
 * 2026-12-03 the page asked one {@code /api/v1/dashboard} per target, six at a time (16.4 s,
 * docs/BENCHMARKS.md). The time is from the first request to the last answer: the
 * page is drawn when they are in (the DOM work is not measured).
 *
 * <p>The server runs as {@code serve} does by default: the always-on evaluator every 15 s, which
 * has caught up with the data before the measurement. 90 targets play the simulator's
 * {@code healthy} scenario, 10 {@code peak-saturation}, 6 hours each, 15 s scrapes.
 *
 * <p>Run with {@code scripts/jmh.sh api -f 1 OverviewBenchmark} (docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 5)
@Measurement(iterations = 15)
public class OverviewBenchmark {

  static final int TARGETS = 100;
  static final String SPARKS = "e2e_p95,ttft_p95,waiting,kv_cache_usage,gpu_util";
  static final ObjectMapper JSON = new ObjectMapper();

  /** A server holding 100 targets × 6 hours, its evaluator caught up. */
  @State(Scope.Benchmark)
  public static class Loaded {
    Path dir;
    InferLensServer server;
    URI base;
    HttpClient http;
    ExecutorService browser;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      dir = Files.createTempDirectory("inferlens-bench-overview-");
      server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")),
          Clock.systemUTC());
      base = URI.create("http://127.0.0.1:" + server.port());
      long t0 = System.nanoTime();
      SimulatedWrites w = new SimulatedWrites(base);
      long now = System.currentTimeMillis();
      for (int t = 0; t < TARGETS; t++) {
        w.playScenario(Scenario.byId(t % 10 == 9 ? "peak-saturation" : "healthy"), 6 * 3600,
            "10.0." + (t / 250) + "." + (t % 250), "model-" + (t % 7), now, t);
      }
      long t1 = System.nanoTime();
      // Samples written after a target was first evaluated are late data to the evaluator, which
      // re-evaluates them in its next evaluation: one more, so the measurement sees a caught-up
      // journal and no re-evaluation competing with it.
      server.evaluateNow();
      server.evaluateNow();
      System.out.printf("%nloaded %d samples in %.1f s; evaluator caught up %.1f s later%n",
          w.samplesWritten, (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
      http = HttpClient.newHttpClient();
      browser = Executors.newFixedThreadPool(6);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      spent.forEach((route, ms) -> System.out.printf("%n%s, ms per call: %s", route, ms));
      browser.shutdownNow();
      server.close();
      try (var s = Files.walk(dir)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }

    /** Wall time of each call per route, ms, printed at tear-down to show where the page's time goes. */
    final java.util.Map<String, java.util.Queue<Long>> spent =
        new java.util.concurrent.ConcurrentHashMap<>();

    HttpResponse<String> get(String pathAndQuery) {
      long t0 = System.nanoTime();
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(pathAndQuery))
            .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          throw new IllegalStateException(pathAndQuery + " answered " + r.statusCode() + ": "
              + r.body());
        }
        spent.computeIfAbsent(pathAndQuery.replaceAll("\\?.*", ""),
            k -> new java.util.concurrent.ConcurrentLinkedQueue<>())
            .add((System.nanoTime() - t0) / 1_000_000);
        return r;
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** @return the number of targets with sparklines (100) */
  @Benchmark
  public int overview100(Loaded l) throws Exception {
    // The page's range ends at the present, as overview.js asks: the newest steps are new.
    long end = System.currentTimeMillis() / 1000;
    String range = "start=" + (end - 6 * 3600) + "&end=" + end;
    CompletableFuture<HttpResponse<String>> sparks = CompletableFuture.supplyAsync(
        () -> l.get("/api/v1/sparklines?signal=" + SPARKS + "&" + range + "&points=120"),
        l.browser);
    CompletableFuture<HttpResponse<String>> targets = CompletableFuture.supplyAsync(
        () -> l.get("/api/v1/targets?" + range), l.browser);
    CompletableFuture<HttpResponse<String>> diagnoses = CompletableFuture.supplyAsync(
        () -> l.get("/api/v1/diagnoses?" + range), l.browser);
    JsonNode list = JSON.readTree(targets.get().body()).path("data").path("targets");
    diagnoses.get();
    if (list.size() != TARGETS) {
      throw new IllegalStateException(list.size() + " targets, expected " + TARGETS);
    }
    JsonNode rows = JSON.readTree(sparks.get().body()).path("data").path("targets");
    if (rows.size() != TARGETS) {
      throw new IllegalStateException(rows.size() + " sparkline rows, expected " + TARGETS);
    }
    return rows.size();
  }
}
