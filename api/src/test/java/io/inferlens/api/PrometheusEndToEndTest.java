package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Prometheus from Debian scrapes itself every second and remote-writes to InferLens with
 * its default remote_write settings (metadata included). For several series, the samples
 * InferLens stored must be exactly those Prometheus holds — same timestamps, same raw value bits —
 * before and after InferLens restarts (Prometheus retries while it is down).
 */
class PrometheusEndToEndTest {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final ObjectMapper JSON = new ObjectMapper();
  /** Series compared; all exist in Prometheus's self-scrape from the first scrape on. */
  static final List<String> SELECTORS = List.of(
      "up{job=\"prometheus\"}",
      "scrape_samples_scraped{job=\"prometheus\"}",
      "scrape_duration_seconds{job=\"prometheus\"}",
      "prometheus_tsdb_head_samples_appended_total{job=\"prometheus\",type=\"float\"}",
      "go_goroutines{job=\"prometheus\"}",
      "process_resident_memory_bytes{job=\"prometheus\"}");

  @TempDir Path dir;

  @Test
  void samplesStoredByInferLensEqualThoseInPrometheus() throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    int rxPort = ExternalProcesses.freePort();
    Path data = dir.resolve("inferlens");
    ServerConfig cfg = new ServerConfig(new InetSocketAddress("127.0.0.1", rxPort), data,
        ServerConfig.DEFAULT_RETENTION_MS, ServerConfig.DEFAULT_MAX_REQUEST_BYTES,
        ServerConfig.DEFAULT_MAX_FUTURE_MS, false);
    InferLensServer rx = InferLensServer.start(cfg, Clock.systemUTC());
    URI rxBase = URI.create("http://127.0.0.1:" + rxPort);

