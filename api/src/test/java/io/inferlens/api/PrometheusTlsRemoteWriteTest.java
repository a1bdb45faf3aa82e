package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Prometheus against an InferLens that serves only HTTPS with basic authentication: it
 * scrapes InferLens's {@code /metrics} ({@code scheme: https}, {@code basic_auth},
 * {@code tls_config.ca_file}) every second and remote-writes what it scraped to InferLens with
 * the same credentials and CA, and a second remote-write queue with a wrong password is refused.
 * The scraped samples must arrive: InferLens answers them to a PromQL query over HTTPS.
 */
class PrometheusTlsRemoteWriteTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void prometheusScrapesAndRemoteWritesOverTlsWithBasicAuth() throws Exception {
    ExternalProcesses.requireBinary(PrometheusEndToEndTest.PROMETHEUS, "prometheus");
    TestTls.Cert cert = TestTls.selfSigned(dir);
    Path web = TestTls.webConfig(dir, String.join("\n",
        "tls_server_config:",
        "  cert_file: " + cert.certFile(),
        "  key_file: " + cert.keyFile(),
        "basic_auth_users:",
        "  prometheus: " + TestTls.bcrypt("s3cret"),
        ""));
    InferLensServer rx = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withEvalInterval(0).withWeb(new WebOptions(WebConfigFile.load(web), false)),
        Clock.systemUTC());
    ExternalProcesses.Prom prom = null;
    try {
      String target = "127.0.0.1:" + rx.port();
      String tls = "    tls_config:\n      ca_file: " + cert.certFile() + "\n";
      String yaml = "global:\n  scrape_interval: 1s\n"
          + "scrape_configs:\n"
          + "  - job_name: inferlens\n"
          + "    scheme: https\n"
          + "    basic_auth:\n      username: prometheus\n      password: s3cret\n"
          + tls
          + "    static_configs:\n      - targets: ['" + target + "']\n"
          + "remote_write:\n"
          + "  - url: https://" + target + "/api/v1/write\n"
          + "    name: good\n"
          + "    basic_auth:\n      username: prometheus\n      password: s3cret\n"
          + tls
          + "    queue_config:\n      batch_send_deadline: 1s\n"
          + "  - url: https://" + target + "/api/v1/write\n"
          + "    name: wrong-password\n"
          + "    basic_auth:\n      username: prometheus\n      password: guess\n"
          + tls
          + "    queue_config:\n      batch_send_deadline: 1s\n";
      prom = ExternalProcesses.startPrometheus(dir, "prometheus", yaml);
      prom.awaitReady();

      HttpClient client = TestTls.client(cert.certFile());
      String auth = TestTls.basic("prometheus", "s3cret");
      URI query = URI.create("https://" + target + "/api/v1/query?query="
          + Requests.enc("up{job=\"inferlens\"}"));
      JsonNode result = null;
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (System.nanoTime() < deadline) {
        assertThat(prom.process().isAlive()).as("prometheus alive; log:\n%s",
            ExternalProcesses.tail(prom.log())).isTrue();
        HttpResponse<String> r = TestTls.send(client, query, auth, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        result = JSON.readTree(r.body()).path("data").path("result");
        if (result.size() > 0) {
          break;
        }
        Thread.sleep(500);
      }
      assertThat(result).as("up{job=\"inferlens\"} remote-written over TLS; prometheus log:\n%s",
          ExternalProcesses.tail(prom.log())).hasSize(1);
      // 1: the scrape over TLS with basic auth succeeded.
      assertThat(result.get(0).path("value").get(1).asText()).isEqualTo("1");
      assertThat(result.get(0).path("metric").path("instance").asText()).isEqualTo(target);

      // An InferLens self-metric that travelled scrape → Prometheus → remote write.
      HttpResponse<String> writable = TestTls.send(client, URI.create("https://" + target
          + "/api/v1/query?query=" + Requests.enc("inferlens_store_writable{job=\"inferlens\"}")),
          auth, null);
      assertThat(JSON.readTree(writable.body()).path("data").path("result")).hasSize(1);

      // The queue with the wrong password got 401s: Prometheus drops (4xx), it does not retry.
      double failed = 0;
      while (System.nanoTime() < deadline && failed == 0) {
        failed = failedSamples(prom.base());
        Thread.sleep(500);
      }
      assertThat(failed).as("samples the wrong-password queue failed to send").isPositive();
    } finally {
      if (prom != null) {
        ExternalProcesses.stop(prom.process());
      }
      rx.close();
    }
  }

  /** @return Prometheus's own count of samples its wrong-password queue failed to send */
  private static double failedSamples(URI prom) {
    double sum = 0;
    for (String line : Requests.get(prom.resolve("/metrics")).body().split("\n")) {
      // 2.x names it prometheus_remote_storage_samples_failed_total (older: failed_samples).
      if ((line.startsWith("prometheus_remote_storage_samples_failed_total{")
          || line.startsWith("prometheus_remote_storage_failed_samples_total{"))
          && line.contains("remote_name=\"wrong-password\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
