package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Prometheus 2.42 scrapes the vLLM 0.13 fixture every second and remote-writes to
 * InferLens with {@code metadata_config: {send: true, send_interval: 1s}} and
 * {@code send_exemplars: false}. The metadata InferLens then serves at {@code /api/v1/metadata}
 * must be what Prometheus itself serves there for the same scrape (type and help of every family
 * of the fixture), and the repeated sends must neither fail nor change it.
 */
class PrometheusMetadataEndToEndTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FIXTURE = "/fixtures/vllm-0.13-v1.prom";

  @TempDir Path dir;

  @Test
  void metadataPrometheusSendsIsWhatPrometheusServes() throws Exception {
    ExternalProcesses.requireBinary(PrometheusEndToEndTest.PROMETHEUS, "prometheus");
    byte[] fixture;
    try (InputStream in = getClass().getResourceAsStream(FIXTURE)) {
      assertThat(in).as(FIXTURE).isNotNull();
      fixture = in.readAllBytes();
    }
    Set<String> families = families(new String(fixture, StandardCharsets.UTF_8));
    assertThat(families).hasSizeGreaterThan(20);

    HttpServer exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    exporter.createContext("/metrics", ex -> {
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      ex.sendResponseHeaders(200, fixture.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(fixture);
      }
    });
    exporter.start();
    InferLensServer rx = InferLensServer.start(ServerConfig.forTests(dir.resolve("inferlens")),
        Clock.systemUTC());
    URI rxBase = URI.create("http://127.0.0.1:" + rx.port());
    ExternalProcesses.Prom prom = null;
    try {
      prom = ExternalProcesses.startPrometheus(dir, "prom", String.join("\n",
          "global:",
          "  scrape_interval: 1s",
          "scrape_configs:",
          "  - job_name: vllm",
          "    static_configs:",
          "      - targets: ['127.0.0.1:" + exporter.getAddress().getPort() + "']",
          "remote_write:",
          "  - url: " + rxBase + "/api/v1/write",
          "    send_exemplars: false",
          "    metadata_config:",
          "      send: true",
          "      send_interval: 1s",
          ""));
      prom.awaitReady();
      // Prometheus's own answer for the same scrape is the oracle.
      Map<String, Set<JsonNode>> expected = awaitMetadata(prom.base(), families, prom);
      Map<String, Set<JsonNode>> got = awaitMetadata(rxBase, families, prom);
      assertThat(got).isEqualTo(expected);
      assertThat(expected.get("vllm:num_requests_waiting")).containsExactly(JSON.readTree(
          "{\"type\":\"gauge\",\"help\":\"Number of requests waiting to be processed.\","
              + "\"unit\":\"\"}"));
      assertThat(expected.get("vllm:time_to_first_token_seconds").iterator().next()
          .get("type").asText()).isEqualTo("histogram");

      // Two more sends (1 s apart) arrive, succeed, and change nothing.
      double received = selfMetric(rxBase, "inferlens_metadata_received_total");
      long deadline = System.currentTimeMillis() + 15_000;
      while (selfMetric(rxBase, "inferlens_metadata_received_total")
          < received + 2 * families.size() && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      assertThat(selfMetric(rxBase, "inferlens_metadata_received_total"))
          .isGreaterThanOrEqualTo(received + 2 * families.size());
      assertThat(selfMetric(rxBase, "inferlens_metadata_rejected_total")).isZero();
      assertThat(metadata(rxBase, families)).isEqualTo(expected);
      String promMetrics = Requests.get(prom.base().resolve("/metrics")).body();
      assertThat(promMetrics).contains("prometheus_remote_storage_metadata_failed_total{");
      for (String line : promMetrics.split("\n")) {
        if (line.startsWith("prometheus_remote_storage_metadata_failed_total{")) {
          assertThat(line).as("Prometheus's failed metadata sends").endsWith(" 0");
        }
      }
    } finally {
      if (prom != null) {
        ExternalProcesses.stop(prom.process());
      }
      rx.close();
      exporter.stop(0);
    }
  }

  /** @return the family names of {@code # TYPE} and {@code # HELP} lines of an exposition */
  private static Set<String> families(String exposition) {
    Set<String> out = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.startsWith("# TYPE ") || line.startsWith("# HELP ")) {
        String[] parts = line.split(" ", 4);
        out.add(parts[2]);
      }
    }
    return out;
  }

  /** Polls {@code /api/v1/metadata} until every family is there (at most 30 s). */
  private static Map<String, Set<JsonNode>> awaitMetadata(URI base, Set<String> families,
      ExternalProcesses.Prom prom) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    Map<String, Set<JsonNode>> got = Map.of();
    while (System.currentTimeMillis() < deadline) {
      assertThat(prom.process().isAlive()).as("prometheus alive; log:\n%s",
          ExternalProcesses.tail(prom.log())).isTrue();
      got = metadata(base, families);
      if (got.keySet().containsAll(families)) {
        return got;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(base + " has metadata of " + got.keySet() + ", not of all of "
        + families + "; prometheus log:\n" + ExternalProcesses.tail(prom.log()));
  }

  /** @return the families of {@code /api/v1/metadata} among {@code families}, entries as sets */
  private static Map<String, Set<JsonNode>> metadata(URI base, Set<String> families)
      throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/metadata"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode data = JSON.readTree(r.body()).get("data");
    Map<String, Set<JsonNode>> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : data.properties()) {
      if (families.contains(e.getKey())) {
        Set<JsonNode> entries = new HashSet<>();
        e.getValue().forEach(entries::add);
        out.put(e.getKey(), entries);
      }
    }
    return out;
  }

  /** @return the value of an unlabelled line of InferLens's {@code /metrics}, or 0 */
  private static double selfMetric(URI base, String name) {
    for (String line : Requests.get(base.resolve("/metrics")).body().split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    return 0;
  }
}