    int promPort = ExternalProcesses.freePort();
    URI promBase = URI.create("http://127.0.0.1:" + promPort);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "scrape_configs:",
        "  - job_name: prometheus",
        "    static_configs:",
        "      - targets: ['127.0.0.1:" + promPort + "']",
        "remote_write:",
        "  - url: " + rxBase + "/api/v1/write",
        ""));
    Path promLog = dir.resolve("prometheus.log");
    Process prom = new ProcessBuilder(PROMETHEUS.toString(),
        "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("prom-data"),
        "--web.listen-address=127.0.0.1:" + promPort)
        .redirectErrorStream(true).redirectOutput(promLog.toFile()).start();
    try {
      ExternalProcesses.awaitOk(promBase.resolve("/-/ready"), prom, Duration.ofSeconds(60),
          promLog);
      // Let a dozen scrapes happen and reach InferLens (batch_send_deadline is 5 s by default).
      long firstCut = awaitCutoff(rxBase, System.currentTimeMillis() + 12_000, prom, promLog);
      compareAll(promBase, rxBase, firstCut);

      // Restart InferLens on the same port and data directory; Prometheus retries meanwhile.
      rx.close();
      Thread.sleep(2_000);
      rx = InferLensServer.start(cfg, Clock.systemUTC());
      compareAll(promBase, rxBase, firstCut);
      long secondCut = awaitCutoff(rxBase, System.currentTimeMillis() + 8_000, prom, promLog);
      compareAll(promBase, rxBase, secondCut);
      // The window spans the restart: nothing was lost while InferLens was down.
      assertThat(secondCut - firstCut).isGreaterThan(8_000);
    } finally {
      ExternalProcesses.stop(prom);
      rx.close();
    }
  }

  /**
   * Waits until wall time passes {@code cutMs} and InferLens holds an {@code up} sample newer than
   * it, so everything Prometheus scraped up to the cut has been sent; returns the cut.
   */
  private static long awaitCutoff(URI rx, long cutMs, Process prom, Path log) throws Exception {
    long deadline = cutMs + 60_000;
    while (System.currentTimeMillis() < deadline) {
      assertThat(prom.isAlive()).as("prometheus alive; log:\n%s", ExternalProcesses.tail(log))
          .isTrue();
      Map<Long, Long> up = export(rx, "up{job=\"prometheus\"}", cutMs - 3_600_000L,
          System.currentTimeMillis() + 60_000);
      if (!up.isEmpty() && ((TreeMap<Long, Long>) up).lastKey() > cutMs + 2_000) {
        return cutMs;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("InferLens received no sample past " + cutMs + "; prometheus log:\n"
        + ExternalProcesses.tail(log));
  }

  private static void compareAll(URI prom, URI rx, long cutMs) throws Exception {
    for (String sel : SELECTORS) {
      Map<Long, Long> fromProm = promSamples(prom, sel, cutMs);
      assertThat(fromProm.size()).as("Prometheus samples of %s", sel).isGreaterThanOrEqualTo(5);
      long first = ((TreeMap<Long, Long>) fromProm).firstKey();
      Map<Long, Long> fromRx = export(rx, sel, first, cutMs);
      // Prometheus never returns stale markers from queries; leave them out of our side too.
      fromRx.values().removeIf(bits -> bits == 0x7ff0000000000002L);
      // Each remote-write shard sends in order, but shards progress independently: give a
      // lagging shard a few seconds before calling a difference a loss.
      for (int attempt = 0; attempt < 15 && !fromRx.equals(fromProm); attempt++) {
        Thread.sleep(1_000);
        fromRx = export(rx, sel, first, cutMs);
        fromRx.values().removeIf(bits -> bits == 0x7ff0000000000002L);
      }
      assertThat(fromRx).as("samples of %s up to %d ms", sel, cutMs).isEqualTo(fromProm);
    }
  }

  /** Raw samples of one series up to {@code cutMs}, timestamp ms → value bits, from a range query. */
  private static Map<Long, Long> promSamples(URI prom, String selector, long cutMs)
      throws Exception {
    String query = selector + "[10m]";
    HttpResponse<String> r = Requests.get(prom.resolve("/api/v1/query?query="
        + Requests.enc(query) + "&time=" + new BigDecimal(cutMs).movePointLeft(3)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = JSON.readTree(r.body()).get("data").get("result");
    assertThat(result).as("series %s in Prometheus", selector).hasSize(1);
    Map<Long, Long> out = new TreeMap<>();
    for (JsonNode pair : result.get(0).get("values")) {
      long ts = new BigDecimal(pair.get(0).asText()).movePointRight(3).longValueExact();
      out.put(ts, Double.doubleToRawLongBits(parseGoFloat(pair.get(1).asText())));
    }
    return out;
  }

  /** Raw samples from InferLens's export, timestamp ms → value bits. */
  private static Map<Long, Long> export(URI rx, String selector, long startMs, long endMs)
      throws Exception {
    HttpResponse<String> r = Requests.get(rx.resolve("/api/v1/export?match[]="
        + Requests.enc(selector) + "&start=" + new BigDecimal(startMs).movePointLeft(3)
        + "&end=" + new BigDecimal(endMs).movePointLeft(3)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Map<Long, Long> out = new TreeMap<>();
    List<String> lines = new ArrayList<>();
    for (String l : r.body().split("\n")) {
      if (!l.isBlank()) {
        lines.add(l);
      }
    }
    assertThat(lines.size()).as("series for %s", selector).isLessThanOrEqualTo(1);
    for (String line : lines) {
      JsonNode n = JSON.readTree(line);
      for (int i = 0; i < n.get("timestamps").size(); i++) {
        JsonNode v = n.get("values").get(i);
        double d = v.isTextual() ? parseGoFloat(v.asText()) : v.doubleValue();
        long bits = v.isTextual() && "NaN".equals(v.asText()) ? 0x7ff0000000000002L
            : Double.doubleToRawLongBits(d);
        out.put(n.get("timestamps").get(i).asLong(), bits);
      }
    }
    return out;
  }

  private static double parseGoFloat(String s) {
    switch (s) {
      case "+Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      case "NaN": return Double.NaN;
      default: return Double.parseDouble(s);
    }
  }
}
